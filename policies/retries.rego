# METADATA
# title: Retry limits and escalation
# description: >-
#   A task is retried at most max_iterations times (params.max_iterations, default 2;
#   CURRENT_TASK.json max_iterations may only lower it); past that a human decides.
# schemas:
#   - input: schema.input.h3a
package h3a.rules.retries

import data.h3a.lib
import data.h3a.model

ct := input.docs.current_task

# METADATA
# title: Iteration limit exceeded
# description: >-
#   iteration_count in CURRENT_TASK.json or in an executor cycle is greater than the limit:
#   params.max_iterations (default 2), or CURRENT_TASK.json max_iterations where lower, and the task
#   is not escalated. An escalated task (CURRENT_TASK.json status escalation_required) is
#   where the limit leads: it needs a human (h3a.retries.escalation) instead of failing.
#   gate_framework.md, Iteration Limits: "Max 2 iterations per gate before escalation".
# custom:
#   id: h3a.retries.over_limit
#   category: retries
#   severity: error
#   remediation: >-
#     stop retrying: set CURRENT_TASK.json status to escalation_required, log an
#     ESCALATION event in GATES_LEDGER.md and write artifacts/escalation/issue_<task-id>.md;
#     the run then needs a human instead of failing.
#     A person whose key the base's humans.allowed-signers lists reviews the attempts,
#     records the decision as a GATES_LEDGER.md event by agent "human" and, for a retry,
#     sets iteration_count back to 0 in the same signed commit
deny contains f if {
	some v in over_limit
	f := lib.finding(rego.metadata.rule(), v)
}

over_limit contains v if {
	n := ct.iteration_count
	is_number(n)
	n > model.limit
	not task_escalated
	v := object.union(task, {
		"msg": sprintf("iteration_count %v exceeds the limit of %v iterations", [n, model.limit]),
		"file": lib.doc_file.current_task,
		"pointer": "/iteration_count",
	})
}

over_limit contains v if {
	some i, cycle in model.cycles
	n := cycle.iteration_count
	is_number(n)
	n > model.limit
	not escalated_cycle(cycle)
	v := {
		"msg": sprintf("TDD cycle %d (task %v) has iteration_count %v, over the limit of %v iterations", [i, object.get(cycle, "task_id", "unknown"), n, model.limit]),
		"file": lib.doc_file.executor_report,
		"pointer": sprintf("/tdd_cycles/%d/iteration_count", [i]),
	}
}

# task_escalated: the current task is where the iteration limit leads,
# waiting for a human (undefined status is not escalated: the limit fires).
task_escalated if model.task_meaning.outcome == "escalation"

escalated_cycle(cycle) if {
	task_escalated
	cycle.task_id == model.current_task_id
}

task := {"task_id": model.current_task_id} if model.current_task_id

else := {}

# METADATA
# title: More TDD cycles than iterations reported
# description: >-
#   executor_report.json holds more TDD cycles of the current task than the iteration limit
#   and than CURRENT_TASK.json iteration_count, counting the cycles after the last
#   GATES_LEDGER.md event by agent "human" (a person's reset), and the task is not
#   escalated: the attempts may be under-reported, which would dodge the limit. Each cycle
#   records its iteration (executor_report.json tdd_cycles[].iteration_count), but the
#   specification does not say that a cycle is always a new iteration, so a human
#   looks at it. gate_framework.md, Iteration Limits: "Max 2 iterations per gate before
#   escalation"; h3a-state-specification.md, CURRENT_TASK.json update protocol: "Executor
#   updates status, iteration_count, gate_status".
# custom:
#   id: h3a.retries.cycles_unreported
#   category: retries
#   severity: warning
#   remediation: >-
#     count every attempt in CURRENT_TASK.json iteration_count; past the limit the task goes
#     to escalation_required and a human decides, recorded as a GATES_LEDGER.md event by
#     agent "human"
warn contains f if {
	id := model.current_task_id
	n := ct.iteration_count
	is_number(n)
	not task_escalated
	attempts := [i | some i, c in model.cycles; c.task_id == id; after_last_human(c)]
	count(attempts) > model.limit
	count(attempts) > n
	f := lib.finding(rego.metadata.rule(), object.union(task, {
		"msg": sprintf("executor_report.json holds %d TDD cycles of task %q (cycles %s), more than the limit of %v iterations, but CURRENT_TASK.json iteration_count is %v: a human must check whether the attempts were under-reported", [count(attempts), id, concat(", ", [sprintf("%d", [i]) | some i in attempts]), model.limit, n]),
		"file": lib.doc_file.executor_report,
		"pointer": sprintf("/tdd_cycles/%d", [attempts[count(attempts) - 1]]),
		"gate": "G1",
		"needs_human": true,
	}))
}

# last_human_ns is the time of the ledger's last event by a human: a reset
# of the count (gate_framework.md, Escalation Process: "Reset iteration_count = 0").
last_human_ns := max(times) if {
	times := {model.event_ns[i] | some i, ev in model.ledger_events; lower(ev.agent) == "human"}
	count(times) > 0
}

after_last_human(_) if not last_human_ns

after_last_human(c) if lib.time_ns(c.timestamp) > last_human_ns

after_last_human(c) if {
	last_human_ns
	not cycle_timed(c)
}

cycle_timed(c) if lib.time_ns(c.timestamp)

# METADATA
# title: Escalation needs a human
# description: >-
#   The gate needs a human when CURRENT_TASK.json status means an escalation
#   (escalation_required), when a failed task (failed, remediation_needed) or gate is at
#   iteration_count >= the limit, or when the last verdict's status means an escalation
#   (escalation, escalation_required), unless a human decision is recorded after it: a
#   GATES_LEDGER.md event by agent "human" later than the last FAILED or ESCALATION event,
#   whose provenance lies outside the change under review (the base holds it, a commit
#   signed by a key the base names as a human's added it, or the working tree is the
#   person's own: docs/trust-model.md). A decision the change only claims leaves the
#   escalation in place (and h3a.security.human_claimed asks a reviewer).
#   gate_framework.md, Escalation Protocol: "Gate failed 2 times (iteration_count = 2)",
#   "Human reviews and provides guidance"; h3a-state-specification.md, GATES_LEDGER.md
#   Escalation Protocol: "Action: Human review required".
# custom:
#   id: h3a.retries.escalation
#   category: retries
#   severity: warning
#   remediation: >-
#     a human reviews the failed attempts, records the decision as a GATES_LEDGER.md event
#     by agent "human", updates CURRENT_TASK.json and resets iteration_count to 0
warn contains f if {
	some v in escalations
	not human_decision
	f := lib.finding(rego.metadata.rule(), object.union(object.union(task, gate), object.union(v, {"needs_human": true})))
}

gate := {"gate": sprintf("G%d", [model.current_task_status.parsed.gate])} if model.current_task_status.parsed

else := {}

escalations contains v if {
	model.task_meaning.outcome == "escalation"
	v := {"msg": sprintf("the task's status is %s: a human must decide how to go on", [ct.status]), "file": lib.doc_file.current_task, "pointer": "/status"}
}

escalations contains v if {
	model.task_meaning.outcome == "fail"
	is_number(ct.iteration_count)
	ct.iteration_count >= model.limit
	v := {
		"msg": sprintf("the task is %q after %v of %v iterations: a human must decide how to go on", [ct.status, ct.iteration_count, model.limit]),
		"file": lib.doc_file.current_task,
		"pointer": "/status",
	}
}

escalations contains v if {
	is_number(ct.iteration_count)
	ct.iteration_count >= model.limit
	some n in model.gate_numbers
	input.docs.state.gates[model.gate_names[n]] == "failed"
	v := {
		"msg": sprintf("%s failed after %v of %v iterations: a human must decide how to go on", [model.gate_names[n], ct.iteration_count, model.limit]),
		"file": lib.doc_file.state,
		"pointer": sprintf("/gates/%s", [model.gate_names[n]]),
	}
}

escalations contains v if {
	i := model.current_verdict
	m := model.verdict_meaning(i)
	m.outcome == "escalation"
	v := {"msg": sprintf("the last verdict's status is %s: a human must decide how to go on", [m.status]), "file": lib.doc_file.validator_report, "pointer": sprintf("/verdicts/%d/status", [i])}
}

setbacks := {"FAILED", "ESCALATION", "ESCALATED", "REJECTED"}

escalation_statuses := {"ESCALATION", "ESCALATED"}

# human_decision: the ledger records a person's decision after its last
# setback. A decision the change under review claims does not count here
# (the escalation stays), and h3a.security.human_claimed asks a reviewer.
human_decision if {
	j := last_setback
	some k, ev in model.ledger_events
	k > j
	lib.human_event(ev)
}

last_setback := max({i | some i, ev in model.ledger_events; ev.status in setbacks} | {-1})

# METADATA
# title: A human decision claimed by the change under review
# description: >-
#   A GATES_LEDGER.md event by agent "human" is a person's decision only when its provenance
#   lies outside the change under review: the base revision holds it, the commit that added
#   it is signed by a key the base's configuration names as a human's (humans:
#   allowed-signers or gpg-fingerprints), or the check runs on the person's own working
#   tree (docs/trust-model.md). Any other is claimed: the gate needs a human, who confirms
#   it. A claimed decision clears no escalation (h3a.retries.escalation stays), and where a
#   rule would fail for want of a decision (h3a.retries.third_attempt,
#   h3a.append_only.iteration_count_lowered) it asks for this confirmation instead.
#   gate_framework.md, Escalation Process: "4. Human reviews and provides guidance", "6.
#   Reset `iteration_count = 0` and retry"; Iteration Limits: "3rd+ attempts: Likely
#   architectural issue, needs human review"; h3a-state-specification.md, GATES_LEDGER.md
#   Escalation Protocol: "Action: Human review required".
# custom:
#   id: h3a.security.human_claimed
#   category: security
#   severity: warning
#   remediation: >-
#     a reviewer confirms the decision with the person it names; the person records it in a
#     commit signed with a key that the allowed signers file named by .h3a-check.yaml
#     humans.allowed-signers lists at the base (git commit -S), or the reviewer accepts the
#     change as it is
warn contains f if {
	some ev in model.ledger_events
	lib.claimed_human_event(ev)
	f := lib.finding(rego.metadata.rule(), {
		"msg": sprintf(
			"a human decision claimed in this change; a reviewer must confirm it: %s %s by agent %q at %s was written by the change under review, not in a commit signed by a key the base names as a human's",
			[ev.gate, ev.status, ev.agent, ev.time],
		),
		"file": lib.doc_file.gates_ledger,
		"line": ev.line,
		"needs_human": true,
	})
}

# METADATA
# title: Escalation resolved without a human
# description: >-
#   After an escalation is logged (the last FAILED or ESCALATION event of GATES_LEDGER.md is
#   an ESCALATION), only a person resolves it: a task moved off escalation, or a gate passed
#   since, with no human's decision after the escalation was resolved by an agent, in an
#   artifact or in the task context. The gate needs a human. gate_framework.md, Escalation
#   Process: "2. Update GATES_LEDGER.md with ESCALATION event", "4. Human reviews and
#   provides guidance", "5. Update `CURRENT_TASK.json` with clarifications";
#   h3a-state-specification.md, GATES_LEDGER.md Escalation Protocol: "Action: Human review
#   required".
# custom:
#   id: h3a.retries.resolved_without_human
#   category: retries
#   severity: warning
#   remediation: >-
#     a human reviews the escalation and records the decision as a GATES_LEDGER.md event by
#     agent "human" in a commit signed with their key (docs/trust-model.md)
warn contains f if {
	j := last_setback
	j >= 0
	model.ledger_events[j].status in escalation_statuses
	not human_decision
	count(escalations) == 0 # h3a.retries.escalation already asks for the human
	ev := model.ledger_events[j]
	f := lib.finding(rego.metadata.rule(), object.union(task, {
		"msg": sprintf(
			"%s was escalated at %s (line %d) and no human's decision is recorded since, yet the task has moved on (CURRENT_TASK.json status %v): a person must confirm how it was resolved",
			[ev.gate, ev.time, ev.line, object.get(ct, "status", "absent")],
		),
		"file": lib.doc_file.gates_ledger,
		"line": ev.line,
		"needs_human": true,
	}))
}

# METADATA
# title: Remediation needed without a plan
# description: >-
#   A verdict whose status means a failure with remediation due (fail, needs_remediation)
#   has a remediation_plan, and so has the task's last verdict when CURRENT_TASK.json status
#   is remediation_needed. handoff_contracts.md, H3 Validator's Obligations: "Remediation
#   plan (if failed) | validator_report.json → remediation_plan"; gate_framework.md,
#   Validation Status Types: "FAIL: Blocking issues found, remediation required".
# custom:
#   id: h3a.retries.no_remediation_plan
#   category: retries
#   severity: error
#   remediation: >-
#     the validator writes a specific remediation_plan (what to fix, how to show it is
#     fixed) in the verdict that sent the task back
deny contains f if {
	some v in missing_plan
	f := lib.finding(rego.metadata.rule(), v)
}

missing_plan contains v if {
	some i, verdict in model.verdicts
	m := model.verdict_meaning(i)
	m.remediation_due
	not verdict_has_plan(i)
	v := object.union(verdict_task(verdict), {
		"msg": sprintf("verdict %d has status %q, which sends the task back for remediation, but no remediation_plan", [i, m.status]),
		"file": lib.doc_file.validator_report,
		"pointer": plan_pointer(i),
	})
}

verdict_task(verdict) := {"task_id": verdict.task_id} if lib.filled(verdict.task_id)

else := {}

missing_plan contains v if {
	model.task_meaning.remediation_due
	i := model.current_verdict
	not model.verdict_meaning(i).remediation_due # reported above when it has no plan
	not verdict_has_plan(i)
	v := object.union(task, {
		"msg": sprintf("the task's status is %s but its last verdict has no remediation_plan", [ct.status]),
		"file": lib.doc_file.validator_report,
		"pointer": plan_pointer(i),
	})
}

plan_pointer(i) := sprintf("/verdicts/%d/remediation_plan", [i]) if {
	is_object(model.verdicts[i])
	"remediation_plan" in object.keys(model.verdicts[i])
}

else := sprintf("/verdicts/%d", [i])

missing_plan contains v if {
	model.task_meaning.remediation_due
	not model.current_verdict
	v := object.union(task, {
		"msg": sprintf("the task's status is %s but validator_report.json has no verdict for it, so no remediation_plan", [ct.status]),
		"file": lib.doc_file.current_task,
		"pointer": "/status",
	})
}

# verdict_has_plan wraps the ref: "not f(undefined)" is undefined in Rego.
verdict_has_plan(i) if plan_given(model.verdicts[i].remediation_plan)

plan_given(x) if lib.filled(x)

plan_given(x) if {
	is_array(x)
	count(x) > 0
}

plan_given(x) if {
	is_object(x)
	count(x) > 0
}
