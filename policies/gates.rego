# METADATA
# title: Gate order and agreement
# description: Gates pass in order, and every place that records how far the gates have got agrees.
# schemas:
#   - input: schema.input.h3a
package h3a.rules.gates

import data.h3a.lib
import data.h3a.model

# METADATA
# title: Gate passed out of order
# description: >-
#   No gate is passed unless every earlier gate is: G2 passed needs G0 and G1 passed.
#   Checked in state.json gates and in the latest GATES_LEDGER.md event of each gate. A
#   gate_status such as "G2_passed" implies every earlier gate, so CURRENT_TASK.json and
#   SESSION_HANDOFF.json are held to the order by h3a.gates.sources_disagree.
#   gate_framework.md, Purpose: each gate "cannot be skipped"; Entry Criteria of G1, G2 and
#   G3: "G0 passed", "G1 passed", "G2 passed".
# custom:
#   id: h3a.gates.order
#   category: gates
#   severity: error
#   remediation: >-
#     pass the earlier gate first (with its evidence), or set the later gate back to
#     the status it really has; a gate is never skipped
deny contains f if {
	some v in order_violations
	f := lib.finding(rego.metadata.rule(), v)
}

order_violations contains v if {
	gates := input.docs.state.gates
	is_object(gates)
	some n in model.gate_numbers
	gates[model.gate_names[n]] == "passed"
	earlier := [sprintf("%s is %q", [model.gate_names[m], value]) |
		some m in model.gate_numbers
		m < n
		value := object.get(gates, model.gate_names[m], "missing")
		value != "passed"
	]
	count(earlier) > 0
	v := {
		"msg": sprintf("%s is \"passed\" in state.json gates, but the earlier %s", [model.gate_names[n], concat(" and ", earlier)]),
		"file": lib.doc_file.state,
		"pointer": sprintf("/gates/%s", [model.gate_names[n]]),
		"gate": sprintf("G%d", [n]),
	}
}

order_violations contains v if {
	some n in model.gate_numbers
	ev := model.ledger_latest[n]
	ev.status == "PASSED"
	earlier := [describe_latest(m) |
		some m in model.gate_numbers
		m < n
		not model.ledger_latest[m].status == "PASSED"
	]
	count(earlier) > 0
	v := {
		"msg": sprintf("%s PASSED in GATES_LEDGER.md, but %s", [ev.gate, concat(" and ", earlier)]),
		"file": lib.doc_file.gates_ledger,
		"line": ev.line,
		"gate": sprintf("G%d", [n]),
	}
}

describe_latest(m) := sprintf("the latest event of the earlier gate G%d is %s (line %d)", [m, ev.status, ev.line]) if {
	ev := model.ledger_latest[m]
} else := sprintf("the earlier gate G%d has no event", [m])

# METADATA
# title: Gate records disagree
# description: >-
#   state.json gates, the latest GATES_LEDGER.md events, CURRENT_TASK.json gate_status,
#   SESSION_HANDOFF.json gate_status and the GATES_LEDGER.md gate table (when each of its
#   gates has a status the checker reads) must agree on the last passed gate. Each source is
#   compared with the first present of that list, and a disagreement names both places. Only
#   the last passed gate is compared: the handoff is written at hand-over time, so it may
#   lag behind a gate that is merely in progress. h3a-state-specification.md, "State Files
#   (Single Source of Truth)"; handoff_contracts.md, Handoff Rejection Protocol: "Gate
#   status incorrect (e.g., G0 not passed before H1)".
# custom:
#   id: h3a.gates.sources_disagree
#   category: gates
#   severity: error
#   remediation: >-
#     find out which record is right (the ledger and its evidence usually are) and bring
#     the others in line by appending to them, never by deleting history
deny contains f if {
	some v in disagreements
	f := lib.finding(rego.metadata.rule(), v)
}

reference_source := src if {
	first := min({s.order | some s in model.gate_sources})
	some src in model.gate_sources
	src.order == first
}

disagreements contains v if {
	ref := reference_source
	some src in model.gate_sources
	src.order > ref.order
	src.frontier != ref.frontier
	v := object.union(object.filter(src, ["file", "pointer", "line"]), {"msg": sprintf(
		"last passed gate disagrees: %s says %s, but %s says %s",
		[src.name, frontier_name(src.frontier), ref.name, frontier_name(ref.frontier)],
	)})
}

frontier_name(n) := model.gate_names[n] if n >= 0

else := "no gate"

# METADATA
# title: Task complete before G2 passed
# description: >-
#   CURRENT_TASK.json status means the task passed (complete) while no record has
#   G2_validation passed: not state.json gates, not the latest G2 event of GATES_LEDGER.md,
#   not a gate_status of CURRENT_TASK.json or SESSION_HANDOFF.json. (A record that does say
#   so is held to G2's exit criteria by h3a.evidence.g2_exit_criteria, and the others to it
#   by h3a.gates.sources_disagree.) h3a-state-specification.md, Task Lifecycle: "validation
#   (G2_in_progress)", "[PASS] → complete (G2_passed)"; CURRENT_TASK.json State Machine:
#   "awaiting_planner → in_progress → validation → complete"; gate_framework.md, G2 Exit
#   Criteria: "Gate logged | GATES_LEDGER.md shows G2 verdict (PASSED/FAILED)".
# custom:
#   id: h3a.gates.complete_before_validation
#   category: gates
#   severity: error
#   remediation: >-
#     a task is complete when the validator passes it: set CURRENT_TASK.json status back
#     to the step it has reached (validation, awaiting_validation, in_progress) until G2
#     has passed and is logged
deny contains f if {
	model.task_meaning.outcome == "pass"
	not 2 in model.claimed_passed
	f := lib.finding(rego.metadata.rule(), object.union(
		{
			"msg": sprintf("CURRENT_TASK.json status %q says the task passed validation, but G2_validation is not passed: %s", [input.docs.current_task.status, g2_progress]),
			"file": lib.doc_file.current_task,
			"pointer": "/status",
			"gate": "G2",
		},
		{"task_id": id | id := model.current_task_id},
	))
}

# g2_records says what each record that states G2's progress says of it.
g2_records contains sprintf("state.json gates has G2_validation %s", [lib.describe_field(input.docs.state.gates, "G2_validation")]) if {
	is_object(input.docs.state.gates)
}

g2_records contains sprintf("the latest G2 event of GATES_LEDGER.md is %s (line %d)", [ev.status, ev.line]) if {
	ev := model.ledger_latest[2]
}

g2_records contains "GATES_LEDGER.md has no G2 event" if {
	lib.doc_file.gates_ledger
	not model.ledger_latest[2]
}

g2_records contains sprintf("CURRENT_TASK.json gate_status is %q", [model.current_task_status.value]) if {
	model.current_task_status
}

# g2_progress is what the records say of G2, or that none says anything.
g2_progress := concat("; ", g2_records) if count(g2_records) > 0

else := "no record states its progress"

# METADATA
# title: state.json step says a passed gate failed
# description: >-
#   The last state.json step of the current task for a gate (by its gate) has status failed,
#   while a record claims that gate passed, and no later step corrects the task. state.json
#   is the append-only history: a gate that failed and then passed shows a later step for
#   it, and a wrong step is set right by a correction step, never by the other records
#   alone. h3a-state-specification.md, state.json: "Append-only execution history (audit
#   log)", update protocol: "Never rewrite or delete history", "Corrections add a new step
#   with corrects: <task_id>"; "State Files (Single Source of Truth)".
# custom:
#   id: h3a.gates.step_contradicts
#   category: gates
#   severity: error
#   remediation: >-
#     if the gate passed after it failed, append the step of that passing attempt to
#     state.json steps (or a correction step with corrects: <task_id>); otherwise the gate
#     is not passed, so set it back in every record
deny contains f if {
	some n, i in last_gate_step
	steps[i].status == "failed"
	n in model.claimed_passed
	not corrected_after(i)
	f := lib.finding(rego.metadata.rule(), object.union(
		{
			"msg": sprintf("state.json step %d, the last step of task %q for %s, has status \"failed\", but %s says the gate passed, and no later step records it passing or corrects it", [i, steps[i].task_id, model.gate_names[n], claim_name(n)]),
			"file": lib.doc_file.state,
			"pointer": sprintf("/steps/%d/status", [i]),
			"gate": sprintf("G%d", [n]),
		},
		{"task_id": steps[i].task_id},
	))
}

steps := lib.items(input.docs.state.steps)

# last_gate_step[n] is the index of the last state.json step of the current
# task for gate n.
last_gate_step[n] := max(indexes) if {
	id := model.current_task_id
	some n in model.gate_numbers
	indexes := {i |
		some i, s in steps
		s.task_id == id
		model.gate_from_name(s.gate) == n
	}
	count(indexes) > 0
}

corrected_after(i) if {
	some j, s in steps
	j > i
	s.corrects == steps[i].task_id
}

# claim_name names the record that claims gate n passed.
claim_name(n) := "state.json gates" if {
	input.docs.state.gates[model.gate_names[n]] == "passed"
} else := sprintf("GATES_LEDGER.md (line %d)", [model.ledger_latest[n].line]) if {
	model.ledger_latest[n].status == "PASSED"
} else := "a gate_status"
