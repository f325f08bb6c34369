package h3a.tests.retries

import data.h3a.rules.retries
import data.h3a.test
import data.h3a.test.fixture

test_retries_quiet_on_ok_runs if {
	count(retries.deny) == 0 with input as fixture.complete
	count(retries.warn) == 0 with input as fixture.complete
	count(retries.deny) == 0 with input as fixture.fresh
	count(retries.warn) == 0 with input as fixture.fresh
}

test_over_limit if {
	inp := test.patch([
		{"op": "replace", "path": "/docs/current_task/iteration_count", "value": 3},
		{"op": "replace", "path": "/docs/executor_report/tdd_cycles/0/iteration_count", "value": 3},
	])
	fs := test.of(retries.deny, "h3a.retries.over_limit") with input as inp
	{[f.file, f.pointer, f.msg] | some f in fs} == {
		["state/CURRENT_TASK.json", "/iteration_count", "iteration_count 3 exceeds the limit of 2 iterations"],
		["executor_report.json", "/tdd_cycles/0/iteration_count", "TDD cycle 0 (task T001) has iteration_count 3, over the limit of 2 iterations"],
	}
}

test_limit_from_params if {
	inp := test.patch([
		{"op": "remove", "path": "/docs/current_task/max_iterations"},
		{"op": "replace", "path": "/docs/current_task/iteration_count", "value": 3},
		{"op": "replace", "path": "/params/max_iterations", "value": 3},
	])
	count(retries.deny) == 0 with input as inp
}

test_at_the_limit_is_not_over if {
	inp := test.patch([{"op": "replace", "path": "/docs/current_task/iteration_count", "value": 2}])
	count(retries.deny) == 0 with input as inp
	count(retries.warn) == 0 with input as inp
}

escalated(ops) := [f | some f in fs] if {
	fs := retries.warn with input as test.patch(ops)
}

test_escalation_required if {
	[f] := escalated([{"op": "replace", "path": "/docs/current_task/status", "value": "escalation_required"}])
	f.rule == "h3a.retries.escalation"
	f.needs_human == true
	f.gate == "G2"
	f.task_id == "T001"
	f.pointer == "/status"
}

test_escalation_failed_at_the_limit if {
	[f] := escalated([
		{"op": "replace", "path": "/docs/current_task/status", "value": "failed"},
		{"op": "replace", "path": "/docs/current_task/iteration_count", "value": 2},
	])
	f.msg == "the task is \"failed\" after 2 of 2 iterations: a human must decide how to go on"
}

test_escalation_failed_gate_at_the_limit if {
	[f] := escalated([
		{"op": "replace", "path": "/docs/state/gates/G2_validation", "value": "failed"},
		{"op": "replace", "path": "/docs/current_task/iteration_count", "value": 2},
	])
	f.file == "state.json"
	f.pointer == "/gates/G2_validation"
}

test_escalation_verdict if {
	[f] := escalated([{"op": "replace", "path": "/docs/validator_report/verdicts/0/status", "value": "escalation"}])
	f.pointer == "/verdicts/0/status"
}

test_failed_below_the_limit_is_a_retry if {
	fs := escalated([{"op": "replace", "path": "/docs/current_task/status", "value": "failed"}])
	count(fs) == 0
}

test_human_decision_after_the_setback if {
	fs := escalated([
		{"op": "replace", "path": "/docs/current_task/status", "value": "escalation_required"},
		{"op": "add", "path": "/docs/gates_ledger/events/-", "value": test.event("2025-09-29T15:10:00Z", "G2_validation", "FAILED", "validator", 32)},
		{"op": "add", "path": "/docs/gates_ledger/events/-", "value": test.event("2025-09-29T16:00:00Z", "G2_validation", "DECIDED", "Human", 33)},
	])
	count(fs) == 0
}

test_human_decision_before_the_setback_does_not_count if {
	fs := escalated([
		{"op": "replace", "path": "/docs/current_task/status", "value": "escalation_required"},
		{"op": "add", "path": "/docs/gates_ledger/events/-", "value": test.event("2025-09-29T15:05:00Z", "G2_validation", "DECIDED", "human", 32)},
		{"op": "add", "path": "/docs/gates_ledger/events/-", "value": test.event("2025-09-29T15:10:00Z", "G2_validation", "ESCALATION", "validator", 33)},
	])
	count(fs) == 1
}

test_remediation_without_plan if {
	inp := test.patch([{"op": "replace", "path": "/docs/current_task/status", "value": "remediation_needed"}])
	[f] := test.of(retries.deny, "h3a.retries.no_remediation_plan") with input as inp
	f.pointer == "/verdicts/0/remediation_plan"
	f.task_id == "T001"
}

test_remediation_without_plan_member if {
	inp := test.patch([
		{"op": "replace", "path": "/docs/current_task/status", "value": "remediation_needed"},
		{"op": "remove", "path": "/docs/validator_report/verdicts/0/remediation_plan"},
	])
	[f] := test.of(retries.deny, "h3a.retries.no_remediation_plan") with input as inp
	f.pointer == "/verdicts/0"
}

test_remediation_plans if {
	every plan in ["re-run mutation tests after adding assertions", ["add a test for expiry"], {"steps": ["x"]}] {
		inp := test.patch([
			{"op": "replace", "path": "/docs/current_task/status", "value": "remediation_needed"},
			{"op": "replace", "path": "/docs/validator_report/verdicts/0/remediation_plan", "value": plan},
		])
		count(test.of(retries.deny, "h3a.retries.no_remediation_plan")) == 0 with input as inp
	}
	every plan in ["  ", [], {}, 5, false] {
		inp := test.patch([
			{"op": "replace", "path": "/docs/current_task/status", "value": "remediation_needed"},
			{"op": "replace", "path": "/docs/validator_report/verdicts/0/remediation_plan", "value": plan},
		])
		count(test.of(retries.deny, "h3a.retries.no_remediation_plan")) == 1 with input as inp
	}
}

test_remediation_without_any_verdict if {
	inp := test.patch([
		{"op": "replace", "path": "/docs/current_task/status", "value": "remediation_needed"},
		{"op": "replace", "path": "/docs/validator_report/verdicts", "value": []},
	])
	[f] := test.of(retries.deny, "h3a.retries.no_remediation_plan") with input as inp
	f.file == "state/CURRENT_TASK.json"
}

test_escalation_without_a_readable_gate_status if {
	[f] := escalated([
		{"op": "replace", "path": "/docs/current_task/status", "value": "escalation_required"},
		{"op": "replace", "path": "/docs/current_task/gate_status", "value": "done"},
	])
	not f.gate
}
