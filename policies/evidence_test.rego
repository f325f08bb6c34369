package h3a.tests.evidence

import data.h3a.model
import data.h3a.rules.evidence
import data.h3a.test
import data.h3a.test.fixture

g0 := "h3a.evidence.g0_exit_criteria"

g1 := "h3a.evidence.g1_exit_criteria"

g2 := "h3a.evidence.g2_exit_criteria"

g3 := "h3a.evidence.g3_exit_criteria"

required := "h3a.evidence.required_artifact"

test_evidence_quiet_on_ok_runs if {
	count(evidence.deny) == 0 with input as fixture.complete
	count(evidence.deny) == 0 with input as fixture.fresh
}

# --- G0 -----------------------------------------------------------------------

test_g0_roadmap_sections_and_tasks if {
	inp := test.patch([
		{"op": "replace", "path": "/docs/roadmap/sections", "value": ["Task Brief", "Task Decomposition"]},
		{"op": "replace", "path": "/docs/roadmap/tasks", "value": []},
	])
	fs := test.of(evidence.deny, g0) with input as inp
	msgs := {f.msg | some f in fs}
	"G0_planning is passed but ROADMAP.md has no \"Overall Strategy\" section" in msgs
	"G0_planning is passed but the ROADMAP.md task queue lists no task (expected \"- [ ] T001: <description>\")" in msgs
	every f in fs {
		f.file == "state/ROADMAP.md"
		f.gate == "G0"
	}
	fixes := {f.remediation | some f in fs}
	fixes == {
		"add an \"## Overall Strategy\" section to ROADMAP.md: how the task will be done; until then G0 is not passed, so set it back to in_progress in every record",
		"add the task to the ROADMAP.md task queue as \"- [ ] T001: <description>\"; until then G0 is not passed, so set it back to in_progress in every record",
	}
}

test_g0_current_task_fields if {
	inp := test.patch([
		{"op": "replace", "path": "/docs/current_task/goal", "value": "  "},
		{"op": "replace", "path": "/docs/current_task/tdd_plan/refactor", "value": null},
		{"op": "replace", "path": "/docs/current_task/definition_of_done", "value": ["a", "b"]},
	])
	fs := test.of(evidence.deny, g0) with input as inp
	pointers := {f.pointer | some f in fs}
	pointers == {"/goal", "/tdd_plan/refactor", "/definition_of_done"}
	some f in fs
	f.msg == "G0_planning is passed but CURRENT_TASK.json lists 2 definition-of-done item(s), at least 3 expected"
	fixes := {f.pointer: f.remediation | some f in fs}
	startswith(fixes["/goal"], "write the task's goal into CURRENT_TASK.json; until then G0 is not passed")
	startswith(fixes["/tdd_plan/refactor"], "write the refactor step of the TDD plan into CURRENT_TASK.json tdd_plan.refactor; ")
	startswith(fixes["/definition_of_done"], "add 1 more definition-of-done item(s) to CURRENT_TASK.json definition_of_done; ")
}

test_g0_tdd_plan_not_an_object if {
	inp := test.patch([{"op": "replace", "path": "/docs/current_task/tdd_plan", "value": "later"}])
	fs := test.of(evidence.deny, g0) with input as inp
	count(fs) == 3
	every f in fs {
		f.pointer == "/tdd_plan"
	}
}

test_g0_planner_report_and_ledger if {
	inp := test.patch([
		{"op": "replace", "path": "/docs/planner_report/reports", "value": []},
		{"op": "remove", "path": "/docs/gates_ledger/events/1"},
	])
	fs := test.of(evidence.deny, g0) with input as inp
	msgs := {f.msg | some f in fs}
	"G0_planning is passed but planner_report.json holds no report" in msgs
	"G0_planning is passed but GATES_LEDGER.md has no G0_planning PASSED event" in msgs
	fixes := {f.remediation | some f in fs}
	"the planner records its report (tasks_created, artifacts) in planner_report.json reports; until then G0 is not passed, so set it back to in_progress in every record" in fixes
	"once its exit criteria hold, append \"[<UTC time>] G0_planning - PASSED - <agent> - <evidence>\" to GATES_LEDGER.md; until then the gate is not passed, so set it back to in_progress in every record" in fixes
}

test_g0_planner_report_without_findings_or_strategy if {
	inp := test.patch([
		{"op": "replace", "path": "/docs/planner_report/reports/0/research_findings", "value": [" "]},
		{"op": "remove", "path": "/docs/planner_report/reports/0/tdd_strategy"},
	])
	fs := test.of(evidence.deny, g0) with input as inp
	{f.msg | some f in fs} == {
		"G0_planning is passed but no planner_report.json report about task \"T001\" records research findings (research_findings)",
		"G0_planning is passed but no planner_report.json report about task \"T001\" records a strategy (tdd_strategy)",
	}
	every f in fs {
		f.file == "planner_report.json"
		f.pointer == "/reports/0"
		f.task_id == "T001"
	}
}

# Another report about the task may hold them: the task is planned once,
# refined later.
test_g0_planner_findings_in_another_report_of_the_task if {
	inp := test.patch([
		{"op": "replace", "path": "/docs/planner_report/reports/0/research_findings", "value": []},
		{"op": "add", "path": "/docs/planner_report/reports/-", "value": {
			"task_id": "T000", "timestamp": "2025-09-29T14:00:00Z", "gate_status": "G0_passed",
			"tasks_created": ["T001"], "research_findings": ["PyJWT pins the algorithm on decode"],
		}},
	])
	count(test.of(evidence.deny, g0)) == 0 with input as inp
}

test_g0_planner_report_about_another_task if {
	inp := test.patch([
		{"op": "replace", "path": "/docs/planner_report/reports/0/task_id", "value": "T002"},
		{"op": "replace", "path": "/docs/planner_report/reports/0/tasks_created", "value": ["T002"]},
	])
	[f] := test.of(evidence.deny, g0) with input as inp
	f.msg == "G0_planning is passed but no planner_report.json report is about task \"T001\" (as its task_id or in tasks_created)"
	f.pointer == "/reports"
}

# A gate not claimed passed asks for no planner report yet.
test_g0_planner_report_only_when_g0_passed if {
	inp := test.patch_fresh([{"op": "replace", "path": "/docs/planner_report/reports", "value": [{"task_id": "T001", "timestamp": "2025-09-29T14:00:00Z", "gate_status": "G0_in_progress"}]}])
	count(test.of(evidence.deny, g0)) == 0 with input as inp
}

# A claim from a gate_status alone is held to the criteria too.
test_g0_claimed_by_gate_status_only if {
	inp := test.patch_fresh([{"op": "replace", "path": "/docs/current_task/gate_status", "value": "G1_pending"}])
	fs := test.of(evidence.deny, g0) with input as inp
	count(fs) > 5
}

# --- G1 -----------------------------------------------------------------------

test_g1_no_cycle_for_the_task if {
	inp := test.patch([{"op": "replace", "path": "/docs/executor_report/tdd_cycles/0/task_id", "value": "T002"}])
	fs := test.of(evidence.deny, g1) with input as inp
	some f in fs
	f.msg == "G1_implementation is passed but executor_report.json has no TDD cycle for task \"T001\""
	f.pointer == "/tdd_cycles"
	f.task_id == "T001"
}

test_g1_cycle_without_outputs if {
	inp := test.patch([
		{"op": "remove", "path": "/docs/executor_report/tdd_cycles/0/tdd_phases/red/failure_output"},
		{"op": "replace", "path": "/docs/executor_report/tdd_cycles/0/tdd_phases/green/test_output", "value": ""},
	])
	fs := test.of(evidence.deny, g1) with input as inp
	msgs := {f.msg | some f in fs}
	"G1_implementation is passed but the TDD cycle for task \"T001\" names no RED output (tdd_phases.red.failure_output)" in msgs
	"G1_implementation is passed but the TDD cycle for task \"T001\" names no GREEN output (tdd_phases.green.test_output)" in msgs
}

# The schema accepts test_still_passing false; G1 cannot pass over it.
test_g1_refactor_broke_the_tests if {
	inp := test.patch([{"op": "replace", "path": "/docs/executor_report/tdd_cycles/0/tdd_phases/refactor/test_still_passing", "value": false}])
	[f] := test.of(evidence.deny, g1) with input as inp
	f.msg == "G1_implementation is passed but the TDD cycle for task \"T001\" records tests failing after REFACTOR (tdd_phases.refactor.test_still_passing is false)"
	f.pointer == "/tdd_cycles/0/tdd_phases/refactor/test_still_passing"
	f.gate == "G1"
	startswith(f.remediation, "fix the refactoring")
}

# Only the current task's cycle counts, and only false: a cycle that left
# the field out, or an earlier iteration that broke the tests, is quiet.
test_g1_refactor_only_current_cycle_and_false if {
	broken := test.patch([{"op": "replace", "path": "/docs/executor_report/tdd_cycles/0/tdd_phases/refactor/test_still_passing", "value": false}])
	retried := json.patch(broken, [{"op": "add", "path": "/docs/executor_report/tdd_cycles/-", "value": fixture.complete.docs.executor_report.tdd_cycles[0]}])
	count(test.of(evidence.deny, g1)) == 0 with input as retried
	missing := test.patch([{"op": "remove", "path": "/docs/executor_report/tdd_cycles/0/tdd_phases/refactor/test_still_passing"}])
	count(test.of(evidence.deny, g1)) == 0 with input as missing
}

# The executor's own cycle says G1 failed, or has not finished: G1 cannot be
# passed over its owner's report.
test_g1_cycle_gate_status_not_passed if {
	every gs in ["G1_failed", "G1_in_progress", "G0_passed"] {
		inp := test.patch([{"op": "replace", "path": "/docs/executor_report/tdd_cycles/0/gate_status", "value": gs}])
		[f] := test.of(evidence.deny, g1) with input as inp
		f.msg == sprintf("G1_implementation is passed but the executor's TDD cycle for task \"T001\" has gate_status %q", [gs])
		f.pointer == "/tdd_cycles/0/gate_status"
		f.file == "executor_report.json"
		f.gate == "G1"
		startswith(f.remediation, "if G1 really passed")
	}
}

# G1 passed (or a later gate's status, which implies it), an earlier
# iteration's failed cycle, a spelling the checker does not read, and a run
# where G1 is not claimed passed are quiet.
test_g1_cycle_gate_status_quiet if {
	every gs in ["G1_passed", "G2_in_progress", "G2_failed", "G1 failed"] {
		inp := test.patch([{"op": "replace", "path": "/docs/executor_report/tdd_cycles/0/gate_status", "value": gs}])
		count(test.of(evidence.deny, g1)) == 0 with input as inp
	}
	failed := test.patch([{"op": "replace", "path": "/docs/executor_report/tdd_cycles/0/gate_status", "value": "G1_failed"}])
	retried := json.patch(failed, [{"op": "add", "path": "/docs/executor_report/tdd_cycles/-", "value": fixture.complete.docs.executor_report.tdd_cycles[0]}])
	count(test.of(evidence.deny, g1)) == 0 with input as retried
	fresh := test.patch_fresh([{"op": "add", "path": "/docs/executor_report", "value": {"tdd_cycles": [{"task_id": "T001", "gate_status": "G1_in_progress"}]}}])
	count(test.of(evidence.deny, g1)) == 0 with input as fresh
}

test_g1_dod_item_not_addressed if {
	inp := test.patch([{"op": "add", "path": "/docs/current_task/definition_of_done/-", "value": "Rate limiting on login"}])
	[f] := test.of(evidence.deny, g1) with input as inp
	f.msg == "G1_implementation is passed but definition-of-done item \"Rate limiting on login\" of CURRENT_TASK.json is not addressed in the TDD cycle for task \"T001\""
	f.pointer == "/tdd_cycles/0/definition_of_done"
}

# The executor may word a criterion shorter or longer than the task does.
test_g1_dod_wording_may_differ if {
	inp := test.patch([
		{"op": "replace", "path": "/docs/executor_report/tdd_cycles/0/definition_of_done/0/criterion", "value": "coverage ≥ 90% for auth module"},
		{"op": "replace", "path": "/docs/executor_report/tdd_cycles/0/definition_of_done/1/criterion", "value": "Token expiration validated (tokens expire after 1 hour) in tests/test_auth.py"},
	])
	count(test.of(evidence.deny, g1)) == 0 with input as inp
}

# A criterion far shorter than an item is part of it by chance: "o"
# addresses no item.
test_g1_dod_one_letter_addresses_nothing if {
	inp := test.patch([{"op": "replace", "path": "/docs/executor_report/tdd_cycles/0/definition_of_done", "value": [{"criterion": "o", "met": true}]}])
	fs := test.of(evidence.deny, g1) with input as inp
	count(fs) == 4
	every f in fs {
		contains(f.msg, "is not addressed in the TDD cycle")
	}
}

test_g0_files_affected if {
	every files in [[], [" "], null] {
		inp := test.patch([{"op": "replace", "path": "/docs/current_task/files_affected", "value": files}])
		fs := test.of(evidence.deny, "h3a.evidence.g0_exit_criteria") with input as inp
		{f.pointer | some f in fs} == {"/files_affected"}
	}
}

# An item of white space alone is not one of the three G0 needs.
test_g0_blank_dod_item_not_counted if {
	inp := test.patch([
		{"op": "replace", "path": "/docs/current_task/definition_of_done/2", "value": " \t "},
		{"op": "replace", "path": "/docs/current_task/definition_of_done/3", "value": "  "},
	])
	fs := test.of(evidence.deny, "h3a.evidence.g0_exit_criteria") with input as inp
	some f in fs
	f.msg == "G0_planning is passed but CURRENT_TASK.json lists 2 definition-of-done item(s), at least 3 expected"
}

# The same item written three times is one criterion, not the three G0 needs.
test_g0_repeated_dod_items_counted_once if {
	inp := test.patch([
		{"op": "replace", "path": "/docs/current_task/definition_of_done", "value": ["Tests pass", " tests pass", "TESTS PASS", "Docs updated"]},
	])
	fs := test.of(evidence.deny, "h3a.evidence.g0_exit_criteria") with input as inp
	some f in fs
	f.msg == "G0_planning is passed but CURRENT_TASK.json lists 4 definition-of-done items, 2 of them different (an item written again measures nothing more), at least 3 expected"
	f.pointer == "/definition_of_done"
}

# Three different items pass, however they are written.
test_g0_three_different_dod_items if {
	inp := test.patch([
		{"op": "replace", "path": "/docs/current_task/definition_of_done", "value": ["Tests pass", "Docs updated", "tests pass on CI"]},
	])
	count(test.of(evidence.deny, "h3a.evidence.g0_exit_criteria")) == 0 with input as inp
}

test_g1_ledger_event_missing if {
	inp := test.patch([{"op": "replace", "path": "/docs/gates_ledger/events/3/status", "value": "FAILED"}])
	fs := test.of(evidence.deny, g1) with input as inp
	some f in fs
	f.msg == "G1_implementation is passed but GATES_LEDGER.md has no G1_implementation PASSED event"
	f.line == 25
}

test_g1_without_a_task_id_uses_the_last_cycle if {
	inp := test.patch([
		{"op": "replace", "path": "/docs/current_task/task_id", "value": null},
		{"op": "replace", "path": "/docs/handoff/payload/task_id", "value": null},
		{"op": "add", "path": "/docs/current_task/definition_of_done/-", "value": "Audit log of token use"},
	])
	[f] := test.of(evidence.deny, g1) with input as inp
	contains(f.msg, "the TDD cycle for the current task")
	not f.task_id
}

test_tdd_order if {
	inp := test.patch([{"op": "replace", "path": "/docs/executor_report/tdd_cycles/0/tdd_phases/green/timestamp", "value": "2025-09-29T14:10:00Z"}])
	[f] := test.of(evidence.deny, "h3a.evidence.tdd_order") with input as inp
	f.msg == "RED at 2025-09-29T14:15:00Z is not before GREEN at 2025-09-29T14:10:00Z in the TDD cycle for task \"T001\""
	f.pointer == "/tdd_cycles/0/tdd_phases/green"
}

test_tdd_order_refactor if {
	inp := test.patch([{"op": "replace", "path": "/docs/executor_report/tdd_cycles/0/tdd_phases/refactor/timestamp", "value": "2025-09-29T14:30:00Z"}])
	[f] := test.of(evidence.deny, "h3a.evidence.tdd_order") with input as inp
	startswith(f.msg, "GREEN at 2025-09-29T14:30:00Z is not before REFACTOR")
}

test_tdd_order_missing_time if {
	inp := test.patch([{"op": "remove", "path": "/docs/executor_report/tdd_cycles/0/tdd_phases/red/timestamp"}])
	[f] := test.of(evidence.deny, "h3a.evidence.tdd_order") with input as inp
	f.msg == "the TDD cycle for task \"T001\" has no RED time (tdd_phases.red.timestamp), so RED before GREEN cannot be shown"
	f.pointer == "/tdd_cycles/0/tdd_phases/red"
}

test_tdd_order_missing_phase if {
	inp := test.patch([{"op": "remove", "path": "/docs/executor_report/tdd_cycles/0/tdd_phases/green"}])
	fs := test.of(evidence.deny, "h3a.evidence.tdd_order") with input as inp
	some f in fs
	f.pointer == "/tdd_cycles/0/tdd_phases"
}

after_gate := "h3a.evidence.tdd_after_gate"

# the complete run's G1 PASSED event is at 14:45:00Z (event 3, line 29).
phase_at(phase, t) := {"op": "replace", "path": sprintf("/docs/executor_report/tdd_cycles/0/tdd_phases/%s/timestamp", [phase]), "value": t}

test_tdd_after_gate_quiet_on_ok_runs if {
	count(test.of(evidence.deny, after_gate)) == 0 with input as fixture.complete
	count(test.of(evidence.deny, after_gate)) == 0 with input as fixture.fresh
}

test_tdd_after_gate_green if {
	inp := test.patch([phase_at("green", "2025-09-29T14:50:00Z"), phase_at("refactor", "2025-09-29T14:55:00Z")])
	fs := test.of(evidence.deny, after_gate) with input as inp
	{f.pointer | some f in fs} == {"/tdd_cycles/0/tdd_phases/green/timestamp", "/tdd_cycles/0/tdd_phases/refactor/timestamp"}
	some f in fs
	f.pointer == "/tdd_cycles/0/tdd_phases/green/timestamp"
	f.file == "executor_report.json"
	f.gate == "G1"
	f.task_id == "T001"
	f.msg == `G1_implementation PASSED at 2025-09-29T14:45:00Z (GATES_LEDGER.md line 29), but the GREEN phase of the TDD cycle for task "T001" is timed later, at 2025-09-29T14:50:00Z: the gate passed before its TDD cycle was done`
}

test_tdd_after_gate_red_in_another_zone if {
	# 16:46 at +02:00 is 14:46Z, a minute after the pass
	inp := test.patch([phase_at("red", "2025-09-29T16:46:00+02:00"), phase_at("green", "2025-09-29T14:44:00Z")])
	[f] := test.of(evidence.deny, after_gate) with input as inp
	f.pointer == "/tdd_cycles/0/tdd_phases/red/timestamp"
}

test_tdd_after_gate_same_time_is_not_late if {
	inp := test.patch([phase_at("refactor", "2025-09-29T14:45:00Z"), phase_at("green", "2025-09-29T16:45:00+02:00")])
	count(test.of(evidence.deny, after_gate)) == 0 with input as inp
}

test_tdd_after_gate_needs_readable_times if {
	count(test.of(evidence.deny, after_gate)) == 0 with input as test.patch([phase_at("green", "after the gate")])
	count(test.of(evidence.deny, after_gate)) == 0 with input as test.patch([
		phase_at("green", "2025-09-29T14:50:00Z"),
		{"op": "replace", "path": "/docs/gates_ledger/events/3/time", "value": "14:45"},
	])
}

test_tdd_after_gate_not_after_an_inverted_pass if {
	# a PASSED timed before its STARTED is h3a.gates.ledger_time_inverted's
	inp := test.patch([{"op": "replace", "path": "/docs/gates_ledger/events/3/time", "value": "2025-09-29T14:05:00Z"}])
	count(test.of(evidence.deny, after_gate)) == 0 with input as inp
}

test_tdd_after_gate_a_new_attempt_is_not_late if {
	# G2 failed and G1 started again: the new cycle is after the old pass
	inp := test.patch([
		phase_at("green", "2025-09-29T15:20:00Z"),
		{"op": "add", "path": "/docs/gates_ledger/events/-", "value": test.event("2025-09-29T15:10:00Z", "G1_implementation", "STARTED", "executor", 32)},
	])
	count(test.of(evidence.deny, after_gate)) == 0 with input as inp
}

test_tdd_after_gate_a_later_pass_counts if {
	inp := test.patch([
		phase_at("green", "2025-09-29T15:20:00Z"),
		phase_at("refactor", "2025-09-29T15:25:00Z"),
		{"op": "add", "path": "/docs/gates_ledger/events/-", "value": test.event("2025-09-29T15:10:00Z", "G1_implementation", "STARTED", "executor", 32)},
		{"op": "add", "path": "/docs/gates_ledger/events/-", "value": test.event("2025-09-29T15:30:00Z", "G1_implementation", "PASSED", "executor", 33)},
	])
	count(test.of(evidence.deny, after_gate)) == 0 with input as inp
}

test_coverage_decreased if {
	every delta in ["-1.2%", " - 0.5 % ", -3, "\u22125.2%", "\u20130.1%", "-0.3 pp"] {
		inp := test.patch([{"op": "replace", "path": "/docs/executor_report/tdd_cycles/0/coverage_delta", "value": delta}])
		fs := test.of(evidence.deny, "h3a.evidence.coverage_decreased") with input as inp
		count(fs) == 1
		fs[0].pointer == "/tdd_cycles/0/coverage_delta"
		contains(fs[0].msg, "is negative")
	}
}

# A delta the rule cannot read could hide a decrease.
test_coverage_delta_unreadable if {
	every delta in ["n/a", "about -5", "", true, {"delta": -1}] {
		inp := test.patch([{"op": "replace", "path": "/docs/executor_report/tdd_cycles/0/coverage_delta", "value": delta}])
		fs := test.of(evidence.deny, "h3a.evidence.coverage_decreased") with input as inp
		count(fs) == 1
		contains(fs[0].msg, "is not a change the rule can read")
	}
}

test_coverage_not_decreased if {
	every delta in ["0.0%", "+0%", "+0.4 pp", 2.5, null] {
		inp := test.patch([{"op": "replace", "path": "/docs/executor_report/tdd_cycles/0/coverage_delta", "value": delta}])
		count(test.of(evidence.deny, "h3a.evidence.coverage_decreased")) == 0 with input as inp
	}
}

# The task's last G1 step in state.json, or a correction of it, records the
# coverage change too.
test_coverage_decreased_in_state_step if {
	inp := test.patch([{"op": "replace", "path": "/docs/state/steps/1/coverage_delta", "value": "-1.2%"}])
	[f] := test.of(evidence.deny, "h3a.evidence.coverage_decreased") with input as inp
	f.msg == "G1_implementation is passed but coverage_delta \"-1.2%\" of state.json step 1 for task \"T001\" is negative"
	f.file == "state.json"
	f.pointer == "/steps/1/coverage_delta"
	f.gate == "G1"
	corrected := test.patch([{"op": "add", "path": "/docs/state/steps/-", "value": {"corrects": "T001", "reason": "coverage measured against the wrong baseline", "corrected_values": {"coverage_delta": "-0.4%"}}}])
	[g] := test.of(evidence.deny, "h3a.evidence.coverage_decreased") with input as corrected
	g.pointer == "/steps/3/corrected_values/coverage_delta"
}

# The verdict measured a drop and G2 passed over it.
test_coverage_decreased_in_verdict if {
	inp := test.patch([{"op": "replace", "path": "/docs/validator_report/verdicts/0/verification_results/coverage/delta", "value": "-3.0%"}])
	[f] := test.of(evidence.deny, "h3a.evidence.coverage_decreased") with input as inp
	f.msg == "G2_validation is passed but verification_results.coverage.delta \"-3.0%\" of the verdict for task \"T001\" is negative"
	f.pointer == "/verdicts/0/verification_results/coverage/delta"
	f.gate == "G2"
}

# A later step or correction that records no decrease settles it; an earlier
# attempt's drop, a drop of another task, and a drop no gate is claimed over
# are not reported.
test_coverage_decrease_superseded_or_not_claimed if {
	later := test.patch([
		{"op": "replace", "path": "/docs/state/steps/1/coverage_delta", "value": "-1.2%"},
		{"op": "add", "path": "/docs/state/steps/-", "value": {"task_id": "T001", "agent": "executor", "timestamp": "2025-09-29T14:46:00Z", "summary": "second attempt", "gate": "G1_implementation", "status": "passed", "artifacts": [], "coverage_delta": "+0.5%"}},
	])
	count(test.of(evidence.deny, "h3a.evidence.coverage_decreased")) == 0 with input as later
	corrected := test.patch([
		{"op": "replace", "path": "/docs/state/steps/1/coverage_delta", "value": "-1.2%"},
		{"op": "add", "path": "/docs/state/steps/-", "value": {"corrects": "T001", "reason": "sign written wrong", "corrected_values": {"coverage_delta": "+1.2%"}}},
	])
	count(test.of(evidence.deny, "h3a.evidence.coverage_decreased")) == 0 with input as corrected
	other := test.patch([{"op": "replace", "path": "/docs/state/steps/1/task_id", "value": "T000"}, {"op": "replace", "path": "/docs/state/steps/1/coverage_delta", "value": "-1.2%"}])
	count(test.of(evidence.deny, "h3a.evidence.coverage_decreased")) == 0 with input as other
	unclaimed := test.patch_fresh([{"op": "replace", "path": "/docs/state/steps", "value": [{"task_id": "T001", "agent": "executor", "timestamp": "2025-09-29T14:46:00Z", "summary": "attempt", "gate": "G1_implementation", "status": "failed", "artifacts": [], "coverage_delta": "-2%"}]}])
	count(test.of(evidence.deny, "h3a.evidence.coverage_decreased")) == 0 with input as unclaimed
}

# --- G2 -----------------------------------------------------------------------

test_g2_verdict_not_passing if {
	inp := test.patch(test.verdict_status(0, "fail"))
	[f] := test.of(evidence.deny, g2) with input as inp
	f.msg == "G2_validation is passed but the verdict for task \"T001\" has status \"fail\" (a failure, remediation due), expected a passing status (pass or pass_with_notes)"
	f.pointer == "/verdicts/0/status"
}

# Every spelling is judged by its meaning: the two passing ones pass G2, the
# others (and a status no document defines) do not.
test_g2_verdict_statuses_by_meaning if {
	every s in ["pass", "pass_with_notes"] {
		count(test.of(evidence.deny, g2)) == 0 with input as test.patch(test.verdict_status(0, s))
	}
	every s in ["fail", "needs_remediation", "escalation", "escalation_required", "passed"] {
		count(test.of(evidence.deny, g2)) == 1 with input as test.patch(test.verdict_status(0, s))
	}
	[f] := test.of(evidence.deny, g2) with input as test.patch(test.verdict_status(0, "escalation_required"))
	f.msg == "G2_validation is passed but the verdict for task \"T001\" has status \"escalation_required\" (an escalation to a human), expected a passing status (pass or pass_with_notes)"
	[g] := test.of(evidence.deny, g2) with input as test.patch(test.verdict_status(0, "passed"))
	g.msg == "G2_validation is passed but the verdict for task \"T001\" has status \"passed\", which no document defines, expected a passing status (pass or pass_with_notes)"
}

test_g2_verdict_without_status if {
	inp := test.patch([
		{"op": "remove", "path": "/docs/validator_report/verdicts/0/status"},
		{"op": "replace", "path": "/meanings/verdicts/0", "value": null},
	])
	[f] := test.of(evidence.deny, g2) with input as inp
	f.msg == "G2_validation is passed but the verdict for task \"T001\" has status missing, which no document defines, expected a passing status (pass or pass_with_notes)"
	f.pointer == "/verdicts/0"
}

test_g2_no_verdict_and_no_event if {
	inp := test.patch([
		{"op": "replace", "path": "/docs/validator_report/verdicts", "value": []},
		{"op": "remove", "path": "/docs/gates_ledger/events/5"},
	])
	msgs := {f.msg | some f in test.of(evidence.deny, g2)} with input as inp
	msgs == {
		"G2_validation is passed but validator_report.json has no verdict for task \"T001\"",
		"G2_validation is passed but GATES_LEDGER.md has no G2_validation PASSED event",
	}
}

# A passing verdict states a result for each check of the G2 exit criteria.
test_g2_verification_results_missing if {
	inp := test.patch([
		{"op": "remove", "path": "/docs/validator_report/verdicts/0/verification_results/security"},
		{"op": "remove", "path": "/docs/validator_report/verdicts/0/verification_results/mutation"},
	])
	[f] := test.of(evidence.deny, g2) with input as inp
	f.msg == "G2_validation is passed but the verdict for task \"T001\" states no verification result for mutation, security, expected one for each check of the G2 exit criteria (tdd_compliance, tests, coverage, mutation, security, lint, type_check, accessibility, dod_checklist)"
	f.file == "validator_report.json"
	f.pointer == "/verdicts/0/verification_results"
	f.gate == "G2"
	empty := test.patch([{"op": "replace", "path": "/docs/validator_report/verdicts/0/verification_results", "value": {}}])
	[g] := test.of(evidence.deny, g2) with input as empty
	contains(g.msg, "states no verification result for tdd_compliance, tests, coverage, mutation, security, lint, type_check, accessibility, dod_checklist,")
	none := test.patch([{"op": "remove", "path": "/docs/validator_report/verdicts/0/verification_results"}])
	[h] := test.of(evidence.deny, g2) with input as none
	h.pointer == "/verdicts/0"
}

# Every check present (one of them not applicable), or G2 not claimed
# passed: nothing to report.
test_g2_verification_results_complete if {
	na := test.patch([{"op": "replace", "path": "/docs/validator_report/verdicts/0/verification_results/security", "value": {"status": "not_applicable", "notes": "no dependency or network change"}}])
	count(test.of(evidence.deny, g2)) == 0 with input as na
	fresh := test.patch_fresh([{"op": "replace", "path": "/docs/validator_report/verdicts", "value": [{"task_id": "T001", "status": "pass", "verification_results": {}}]}])
	count(test.of(evidence.deny, g2)) == 0 with input as fresh
}

# The verdict the validator hands over must pass too.
test_g2_handoff_verdict_not_passing if {
	inp := test.patch([
		{"op": "add", "path": "/docs/handoff/payload/verdict", "value": "needs_remediation"},
		{"op": "replace", "path": "/meanings/handoff_verdict", "value": fixture.status_meanings.verdictStatus.needs_remediation},
	])
	[f] := test.of(evidence.deny, g2) with input as inp
	f.msg == "G2_validation is passed but SESSION_HANDOFF.json hands over the verdict \"needs_remediation\" (a failure, remediation due), expected a passing status (pass or pass_with_notes)"
	f.file == "state/SESSION_HANDOFF.json"
	f.pointer == "/payload/verdict"
}

test_g2_handoff_verdict_passing_or_g2_not_passed if {
	every s in ["pass", "pass_with_notes"] {
		inp := test.patch([
			{"op": "add", "path": "/docs/handoff/payload/verdict", "value": s},
			{"op": "replace", "path": "/meanings/handoff_verdict", "value": fixture.status_meanings.verdictStatus[s]},
		])
		count(test.of(evidence.deny, g2)) == 0 with input as inp
	}
	failed := test.patch_fresh([
		{"op": "add", "path": "/docs/handoff/payload/verdict", "value": "fail"},
		{"op": "replace", "path": "/meanings/handoff_verdict", "value": fixture.status_meanings.verdictStatus.fail},
	])
	count(test.of(evidence.deny, g2)) == 0 with input as failed
}

test_verdict_numbers_approval_withheld if {
	inp := test.patch([{"op": "replace", "path": "/docs/validator_report/verdicts/0/approval_for_next_task", "value": false}])
	[f] := test.of(evidence.warn, "h3a.evidence.verdict_numbers") with input as inp
	f.needs_human
	f.pointer == "/verdicts/0/approval_for_next_task"
	f.msg == "verdict 0: status \"pass\" (a pass), but approval_for_next_task is false"
	failing := test.patch(array.concat(test.verdict_status(0, "fail"), [{"op": "replace", "path": "/docs/validator_report/verdicts/0/approval_for_next_task", "value": false}]))
	count(test.of(evidence.warn, "h3a.evidence.verdict_numbers")) == 0 with input as failing
}

# "Verdict pass but critical DoD unmet": the executor says an item is not
# met, the passing verdict says nothing is missing.
test_verdict_numbers_dod_unmet_by_executor if {
	inp := test.patch([{"op": "replace", "path": "/docs/executor_report/tdd_cycles/0/definition_of_done/2/met", "value": false}])
	[f] := test.of(evidence.warn, "h3a.evidence.verdict_numbers") with input as inp
	f.needs_human
	f.pointer == "/verdicts/0/verification_results/dod_checklist"
	f.msg == "verdict 0: status \"pass\" (a pass) with no unmet definition-of-done item, but the executor's TDD cycle 0 reports \"Secret key rotation documented in src/config/keys.py\" not met"
	no_checklist := json.patch(inp, [{"op": "remove", "path": "/docs/validator_report/verdicts/0/verification_results/dod_checklist"}])
	[g] := test.of(evidence.warn, "h3a.evidence.verdict_numbers") with input as no_checklist
	g.pointer == "/verdicts/0"
}

# A verdict that admits the shortfall (the specification's own example: a
# partial checklist with the unmet item listed) is a judgement, not a conflict.
test_verdict_numbers_dod_shortfall_admitted if {
	unmet := [{"op": "replace", "path": "/docs/executor_report/tdd_cycles/0/definition_of_done/0/met", "value": false}]
	every ops in [
		[{"op": "replace", "path": "/docs/validator_report/verdicts/0/verification_results/dod_checklist", "value": {"status": "partial", "total": 4, "met": 3}}],
		[{"op": "replace", "path": "/docs/validator_report/verdicts/0/verification_results/dod_checklist/unmet", "value": ["Test coverage ≥ 90% for auth module"]}],
	] {
		count(test.of(evidence.warn, "h3a.evidence.verdict_numbers")) == 0 with input as test.patch(array.concat(unmet, ops))
	}
}

test_verdict_numbers if {
	inp := test.patch([
		{"op": "replace", "path": "/docs/validator_report/verdicts/0/verification_results/tests/total", "value": 48},
		{"op": "replace", "path": "/docs/validator_report/verdicts/0/verification_results/dod_checklist/met", "value": 3},
	])
	fs := test.of(evidence.warn, "h3a.evidence.verdict_numbers") with input as inp
	{f.msg | some f in fs} == {
		"verdict 0: tests passed 47 + failed 0 + skipped 0 is 47, but total is 48",
		"verdict 0: dod_checklist has status \"pass\" but met 3 of 4",
	}
	every f in fs {
		f.task_id == "T001"
		f.needs_human == true
	}
	count(test.of(evidence.deny, "h3a.evidence.verdict_numbers")) == 0 with input as inp
}

test_verdict_failed_tests_with_status_pass if {
	inp := test.patch([
		{"op": "replace", "path": "/docs/validator_report/verdicts/0/verification_results/tests/failed", "value": 1},
		{"op": "replace", "path": "/docs/validator_report/verdicts/0/verification_results/tests/passed", "value": 46},
		{"op": "remove", "path": "/docs/validator_report/verdicts/0/task_id"},
	])
	[f] := test.of(evidence.warn, "h3a.evidence.verdict_numbers") with input as inp
	f.pointer == "/verdicts/0/verification_results/tests/failed"
	not f.task_id
}

# A verdict that passes over a verification result that failed is a
# conflicting signal for a human; a failing verdict over it is not.
test_verdict_pass_over_a_failed_check if {
	inp := test.patch([{"op": "replace", "path": "/docs/validator_report/verdicts/0/verification_results/security/status", "value": "fail"}])
	[f] := test.of(evidence.warn, "h3a.evidence.verdict_numbers") with input as inp
	f.pointer == "/verdicts/0/verification_results/security"
	f.msg == "verdict 0: status \"pass\" (a pass), but verification result security has status \"fail\""
	f.needs_human == true
	failing := test.patch(array.concat(test.verdict_status(0, "fail"), [{"op": "replace", "path": "/docs/validator_report/verdicts/0/verification_results/security/status", "value": "fail"}]))
	count(test.of(evidence.warn, "h3a.evidence.verdict_numbers")) == 0 with input as failing
}

# A verification result with status pass over figures that miss its own
# bar asks for a human; the same figures with status fail do not.
test_verdict_result_below_its_bar if {
	r := "/docs/validator_report/verdicts/0/verification_results"
	inp := test.patch([
		{"op": "replace", "path": concat("", [r, "/mutation/score"]), "value": "83%"},
		{"op": "replace", "path": concat("", [r, "/coverage/absolute"]), "value": "89.9%"},
		{"op": "replace", "path": concat("", [r, "/security/vulnerabilities"]), "value": 2},
		{"op": "replace", "path": concat("", [r, "/lint/errors"]), "value": 3},
		{"op": "replace", "path": concat("", [r, "/type_check/errors"]), "value": 1},
	])
	fs := test.of(evidence.warn, "h3a.evidence.verdict_numbers") with input as inp
	{[f.pointer, f.msg] | some f in fs} == {
		["/verdicts/0/verification_results/mutation/score", "verdict 0: mutation has status \"pass\" but score \"83%\" is below its threshold 85"],
		["/verdicts/0/verification_results/coverage/absolute", "verdict 0: coverage has status \"pass\" but absolute \"89.9%\" is below its threshold 90"],
		["/verdicts/0/verification_results/security/vulnerabilities", "verdict 0: security has status \"pass\" but vulnerabilities is 2"],
		["/verdicts/0/verification_results/lint/errors", "verdict 0: lint has status \"pass\" but errors is 3"],
		["/verdicts/0/verification_results/type_check/errors", "verdict 0: type_check has status \"pass\" but errors is 1"],
	}
	every f in fs {
		f.needs_human == true
	}
	marked := test.patch(array.concat(test.verdict_status(0, "fail"), [
		{"op": "replace", "path": concat("", [r, "/mutation/score"]), "value": "83%"},
		{"op": "replace", "path": concat("", [r, "/mutation/status"]), "value": "partial"},
		{"op": "replace", "path": concat("", [r, "/security/vulnerabilities"]), "value": 2},
		{"op": "replace", "path": concat("", [r, "/security/status"]), "value": "fail"},
	]))
	count(test.of(evidence.warn, "h3a.evidence.verdict_numbers")) == 0 with input as marked
}

# A figure of a result with status pass that the rule cannot read asks for a
# human: a reader sees "71,3%" or "84.2 percent" below its bar.
test_verdict_result_figure_unread if {
	r := "/docs/validator_report/verdicts/0/verification_results"
	inp := test.patch([
		{"op": "replace", "path": concat("", [r, "/mutation/score"]), "value": "71,3%"},
		{"op": "replace", "path": concat("", [r, "/coverage/absolute"]), "value": "\uff18\uff14.\uff12%"},
		{"op": "replace", "path": concat("", [r, "/coverage/threshold"]), "value": "90 percent"},
	])
	fs := test.of(evidence.warn, "h3a.evidence.verdict_numbers") with input as inp
	{f.pointer | some f in fs} == {
		"/verdicts/0/verification_results/mutation/score",
		"/verdicts/0/verification_results/coverage/absolute",
		"/verdicts/0/verification_results/coverage/threshold",
	}
	"verdict 0: mutation has status \"pass\" but its score \"71,3%\" is not a figure the rule can read (like 91.3%, 91.3 or 0.4), so whether it meets its bar is not checked" in {f.msg | some f in fs}
	every f in fs {
		f.needs_human == true
	}
	marked := test.patch(array.concat(test.verdict_status(0, "fail"), [
		{"op": "replace", "path": concat("", [r, "/mutation/score"]), "value": "71,3%"},
		{"op": "replace", "path": concat("", [r, "/mutation/status"]), "value": "fail"},
	]))
	count(test.of(evidence.warn, "h3a.evidence.verdict_numbers")) == 0 with input as marked
}

# Without its own threshold a mutation score is held to 85%; a coverage
# without a threshold has no bar here (h3a.evidence.coverage_not_increased).
test_verdict_result_default_bar if {
	r := "/docs/validator_report/verdicts/0/verification_results"
	inp := test.patch([
		{"op": "replace", "path": concat("", [r, "/mutation/score"]), "value": "84.9%"},
		{"op": "remove", "path": concat("", [r, "/mutation/threshold"])},
		{"op": "replace", "path": concat("", [r, "/coverage/absolute"]), "value": "50%"},
		{"op": "remove", "path": concat("", [r, "/coverage/threshold"])},
	])
	[f] := test.of(evidence.warn, "h3a.evidence.verdict_numbers") with input as inp
	f.pointer == "/verdicts/0/verification_results/mutation/score"
	at_bar := test.patch([{"op": "replace", "path": concat("", [r, "/mutation/score"]), "value": "85%"}])
	count(test.of(evidence.warn, "h3a.evidence.verdict_numbers")) == 0 with input as at_bar
}

# --- G3 -----------------------------------------------------------------------

g3_passed := [
	{"op": "replace", "path": "/docs/state/gates/G3_production_ready", "value": "passed"},
	{"op": "add", "path": "/evidence/artifacts~1system~1pre_deploy_checklist.md", "value": {"logged": true, "exists": true, "inside_run": true, "hash_ok": true}},
	{"op": "add", "path": "/evidence/artifacts~1system~1rollback_plan.md", "value": {"logged": true, "exists": true, "inside_run": true, "hash_ok": true}},
	{"op": "add", "path": "/docs/evidence_log/entries/-", "value": {"path": "artifacts/system/pre_deploy_checklist.md", "hash": "0123456789abcdef", "time": "", "description": "", "line": 30}},
	{"op": "add", "path": "/docs/evidence_log/entries/-", "value": {"path": "artifacts/system/rollback_plan.md", "hash": "fedcba9876543210", "time": "", "description": "", "line": 31}},
]

test_g3_meta if {
	inp := test.patch(array.concat(g3_passed, [
		{"op": "replace", "path": "/docs/state/meta/ci_green", "value": false},
		{"op": "replace", "path": "/docs/state/meta/dirty", "value": true},
	]))
	fs := test.of(evidence.warn, g3) with input as inp
	{f.msg | some f in fs} == {
		"G3_production_ready is passed but state.json meta.ci_green is false, expected true, or a human's confirmation that no CI is available",
		"G3_production_ready is passed but state.json meta.dirty is true, expected false, or a human's confirmation that the uncommitted changes are documented",
	}
	every f in fs {
		f.needs_human == true
	}
	count(test.of(evidence.deny, g3)) == 0 with input as inp
	count(test.of(evidence.deny, required)) == 0 with input as inp
}

test_g3_artifacts_required if {
	inp := test.patch([{"op": "replace", "path": "/docs/state/gates/G3_production_ready", "value": "passed"}])
	fs := test.of(evidence.deny, required) with input as inp
	{f.msg | some f in fs} == {
		"G3_production_ready is passed but its pre-deploy checklist \"artifacts/system/pre_deploy_checklist.md\" is not logged in state/EVIDENCE_LOG.md",
		"G3_production_ready is passed but its rollback plan \"artifacts/system/rollback_plan.md\" is not logged in state/EVIDENCE_LOG.md",
	}
	every f in fs {
		f.pointer == "/gates/G3_production_ready"
		f.gate == "G3"
	}
}

test_g3_logged_elsewhere_but_unverified if {
	inp := test.patch(array.concat(g3_passed, [{"op": "replace", "path": "/evidence/artifacts~1system~1rollback_plan.md/hash_ok", "value": false}]))
	[f] := test.of(evidence.deny, required) with input as inp
	f.file == "state/EVIDENCE_LOG.md"
	f.line == 31
}

# g3_checklist_at(p, key) is g3_passed with the pre-deploy checklist logged at p
# (key: p as the checker cleans it), present and verified, and not logged under
# artifacts/system/.
g3_checklist_at(p, key) := array.concat([op | some op in g3_passed; not checklist_op(op)], [
	{"op": "add", "path": concat("", ["/evidence/", replace(key, "/", "~1")]), "value": {"logged": true, "exists": true, "inside_run": true, "hash_ok": true}},
	{"op": "add", "path": "/docs/evidence_log/entries/-", "value": {"path": p, "hash": "0123456789abcdef", "time": "", "description": "", "line": 32}},
])

checklist_op(op) if contains(op.path, "pre_deploy_checklist")

checklist_op(op) if contains(op.value.path, "pre_deploy_checklist")

test_g3_artifact_in_another_folder if {
	cases := {
		"artifacts/executor/pre_deploy_checklist.md": "artifacts/executor/pre_deploy_checklist.md",
		"pre_deploy_checklist.md": "pre_deploy_checklist.md",
		"./artifacts/system/old/pre_deploy_checklist.md": "artifacts/system/old/pre_deploy_checklist.md",
	}
	every p, logged in cases {
		[f] := test.of(evidence.deny, required) with input as test.patch(g3_checklist_at(p, logged))
		f.msg == sprintf("G3_production_ready is passed but its pre-deploy checklist \"artifacts/system/pre_deploy_checklist.md\" is not logged in state/EVIDENCE_LOG.md (%q logged elsewhere, but G3 requires \"artifacts/system/pre_deploy_checklist.md\")", [logged])
		f.file == "state.json"
		f.pointer == "/gates/G3_production_ready"
	}
}

test_g3_artifact_at_its_path_written_otherwise if {
	count(test.of(evidence.deny, required)) == 0 with input as test.patch(g3_checklist_at("./artifacts//system/pre_deploy_checklist.md", "artifacts/system/pre_deploy_checklist.md"))
}

# --- required artifacts -----------------------------------------------------------

test_required_problems if {
	cases := {
		"/evidence/artifacts~1executor~1test_output_red.txt": "is not logged in state/EVIDENCE_LOG.md",
		"/evidence/artifacts~1executor~1test_output_green.txt/exists": "is logged but not present in the run",
		"/evidence/artifacts~1executor~1coverage_delta.json/hash_ok": "is logged but its hash is not verified (see the integrity finding on its EVIDENCE_LOG.md entry)",
		"/evidence/artifacts~1validator~1security_scan.json/inside_run": "is logged but resolves to a place outside the run directory",
	}
	every path, want in cases {
		op := remove_or_false(path)
		[f] := test.of(evidence.deny, required) with input as test.patch([op])
		endswith(f.msg, want)
	}
}

remove_or_false(path) := {"op": "remove", "path": path} if not contains(path, ".txt/")

else := {"op": "replace", "path": path, "value": false}

test_required_default_paths if {
	inp := test.patch([
		{"op": "remove", "path": "/docs/executor_report/tdd_cycles/0/tdd_phases/red/failure_output"},
		{"op": "remove", "path": "/docs/executor_report/tdd_cycles/0/artifacts"},
		{"op": "remove", "path": "/docs/validator_report/verdicts/0/verification_results/mutation/report"},
		{"op": "remove", "path": "/evidence/artifacts~1executor~1test_output_red.txt"},
		{"op": "remove", "path": "/evidence/artifacts~1executor~1coverage_delta.json"},
		{"op": "remove", "path": "/evidence/artifacts~1validator~1mutation_report.txt"},
	])
	fs := test.of(evidence.deny, required) with input as inp
	{[f.gate, f.pointer, f.msg] | some f in fs} == {
		["G1", "/gates/G1_implementation", "G1_implementation is passed but its RED test output \"artifacts/executor/test_output_red.txt\" is not logged in state/EVIDENCE_LOG.md"],
		["G1", "/gates/G1_implementation", "G1_implementation is passed but its coverage report \"artifacts/executor/coverage_delta.json\" is not logged in state/EVIDENCE_LOG.md"],
		["G2", "/gates/G2_validation", "G2_validation is passed but its mutation report \"artifacts/validator/mutation_report.txt\" is not logged in state/EVIDENCE_LOG.md"],
	}
}

test_required_named_paths if {
	inp := test.patch([{"op": "remove", "path": "/evidence/artifacts~1validator~1security_scan.json"}])
	[f] := test.of(evidence.deny, required) with input as inp
	f.file == "validator_report.json"
	f.pointer == "/verdicts/0/verification_results/security/report"
}

# Without state.json a claim is placed where the ledger makes it.
test_claim_position_in_the_ledger if {
	inp := test.patch([
		{"op": "replace", "path": "/docs/state", "value": null},
		{"op": "remove", "path": "/docs/executor_report/tdd_cycles/0/artifacts"},
		{"op": "remove", "path": "/evidence/artifacts~1executor~1coverage_delta.json"},
	])
	[f] := test.of(evidence.deny, required) with input as inp
	f.file == "state/GATES_LEDGER.md"
	f.line == 29
}

test_claim_position_in_a_gate_status if {
	inp := test.patch([
		{"op": "replace", "path": "/docs/state", "value": null},
		{"op": "replace", "path": "/docs/gates_ledger", "value": null},
		{"op": "remove", "path": "/docs/executor_report/tdd_cycles/0/artifacts"},
		{"op": "remove", "path": "/evidence/artifacts~1executor~1coverage_delta.json"},
	])
	[f] := test.of(evidence.deny, required) with input as inp
	f.file == "state/CURRENT_TASK.json"
	f.pointer == "/gate_status"
}

test_claim_position_in_the_handoff if {
	inp := test.patch([
		{"op": "replace", "path": "/docs/state", "value": null},
		{"op": "replace", "path": "/docs/gates_ledger", "value": null},
		{"op": "replace", "path": "/docs/current_task", "value": null},
		{"op": "remove", "path": "/docs/executor_report/tdd_cycles/0/artifacts"},
		{"op": "remove", "path": "/evidence/artifacts~1executor~1coverage_delta.json"},
	])
	[f] := test.of(evidence.deny, required) with input as inp
	f.file == "state/SESSION_HANDOFF.json"
}

# G1 passed over a command that last failed: in the cycle and in the state
# step; a RED run and a failure run again to success are not counted.
test_g1_command_failed if {
	inp := test.patch([
		{"op": "add", "path": "/docs/executor_report/tdd_cycles/0/commands_run", "value": [
			{"cmd": "pytest tests/", "exit_code": 1, "artifact": "artifacts/executor/test_output_red.txt"},
			{"cmd": "ruff check", "exit_code": 1},
			{"cmd": "ruff check", "exit_code": 0},
			{"cmd": "mypy src", "exit_code": 2},
		]},
		{"op": "replace", "path": "/docs/state/steps/1/commands_run/0/exit_code", "value": 1},
	])
	fs := test.of(evidence.deny, "h3a.evidence.g1_command_failed") with input as inp
	{[f.file, f.pointer] | some f in fs} == {
		["executor_report.json", "/tdd_cycles/0/commands_run/3/exit_code"],
		["state.json", "/steps/1/commands_run/0/exit_code"],
	}
	"G1_implementation is passed but \"mypy src\" last exited with 2 in the TDD cycle for task \"T001\"" in {f.msg | some f in fs}
}

test_g1_commands_passed if {
	count(test.of(evidence.deny, "h3a.evidence.g1_command_failed")) == 0 with input as fixture.complete
}

# A RED output that is the GREEN one, has its content, or is empty cannot
# show the failure G1 needs.
test_tdd_red_not_failure if {
	red := "/docs/executor_report/tdd_cycles/0/tdd_phases/red/failure_output"
	same_file := test.patch([{"op": "replace", "path": red, "value": "./artifacts/executor/test_output_green.txt"}])
	[f] := test.of(evidence.deny, "h3a.evidence.tdd_red_not_failure") with input as same_file
	contains(f.msg, "is the GREEN output's file")
	f.pointer == "/tdd_cycles/0/tdd_phases/red/failure_output"
	hashes := {e.path: e.hash | some e in fixture.complete.docs.evidence_log.entries}
	same_hash := test.patch([{"op": "add", "path": "/docs/evidence_log/entries/-", "value": {
		"path": "artifacts/executor/test_output_red.txt", "hash": upper(hashes["artifacts/executor/test_output_green.txt"]),
		"time": "2025-09-29T14:50:00Z", "description": "RED again", "line": 40,
	}}])
	[g] := test.of(evidence.deny, "h3a.evidence.tdd_red_not_failure") with input as same_hash
	contains(g.msg, "is logged with the same hash as the GREEN output")
	empty := test.patch([{"op": "add", "path": "/docs/evidence_log/entries/-", "value": {
		"path": "artifacts/executor/test_output_red.txt", "hash": "sha256:e3b0c44298fc1c14",
		"time": "2025-09-29T14:50:00Z", "description": "RED again", "line": 40,
	}}])
	[h] := test.of(evidence.deny, "h3a.evidence.tdd_red_not_failure") with input as empty
	contains(h.msg, "the hash of an empty file")
	count(test.of(evidence.deny, "h3a.evidence.tdd_red_not_failure")) == 0 with input as fixture.complete
}

# A GREEN output whose test runner says tests failed cannot show them
# passing; an output that says none failed is GREEN.
test_tdd_green_not_passing if {
	green := "artifacts/executor/test_output_green.txt"
	failing := test.patch([{"op": "add", "path": "/docs/test_outputs", "value": {green: {
		"failures": [
			{"line": 3, "text": "==== 3 failed, 5 passed in 0.41s ===="},
			{"line": 9, "text": "FAILED tests/test_jwt.py::test_expired"},
		],
		"count": 2,
	}}}])
	[f] := test.of(evidence.deny, "h3a.evidence.tdd_green_not_passing") with input as failing
	f.msg == `G1_implementation is passed but the GREEN output "artifacts/executor/test_output_green.txt" shows tests failing, in the TDD cycle for task "T001": line 3 reads "==== 3 failed, 5 passed in 0.41s ====" (and 1 more such line(s))`
	[f.file, f.pointer, f.gate] == ["executor_report.json", "/tdd_cycles/0/tdd_phases/green/test_output", "G1"]

	# Past the first lines the input lists, the count says how many more.
	capped := test.patch([{"op": "add", "path": "/docs/test_outputs", "value": {green: {
		"failures": [
			{"line": 3, "text": "FAIL"},
		],
		"count": 45,
	}}}])
	[c] := test.of(evidence.deny, "h3a.evidence.tdd_green_not_passing") with input as capped
	endswith(c.msg, `line 3 reads "FAIL" (and 44 more such line(s))`)
	passing := test.patch([{"op": "add", "path": "/docs/test_outputs", "value": {green: {"failures": [], "count": 0}}}])
	count(test.of(evidence.deny, "h3a.evidence.tdd_green_not_passing")) == 0 with input as passing
	count(test.of(evidence.deny, "h3a.evidence.tdd_green_not_passing")) == 0 with input as fixture.complete
}

test_coverage_not_increased if {
	at := "/docs/executor_report/tdd_cycles/0"
	flat := test.patch([
		{"op": "replace", "path": sprintf("%s/coverage_delta", [at]), "value": "+0.0%"},
		{"op": "replace", "path": sprintf("%s/coverage_absolute", [at]), "value": "50.0%"},
	])
	[f] := test.of(evidence.deny, "h3a.evidence.coverage_not_increased") with input as flat
	f.pointer == "/tdd_cycles/0/coverage_delta"
	every ok in [
		[{"op": "replace", "path": sprintf("%s/coverage_delta", [at]), "value": "+0.1%"}, {"op": "replace", "path": sprintf("%s/coverage_absolute", [at]), "value": "50%"}],
		[{"op": "replace", "path": sprintf("%s/coverage_delta", [at]), "value": "0%"}, {"op": "replace", "path": sprintf("%s/coverage_absolute", [at]), "value": "90.0%"}],
	] {
		count(test.of(evidence.deny, "h3a.evidence.coverage_not_increased")) == 0 with input as test.patch(ok)
	}
	count(test.of(evidence.deny, "h3a.evidence.coverage_not_increased")) == 0 with input as fixture.complete
}

# --- evidence logged after its gate passed --------------------------------------

late := "h3a.evidence.logged_after_gate"

# the complete run's mutation report (entry 7, line 25) logged at t, after
# G2 PASSED at 15:00:00Z (event 5, line 31) when t is later.
mutation_logged_at(t) := {"op": "replace", "path": "/docs/evidence_log/entries/7/time", "value": t}

test_logged_after_gate_quiet_on_ok_runs if {
	count(test.of(evidence.warn, late)) == 0 with input as fixture.complete
	count(test.of(evidence.warn, late)) == 0 with input as fixture.fresh
}

test_logged_after_gate_fires_for_g2 if {
	inp := test.patch([mutation_logged_at("2025-09-29T15:10:00Z")])
	[f] := test.of(evidence.warn, late) with input as inp
	f.file == "state/EVIDENCE_LOG.md"
	f.line == 25
	f.gate == "G2"
	f.task_id == "T001"
	f.needs_human == true
	f.msg == `G2_validation PASSED at 2025-09-29T15:00:00Z (GATES_LEDGER.md line 31), but its mutation report "artifacts/validator/mutation_report.txt" is logged only later, first at 2025-09-29T15:10:00Z: the gate passed before its evidence was logged`
}

test_logged_after_gate_fires_for_g1 if {
	# the GREEN output logged at 14:50, after G1 PASSED at 14:45
	inp := test.patch([{"op": "replace", "path": "/docs/evidence_log/entries/3/time", "value": "2025-09-29T14:50:00Z"}])
	[f] := test.of(evidence.warn, late) with input as inp
	f.line == 19
	f.gate == "G1"
	contains(f.msg, `G1_implementation PASSED at 2025-09-29T14:45:00Z (GATES_LEDGER.md line 29), but its GREEN test output "artifacts/executor/test_output_green.txt"`)
}

test_logged_after_gate_same_time_is_not_late if {
	inp := test.patch([mutation_logged_at("2025-09-29T15:00:00Z")])
	count(test.of(evidence.warn, late)) == 0 with input as inp
}

test_logged_after_gate_an_earlier_entry_counts if {
	# logged in time, then logged again later: it was there when the gate passed
	inp := test.patch([{"op": "add", "path": "/docs/evidence_log/entries/-", "value": {
		"path": "artifacts/validator/mutation_report.txt", "hash": "8597d8135fc06382",
		"time": "2025-09-29T15:20:00Z", "description": "re-logged", "line": 27,
	}}])
	count(test.of(evidence.warn, late)) == 0 with input as inp
}

test_logged_after_gate_a_later_pass_counts if {
	# G2 failed, re-ran and passed again after the evidence was logged
	inp := test.patch([
		mutation_logged_at("2025-09-29T15:10:00Z"),
		{"op": "add", "path": "/docs/gates_ledger/events/-", "value": test.event("2025-09-29T15:05:00Z", "G2_validation", "FAILED", "validator", 32)},
		{"op": "add", "path": "/docs/gates_ledger/events/-", "value": test.event("2025-09-29T15:06:00Z", "G2_validation", "STARTED", "validator", 33)},
		{"op": "add", "path": "/docs/gates_ledger/events/-", "value": test.event("2025-09-29T15:12:00Z", "G2_validation", "PASSED", "validator", 34)},
	])
	count(test.of(evidence.warn, late)) == 0 with input as inp
}

test_logged_after_gate_unreadable_entry_time_is_not_in_time if {
	# an entry time that cannot be read does not show the artifact was logged in time
	every t in ["after the gate", "2025-09-29T14:58Z", "2025-09-29t14:58:00z", "2025-09-29 14:58:00Z", "2025-02-30T14:58:00Z"] {
		[f] := test.of(evidence.warn, late) with input as test.patch([mutation_logged_at(t)])
		f.line == 25
		f.needs_human == true
		f.msg == sprintf(`G2_validation PASSED at 2025-09-29T15:00:00Z (GATES_LEDGER.md line 31), but its mutation report "artifacts/validator/mutation_report.txt" is logged only at %q, a time that cannot be read: no entry shows it was logged before the gate passed; write entry times as ISO 8601 UTC such as 2025-09-29T14:45:00Z`, [t])
	}
}

test_logged_after_gate_a_readable_entry_in_time_counts if {
	# logged in time, then again with a time that cannot be read
	inp := test.patch([{"op": "add", "path": "/docs/evidence_log/entries/-", "value": {
		"path": "artifacts/validator/mutation_report.txt", "hash": "8597d8135fc06382",
		"time": "later", "description": "re-logged", "line": 27,
	}}])
	count(test.of(evidence.warn, late)) == 0 with input as inp
}

test_logged_after_gate_needs_a_readable_pass_time if {
	# a PASSED time that cannot be read is not compared (ledger_time_format reports it)
	count(test.of(evidence.warn, late)) == 0 with input as test.patch([
		mutation_logged_at("2025-09-29T15:10:00Z"),
		{"op": "replace", "path": "/docs/gates_ledger/events/5/time", "value": "15:00"},
	])
}

test_logged_after_gate_leaves_an_inverted_pass_to_the_ledger_rule if {
	# G2 PASSED at 14:49, before its STARTED at 14:50: that time is known wrong
	inp := test.patch([{"op": "replace", "path": "/docs/gates_ledger/events/5/time", "value": "2025-09-29T14:49:00Z"}])
	count(test.of(evidence.warn, late)) == 0 with input as inp
}

test_logged_after_gate_needs_the_gate_passed if {
	# G2 not passed in any record: its evidence may come later
	inp := test.patch(array.concat(
		[
			mutation_logged_at("2025-09-29T15:10:00Z"),
			{"op": "replace", "path": "/docs/state/gates/G2_validation", "value": "in_progress"},
			{"op": "remove", "path": "/docs/gates_ledger/events/5"},
			{"op": "replace", "path": "/docs/current_task/gate_status", "value": "G2_in_progress"},
			{"op": "replace", "path": "/docs/handoff/gate_status", "value": "G1_passed"},
		],
		test.task_status("validation"),
	))
	count(test.of(evidence.warn, late)) == 0 with input as inp
}

# A passing verdict whose own gate_status says G2 failed, or is still in
# progress, is a conflicting signal for a human.
test_verdict_gate_status_contradicts_a_pass if {
	failed := test.patch([{"op": "replace", "path": "/docs/validator_report/verdicts/0/gate_status", "value": "G2_failed"}])
	[f] := test.of(evidence.warn, "h3a.evidence.verdict_numbers") with input as failed
	f.msg == "verdict 0: status \"pass\" (a pass), but its gate_status is \"G2_failed\""
	f.pointer == "/verdicts/0/gate_status"
	f.needs_human
	f.task_id == "T001"
	in_progress := test.patch([{"op": "replace", "path": "/docs/validator_report/verdicts/0/gate_status", "value": "G2_in_progress"}])
	count(test.of(evidence.warn, "h3a.evidence.verdict_numbers")) == 1 with input as in_progress
}

# A failing verdict that says G2 failed (test.verdict_status writes
# G2_failed for it), and a gate_status of another gate, are quiet.
test_verdict_gate_status_quiet if {
	every s in ["fail", "needs_remediation", "escalation", "escalation_required"] {
		failed := test.patch(test.verdict_status(0, s))
		failed.docs.validator_report.verdicts[0].gate_status == "G2_failed"
		count(test.of(evidence.warn, "h3a.evidence.verdict_numbers")) == 0 with input as failed
	}
	other := test.patch([{"op": "replace", "path": "/docs/validator_report/verdicts/0/gate_status", "value": "G1_passed"}])
	count(test.of(evidence.warn, "h3a.evidence.verdict_numbers")) == 0 with input as other
}

# g2_failed are the patches that make every record say G2 failed.
g2_failed := [
	{"op": "replace", "path": "/docs/state/gates/G2_validation", "value": "failed"},
	{"op": "replace", "path": "/docs/gates_ledger/events/5/status", "value": "FAILED"},
	{"op": "replace", "path": "/docs/current_task/gate_status", "value": "G2_failed"},
	{"op": "replace", "path": "/docs/handoff/gate_status", "value": "G2_failed"},
]

# failing_verdict_saying_g2_passed(s) has verdict 0 with status s and
# gate_status G2_passed, in a run whose records say G2 failed.
failing_verdict_saying_g2_passed(s) := test.patch(array.concat(
	array.concat(g2_failed, test.verdict_status(0, s)),
	[{"op": "replace", "path": "/docs/validator_report/verdicts/0/gate_status", "value": "G2_passed"}],
))

# The reverse: a verdict whose status means a failure or an escalation, with
# a gate_status that says G2 passed, is a conflicting signal for a human.
test_verdict_gate_status_contradicts_a_failure if {
	not 2 in model.claimed_passed with input as failing_verdict_saying_g2_passed("fail")
	every s in ["fail", "needs_remediation", "escalation", "escalation_required"] {
		inp := failing_verdict_saying_g2_passed(s)
		[f] := test.of(evidence.warn, "h3a.evidence.verdict_numbers") with input as inp
		f.pointer == "/verdicts/0/gate_status"
		f.needs_human
		f.task_id == "T001"
	}
	inp := failing_verdict_saying_g2_passed("fail")
	[f] := test.of(evidence.warn, "h3a.evidence.verdict_numbers") with input as inp
	f.msg == "verdict 0: status \"fail\" (a failure, remediation due), but its gate_status is \"G2_passed\""
}

# A failing verdict of an earlier iteration counts too; a status no
# document defines, and a failing verdict with G2_in_progress or G1_passed,
# are quiet.
test_verdict_gate_status_failure_scope if {
	earlier := object.union(fixture.complete.docs.validator_report.verdicts[0], {"status": "fail", "gate_status": "G2_passed"})
	inp := json.patch(test.patch(test.add_verdict(earlier)), [
		{"op": "replace", "path": "/docs/validator_report/verdicts/1", "value": fixture.complete.docs.validator_report.verdicts[0]},
		{"op": "replace", "path": "/docs/validator_report/verdicts/0", "value": earlier},
		{"op": "replace", "path": "/meanings/verdicts/1", "value": fixture.complete.meanings.verdicts[0]},
		{"op": "replace", "path": "/meanings/verdicts/0", "value": fixture.status_meanings.verdictStatus.fail},
	])
	[f] := test.of(evidence.warn, "h3a.evidence.verdict_numbers") with input as inp
	f.pointer == "/verdicts/0/gate_status"
	undefined := test.patch(array.concat(g2_failed, test.verdict_status(0, "failed")))
	undefined.docs.validator_report.verdicts[0].gate_status == "G2_passed"
	count(test.of(evidence.warn, "h3a.evidence.verdict_numbers")) == 0 with input as undefined
	every gs in ["G2_in_progress", "G1_passed"] {
		other := test.patch(array.concat(array.concat(g2_failed, test.verdict_status(0, "fail")), [{"op": "replace", "path": "/docs/validator_report/verdicts/0/gate_status", "value": gs}]))
		count(test.of(evidence.warn, "h3a.evidence.verdict_numbers")) == 0 with input as other
	}
}

# The current verdict failing while a record claims G2 passed is the error
# of h3a.evidence.g2_exit_criteria, not also a warning.
test_verdict_gate_status_failure_left_to_g2 if {
	claimed := json.patch(failing_verdict_saying_g2_passed("fail"), [{"op": "replace", "path": "/docs/state/gates/G2_validation", "value": "passed"}])
	count(test.of(evidence.warn, "h3a.evidence.verdict_numbers")) == 0 with input as claimed
	fs := test.of(evidence.deny, g2) with input as claimed
	"/verdicts/0/status" in {f.pointer | some f in fs}
}

# A failing verdict listed before the passing one but timed after it: the
# gate counts the pass, the timestamps say the failure came last.
test_verdict_order if {
	failed := json.patch(fixture.complete.docs.validator_report.verdicts[0], [
		{"op": "replace", "path": "/status", "value": "fail"},
		{"op": "replace", "path": "/timestamp", "value": "2025-09-29T16:00:00Z"},
	])
	inp := test.patch([{"op": "add", "path": "/docs/validator_report/verdicts/0", "value": failed}])
	[f] := test.of(evidence.warn, "h3a.evidence.verdict_order") with input as inp
		with input.meanings.verdicts as [fixture.status_meanings.verdictStatus.fail, fixture.status_meanings.verdictStatus.pass]
	f.needs_human
	f.pointer == "/verdicts/0/timestamp"
	f.task_id == "T001"

	# Listed in time order, or the same outcome twice: nothing to ask.
	in_order := test.patch([{"op": "add", "path": "/docs/validator_report/verdicts/1", "value": failed}])
	count(test.of(evidence.warn, "h3a.evidence.verdict_order")) == 0 with input as in_order
		with input.meanings.verdicts as [fixture.status_meanings.verdictStatus.pass, fixture.status_meanings.verdictStatus.fail]
	count(test.of(evidence.warn, "h3a.evidence.verdict_order")) == 0 with input as inp
		with input.meanings.verdicts as [fixture.status_meanings.verdictStatus.pass, fixture.status_meanings.verdictStatus.pass]
}

# A failing TDD cycle listed before the passing one but timed after it.
test_cycle_order if {
	failed := json.patch(fixture.complete.docs.executor_report.tdd_cycles[0], [
		{"op": "replace", "path": "/gate_status", "value": "G1_failed"},
		{"op": "replace", "path": "/timestamp", "value": "2025-09-29T14:50:00Z"},
	])
	inp := test.patch([{"op": "add", "path": "/docs/executor_report/tdd_cycles/0", "value": failed}])
	[f] := test.of(evidence.warn, "h3a.evidence.cycle_order") with input as inp
	f.needs_human
	f.pointer == "/tdd_cycles/0/timestamp"
	f.task_id == "T001"

	# Listed in time order, or saying the same of G1: nothing to ask.
	in_order := test.patch([{"op": "add", "path": "/docs/executor_report/tdd_cycles/1", "value": failed}])
	count(test.of(evidence.warn, "h3a.evidence.cycle_order")) == 0 with input as in_order
	same := json.patch(failed, [{"op": "replace", "path": "/gate_status", "value": "G1_passed"}])
	count(test.of(evidence.warn, "h3a.evidence.cycle_order")) == 0 with input as test.patch([{"op": "add", "path": "/docs/executor_report/tdd_cycles/0", "value": same}])
}

# A passing verdict dated before the cycle it passes; a failing one sends
# the task back, so a later cycle is its answer.
test_verdict_before_cycle if {
	early := [{"op": "replace", "path": "/docs/validator_report/verdicts/0/timestamp", "value": "2025-09-29T14:00:00Z"}]
	[f] := test.of(evidence.warn, "h3a.evidence.verdict_before_cycle") with input as test.patch(early)
	f.needs_human
	f.pointer == "/verdicts/0/timestamp"
	f.task_id == "T001"
	count(test.of(evidence.warn, "h3a.evidence.verdict_before_cycle")) == 0 with input as fixture.complete
	count(test.of(evidence.warn, "h3a.evidence.verdict_before_cycle")) == 0 with input as test.patch(array.concat(early, test.verdict_status(0, "fail")))
}

# --- evidence replaced after its gate passed ------------------------------------

replaced := "h3a.evidence.replaced_after_gate"

# the mutation report (logged at 14:58 with 8597d8135fc06382) logged again
# at t with hash h.
mutation_relogged(t, h) := {"op": "add", "path": "/docs/evidence_log/entries/-", "value": {
	"path": "artifacts/validator/mutation_report.txt", "hash": h,
	"time": t, "description": "re-captured", "line": 27,
}}

test_replaced_after_gate_fires if {
	inp := test.patch([mutation_relogged("2025-09-29T15:20:00Z", "00112233445566ff")])
	[f] := test.of(evidence.warn, replaced) with input as inp
	f.file == "state/EVIDENCE_LOG.md"
	f.line == 27
	f.gate == "G2"
	f.needs_human == true
	f.msg == `G2_validation PASSED at 2025-09-29T15:00:00Z (GATES_LEDGER.md line 31), but its mutation report "artifacts/validator/mutation_report.txt" was logged again at 2025-09-29T15:20:00Z with hash 00112233445566ff, after the gate passed on hash 8597d8135fc06382 (line 25): the file the gate passed on has been replaced`
	count(test.of(evidence.warn, late)) == 0 with input as inp
}

test_replaced_after_gate_quiet if {
	count(test.of(evidence.warn, replaced)) == 0 with input as fixture.complete
	count(test.of(evidence.warn, replaced)) == 0 with input as fixture.fresh

	# the same content logged again, with more digits or a prefix
	every h in ["8597d8135fc06382", "SHA256:8597D8135FC06382AB", "8597d813"] {
		count(test.of(evidence.warn, replaced)) == 0 with input as test.patch([mutation_relogged("2025-09-29T15:20:00Z", h)])
	}

	# replaced before the gate passed: the gate passed on the new file
	count(test.of(evidence.warn, replaced)) == 0 with input as test.patch([mutation_relogged("2025-09-29T14:59:00Z", "00112233445566ff")])

	# replaced, then the gate taken through again on the new file
	count(test.of(evidence.warn, replaced)) == 0 with input as test.patch([
		mutation_relogged("2025-09-29T15:20:00Z", "00112233445566ff"),
		{"op": "add", "path": "/docs/gates_ledger/events/-", "value": test.event("2025-09-29T15:25:00Z", "G2_validation", "FAILED", "validator", 32)},
		{"op": "add", "path": "/docs/gates_ledger/events/-", "value": test.event("2025-09-29T15:26:00Z", "G2_validation", "STARTED", "validator", 33)},
		{"op": "add", "path": "/docs/gates_ledger/events/-", "value": test.event("2025-09-29T15:30:00Z", "G2_validation", "PASSED", "validator", 34)},
	])
}

# --- required evidence that is empty ----------------------------------------------

# entry k of the complete run's evidence log logged (and verified) with the
# SHA-256 of no bytes.
logged_empty(k) := {"op": "replace", "path": sprintf("/docs/evidence_log/entries/%d/hash", [k]), "value": "e3b0c44298fc1c14"}

test_required_artifact_empty if {
	# entries: 3 GREEN output, 4 coverage_delta.json, 6 security scan, 7 mutation report
	inp := test.patch([logged_empty(3), logged_empty(4), logged_empty(6), logged_empty(7)])
	fs := test.of(evidence.deny, required) with input as inp
	{f.msg | some f in fs} == {
		`G1_implementation is passed but its GREEN test output "artifacts/executor/test_output_green.txt" is empty: it is logged with the SHA-256 of no bytes, so it shows nothing`,
		`G1_implementation is passed but its coverage report "artifacts/executor/coverage_delta.json" is empty: it is logged with the SHA-256 of no bytes, so it shows nothing`,
		`G2_validation is passed but its security scan "artifacts/validator/security_scan.json" is empty: it is logged with the SHA-256 of no bytes, so it shows nothing`,
		`G2_validation is passed but its mutation report "artifacts/validator/mutation_report.txt" is empty: it is logged with the SHA-256 of no bytes, so it shows nothing`,
	}
}

# An empty RED output is tdd_red_not_failure's alone, and an artifact that is
# not required may be empty.
test_required_artifact_empty_quiet if {
	count(test.of(evidence.deny, required)) == 0 with input as test.patch([logged_empty(2)])
	count(test.of(evidence.deny, required)) == 0 with input as test.patch([logged_empty(0)])
}

# --- required evidence that is one of the run's own documents ------------------------

test_required_artifact_run_document if {
	inp := test.patch([
		{"op": "replace", "path": "/docs/validator_report/verdicts/0/verification_results/security/report", "value": "planner_report.json"},
		{"op": "replace", "path": "/docs/validator_report/verdicts/0/verification_results/mutation/report", "value": "./executor_report.json"},
	])
	fs := test.of(evidence.deny, required) with input as inp
	{f.msg | some f in fs} == {
		`G2_validation is passed but its security scan "planner_report.json" is not a security scan of its own but the run's planner_report document, which the checker reads as a report or state file; the gate's evidence is a file of its own under artifacts/`,
		`G2_validation is passed but its mutation report "./executor_report.json" is not a mutation report of its own but the run's executor_report document, which the checker reads as a report or state file; the gate's evidence is a file of its own under artifacts/`,
	}
}

# A logged artifact that is no document of the run is held to the other checks only.
test_required_artifact_run_document_quiet if {
	inp := test.patch([{"op": "replace", "path": "/docs/validator_report/verdicts/0/verification_results/security/report", "value": "artifacts/validator/mutation_report.txt"}])
	count(test.of(evidence.deny, required)) == 0 with input as inp
}

# --- required evidence that is white space alone ---------------------------------

blank(path) := {"op": "add", "path": sprintf("/evidence/%s/blank", [replace(path, "/", "~1")]), "value": true}

test_required_artifact_blank if {
	inp := test.patch([blank("artifacts/validator/mutation_report.txt"), blank("artifacts/executor/test_output_green.txt")])
	fs := test.of(evidence.deny, required) with input as inp
	{f.msg | some f in fs} == {
		`G1_implementation is passed but its GREEN test output "artifacts/executor/test_output_green.txt" holds nothing but white space (blank lines, spaces), so it shows nothing`,
		`G2_validation is passed but its mutation report "artifacts/validator/mutation_report.txt" holds nothing but white space (blank lines, spaces), so it shows nothing`,
	}
}

# A blank RED output is tdd_red_not_failure's alone, and an artifact that is
# not required may be blank.
test_required_artifact_blank_quiet if {
	inp := test.patch([blank("artifacts/executor/test_output_red.txt"), blank("artifacts/planner/architecture.png")])
	count(test.of(evidence.deny, required)) == 0 with input as inp
	[f] := test.of(evidence.deny, "h3a.evidence.tdd_red_not_failure") with input as inp
	contains(f.msg, `the RED output "artifacts/executor/test_output_red.txt" holds nothing but white space`)
}

# --- evidence a passed gate's Current Gate section lists ------------------------------

listed(path, line) := {"op": "add", "path": "/docs/gates_ledger/current/0/evidence/-", "value": {"path": path, "line": line}}

test_required_artifact_listed_in_current_gate if {
	inp := test.patch([listed("artifacts/validator/load_test_report.md", 57)])
	[f] := test.of(evidence.deny, required) with input as inp
	f.msg == `G2_validation is passed but its evidence listed in its Current Gate section "artifacts/validator/load_test_report.md" is not logged in state/EVIDENCE_LOG.md`
	f.file == "state/GATES_LEDGER.md"
	f.line == 57
}

# A listed report or state file is checked as a document, and a listed
# artifact a report names already is reported once, where the report names it.
test_required_artifact_listed_quiet if {
	inp := test.patch([
		listed("state/CURRENT_TASK.json", 57),
		listed("./validator_report.json", 58),
		{"op": "replace", "path": "/docs/evidence_log/entries/6/hash", "value": "0000000000000000"},
		{"op": "replace", "path": "/evidence/artifacts~1validator~1security_scan.json/hash_ok", "value": false},
		listed("artifacts/validator/security_scan.json", 59),
	])
	[f] := test.of(evidence.deny, required) with input as inp
	f.file == "validator_report.json"
}

# --- required evidence with another file's content ---------------------------------

test_required_artifact_content_of_a_document if {
	# entry 6 is the security scan; planner_report.json's hash is cc7518bc0b4b1294
	inp := test.patch([{"op": "replace", "path": "/docs/evidence_log/entries/6/hash", "value": "CC7518BC0B4B1294"}])
	[f] := test.of(evidence.deny, required) with input as inp
	f.msg == `G2_validation is passed but its security scan "artifacts/validator/security_scan.json" has the content of the run's planner_report document "planner_report.json" (its logged hash is that file's SHA-256), not a security scan of its own`
}

test_required_artifact_content_of_another_artifact if {
	# entry 7 is the mutation report, logged with 8597d8135fc06382
	inp := test.patch([{"op": "replace", "path": "/docs/evidence_log/entries/6/hash", "value": "8597d8135fc06382"}])
	fs := test.of(evidence.deny, required) with input as inp
	{f.msg | some f in fs} == {
		`G2_validation is passed but its security scan "artifacts/validator/security_scan.json" has the same content as its mutation report "artifacts/validator/mutation_report.txt" (the same logged hash 8597d8135fc06382): one file cannot be both`,
		`G2_validation is passed but its mutation report "artifacts/validator/mutation_report.txt" has the same content as its security scan "artifacts/validator/security_scan.json" (the same logged hash 8597d8135fc06382): one file cannot be both`,
	}
}

# A RED output with the GREEN output's content is tdd_red_not_failure's alone.
test_required_artifact_content_red_quiet if {
	# entries 2 and 3: the RED and the GREEN output
	inp := test.patch([{"op": "replace", "path": "/docs/evidence_log/entries/2/hash", "value": "1338bf06d8ca805a"}])
	count(test.of(evidence.deny, required)) == 0 with input as inp
}
