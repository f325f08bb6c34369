package h3a.tests.gates

import data.h3a.rules.gates
import data.h3a.test
import data.h3a.test.fixture

test_order_quiet_on_ok_runs if {
	count(test.of(gates.deny, "h3a.gates.order")) == 0 with input as fixture.complete
	count(test.of(gates.deny, "h3a.gates.order")) == 0 with input as fixture.fresh
}

test_order_fires_in_state_gates if {
	inp := test.patch([{"op": "replace", "path": "/docs/state/gates/G1_implementation", "value": "in_progress"}])
	[f] := test.of(gates.deny, "h3a.gates.order") with input as inp
	f.file == "state.json"
	f.pointer == "/gates/G2_validation"
	f.gate == "G2"
	f.msg == `G2_validation is "passed" in state.json gates, but the earlier G1_implementation is "in_progress"`
}

test_order_names_every_earlier_gate if {
	inp := test.patch([
		{"op": "replace", "path": "/docs/state/gates/G0_planning", "value": "failed"},
		{"op": "remove", "path": "/docs/state/gates/G1_implementation"},
	])
	fs := test.of(gates.deny, "h3a.gates.order") with input as inp
	some f in fs
	f.pointer == "/gates/G2_validation"
	contains(f.msg, `G0_planning is "failed" and G1_implementation is "missing"`)
}

test_order_fires_in_the_ledger if {
	# without G1 PASSED, G1's latest event is STARTED while G2 PASSED
	inp := test.patch([{"op": "remove", "path": "/docs/gates_ledger/events/3"}])
	fs := test.of(gates.deny, "h3a.gates.order") with input as inp
	some f in fs
	f.file == "state/GATES_LEDGER.md"
	f.line == 31
	contains(f.msg, "the latest event of the earlier gate G1 is STARTED (line 28)")
}

test_order_ledger_gate_without_event if {
	inp := test.patch([
		{"op": "remove", "path": "/docs/gates_ledger/events/1"},
		{"op": "remove", "path": "/docs/gates_ledger/events/0"},
	])
	fs := test.of(gates.deny, "h3a.gates.order") with input as inp
	some f in fs
	contains(f.msg, "the earlier gate G0 has no event")
}

test_disagreement_names_both_places if {
	inp := test.patch([{"op": "replace", "path": "/docs/current_task/gate_status", "value": "G1_passed"}])
	[f] := test.of(gates.deny, "h3a.gates.sources_disagree") with input as inp
	f.file == "state/CURRENT_TASK.json"
	f.pointer == "/gate_status"
	f.msg == `last passed gate disagrees: CURRENT_TASK.json gate_status "G1_passed" says G1_implementation, but state.json gates says G2_validation`
}

test_disagreement_with_the_ledger_when_state_is_unreadable if {
	inp := test.patch([
		{"op": "replace", "path": "/docs/state", "value": null},
		{"op": "replace", "path": "/docs/handoff/gate_status", "value": "G0_failed"},
	])
	[f] := test.of(gates.deny, "h3a.gates.sources_disagree") with input as inp
	f.file == "state/SESSION_HANDOFF.json"
	contains(f.msg, "says no gate, but the latest GATES_LEDGER.md events says G2_validation")
}

test_disagreement_reads_a_contract_handoff if {
	inp := test.patch([
		{"op": "remove", "path": "/docs/handoff/gate_status"},
		{"op": "add", "path": "/docs/handoff/gate_transition", "value": "G1_passed → G2_pending"},
	])
	[f] := test.of(gates.deny, "h3a.gates.sources_disagree") with input as inp
	f.pointer == "/gate_transition"
}

test_ledger_disagreement_points_at_its_last_event if {
	inp := test.patch([{"op": "remove", "path": "/docs/gates_ledger/events/5"}])
	fs := test.of(gates.deny, "h3a.gates.sources_disagree") with input as inp
	some f in fs
	f.file == "state/GATES_LEDGER.md"
	f.line == 30
}

# While G2 is in progress the handoff still says G1_passed: no disagreement.
test_no_disagreement_while_a_gate_is_in_progress if {
	inp := test.patch([
		{"op": "replace", "path": "/docs/state/gates/G2_validation", "value": "in_progress"},
		{"op": "remove", "path": "/docs/gates_ledger/events/5"},
		{"op": "replace", "path": "/docs/current_task/gate_status", "value": "G2_in_progress"},
		{"op": "replace", "path": "/docs/handoff/gate_status", "value": "G1_passed"},
		{"op": "remove", "path": "/docs/handoff/history/2"},
		{"op": "replace", "path": "/docs/gates_ledger/table/2/status", "value": "in_progress"},
	])
	count(test.of(gates.deny, "h3a.gates.sources_disagree")) == 0 with input as inp
}

# The gate table is a source too: a G2 row marked failed while every other
# record has G2 passed is a disagreement at the table.
test_gate_table_disagrees if {
	inp := test.patch([{"op": "replace", "path": "/docs/gates_ledger/table/2/status", "value": "failed"}])
	[f] := test.of(gates.deny, "h3a.gates.sources_disagree") with input as inp
	f.file == "state/GATES_LEDGER.md"
	f.line == 12
	f.msg == "last passed gate disagrees: the GATES_LEDGER.md gate table says G1_implementation, but state.json gates says G2_validation"
}

# A gate written in two rows of the table, one passed and one failed, is
# not passed by the table: the failed row is the disagreement.
test_gate_table_gate_twice if {
	inp := test.patch([{"op": "add", "path": "/docs/gates_ledger/table/3", "value": {
		"gate": "G2", "name": "Validation", "owner": "Validator", "status": "failed",
		"raw_status": "🔴 Failed", "line": 13,
	}}])
	[f] := test.of(gates.deny, "h3a.gates.sources_disagree") with input as inp
	f.line == 13
	f.msg == "last passed gate disagrees: the GATES_LEDGER.md gate table says G1_implementation, but state.json gates says G2_validation"

	# written twice as passed, it is passed
	twice := test.patch([{"op": "add", "path": "/docs/gates_ledger/table/3", "value": {
		"gate": "G2", "name": "Validation", "owner": "Validator", "status": "passed",
		"raw_status": "🟢 Passed", "line": 13,
	}}])
	count(test.of(gates.deny, "h3a.gates.sources_disagree")) == 0 with input as twice
}

# A table that has a gate passed that no other record has is located at
# that gate's row.
test_gate_table_claims_more if {
	inp := test.patch([{"op": "replace", "path": "/docs/gates_ledger/table/3/status", "value": "passed"}])
	[f] := test.of(gates.deny, "h3a.gates.sources_disagree") with input as inp
	f.line == 13
}

# A table with a status the checker cannot read states nothing to compare.
test_gate_table_unread_is_no_source if {
	inp := test.patch([
		{"op": "replace", "path": "/docs/gates_ledger/table/2/status", "value": "failed"},
		{"op": "replace", "path": "/docs/gates_ledger/table/3/status", "value": ""},
	])
	count(test.of(gates.deny, "h3a.gates.sources_disagree")) == 0 with input as inp
}

# An event that records something about a gate without moving it does not
# change the gate's latest state.
test_notes_do_not_move_a_gate if {
	inp := test.patch([{"op": "add", "path": "/docs/gates_ledger/events/4", "value": test.event("2025-09-29T14:46:00Z", "G1_implementation", "REVIEWED", "human", 30)}])
	count(gates.deny) == 0 with input as inp
}

# --- task complete before G2 passed --------------------------------------------

complete_early := "h3a.gates.complete_before_validation"

# g2_open sets every record of the complete run back to G2 in progress.
g2_open := [
	{"op": "replace", "path": "/docs/state/gates/G2_validation", "value": "in_progress"},
	{"op": "remove", "path": "/docs/gates_ledger/events/5"},
	{"op": "replace", "path": "/docs/current_task/gate_status", "value": "G2_in_progress"},
	{"op": "replace", "path": "/docs/handoff/gate_status", "value": "G1_passed"},
]

test_complete_before_validation_quiet_on_ok_runs if {
	count(test.of(gates.deny, complete_early)) == 0 with input as fixture.complete
	count(test.of(gates.deny, complete_early)) == 0 with input as fixture.fresh
}

test_complete_before_validation_fires if {
	# the complete run with G2 still in progress everywhere but the task status
	inp := test.patch(g2_open)
	[f] := test.of(gates.deny, complete_early) with input as inp
	f.file == "state/CURRENT_TASK.json"
	f.pointer == "/status"
	f.gate == "G2"
	f.task_id == "T001"
	f.msg == `CURRENT_TASK.json status "complete" says the task passed validation, but G2_validation is not passed: CURRENT_TASK.json gate_status is "G2_in_progress"; state.json gates has G2_validation "in_progress"; the latest G2 event of GATES_LEDGER.md is STARTED (line 30)`
}

test_complete_before_validation_without_g2_events if {
	inp := test.patch(array.concat(g2_open, [{"op": "remove", "path": "/docs/gates_ledger/events/4"}]))
	[f] := test.of(gates.deny, complete_early) with input as inp
	contains(f.msg, "GATES_LEDGER.md has no G2 event")
}

test_complete_before_validation_quiet_while_validating if {
	inp := test.patch(array.concat(g2_open, test.task_status("validation")))
	count(test.of(gates.deny, complete_early)) == 0 with input as inp
}

test_complete_before_validation_leaves_claims_to_other_rules if {
	# one record says G2 passed: g2_exit_criteria and sources_disagree judge it
	inp := test.patch([
		{"op": "replace", "path": "/docs/state/gates/G2_validation", "value": "passed"},
		{"op": "remove", "path": "/docs/gates_ledger/events/5"},
		{"op": "replace", "path": "/docs/current_task/gate_status", "value": "G2_in_progress"},
		{"op": "replace", "path": "/docs/handoff/gate_status", "value": "G1_passed"},
	])
	count(test.of(gates.deny, complete_early)) == 0 with input as inp
}

# --- state.json steps ----------------------------------------------------------

step_rule := "h3a.gates.step_contradicts"

test_step_contradicts_quiet_on_ok_runs if {
	count(test.of(gates.deny, step_rule)) == 0 with input as fixture.complete
	count(test.of(gates.deny, step_rule)) == 0 with input as fixture.fresh
}

test_step_contradicts_failed_last_step if {
	inp := test.patch([{"op": "replace", "path": "/docs/state/steps/2/status", "value": "failed"}])
	[f] := test.of(gates.deny, step_rule) with input as inp
	f.file == "state.json"
	f.pointer == "/steps/2/status"
	f.gate == "G2"
	f.task_id == "T001"
	f.msg == `state.json step 2, the last step of task "T001" for G2_validation, has status "failed", but state.json gates says the gate passed, and no later step records it passing or corrects it`
}

# A failed attempt followed by a passing one is the retry the framework allows.
test_step_contradicts_failed_then_passed if {
	failed := object.union(fixture.complete.docs.state.steps[2], {"status": "failed", "timestamp": "2025-09-29T14:55:00Z"})
	inp := test.patch([{"op": "add", "path": "/docs/state/steps/2", "value": failed}])
	count(test.of(gates.deny, step_rule)) == 0 with input as inp
}

# A failed attempt appended after the pass is the gate's last word.
test_step_contradicts_failed_after_passed if {
	failed := object.union(fixture.complete.docs.state.steps[2], {"status": "failed", "timestamp": "2025-09-29T15:10:00Z"})
	inp := test.patch([{"op": "add", "path": "/docs/state/steps/-", "value": failed}])
	[f] := test.of(gates.deny, step_rule) with input as inp
	f.pointer == "/steps/3/status"
}

# A correction step appended later sets the history right.
test_step_contradicts_corrected if {
	inp := test.patch([
		{"op": "replace", "path": "/docs/state/steps/2/status", "value": "failed"},
		{"op": "add", "path": "/docs/state/steps/-", "value": {"task_id": "T001-correction", "corrects": "T001", "reason": "G2 step status was written wrong", "corrected_values": {"status": "passed"}}},
	])
	count(test.of(gates.deny, step_rule)) == 0 with input as inp
}

# Steps of other tasks, and gates no record claims passed, are not compared.
test_step_contradicts_other_task_or_gate_not_passed if {
	other := test.patch([
		{"op": "replace", "path": "/docs/state/steps/2/status", "value": "failed"},
		{"op": "replace", "path": "/docs/state/steps/2/task_id", "value": "T000"},
	])
	count(test.of(gates.deny, step_rule)) == 0 with input as other
	g3 := test.patch([{"op": "add", "path": "/docs/state/steps/-", "value": {"task_id": "T001", "agent": "system", "timestamp": "2025-09-29T15:10:00Z", "gate": "G3_production_ready", "status": "failed"}}])
	count(test.of(gates.deny, step_rule)) == 0 with input as g3
}

# A claim by the ledger alone names the ledger.
test_step_contradicts_names_the_claim if {
	inp := test.patch([
		{"op": "replace", "path": "/docs/state/steps/1/status", "value": "failed"},
		{"op": "replace", "path": "/docs/state/gates/G1_implementation", "value": "in_progress"},
		{"op": "replace", "path": "/docs/state/gates/G2_validation", "value": "in_progress"},
	])
	[f] := test.of(gates.deny, step_rule) with input as inp
	contains(f.msg, "but GATES_LEDGER.md (line ")
}

# --- handoff agents ---------------------------------------------------------------

handoff_rule := "h3a.gates.handoff_agents"

test_handoff_agents_quiet_on_ok_runs if {
	count(test.of(gates.deny, handoff_rule)) == 0 with input as fixture.complete
	count(test.of(gates.deny, handoff_rule)) == 0 with input as fixture.fresh
}

test_handoff_agents_wrong_sender_and_receiver if {
	inp := test.patch([
		{"op": "replace", "path": "/docs/handoff/current_agent", "value": "planner"},
		{"op": "replace", "path": "/docs/handoff/next_agent", "value": "executor"},
	])
	fs := test.of(gates.deny, handoff_rule) with input as inp
	{f.pointer | some f in fs} == {"/current_agent", "/next_agent"}
	some f in fs
	f.pointer == "/next_agent"
	f.file == "state/SESSION_HANDOFF.json"
	f.gate == "G2"
	f.msg == `SESSION_HANDOFF.json gate_status "G2_passed" says G2_validation passed, which is handed over from validator to planner or system (H3), but its next_agent is "executor"`
}

# The handoff-contract shape: from_agent, to_agent, handoff_id and gate_transition.
test_handoff_agents_contract_shape if {
	inp := test.patch([
		{"op": "remove", "path": "/docs/handoff/gate_status"},
		{"op": "remove", "path": "/docs/handoff/current_agent"},
		{"op": "remove", "path": "/docs/handoff/next_agent"},
		{"op": "add", "path": "/docs/handoff/handoff_id", "value": "H1"},
		{"op": "add", "path": "/docs/handoff/from_agent", "value": "planner"},
		{"op": "add", "path": "/docs/handoff/to_agent", "value": "executor"},
		{"op": "add", "path": "/docs/handoff/gate_transition", "value": "G1_passed → G2_pending"},
		{"op": "replace", "path": "/docs/state/gates/G2_validation", "value": "in_progress"},
	])
	fs := test.of(gates.deny, handoff_rule) with input as inp
	{f.pointer | some f in fs} == {"/handoff_id", "/from_agent", "/to_agent"}
	every f in fs {
		f.gate == "G1"
		contains(f.msg, `gate_transition "G1_passed" says G1_implementation passed, which is handed over from executor to validator (H2)`)
	}
}

test_handoff_agents_contract_shape_right if {
	inp := test.patch([
		{"op": "remove", "path": "/docs/handoff/gate_status"},
		{"op": "remove", "path": "/docs/handoff/current_agent"},
		{"op": "remove", "path": "/docs/handoff/next_agent"},
		{"op": "add", "path": "/docs/handoff/handoff_id", "value": "H3"},
		{"op": "add", "path": "/docs/handoff/from_agent", "value": "validator"},
		{"op": "add", "path": "/docs/handoff/to_agent", "value": "system"},
		{"op": "add", "path": "/docs/handoff/gate_transition", "value": "G2_passed → G3_pending"},
	])
	count(test.of(gates.deny, handoff_rule)) == 0 with input as inp
}

test_handoff_agents_history_entry if {
	inp := test.patch([{"op": "replace", "path": "/docs/handoff/history/1/from", "value": "planner"}])
	[f] := test.of(gates.deny, handoff_rule) with input as inp
	f.pointer == "/history/1/from"
	f.gate == "G1"
	f.msg == `SESSION_HANDOFF.json history entry 1 has gate "G1_passed": G1_implementation passed, which is handed over from executor to validator (H2), but its from is "planner"`
}

# To a human, back from the validator with G1 passed, to the planner after
# G2, a failed gate, or an agent name the contracts do not know: accepted.
test_handoff_agents_accepted_routes if {
	every ops in [
		[{"op": "replace", "path": "/docs/handoff/next_agent", "value": "human"}],
		[{"op": "replace", "path": "/docs/handoff/next_agent", "value": "Planner"}],
		[{"op": "replace", "path": "/docs/handoff/current_agent", "value": "validator-bot"}],
		[
			{"op": "replace", "path": "/docs/handoff/history/2/to", "value": "executor"},
			{"op": "replace", "path": "/docs/handoff/history/2/gate", "value": "G1_passed"},
		],
		[
			{"op": "replace", "path": "/docs/handoff/history/2/to", "value": "executor"},
			{"op": "replace", "path": "/docs/handoff/history/2/gate", "value": "G2_failed"},
		],
	] {
		count(test.of(gates.deny, handoff_rule)) == 0 with input as test.patch(ops)
	}
}

# --- gate owners -------------------------------------------------------------------

owner_rule := "h3a.gates.gate_owner"

test_gate_owner_quiet_on_ok_runs if {
	count(test.of(gates.deny, owner_rule)) == 0 with input as fixture.complete
	count(test.of(gates.deny, owner_rule)) == 0 with input as fixture.fresh
}

test_gate_owner_ledger_pass_by_executor if {
	inp := test.patch([{"op": "replace", "path": "/docs/gates_ledger/events/5/agent", "value": "Executor"}])
	[f] := test.of(gates.deny, owner_rule) with input as inp
	f.file == "state/GATES_LEDGER.md"
	f.line == fixture.complete.docs.gates_ledger.events[5].line
	f.gate == "G2"
	f.msg == `G2_validation PASSED at 2025-09-29T15:00:00Z by agent "Executor", but G2_validation is the validator's gate`
}

test_gate_owner_step_pass_by_planner if {
	inp := test.patch([{"op": "replace", "path": "/docs/state/steps/1/agent", "value": "planner"}])
	[f] := test.of(gates.deny, owner_rule) with input as inp
	f.pointer == "/steps/1/agent"
	f.task_id == "T001"
	f.msg == `state.json step 1 has G1_implementation passed by agent "planner", but G1_implementation is the executor's gate`
}

# Other events and steps, and names the contracts do not place, are left alone.
test_gate_owner_accepted if {
	every ops in [
		[{"op": "replace", "path": "/docs/gates_ledger/events/4/agent", "value": "executor"}],
		[{"op": "replace", "path": "/docs/gates_ledger/events/5/agent", "value": "human"}],
		[{"op": "replace", "path": "/docs/gates_ledger/events/5/agent", "value": "validator-2"}],
		[
			{"op": "replace", "path": "/docs/state/steps/2/agent", "value": "executor"},
			{"op": "replace", "path": "/docs/state/steps/2/status", "value": "in_progress"},
		],
	] {
		count(test.of(gates.deny, owner_rule)) == 0 with input as test.patch(ops)
	}
}

# CURRENT_TASK.json status that says the task failed while the records have
# G2 passed: they disagree on G2.
test_task_failed_while_g2_passed if {
	inp := test.patch(test.task_status("failed"))
	[f] := test.of(gates.deny, "h3a.gates.sources_disagree") with input as inp
	f.file == "state/CURRENT_TASK.json"
	f.pointer == "/status"
	f.gate == "G2"
	f.task_id == "T001"
	f.msg == `CURRENT_TASK.json status "failed" says the task failed, but state.json gates, the latest GATES_LEDGER.md events, CURRENT_TASK.json gate_status "G2_passed", SESSION_HANDOFF.json gate_status "G2_passed" and the GATES_LEDGER.md gate table say G2_validation passed`
	startswith(f.remediation, "if the validator passed the task")
	[g] := test.of(gates.deny, "h3a.gates.sources_disagree") with input as test.patch(test.task_status("remediation_needed"))
	g.pointer == "/status"
	startswith(g.msg, `CURRENT_TASK.json status "remediation_needed" says the task failed, but`)
}

# One source with G2 passed is enough, and is named alone.
test_task_failed_one_source_says_g2_passed if {
	inp := test.patch(array.concat(test.task_status("failed"), [
		{"op": "replace", "path": "/docs/state", "value": null},
		{"op": "replace", "path": "/docs/gates_ledger", "value": null},
		{"op": "remove", "path": "/docs/handoff/gate_status"},
		{"op": "replace", "path": "/docs/handoff/history", "value": []},
	]))
	fs := test.of(gates.deny, "h3a.gates.sources_disagree") with input as inp
	some f in fs
	f.msg == `CURRENT_TASK.json status "failed" says the task failed, but CURRENT_TASK.json gate_status "G2_passed" says G2_validation passed`
}

# A failed task whose records say G2 failed, a task still open, an
# escalated task (it asks for a human whatever the gates say:
# h3a.retries.escalation) and a status no document defines are quiet.
test_task_failed_quiet if {
	g2_failed := [
		{"op": "replace", "path": "/docs/state/gates/G2_validation", "value": "failed"},
		{"op": "replace", "path": "/docs/gates_ledger/events/5/status", "value": "FAILED"},
		{"op": "replace", "path": "/docs/current_task/gate_status", "value": "G2_failed"},
		{"op": "replace", "path": "/docs/handoff/gate_status", "value": "G2_failed"},
		{"op": "replace", "path": "/docs/handoff/history/2/gate", "value": "G2_failed"},
		{"op": "replace", "path": "/docs/gates_ledger/table/2/status", "value": "failed"},
	]
	every s in ["failed", "remediation_needed", "escalation_required"] {
		count(test.of(gates.deny, "h3a.gates.sources_disagree")) == 0 with input as test.patch(array.concat(g2_failed, test.task_status(s)))
	}
	every s in ["complete", "validation", "escalation_required", "gave_up"] {
		count(test.of(gates.deny, "h3a.gates.sources_disagree")) == 0 with input as test.patch(test.task_status(s))
	}
}

# The last hand-over of SESSION_HANDOFF.json history is a source: one that
# sends G2 back as failed after it passed disagrees with every record that
# still has it passed.
test_handoff_history_disagrees if {
	inp := test.patch([{"op": "add", "path": "/docs/handoff/history/-", "value": {
		"from": "validator", "to": "executor", "time": "2025-09-29T15:30:00Z",
		"gate": "G2_failed", "notes": "security re-scan found a high CVE",
	}}])
	[f] := test.of(gates.deny, "h3a.gates.sources_disagree") with input as inp
	f.file == "state/SESSION_HANDOFF.json"
	f.pointer == "/history/3/gate"
	contains(f.msg, `SESSION_HANDOFF.json history[3].gate "G2_failed"`)

	# an entry whose gate is no gate_status is not compared, nor one that
	# only lags behind a later gate
	every gate in ["validation done", "G1_passed"] {
		count(test.of(gates.deny, "h3a.gates.sources_disagree")) == 0 with input as test.patch([{"op": "replace", "path": "/docs/handoff/history/2/gate", "value": gate}])
	}
}

test_handoff_rejected_needs_a_human if {
	inp := test.patch([
		{"op": "add", "path": "/docs/handoff/status", "value": "rejected"},
		{"op": "add", "path": "/docs/handoff/rejected_by", "value": "validator"},
		{"op": "add", "path": "/docs/handoff/rejection_reason", "value": "RED output missing"},
	])
	[f] := test.of(gates.warn, "h3a.gates.handoff_rejected") with input as inp
	f.msg == "SESSION_HANDOFF.json status is \"rejected\" (by \"validator\"), reason \"RED output missing\": the receiving agent refused the hand-over, and a human must have it remediated before the work goes on"
	f.file == "state/SESSION_HANDOFF.json"
	f.pointer == "/status"
	f.needs_human
	f.task_id == "T001"
	[g] := test.of(gates.warn, "h3a.gates.handoff_rejected") with input as test.patch([{"op": "add", "path": "/docs/handoff/status", "value": "Rejected"}])
	g.msg == "SESSION_HANDOFF.json status is \"Rejected\": the receiving agent refused the hand-over, and a human must have it remediated before the work goes on"
}

test_handoff_accepted_or_without_status if {
	every st in ["ready", "accepted"] {
		count(test.of(gates.warn, "h3a.gates.handoff_rejected")) == 0 with input as test.patch([{"op": "add", "path": "/docs/handoff/status", "value": st}])
	}
	count(test.of(gates.warn, "h3a.gates.handoff_rejected")) == 0 with input as fixture.complete
}
