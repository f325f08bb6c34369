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
#   SESSION_HANDOFF.json gate_status, the GATES_LEDGER.md gate table (when each of its
#   gates has a status the checker reads; a gate in more than one row is passed there
#   only when each says so) and the gate of the last SESSION_HANDOFF.json
#   history entry, when it hands a gate over as not passed, must agree on the last passed
#   gate. Each source is compared with the first present of that list, and a disagreement
#   names both places. Only the last passed gate is compared: the handoff is written at
#   hand-over time, so it may lag behind a gate that is merely in progress.
#   CURRENT_TASK.json status agrees too: a
#   status that means the task failed (failed, remediation_needed) contradicts every source
#   that has G2_validation passed, since a task reaches G2_passed only through a passing
#   validation. (An escalated task asks for a human whatever the gates say:
#   h3a.retries.escalation.) h3a-state-specification.md, "State Files (Single Source of
#   Truth)"; Task Lifecycle: "[PASS] → complete (G2_passed)", "[FAIL] → remediation_needed";
#   handoff_contracts.md, Handoff Rejection Protocol: "Gate status incorrect (e.g., G0 not
#   passed before H1)".
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

# CURRENT_TASK.json status says the task failed, while sources have G2 passed.
disagreements contains v if {
	model.task_meaning.outcome == "fail"
	claims := [name | some [_, name] in sort([[s.order, s.name] | some s in model.gate_sources; s.frontier >= 2])]
	count(claims) > 0
	v := object.union(
		{
			"msg": sprintf("CURRENT_TASK.json status %q says the task failed, but %s %s G2_validation passed", [input.docs.current_task.status, word_list(claims), say_word(count(claims))]),
			"file": lib.doc_file.current_task,
			"pointer": "/status",
			"gate": "G2",
			"remediation": "if the validator passed the task, set CURRENT_TASK.json status to complete; otherwise G2 is not passed, so set it back in every record (by appending to the ledger and state.json, never by deleting history)",
		},
		{"task_id": id | id := model.current_task_id},
	)
}

# word_list joins names as "a", "a and b", "a, b and c".
word_list(names) := names[0] if count(names) == 1

else := sprintf("%s and %s", [concat(", ", array.slice(names, 0, count(names) - 1)), names[count(names) - 1]])

say_word(1) := "says"

say_word(n) := "say" if n > 1

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
		step_gates[i] == n
	}
	count(indexes) > 0
}

# step_gates[i] is the gate number of state.json step i, read once for
# every rule that goes through the steps.
step_gates[i] := model.gate_from_name(s.gate) if some i, s in steps

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

# METADATA
# title: Handoff agents contradict the gate it hands over
# description: >-
#   A SESSION_HANDOFF.json handoff that states a gate passed (its gate_status, or the left
#   side of gate_transition; each history entry's gate) comes from that gate's owner and
#   goes to the next gate's: G0 passed from planner to executor (H1), G1 passed from
#   executor to validator (H2), G2 passed from validator to system or planner (H3); a
#   handoff_id names that handoff. A handoff to a human, and from the validator back to the
#   executor or planner with G1 passed (remediation), are accepted too. Only the roles
#   planner, executor, validator and system are judged: another name is left alone.
#   handoff_contracts.md, Handoff Overview: "H1 | Planner | Executor | G0 → G1", "H2 |
#   Executor | Validator | G1 → G2", "H3 | Validator | System/Planner | G2 → G3"; Handoff
#   Rejection Protocol: "Gate status incorrect"; gate_framework.md, G1 Entry Criteria:
#   "Task assigned to Executor | SESSION_HANDOFF.json shows handoff_to: "executor"", G2
#   Entry Criteria: "Task assigned to Validator".
# custom:
#   id: h3a.gates.handoff_agents
#   category: gates
#   severity: error
#   remediation: >-
#     the agent that passed the gate writes the handoff to the next gate's owner; if the
#     handoff is right, its gate_status is wrong: set it to the gate really passed
deny contains f if {
	some v in handoff_contradictions
	f := lib.finding(rego.metadata.rule(), v)
}

# handoff_routes[n] is the handoff after gate n passed: its id, sender and receivers.
handoff_routes := {
	0: {"id": "H1", "from": {"planner"}, "to": {"executor"}},
	1: {"id": "H2", "from": {"executor"}, "to": {"validator"}},
	2: {"id": "H3", "from": {"validator"}, "to": {"system", "planner"}},
}

# remediation_routes are the other handoffs with G1 passed: the validator
# sends the task back.
remediation_routes := {["validator", "executor"], ["validator", "planner"]}

# judged_roles are the agents whose place in the handoffs the contracts
# fix: the owners of the four gates.
judged_roles := {r | some r in gate_owners}

# judged_role(agent) is agent as a role the contracts place, spelt as
# they spell it; undefined for any other agent.
judged_role(agent) := a if {
	is_string(agent)
	a := lower(trim_space(agent))
	a in judged_roles
}

handoff := input.docs.handoff

handoff_contradictions contains v if {
	st := model.handoff_status
	st.parsed.status == "passed"
	n := st.parsed.gate
	some [side, key] in [["from", "current_agent"], ["from", "from_agent"], ["to", "next_agent"], ["to", "to_agent"]]
	agent := handoff[key]
	off_route(n, side, agent, handoff_agent(["current_agent", "from_agent"]), handoff_agent(["next_agent", "to_agent"]))
	v := {
		"msg": sprintf("SESSION_HANDOFF.json %s %q says %s passed, which is handed over %s, but its %s is %q", [trim_prefix(st.pointer, "/"), st.value, model.gate_names[n], route_words(n), key, agent]),
		"file": lib.doc_file.handoff,
		"pointer": sprintf("/%s", [key]),
		"gate": sprintf("G%d", [n]),
	}
}

handoff_contradictions contains v if {
	st := model.handoff_status
	st.parsed.status == "passed"
	n := st.parsed.gate
	id := handoff.handoff_id
	is_string(id)
	upper(trim_space(id)) in {"H1", "H2", "H3"}
	upper(trim_space(id)) != handoff_routes[n].id
	v := {
		"msg": sprintf("SESSION_HANDOFF.json %s %q says %s passed, which is handed over %s, but its handoff_id is %q", [trim_prefix(st.pointer, "/"), st.value, model.gate_names[n], route_words(n), id]),
		"file": lib.doc_file.handoff,
		"pointer": "/handoff_id",
		"gate": sprintf("G%d", [n]),
	}
}

handoff_contradictions contains v if {
	some i, entry in lib.items(handoff.history)
	st := model.parse_gate_status(entry.gate)
	st.status == "passed"
	n := st.gate
	some side in ["from", "to"]
	agent := entry[side]
	off_route(n, side, agent, object.get(entry, "from", null), object.get(entry, "to", null))
	v := {
		"msg": sprintf("SESSION_HANDOFF.json history entry %d has gate %q: %s passed, which is handed over %s, but its %s is %q", [i, entry.gate, model.gate_names[n], route_words(n), side, agent]),
		"file": lib.doc_file.handoff,
		"pointer": sprintf("/history/%d/%s", [i, side]),
		"gate": sprintf("G%d", [n]),
	}
}

# handoff_agent is the first of keys the handoff names as a string, else null.
handoff_agent(keys) := named[0] if {
	named := [a | some k in keys; a := handoff[k]; is_string(a)]
	count(named) > 0
} else := null

# off_route(n, side, agent, from, to): agent, on that side of a handoff from
# from to to with gate n passed, is a role the route of gate n does not name.
off_route(n, side, agent, from, to) if {
	a := judged_role(agent)
	not a in handoff_routes[n][side]
	not remediation(n, from, to)
}

remediation(1, from, to) if [judged_role(from), judged_role(to)] in remediation_routes

route_words(n) := sprintf("from %s to %s (%s)", [concat(" or ", sort(handoff_routes[n].from)), concat(" or ", sort(handoff_routes[n].to)), handoff_routes[n].id])

# METADATA
# title: Gate passed by an agent that does not own it
# description: >-
#   A GATES_LEDGER.md PASSED event, or a state.json step with status passed, names as its
#   agent one of the other roles: G0 is the planner's, G1 the executor's, G2 the
#   validator's and G3 the system's. An executor that passes the validation gate validated
#   its own work. Only the roles planner, executor, validator and system are judged:
#   another name (a human's event, a tool's) is left alone. gate_framework.md, Gate
#   Overview: "G0: Planning | Planner", "G1: Implementation | Executor", "G2: Validation |
#   Validator", "G3: Production-Ready | System"; each gate's "Owner:"; handoff_contracts.md,
#   H3 System/Planner's Assumptions: "Validator independently verified (didn't just trust
#   Executor)".
# custom:
#   id: h3a.gates.gate_owner
#   category: gates
#   severity: error
#   remediation: >-
#     the gate's owner runs it and logs its outcome: hand the work over to that agent; if
#     only the agent name was written wrong, append a corrected event or step
deny contains f if {
	some v in owner_violations
	f := lib.finding(rego.metadata.rule(), v)
}

gate_owners := ["planner", "executor", "validator", "system"]

owner_violations contains v if {
	some i, ev in model.ledger_events
	ev.status == "PASSED"
	n := model.event_gates[i]
	not_owner(n, ev.agent)
	v := {
		"msg": sprintf("%s PASSED at %s by agent %q, but %s is the %s's gate", [ev.gate, ev.time, ev.agent, model.gate_names[n], gate_owners[n]]),
		"file": lib.doc_file.gates_ledger,
		"line": ev.line,
		"gate": sprintf("G%d", [n]),
	}
}

owner_violations contains v if {
	some i, s in steps
	s.status == "passed"
	n := step_gates[i]
	not_owner(n, s.agent)
	v := object.union(
		{
			"msg": sprintf("state.json step %d has %s passed by agent %q, but %s is the %s's gate", [i, s.gate, s.agent, model.gate_names[n], gate_owners[n]]),
			"file": lib.doc_file.state,
			"pointer": sprintf("/steps/%d/agent", [i]),
			"gate": sprintf("G%d", [n]),
		},
		{"task_id": s.task_id | lib.filled(s.task_id)},
	)
}

# not_owner(n, agent): agent is a role the contracts place, not gate n's owner.
not_owner(n, agent) if {
	n >= 0
	judged_role(agent) != gate_owners[n]
}

# METADATA
# title: Handoff rejected, a human must step in
# description: >-
#   SESSION_HANDOFF.json status is "rejected": the receiving agent refused the hand-over
#   (rejected_by, rejection_reason), and the handoff rejection protocol sends it to a human,
#   who has the sending agent remediate before the receiver re-validates and accepts. Until
#   the handoff is accepted again, the records that lie beyond it do not stand on an
#   accepted hand-over, so the gate needs a human. handoff_contracts.md, Handoff Rejection
#   Protocol, Rejection Process: "Update SESSION_HANDOFF.json: "status": "rejected"",
#   "Escalate to human", "Human coordinates with sending agent to remediate", "Retry after
#   fix: ... Receiving agent re-validates and accepts"; Troubleshooting: "Agents reject if
#   handoff status != "ready"".
# custom:
#   id: h3a.gates.handoff_rejected
#   category: gates
#   severity: warning
#   remediation: >-
#     a human reads the rejection reason and has the sending agent fix what is missing;
#     the receiving agent then re-validates the handoff and, when it accepts it, sets
#     SESSION_HANDOFF.json status to ready
warn contains f if {
	st := handoff.status
	is_string(st)
	lower(trim_space(st)) == "rejected"
	f := lib.finding(rego.metadata.rule(), object.union(
		{
			"msg": sprintf("SESSION_HANDOFF.json status is %q%s%s: the receiving agent refused the hand-over, and a human must have it remediated before the work goes on", [st, rejected_by_words, rejection_words]),
			"file": lib.doc_file.handoff,
			"pointer": "/status",
			"needs_human": true,
		},
		{"task_id": id | id := model.current_task_id},
	))
}

rejected_by_words := sprintf(" (by %s)", [lib.describe(handoff.rejected_by)]) if lib.filled(handoff.rejected_by)

else := ""

rejection_words := sprintf(", reason %s", [lib.describe(handoff.rejection_reason)]) if lib.filled(handoff.rejection_reason)

else := ""
