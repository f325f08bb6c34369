# Tests of the third attempt: in the ledger, in the verdicts, and licensed by a claimed decision.
# (The helper claimed_findings: retries_test.rego.)
package h3a.tests.retries

import data.h3a.rules.retries
import data.h3a.test
import data.h3a.test.fixture

third(inp) := fs if {
	fs := test.of(retries.deny, "h3a.retries.third_attempt") with input as inp
}

# g2_attempts inserts events before the G2 PASSED event (index 5, line 31)
# of the complete run, in order.
g2_attempts(evs) := [{"op": "add", "path": "/docs/gates_ledger/events/5", "value": ev} | some ev in array.reverse(evs)]

failed_g2(t) := test.event(t, "G2_validation", "FAILED", "validator", 0)

started_g2(t) := test.event(t, "G2_validation", "STARTED", "validator", 0)

escalation_g2(t) := test.event(t, "G2_validation", "ESCALATION", "validator", 0)

human(t) := test.event(t, "G2_validation", "DECIDED", "human", 0)

test_third_attempt_in_the_ledger if {
	[f] := third(test.patch(g2_attempts([
		failed_g2("2025-09-29T14:51:00Z"), started_g2("2025-09-29T14:52:00Z"),
		failed_g2("2025-09-29T14:53:00Z"), started_g2("2025-09-29T14:54:00Z"),
	])))
	f.line == 31
	f.gate == "G2"
	f.task_id == "T001"
	f.file == "state/GATES_LEDGER.md"
	f.msg == "G2_validation PASSED at 2025-09-29T15:00:00Z after 2 failed attempts of the gate (FAILED at lines 0, 0) with no ESCALATION event followed by a human's decision in between: the attempt past the limit of 2 needs a human first"
}

test_third_attempt_after_escalation_and_human_decision if {
	count(third(test.patch(g2_attempts([
		failed_g2("2025-09-29T14:51:00Z"), failed_g2("2025-09-29T14:53:00Z"),
		escalation_g2("2025-09-29T14:54:00Z"), human("2025-09-29T14:55:00Z"), started_g2("2025-09-29T14:56:00Z"),
	])))) == 0
}

test_third_attempt_needs_both_escalation_and_human if {
	count(third(test.patch(g2_attempts([
		failed_g2("2025-09-29T14:51:00Z"), failed_g2("2025-09-29T14:53:00Z"), human("2025-09-29T14:55:00Z"),
	])))) == 1
	count(third(test.patch(g2_attempts([
		failed_g2("2025-09-29T14:51:00Z"), failed_g2("2025-09-29T14:53:00Z"), escalation_g2("2025-09-29T14:55:00Z"),
	])))) == 1

	# the human must decide after the escalation
	count(third(test.patch(g2_attempts([
		failed_g2("2025-09-29T14:51:00Z"), failed_g2("2025-09-29T14:53:00Z"),
		human("2025-09-29T14:54:00Z"), escalation_g2("2025-09-29T14:55:00Z"),
	])))) == 1
}

test_third_attempt_review_before_the_failures_does_not_count if {
	count(third(test.patch(g2_attempts([
		escalation_g2("2025-09-29T14:50:30Z"), human("2025-09-29T14:50:40Z"),
		failed_g2("2025-09-29T14:51:00Z"), failed_g2("2025-09-29T14:53:00Z"),
	])))) == 1
}

test_third_attempt_counts_failures_since_the_last_review if {
	# one failure after the review: a second attempt, not a third
	count(third(test.patch(g2_attempts([
		failed_g2("2025-09-29T14:51:00Z"), escalation_g2("2025-09-29T14:52:00Z"), human("2025-09-29T14:52:30Z"),
		failed_g2("2025-09-29T14:53:00Z"),
	])))) == 0

	# two after it: the review does not cover them
	count(third(test.patch(g2_attempts([
		failed_g2("2025-09-29T14:51:00Z"), failed_g2("2025-09-29T14:51:30Z"),
		escalation_g2("2025-09-29T14:52:00Z"), human("2025-09-29T14:52:30Z"),
		failed_g2("2025-09-29T14:53:00Z"), failed_g2("2025-09-29T14:54:00Z"),
	])))) == 1
}

test_one_failure_is_a_retry if {
	count(third(test.patch(g2_attempts([failed_g2("2025-09-29T14:51:00Z")])))) == 0
}

test_failures_of_another_gate_do_not_count if {
	count(third(test.patch(g2_attempts([
		test.event("2025-09-29T14:51:00Z", "G1_implementation", "FAILED", "executor", 0),
		test.event("2025-09-29T14:53:00Z", "G1_implementation", "FAILED", "executor", 0),
	])))) == 0
}

test_third_attempt_limit_from_params if {
	inp := test.patch(array.concat(
		[
			{"op": "remove", "path": "/docs/current_task/max_iterations"},
			{"op": "replace", "path": "/params/max_iterations", "value": 3},
		],
		g2_attempts([failed_g2("2025-09-29T14:51:00Z"), failed_g2("2025-09-29T14:53:00Z")]),
	))
	count(third(inp)) == 0
}

test_third_attempt_whatever_iteration_count_says if {
	inp := test.patch(array.concat(
		[{"op": "replace", "path": "/docs/current_task/iteration_count", "value": 0}],
		g2_attempts([failed_g2("2025-09-29T14:51:00Z"), failed_g2("2025-09-29T14:53:00Z")]),
	))
	count(third(inp)) == 1
}

# g2_unpassed(evs) drops the G2 PASSED event of the complete run and appends
# evs: an attempt at G2 that has not passed.
g2_unpassed(evs) := array.concat(
	[{"op": "remove", "path": "/docs/gates_ledger/events/5"}],
	[{"op": "add", "path": "/docs/gates_ledger/events/-", "value": ev} | some ev in evs],
)

test_third_attempt_started_without_review if {
	inp := test.patch(g2_unpassed([
		failed_g2("2025-09-29T14:51:00Z"), started_g2("2025-09-29T14:52:00Z"),
		failed_g2("2025-09-29T14:53:00Z"), object.union(started_g2("2025-09-29T14:54:00Z"), {"line": 34}),
		failed_g2("2025-09-29T14:55:00Z"), started_g2("2025-09-29T14:56:00Z"),
	]))
	[f] := third(inp)
	f.line == 34
	f.gate == "G2"
	f.task_id == "T001"
	f.msg == "G2_validation STARTED at 2025-09-29T14:54:00Z after 2 failed attempts of the gate (FAILED at lines 0, 0) with no ESCALATION event followed by a human's decision in between: past the limit of 2 iterations the gate goes to escalation_required, and a human decides before another attempt"
}

test_third_attempt_started_after_review_or_within_limit if {
	count(third(test.patch(g2_unpassed([
		failed_g2("2025-09-29T14:51:00Z"), started_g2("2025-09-29T14:52:00Z"), failed_g2("2025-09-29T14:53:00Z"),
		escalation_g2("2025-09-29T14:54:00Z"), human("2025-09-29T14:55:00Z"), started_g2("2025-09-29T14:56:00Z"),
	])))) == 0

	# the human's decision must come before the attempt
	count(third(test.patch(g2_unpassed([
		failed_g2("2025-09-29T14:51:00Z"), started_g2("2025-09-29T14:52:00Z"), failed_g2("2025-09-29T14:53:00Z"),
		escalation_g2("2025-09-29T14:54:00Z"), started_g2("2025-09-29T14:55:00Z"), human("2025-09-29T14:56:00Z"),
	])))) == 1

	# a second attempt, and failures before the gate last passed, are within the limit
	count(third(test.patch(g2_unpassed([failed_g2("2025-09-29T14:51:00Z"), started_g2("2025-09-29T14:52:00Z")])))) == 0

	# (the pass after them is the third attempt; the start after the pass is not)
	[f] := third(test.patch([
		{"op": "add", "path": "/docs/gates_ledger/events/5", "value": failed_g2("2025-09-29T14:51:00Z")},
		{"op": "add", "path": "/docs/gates_ledger/events/5", "value": failed_g2("2025-09-29T14:52:00Z")},
		{"op": "add", "path": "/docs/gates_ledger/events/-", "value": started_g2("2025-09-29T15:10:00Z")},
	]))
	startswith(f.msg, "G2_validation PASSED at 2025-09-29T15:00:00Z after 2 failed attempts")
	count(third(test.patch([
		{"op": "add", "path": "/docs/gates_ledger/events/-", "value": started_g2("2025-09-29T15:10:00Z")},
	]))) == 0
}

failing_verdict(t) := {"task_id": "T001", "timestamp": t, "status": "fail", "remediation_plan": "fix it"}

# verdicts_fail_fail_pass: the complete run's verdict becomes the third of
# three, after two failing verdicts of T001; the ledger shows one attempt.
verdicts_fail_fail_pass := array.concat(
	[{"op": "replace", "path": "/docs/validator_report/verdicts/0/timestamp", "value": "2025-09-29T14:51:00Z"}],
	array.concat(
		array.concat(test.verdict_status(0, "needs_remediation"), test.add_verdict(failing_verdict("2025-09-29T14:53:00Z"))),
		test.add_verdict({"task_id": "T001", "timestamp": "2025-09-29T15:00:00Z", "status": "pass_with_notes"}),
	),
)

test_third_attempt_in_the_verdicts if {
	[f] := third(test.patch(verdicts_fail_fail_pass))
	f.file == "validator_report.json"
	f.pointer == "/verdicts/2/status"
	f.task_id == "T001"
	f.msg == "verdict 2 passes task T001 after 2 failing verdicts (verdict 0, verdict 1) with no escalation followed by a human's decision in between: the attempt past the limit of 2 needs a human first"
}

test_third_attempt_in_the_verdicts_after_an_escalating_verdict if {
	inp := test.patch(array.concat(verdicts_fail_fail_pass, array.concat(
		[{"op": "add", "path": "/docs/validator_report/verdicts/2", "value": {"task_id": "T001", "timestamp": "2025-09-29T14:54:00Z", "status": "escalation_required"}}, {"op": "add", "path": "/meanings/verdicts/2", "value": fixture.status_meanings.verdictStatus.escalation_required}],
		[{"op": "add", "path": "/docs/gates_ledger/events/-", "value": human("2025-09-29T14:56:00Z")}],
	)))
	count(third(inp)) == 0

	# the human's event must fall between the escalation and the pass
	late := test.patch(array.concat(verdicts_fail_fail_pass, array.concat(
		[{"op": "add", "path": "/docs/validator_report/verdicts/2", "value": {"task_id": "T001", "timestamp": "2025-09-29T14:54:00Z", "status": "escalation_required"}}, {"op": "add", "path": "/meanings/verdicts/2", "value": fixture.status_meanings.verdictStatus.escalation_required}],
		[{"op": "add", "path": "/docs/gates_ledger/events/-", "value": human("2025-09-29T15:10:00Z")}],
	)))
	count(third(late)) == 1
}

test_third_attempt_in_the_verdicts_after_a_ledger_escalation if {
	inp := test.patch(array.concat(verdicts_fail_fail_pass, [
		{"op": "add", "path": "/docs/gates_ledger/events/-", "value": escalation_g2("2025-09-29T14:54:00Z")},
		{"op": "add", "path": "/docs/gates_ledger/events/-", "value": human("2025-09-29T14:56:00Z")},
	]))
	count(third(inp)) == 0
}

test_third_attempt_in_the_verdicts_with_unreadable_times if {
	inp := test.patch(array.concat(verdicts_fail_fail_pass, [
		{"op": "replace", "path": "/docs/validator_report/verdicts/2/timestamp", "value": "yesterday"},
		{"op": "add", "path": "/docs/gates_ledger/events/-", "value": escalation_g2("2025-09-29T14:54:00Z")},
		{"op": "add", "path": "/docs/gates_ledger/events/-", "value": human("2025-09-29T14:56:00Z")},
	]))
	count(third(inp)) == 1
}

test_third_attempt_reported_once_when_the_ledger_shows_it if {
	inp := test.patch(array.concat(verdicts_fail_fail_pass, g2_attempts([
		failed_g2("2025-09-29T14:51:00Z"), failed_g2("2025-09-29T14:53:00Z"),
	])))
	[f] := third(inp)
	f.file == "state/GATES_LEDGER.md"
}

# Attempts are counted since the gate last passed: a failure before an
# earlier pass belongs to that pass's attempts.
test_third_attempt_counts_since_the_last_pass if {
	count(third(test.patch(g2_attempts([
		failed_g2("2025-09-29T14:51:00Z"), test.event("2025-09-29T14:52:00Z", "G2_validation", "PASSED", "validator", 0),
		failed_g2("2025-09-29T14:53:00Z"),
	])))) == 0
	count(third(test.patch(array.concat(verdicts_fail_fail_pass, [
		{"op": "replace", "path": "/docs/validator_report/verdicts/1/status", "value": "pass"},
		{"op": "replace", "path": "/meanings/verdicts/1", "value": fixture.status_meanings.verdictStatus.pass},
	])))) == 0
}

test_third_attempt_names_a_few_lines if {
	[f] := third(test.patch(g2_attempts([
		test.event("2025-09-29T14:51:00Z", "G2_validation", "FAILED", "validator", 40),
		test.event("2025-09-29T14:52:00Z", "G2_validation", "FAILED", "validator", 41),
		test.event("2025-09-29T14:53:00Z", "G2_validation", "FAILED", "validator", 42),
		test.event("2025-09-29T14:54:00Z", "G2_validation", "FAILED", "validator", 43),
		test.event("2025-09-29T14:55:00Z", "G2_validation", "FAILED", "validator", 44),
	])))
	contains(f.msg, "after 5 failed attempts of the gate (FAILED at lines 40, 41, 42 and 2 more)")
	retries.verdict_list([1, 2, 3, 4, 5]) == "verdicts 1, 2, 3 and 2 more"
	retries.verdict_list([0, 1]) == "verdict 0, verdict 1"
}

test_third_attempt_licensed_by_a_claimed_decision_needs_a_human if {
	inp := test.patch(g2_attempts([
		failed_g2("2025-09-29T14:51:00Z"), failed_g2("2025-09-29T14:53:00Z"),
		escalation_g2("2025-09-29T14:54:00Z"), test.claimed(human("2025-09-29T14:55:00Z")), started_g2("2025-09-29T14:56:00Z"),
	]))
	count(third(inp)) == 0
	count(claimed_findings(inp)) == 1
}
