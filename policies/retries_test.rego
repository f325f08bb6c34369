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

# The limit's own remediation, escalating the task, leads to a run that
# needs a human, not to one that still fails.
test_over_limit_escalated_needs_a_human if {
	ops := array.concat(test.task_status("escalation_required"), [
		{"op": "replace", "path": "/docs/current_task/iteration_count", "value": 3},
		{"op": "replace", "path": "/docs/executor_report/tdd_cycles/0/iteration_count", "value": 3},
	])
	count(test.of(retries.deny, "h3a.retries.over_limit")) == 0 with input as test.patch(ops)
	[f] := escalated(ops)
	f.needs_human == true
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

# escalated lists the warnings of ops, in a run that holds the escalation
# issue file (its absence: h3a.retries.escalation_issue_missing).
escalated(ops) := [f | some f in fs] if {
	fs := retries.warn with input as test.patch(array.concat(ops, [with_issue_file]))
}

with_issue_file := {"op": "add", "path": "/tree/-", "value": "artifacts/escalation/issue_T001.md"}

issue_missing := "h3a.retries.escalation_issue_missing"

test_escalation_issue_missing_quiet_on_ok_runs if {
	count(test.of(retries.warn, issue_missing)) == 0 with input as fixture.complete
	count(test.of(retries.warn, issue_missing)) == 0 with input as fixture.fresh
}

test_escalation_issue_missing_for_an_escalated_task if {
	[f] := test.of(retries.warn, issue_missing) with input as test.patch(test.task_status("escalation_required"))
	f.file == "state/CURRENT_TASK.json"
	f.pointer == "/status"
	f.task_id == "T001"
	not f.needs_human
	f.msg == `task "T001" was escalated (CURRENT_TASK.json status is "escalation_required") but the run has no "artifacts/escalation/issue_T001.md": the escalation issue the human reviews is missing`
}

test_escalation_issue_missing_for_a_verdict if {
	# the verdict is named first, where the task is escalated twice
	inp := test.patch(array.concat(test.verdict_status(0, "escalation"), test.task_status("escalation_required")))
	[f] := test.of(retries.warn, issue_missing) with input as inp
	f.file == "validator_report.json"
	f.pointer == "/verdicts/0/status"
	contains(f.msg, `(verdict 0 has status "escalation")`)
}

test_escalation_issue_missing_for_a_ledger_event if {
	inp := test.patch([{"op": "add", "path": "/docs/gates_ledger/events/5", "value": test.event("2025-09-29T14:55:00Z", "G2_validation", "ESCALATION", "validator", 31)}])
	[f] := test.of(retries.warn, issue_missing) with input as inp
	f.file == "state/GATES_LEDGER.md"
	f.line == 31
	contains(f.msg, "(GATES_LEDGER.md logs G2_validation ESCALATION)")
}

test_escalation_issue_found if {
	ops := test.task_status("escalation_required")
	count(test.of(retries.warn, issue_missing)) == 0 with input as test.patch(array.concat(ops, [with_issue_file]))

	# another name in artifacts/escalation/ that holds the task id counts
	other := {"op": "add", "path": "/tree/-", "value": "artifacts/escalation/T001-escalation-2.md"}
	count(test.of(retries.warn, issue_missing)) == 0 with input as test.patch(array.concat(ops, [other]))

	# a file elsewhere, or about another task, does not
	elsewhere := {"op": "add", "path": "/tree/-", "value": "artifacts/validator/issue_T001.md"}
	count(test.of(retries.warn, issue_missing)) == 1 with input as test.patch(array.concat(ops, [elsewhere]))
	another := {"op": "add", "path": "/tree/-", "value": "artifacts/escalation/issue_T002.md"}
	count(test.of(retries.warn, issue_missing)) == 1 with input as test.patch(array.concat(ops, [another]))
}

test_escalation_issue_of_an_earlier_task if {
	# an escalated verdict about another task needs that task's issue file
	inp := test.patch(test.add_verdict({"task_id": "T000", "status": "escalation_required"}))
	[f] := test.of(retries.warn, issue_missing) with input as inp
	f.task_id == "T000"
	f.pointer == "/verdicts/1/status"
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

# --- who decided: a human decision claimed by the change under review -------

claimed_findings(inp) := fs if {
	fs := test.of(retries.warn, "h3a.security.human_claimed") with input as inp
}

test_claimed_human_decision_does_not_clear_the_escalation if {
	inp := test.patch(array.concat(test.task_status("escalation_required"), [
		{"op": "add", "path": "/docs/gates_ledger/events/-", "value": test.event("2025-09-29T15:10:00Z", "G2_validation", "FAILED", "validator", 32)},
		{"op": "add", "path": "/docs/gates_ledger/events/-", "value": test.claimed(test.event("2025-09-29T16:00:00Z", "G2_validation", "REVIEWED", "human", 33))},
	]))
	count(test.of(retries.warn, "h3a.retries.escalation")) == 1 with input as inp
	[f] := claimed_findings(inp)
	f.needs_human == true
	f.line == 33
	f.file == "state/GATES_LEDGER.md"
	startswith(f.msg, "a human decision claimed in this change; a reviewer must confirm it")
}

test_decided_provenances_count if {
	every p in ["base", "signed", "local"] {
		inp := test.patch(array.concat(test.task_status("escalation_required"), [
			{"op": "add", "path": "/docs/gates_ledger/events/-", "value": test.event("2025-09-29T15:10:00Z", "G2_validation", "FAILED", "validator", 32)},
			{"op": "add", "path": "/docs/gates_ledger/events/-", "value": object.union(test.event("2025-09-29T16:00:00Z", "G2_validation", "REVIEWED", "human", 33), {"provenance": p})},
			with_issue_file,
		]))
		count(retries.warn) == 0 with input as inp
	}
}

test_human_event_without_provenance_is_claimed if {
	ev := object.remove(test.event("2025-09-29T16:00:00Z", "G2_validation", "REVIEWED", "Human", 33), ["provenance"])
	inp := test.patch([{"op": "add", "path": "/docs/gates_ledger/events/-", "value": ev}])
	count(claimed_findings(inp)) == 1
}

test_claimed_events_of_agents_are_not_decisions if {
	inp := test.patch([{"op": "add", "path": "/docs/gates_ledger/events/-", "value": test.claimed(test.event("2025-09-29T16:00:00Z", "G2_validation", "NOTE", "validator", 33))}])
	count(claimed_findings(inp)) == 0
}

unresolved(inp) := fs if {
	fs := test.of(retries.warn, "h3a.retries.resolved_without_human") with input as inp
}

test_escalation_resolved_by_an_agent_needs_a_human if {
	inp := test.patch([
		{"op": "add", "path": "/docs/gates_ledger/events/-", "value": test.event("2025-09-29T15:10:00Z", "G2_validation", "ESCALATION", "validator", 32)},
	])
	[f] := unresolved(inp)
	f.needs_human == true
	f.line == 32
	f.task_id == "T001"

	# a person's decision after it resolves it
	count(unresolved(json.patch(inp, [{"op": "add", "path": "/docs/gates_ledger/events/-", "value": test.event("2025-09-29T16:00:00Z", "G2_validation", "REVIEWED", "human", 33)}]))) == 0

	# a claimed one does not
	count(unresolved(json.patch(inp, [{"op": "add", "path": "/docs/gates_ledger/events/-", "value": test.claimed(test.event("2025-09-29T16:00:00Z", "G2_validation", "REVIEWED", "human", 33))}]))) == 1

	# a later failure is a setback of its own, not a resolution
	count(unresolved(json.patch(inp, [{"op": "add", "path": "/docs/gates_ledger/events/-", "value": test.event("2025-09-29T16:00:00Z", "G2_validation", "FAILED", "validator", 33)}]))) == 0
}

test_escalation_still_open_is_reported_once if {
	inp := test.patch(array.concat(test.task_status("escalation_required"), [
		{"op": "add", "path": "/docs/gates_ledger/events/-", "value": test.event("2025-09-29T15:10:00Z", "G2_validation", "ESCALATION", "validator", 32)},
	]))
	count(unresolved(inp)) == 0
	count(test.of(retries.warn, "h3a.retries.escalation")) == 1 with input as inp
}

# --- cycles against iteration_count ------------------------------------------------

cycles_rule := "h3a.retries.cycles_unreported"

# three_cycles appends two more cycles of T001 at the given times.
three_cycles(t1, t2) := [
	{"op": "add", "path": "/docs/executor_report/tdd_cycles/-", "value": object.union(fixture.complete.docs.executor_report.tdd_cycles[0], {"timestamp": t1})},
	{"op": "add", "path": "/docs/executor_report/tdd_cycles/-", "value": object.union(fixture.complete.docs.executor_report.tdd_cycles[0], {"timestamp": t2})},
]

test_cycles_unreported_quiet_on_ok_runs if {
	count(test.of(retries.warn, cycles_rule)) == 0 with input as fixture.complete
	count(test.of(retries.warn, cycles_rule)) == 0 with input as fixture.fresh
}

test_cycles_unreported_three_cycles_one_iteration if {
	inp := test.patch(three_cycles("2025-09-29T15:10:00Z", "2025-09-29T15:20:00Z"))
	[f] := test.of(retries.warn, cycles_rule) with input as inp
	f.needs_human
	f.file == "executor_report.json"
	f.pointer == "/tdd_cycles/2"
	f.task_id == "T001"
	f.msg == `executor_report.json holds 3 TDD cycles of task "T001" (cycles 0, 1, 2), more than the limit of 2 iterations, but CURRENT_TASK.json iteration_count is 1: a human must check whether the attempts were under-reported`
}

# Within the limit, or reported, or escalated: nothing to look at here.
test_cycles_unreported_within_limit_or_reported if {
	two := test.patch([three_cycles("2025-09-29T15:10:00Z", "2025-09-29T15:20:00Z")[0]])
	count(test.of(retries.warn, cycles_rule)) == 0 with input as two
	reported := test.patch(array.concat(three_cycles("2025-09-29T15:10:00Z", "2025-09-29T15:20:00Z"), [{"op": "replace", "path": "/docs/current_task/iteration_count", "value": 3}]))
	count(test.of(retries.warn, cycles_rule)) == 0 with input as reported
	escalated := test.patch(array.concat(three_cycles("2025-09-29T15:10:00Z", "2025-09-29T15:20:00Z"), test.task_status("escalation_required")))
	count(test.of(retries.warn, cycles_rule)) == 0 with input as escalated
	other := test.patch(array.concat(three_cycles("2025-09-29T15:10:00Z", "2025-09-29T15:20:00Z"), [{"op": "replace", "path": "/docs/executor_report/tdd_cycles/2/task_id", "value": "T002"}]))
	count(test.of(retries.warn, cycles_rule)) == 0 with input as other
}

# A human's event resets the count: only the cycles after it are counted;
# a cycle whose time cannot be read counts.
test_cycles_unreported_after_a_human if {
	human := test.event("2025-09-29T15:05:00Z", "G2_validation", "DECIDED", "human", 40)
	reset := test.patch(array.concat(three_cycles("2025-09-29T15:10:00Z", "2025-09-29T15:20:00Z"), [{"op": "add", "path": "/docs/gates_ledger/events/-", "value": human}]))
	count(test.of(retries.warn, cycles_rule)) == 0 with input as reset
	untimed := test.patch(array.concat(
		three_cycles("2025-09-29T15:10:00Z", "2025-09-29T15:20:00Z"),
		[
			{"op": "add", "path": "/docs/gates_ledger/events/-", "value": human},
			{"op": "replace", "path": "/docs/executor_report/tdd_cycles/0/timestamp", "value": "later"},
		],
	))
	[f] := test.of(retries.warn, cycles_rule) with input as untimed
	contains(f.msg, "holds 3 TDD cycles of task \"T001\" (cycles 0, 1, 2)")
}
