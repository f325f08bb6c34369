# METADATA
# title: The h3a layout's model
# description: >-
#   What the shipped h3a rules share about an h3a run: its gates and how far
#   each source says they have got, the gates ledger, the current task, its
#   executor cycles and verdicts, what their statuses mean, and whether a path
#   is proven evidence. Built for the shipped rules; user rules may import it
#   (import data.h3a.model), but it follows the h3a layout and changes with it.
package h3a.model

import data.h3a.lib

# --- gates ------------------------------------------------------------------

# gate_names are the gates in order, as state.json names them.
gate_names := ["G0_planning", "G1_implementation", "G2_validation", "G3_production_ready"]

gate_numbers := numbers.range(0, 3)

# gate_from_name reads the gate number of "G1", "G1_implementation" or "G1_passed".
# (String builtins, not a regex: it runs for every ledger event.)
gate_from_name(s) := to_number(digit) if {
	is_string(s)
	startswith(s, "G")
	digit := substring(s, 1, 1)
	digit in {"0", "1", "2", "3"}
	gate_suffix_ok(substring(s, 2, 1))
}

gate_suffix_ok("")

gate_suffix_ok("_")

# parse_gate_status reads a gate_status such as "G2_passed" into
# {"gate": 2, "status": "passed"}.
parse_gate_status(s) := {"gate": gate_from_name(s), "status": substring(s, 3, -1)} if {
	is_string(s)
	regex.match(`^G[0-3]_(pending|not_started|in_progress|passed|failed)$`, s)
}

# status_frontier is the last gate a gate_status implies is passed: "G2_passed"
# means G0 to G2, "G2_in_progress" G0 and G1; -1 when none.
status_frontier(st) := st.gate if st.status == "passed"

else := st.gate - 1

ledger_events := lib.items(input.docs.gates_ledger.events)

# event_ns[i] is the time of ledger event i, parsed once; absent when
# unreadable.
event_ns := {i: t | some i, ev in ledger_events; t := lib.time_ns(ev.time)}

# event_indexes[[n, status]] holds the indexes of gate n's ledger events
# with that status: worked out once, so that each event looks up the few
# that matter instead of scanning every earlier event.
event_indexes[[n, status]] contains i if {
	some i, ev in ledger_events
	n := event_gates[i]
	n >= 0
	status := ev.status
}

# last_before is the index of the last ledger event before index i of gate
# n with status.
last_before(i, n, status) := max(found) if {
	found := {j | some j in event_indexes[[n, status]]; j < i}
	count(found) > 0
}

# out once: rules look it up for every pair of events.
event_gates := [gate_or_none(ev) | some ev in ledger_events]

gate_or_none(ev) := n if {
	n := gate_from_name(ev.gate)
} else := -1

# gate_moves are the event statuses that change a gate's state; other words
# (REVIEWED, NOTE, DECIDED, ...) record something about a gate without moving it.
gate_moves := {"STARTED", "PASSED", "FAILED", "REJECTED", "ESCALATION", "ESCALATED"}

# ledger_latest[n] is the last event that moved gate n, in file order.
ledger_latest := {n: ledger_events[max(indexes)] | some n, indexes in gate_move_indexes}

# gate_move_indexes[n] holds the indexes of the events that moved gate n.
gate_move_indexes[n] contains i if {
	some i, ev in ledger_events
	ev.status in gate_moves
	n := event_gates[i]
	n >= 0
}

# current_task_status and handoff_status are the gate_status of
# CURRENT_TASK.json and SESSION_HANDOFF.json, with where they were read. A
# handoff in the handoff-contract shape states "G1_passed → G2_pending" in
# gate_transition instead; its left side is what has been reached.
current_task_status := {"value": s, "parsed": parse_gate_status(s), "pointer": "/gate_status"} if {
	s := input.docs.current_task.gate_status
}

handoff_status := {"value": s, "parsed": parse_gate_status(s), "pointer": "/gate_status"} if {
	s := input.docs.handoff.gate_status
	is_string(s)
} else := {"value": s, "parsed": parse_gate_status(s), "pointer": "/gate_transition"} if {
	t := input.docs.handoff.gate_transition
	is_string(t)
	s := trim_space(split(t, "→")[0])
}

# gate_sources lists every place that states how far the gates have got, with
# its frontier: the last gate it says is passed (-1 for none). Order decides
# which source the others are compared with.
gate_sources contains src if {
	gates := input.docs.state.gates
	is_object(gates)
	passed := {n | some n in gate_numbers; gates[gate_names[n]] == "passed"}
	src := {
		"order": 0, "name": "state.json gates", "file": lib.doc_file.state, "pointer": "/gates",
		"frontier": max(passed | {-1}),
	}
}

gate_sources contains src if {
	input.docs.gates_ledger != null
	passed := {n | some n in gate_numbers; ledger_latest[n].status == "PASSED"}
	src := {
		"order": 1, "name": "the latest GATES_LEDGER.md events", "file": lib.doc_file.gates_ledger,
		"line": ledger_line, "frontier": max(passed | {-1}),
	}
}

gate_sources contains src if {
	st := current_task_status
	src := {
		"order": 2, "name": sprintf("CURRENT_TASK.json gate_status %q", [st.value]),
		"file": lib.doc_file.current_task, "pointer": st.pointer, "frontier": status_frontier(st.parsed),
	}
}

gate_sources contains src if {
	st := handoff_status
	src := {
		"order": 3, "name": sprintf("SESSION_HANDOFF.json %s %q", [trim_prefix(st.pointer, "/"), st.value]),
		"file": lib.doc_file.handoff, "pointer": st.pointer, "frontier": status_frontier(st.parsed),
	}
}

# The last SESSION_HANDOFF.json history entry is the latest hand-over, and
# its gate is what the agent that handed over had reached: the handoff's
# gate_status is updated with it (h3a-state-specification.md,
# SESSION_HANDOFF.json update protocol: "Agent appends to history[] when
# completing work", "Updates current_agent, next_agent, gate_status"). It is
# a source when it hands a gate over as not passed (failed, in progress,
# pending): a passed gate in it may only lag behind a later gate whose
# hand-over was not appended, but a gate sent back after it passed is not
# passed any more.
gate_sources contains src if {
	history := lib.items(input.docs.handoff.history)
	k := count(history) - 1
	value := history[k].gate
	st := parse_gate_status(value)
	st.status != "passed"
	src := {
		"order": 5, "name": sprintf("SESSION_HANDOFF.json history[%d].gate %q", [k, value]),
		"file": lib.doc_file.handoff, "pointer": sprintf("/history/%d/gate", [k]), "frontier": status_frontier(st),
	}
}

# The gate framework table of GATES_LEDGER.md states each gate's status
# too. It is a source when each of its rows of a gate G0 to G3 has a status
# the checker reads (passed, in progress, failed, not started): a table
# whose statuses cannot be read states nothing to compare.
gate_sources contains src if {
	rows := [[n, r.status, r.line] | some r in lib.items(input.docs.gates_ledger.table); n := gate_from_name(r.gate)]
	count(rows) > 0
	every row in rows {
		row[1] != ""
	}
	frontier := max({n | some [n, status, _] in rows; status == "passed"; not table_row_not_passed(rows, n)} | {-1})
	src := {
		"order": 4, "name": "the GATES_LEDGER.md gate table", "file": lib.doc_file.gates_ledger,
		"line": table_line(rows, frontier), "frontier": frontier,
	}
}

# table_row_not_passed(rows, n): the table has a row of gate n that is not
# passed. A gate written in two rows, one passed and one failed, is not
# passed: a reader cannot tell which row stands.
table_row_not_passed(rows, n) if {
	some [m, status, _] in rows
	m == n
	status != "passed"
}

# table_line is where the table's frontier shows: the row of the gate after
# it (the first it does not have passed, the row that says so first), else
# the row of the frontier. rows are [gate, status, line].
table_line(rows, frontier) := lines[0] if {
	lines := [line | some [n, status, line] in rows; n == frontier + 1; status != "passed"]
	count(lines) > 0
} else := lines[0] if {
	lines := [line | some [n, _, line] in rows; n == frontier + 1]
	count(lines) > 0
} else := lines[0] if {
	lines := [line | some [n, _, line] in rows; n == frontier]
	count(lines) > 0
} else := rows[0][2]

# ledger_line is where a finding about the ledger as a whole points: its last
# event, or the events heading.
ledger_line := ledger_events[count(ledger_events) - 1].line if count(ledger_events) > 0

else := input.docs.gates_ledger.events_line

# claimed_passed holds every gate some source says is passed. Evidence rules
# hold each such claim to its gate's exit criteria.
claimed_passed contains n if {
	some n in gate_numbers
	input.docs.state.gates[gate_names[n]] == "passed"
}

claimed_passed contains n if {
	some n in gate_numbers
	ledger_latest[n].status == "PASSED"
}

claimed_passed contains n if {
	some n in implied_passed(current_task_status)
}

claimed_passed contains n if {
	some n in implied_passed(handoff_status)
}

# implied_passed lists the gates a gate_status implies are passed.
implied_passed(st) := numbers.range(0, f) if {
	f := status_frontier(st.parsed)
	f >= 0
} else := []

# claim_position(n) is where gate n is claimed passed: state.json when it says
# so, else the ledger event, else the gate_status that implies it.
claim_position(n) := {"file": lib.doc_file.state, "pointer": sprintf("/gates/%s", [gate_names[n]])} if {
	input.docs.state.gates[gate_names[n]] == "passed"
} else := {"file": lib.doc_file.gates_ledger, "line": ledger_latest[n].line} if {
	ledger_latest[n].status == "PASSED"
} else := {"file": lib.doc_file.current_task, "pointer": current_task_status.pointer} if {
	status_frontier(current_task_status.parsed) >= n
} else := {"file": lib.doc_file.handoff, "pointer": handoff_status.pointer}

# ledger_has(n, status) holds when the ledger logs gate n with that status.
ledger_has(n, status) if {
	some i, ev in ledger_events
	event_gates[i] == n
	ev.status == status
}

# --- tasks, cycles, verdicts -------------------------------------------------

# current_task_id is the task the run is working on: CURRENT_TASK.json's, else
# the handoff's.
current_task_id := id if {
	id := input.docs.current_task.task_id
	lib.filled(id)
} else := id if {
	id := input.docs.handoff.payload.task_id
	lib.filled(id)
}

roadmap_ids := {t.id | some t in lib.items(input.docs.roadmap.tasks)}

# last_index returns the index of the last element of xs whose task_id is id.
last_index(xs, id) := max(matches) if {
	matches := {i | some i, x in lib.items(xs); x.task_id == id}
	count(matches) > 0
}

cycles := lib.items(input.docs.executor_report.tdd_cycles)

verdicts := lib.items(input.docs.validator_report.verdicts)

# current_cycle is the index of the executor cycle for the current task (its
# last iteration), current_verdict that of its last verdict; with no task id
# known, the last one. Undefined when there is none.
current_cycle := last_index(cycles, current_task_id)

current_cycle := count(cycles) - 1 if {
	not current_task_id
	count(cycles) > 0
}

current_verdict := last_index(verdicts, current_task_id)

current_verdict := count(verdicts) - 1 if {
	not current_task_id
	count(verdicts) > 0
}

# limit is the iteration limit: params.max_iterations (the configuration,
# read at the trusted base in CI), or the task's own max_iterations when
# that is lower. A run may hold itself to fewer attempts, never to more:
# what the change under review writes cannot lift its own limit.
limit := min({n, input.params.max_iterations}) if {
	n := input.docs.current_task.max_iterations
	is_number(n)
} else := input.params.max_iterations

# --- statuses -----------------------------------------------------------------

# What a status means comes from input.meanings, worked out by the checker
# from its one status mapping (docs/status-meanings.md lists it): the three documents spell
# some statuses in more than one way, so rules test the meaning, never a
# spelling.

# verdict_meaning(i) is what the status of verdict i means; undefined for a
# status no document defines.
verdict_meaning(i) := m if {
	m := input.meanings.verdicts[i]
	m != null
}

# verdict_passes(i) holds for a passing verdict (pass, pass_with_notes).
verdict_passes(i) if verdict_meaning(i).outcome == "pass"

# task_meaning is what CURRENT_TASK.json status means.
task_meaning := m if {
	m := input.meanings.task
	m != null
}

# describe_verdict_status(i) quotes verdict i's status and says what it means.
describe_verdict_status(i) := sprintf("status %q (%s)", [m.status, outcome_words[m.outcome]]) if {
	m := verdict_meaning(i)
} else := sprintf("status %s, which no document defines", [written_status(verdicts[i])])

outcome_words := {
	"open": "not decided",
	"pass": "a pass",
	"fail": "a failure, remediation due",
	"escalation": "an escalation to a human",
}

written_status(x) := sprintf("%q", [x.status]) if is_string(x.status)

else := "missing" if not has_status(x)

else := sprintf("%v", [x.status])

has_status(x) if {
	is_object(x)
	"status" in object.keys(x)
}

# passing_verdict_statuses: the passing spellings as they were before the
# status mapping; kept for user rules, the shipped rules use verdict_passes.
passing_verdict_statuses := {"pass", "pass_with_notes"}

# evidence_problem explains why path p is not proven evidence; undefined when
# it is logged, present and its hash verified.
evidence_problem(p) := entry_problem(object.get(input.evidence, lib.clean(p), null))

entry_problem(null) := "is not logged in state/EVIDENCE_LOG.md"

entry_problem(e) := "is logged but resolves to a place outside the run directory" if {
	e != null
	not e.inside_run
} else := "is logged but not present in the run" if {
	e != null
	not e.exists
} else := "is logged but its hash is not verified (see the integrity finding on its EVIDENCE_LOG.md entry)" if {
	e != null
	not e.hash_ok
}
