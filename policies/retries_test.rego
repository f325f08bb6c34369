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
	[f] := escalated(test.task_status("escalation_required"))
	f.rule == "h3a.retries.escalation"
	f.needs_human == true
	f.gate == "G2"
	f.task_id == "T001"
	f.pointer == "/status"
}

test_escalation_failed_at_the_limit if {
	[f] := escalated(array.concat(test.task_status("failed"), [
		{"op": "replace", "path": "/docs/current_task/iteration_count", "value": 2},
	]))
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
	[f] := escalated(test.verdict_status(0, "escalation"))
	f.pointer == "/verdicts/0/status"
	f.msg == "the last verdict's status is escalation: a human must decide how to go on"
}

test_escalation_required_verdict if {
	[f] := escalated(test.verdict_status(0, "escalation_required"))
	f.pointer == "/verdicts/0/status"
	f.msg == "the last verdict's status is escalation_required: a human must decide how to go on"
}

test_remediation_needed_at_the_limit if {
	[f] := escalated(array.concat(test.task_status("remediation_needed"), [
		{"op": "replace", "path": "/docs/current_task/iteration_count", "value": 2},
		{"op": "replace", "path": "/docs/validator_report/verdicts/0/remediation_plan", "value": "add the missing expiry test"},
	]))
	f.msg == "the task is \"remediation_needed\" after 2 of 2 iterations: a human must decide how to go on"
}

test_failed_below_the_limit_is_a_retry if {
	fs := escalated(test.task_status("failed"))
	count(fs) == 0
}

test_human_decision_after_the_setback if {
	fs := escalated(array.concat(test.task_status("escalation_required"), [
		{"op": "add", "path": "/docs/gates_ledger/events/-", "value": test.event("2025-09-29T15:10:00Z", "G2_validation", "FAILED", "validator", 32)},
		{"op": "add", "path": "/docs/gates_ledger/events/-", "value": test.event("2025-09-29T16:00:00Z", "G2_validation", "DECIDED", "Human", 33)},
	]))
	count(fs) == 0
}

test_human_decision_before_the_setback_does_not_count if {
	fs := escalated(array.concat(test.task_status("escalation_required"), [
		{"op": "add", "path": "/docs/gates_ledger/events/-", "value": test.event("2025-09-29T15:05:00Z", "G2_validation", "DECIDED", "human", 32)},
		{"op": "add", "path": "/docs/gates_ledger/events/-", "value": test.event("2025-09-29T15:10:00Z", "G2_validation", "ESCALATION", "validator", 33)},
	]))
	count(fs) == 1
}

test_remediation_without_plan if {
	inp := test.patch(test.task_status("remediation_needed"))
	[f] := test.of(retries.deny, "h3a.retries.no_remediation_plan") with input as inp
	f.pointer == "/verdicts/0/remediation_plan"
	f.task_id == "T001"
}

test_remediation_without_plan_member if {
	inp := test.patch(array.concat(test.task_status("remediation_needed"), [
		{"op": "remove", "path": "/docs/validator_report/verdicts/0/remediation_plan"},
	]))
	[f] := test.of(retries.deny, "h3a.retries.no_remediation_plan") with input as inp
	f.pointer == "/verdicts/0"
}

test_remediation_plans if {
	every plan in ["re-run mutation tests after adding assertions", ["add a test for expiry"], {"steps": ["x"]}] {
		inp := test.patch(array.concat(test.task_status("remediation_needed"), [
			{"op": "replace", "path": "/docs/validator_report/verdicts/0/remediation_plan", "value": plan},
		]))
		count(test.of(retries.deny, "h3a.retries.no_remediation_plan")) == 0 with input as inp
	}
	every plan in ["  ", [], {}, 5, false] {
		inp := test.patch(array.concat(test.task_status("remediation_needed"), [
			{"op": "replace", "path": "/docs/validator_report/verdicts/0/remediation_plan", "value": plan},
		]))
		count(test.of(retries.deny, "h3a.retries.no_remediation_plan")) == 1 with input as inp
	}
}

# A verdict that sends the task back owes a plan whatever the task says, in
# either spelling; a task that says so is not reported a second time.
test_failing_verdict_without_plan if {
	every st in ["fail", "needs_remediation"] {
		[f] := test.of(retries.deny, "h3a.retries.no_remediation_plan") with input as test.patch(test.verdict_status(0, st))
		f.msg == sprintf("verdict 0 has status %q, which sends the task back for remediation, but no remediation_plan", [st])
		f.pointer == "/verdicts/0/remediation_plan"
		f.task_id == "T001"
	}
	inp := test.patch(array.concat(test.verdict_status(0, "needs_remediation"), test.task_status("remediation_needed")))
	count(test.of(retries.deny, "h3a.retries.no_remediation_plan")) == 1 with input as inp
}

test_failing_verdict_with_plan if {
	inp := test.patch(array.concat(test.verdict_status(0, "needs_remediation"), [
		{"op": "replace", "path": "/docs/validator_report/verdicts/0/remediation_plan", "value": "add the missing expiry test"},
	]))
	count(test.of(retries.deny, "h3a.retries.no_remediation_plan")) == 0 with input as inp
}

test_escalating_verdict_owes_no_plan if {
	count(test.of(retries.deny, "h3a.retries.no_remediation_plan")) == 0 with input as test.patch(test.verdict_status(0, "escalation_required"))
}

test_remediation_without_any_verdict if {
	inp := test.patch(array.concat(test.task_status("remediation_needed"), [
		{"op": "replace", "path": "/docs/validator_report/verdicts", "value": []},
	]))
	[f] := test.of(retries.deny, "h3a.retries.no_remediation_plan") with input as inp
	f.file == "state/CURRENT_TASK.json"
}

test_escalation_without_a_readable_gate_status if {
	[f] := escalated(array.concat(test.task_status("escalation_required"), [
		{"op": "replace", "path": "/docs/current_task/gate_status", "value": "done"},
	]))
	not f.gate
}
