# Attempts past the limit: a third attempt at a gate, in the ledger or in the verdicts, without a human decision.
# (The package and its metadata: retries.rego.)
package h3a.rules.retries

import data.h3a.lib
import data.h3a.model

# METADATA
# title: Third attempt without a human decision
# description: >-
#   After max_iterations (2) failed attempts at a gate, a later attempt that passes it needs
#   an escalation and then a human decision recorded before the pass, whatever
#   iteration_count says. gate_framework.md, Gate Lifecycle & State Machine:
#   "[iteration_count < 2?] [...] NO ──→ escalation_required"; Iteration Limits: "3rd+
#   attempts: Likely architectural issue, needs human review"; Escalation Process: "2.
#   Update GATES_LEDGER.md with ESCALATION event [...] 4. Human reviews and provides
#   guidance"; h3a-state-specification.md, Task Lifecycle: "[iteration_count < 2?] ├─→ YES
#   → back to in_progress └─→ NO → escalation_required". In GATES_LEDGER.md: a PASSED event
#   of a gate after two FAILED events of that gate since it last passed, with no ESCALATION
#   event of the gate followed by an event by agent "human" between the first of them and
#   the pass; and, for an attempt that has not passed (yet), the STARTED event that begins
#   it after two such FAILED events, with no such review before it: the gate went back to
#   in progress where it had to go to escalation. In validator_report.json
#   (when the ledger does not already show it for G2): a passing verdict after two failing
#   verdicts of the task since its last passing one, with no escalation (an escalating
#   verdict of the task, or a ledger ESCALATION event) and a later human event timed
#   between them. A human's event the change under review only claims (docs/trust-model.md)
#   does not make this an error: the run needs a human instead (h3a.security.human_claimed).
# custom:
#   id: h3a.retries.third_attempt
#   category: retries
#   severity: error
#   remediation: >-
#     after two failed attempts the task goes to escalation_required: log the ESCALATION
#     event, have a human review the attempts and record the decision as a GATES_LEDGER.md
#     event by agent "human", then retry; a pass without that review does not count
deny contains f if {
	some v in third_attempts
	f := lib.finding(rego.metadata.rule(), v)
}

# ledger_third_attempts[p]: the PASSED event at index p follows the limit's
# number of FAILED events of its gate since the gate last passed, with no
# review after them. Each gate's events are split at its PASSED events, so
# every event is looked at once per gate, however long the ledger.
ledger_third_attempts[p] := fails if {
	some n in model.gate_numbers
	passes := gate_passes[n]
	some k, p in passes
	prev := previous(passes, k)
	p - prev >= 2
	window := numbers.range(prev + 1, p - 1)
	reviewed := last_review(n, window)
	fails := [i |
		some i in window
		i > reviewed
		model.ledger_events[i].status == "FAILED"
		model.event_gates[i] == n
	]
	at_limit(count(fails))
}

# gate_passes[n] lists the indexes of gate n's PASSED events in order.
gate_passes[n] := sort([i | some i, ev in model.ledger_events; ev.status == "PASSED"; model.event_gates[i] == n]) if {
	some n in model.gate_numbers
}

previous(xs, k) := xs[k - 1] if k > 0

else := -1

# last_review(n, window) is the index of the last ESCALATION event of gate n
# in window that an event by a human follows in window; -1 for none.
last_review(n, window) := max({e |
	some e in window
	e < last_human
	model.ledger_events[e].status in escalation_statuses
	model.event_gates[e] == n
} | {-1}) if {
	humans := {h | some h in window; lower(model.ledger_events[h].agent) == "human"}
	count(humans) > 0
	last_human := max(humans)
} else := -1

# at_limit(k): k failed attempts use up the limit (a limit below 1, which
# the schema refuses, is read as 1).
at_limit(k) if {
	k >= model.limit
	k > 0
}

third_attempts contains v if {
	some p, fails in ledger_third_attempts
	ev := model.ledger_events[p]
	n := model.event_gates[p]
	v := object.union(task, {
		"msg": sprintf(
			"%s PASSED at %s after %d failed attempts of the gate (FAILED at lines %s) with no ESCALATION event followed by a human's decision in between: the attempt past the limit of %v needs a human first",
			[ev.gate, ev.time, count(fails), lines(fails), model.limit],
		),
		"file": lib.doc_file.gates_ledger,
		"line": ev.line,
		"gate": sprintf("G%d", [n]),
	})
}

# ledger_third_starts[n] is the index of the first STARTED event of gate n
# since it last passed that begins an attempt past the limit: the limit's
# number of FAILED events of the gate come before it, since its last pass,
# with no review after them. An attempt that then passes is reported at its
# PASSED event above, so only the STARTED events after the gate's last pass
# are looked at.
ledger_third_starts[n] := min(starts) if {
	some n in model.gate_numbers
	prev := previous(gate_passes[n], count(gate_passes[n]))
	starts := {i | some i in model.event_indexes[[n, "STARTED"]]; i > prev; at_limit(count(unreviewed_failures(n, prev, i)))}
	count(starts) > 0
}

# unreviewed_failures(n, prev, i) lists the FAILED events of gate n between
# index prev and index i that no review (an ESCALATION event of the gate
# followed by a human's event) in between follows.
unreviewed_failures(n, prev, i) := [j |
	i - prev >= 2
	window := numbers.range(prev + 1, i - 1)
	reviewed := last_review(n, window)
	some j in window
	j > reviewed
	model.ledger_events[j].status == "FAILED"
	model.event_gates[j] == n
]

third_attempts contains v if {
	some n, s in ledger_third_starts
	ev := model.ledger_events[s]
	fails := unreviewed_failures(n, previous(gate_passes[n], count(gate_passes[n])), s)
	v := object.union(task, {
		"msg": sprintf(
			"%s STARTED at %s after %d failed attempts of the gate (FAILED at lines %s) with no ESCALATION event followed by a human's decision in between: past the limit of %v iterations the gate goes to escalation_required, and a human decides before another attempt",
			[ev.gate, ev.time, count(fails), lines(fails), model.limit],
		),
		"file": lib.doc_file.gates_ledger,
		"line": ev.line,
		"gate": sprintf("G%d", [n]),
	})
}

# lines names the lines of the first few events, then how many more.
lines(indexes) := concat(", ", [sprintf("%d", [model.ledger_events[i].line]) | some i in indexes]) if count(indexes) <= 4

else := sprintf("%s and %d more", [
	concat(", ", [sprintf("%d", [model.ledger_events[indexes[k]].line]) | some k in numbers.range(0, 2)]),
	count(indexes) - 3,
])

# The verdicts tell the G2 attempts of each task when the ledger does not.
third_attempts contains v if {
	not ledger_shows_g2
	some p, verdict in model.verdicts
	model.verdict_passes(p)
	prev := last_pass_before(verdict.task_id, p)
	fails := [i |
		some i, w in model.verdicts
		i > prev
		i < p
		w.task_id == verdict.task_id
		model.verdict_meaning(i).outcome == "fail"
		not verdict_reviewed(i, p)
	]
	at_limit(count(fails))
	v := object.union({"task_id": verdict.task_id | lib.filled(verdict.task_id)}, {
		"msg": sprintf(
			"verdict %d passes task %v after %d failing verdicts (%s) with no escalation followed by a human's decision in between: the attempt past the limit of %v needs a human first",
			[p, verdict.task_id, count(fails), verdict_list(fails), model.limit],
		),
		"file": lib.doc_file.validator_report,
		"pointer": sprintf("/verdicts/%d/status", [p]),
		"gate": "G2",
	})
}

verdict_list(indexes) := concat(", ", [sprintf("verdict %d", [i]) | some i in indexes]) if count(indexes) <= 4

else := sprintf("verdicts %d, %d, %d and %d more", [indexes[0], indexes[1], indexes[2], count(indexes) - 3])

# last_pass_before(t, p): the index of task t's last passing verdict before
# verdict p (its attempts are counted since), -1 for none.
last_pass_before(t, p) := max({i |
	some i, w in model.verdicts
	i < p
	w.task_id == t
	model.verdict_passes(i)
} | {-1})

ledger_shows_g2 if {
	some p, _ in ledger_third_attempts
	model.event_gates[p] == 2
}

# verdict_reviewed(i, p): between failing verdict i and passing verdict p,
# an escalation was recorded and a human decided after it, by the times
# written. A time that cannot be read shows nothing.
verdict_reviewed(i, p) if {
	some e, w in model.verdicts
	i < e
	e < p
	w.task_id == model.verdicts[p].task_id
	model.verdict_meaning(e).outcome == "escalation"
	human_decided(lib.time_ns(w.timestamp), lib.time_ns(model.verdicts[p].timestamp))
}

verdict_reviewed(i, p) if {
	from := lib.time_ns(model.verdicts[i].timestamp)
	to := lib.time_ns(model.verdicts[p].timestamp)
	some ev in model.ledger_events
	ev.status in escalation_statuses
	t := lib.time_ns(ev.time)
	from <= t
	human_decided(t, to)
}

# human_decided(from, to): a human's ledger event is timed between from and to.
human_decided(from, to) if {
	some ev in model.ledger_events
	lower(ev.agent) == "human"
	t := lib.time_ns(ev.time)
	from <= t
	t <= to
}
