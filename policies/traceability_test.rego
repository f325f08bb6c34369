package h3a.tests.traceability

import data.h3a.lib
import data.h3a.rules.traceability
import data.h3a.test
import data.h3a.test.fixture

test_traceability_quiet_on_ok_runs if {
	count(traceability.deny) == 0 with input as fixture.complete
	count(traceability.deny) == 0 with input as fixture.fresh
}

test_report_run_id if {
	inp := test.patch([{"op": "replace", "path": "/docs/validator_report/run_id", "value": "20250929-134215-8b6f8b9a-..."}])
	[f] := test.of(traceability.deny, "h3a.traceability.report_run_id") with input as inp
	f.msg == "validator_report.json run_id \"20250929-134215-8b6f8b9a-...\" differs from the run directory name \"20250929-134215-8b6f8b9a-7c9f-4c5e-8c6a-2f0f0d2e9c1a\""
	f.pointer == "/run_id"
}

test_report_run_id_against_state_when_the_folder_is_not_a_run_id if {
	inp := test.patch([
		{"op": "replace", "path": "/run/dir", "value": "my-run"},
		{"op": "replace", "path": "/run/dir_is_run_id", "value": false},
		{"op": "replace", "path": "/docs/handoff/run_id", "value": "my-run"},
	])
	[f] := test.of(traceability.deny, "h3a.traceability.report_run_id") with input as inp
	f.file == "state/SESSION_HANDOFF.json"
	contains(f.msg, "differs from state.json run_id")
}

test_task_id_mismatch if {
	inp := test.patch([{"op": "replace", "path": "/docs/handoff/payload/task_id", "value": "T002"}])
	[f] := test.of(traceability.deny, "h3a.traceability.task_id_mismatch") with input as inp
	f.msg == "SESSION_HANDOFF.json payload.task_id \"T002\" differs from CURRENT_TASK.json task_id \"T001\""
}

test_task_id_mismatch_needs_both if {
	inp := test.patch([{"op": "replace", "path": "/docs/handoff/payload/task_id", "value": null}])
	count(test.of(traceability.deny, "h3a.traceability.task_id_mismatch")) == 0 with input as inp
}

test_unknown_task_everywhere if {
	inp := test.patch([
		{"op": "replace", "path": "/docs/roadmap/tasks/0/id", "value": "T100"},
		{"op": "add", "path": "/docs/handoff/history/0/task_id", "value": "T001"},
	])
	fs := test.of(traceability.deny, "h3a.traceability.unknown_task") with input as inp
	{[f.file, f.pointer] | some f in fs} == {
		["state.json", "/steps/0/task_id"], ["state.json", "/steps/1/task_id"], ["state.json", "/steps/2/task_id"],
		["executor_report.json", "/tdd_cycles/0/task_id"], ["validator_report.json", "/verdicts/0/task_id"],
		["planner_report.json", "/reports/0/task_id"], ["planner_report.json", "/reports/0/tasks_created/0"],
		["state/SESSION_HANDOFF.json", "/payload/task_id"], ["state/SESSION_HANDOFF.json", "/history/0/task_id"],
		["state/CURRENT_TASK.json", "/task_id"],
	}
	some f in fs
	f.msg == "task \"T001\" is not in the ROADMAP.md task queue (it lists T100)"
}

test_unknown_task_with_an_empty_queue if {
	inp := test.patch([{"op": "replace", "path": "/docs/roadmap/tasks", "value": []}])
	some f in test.of(traceability.deny, "h3a.traceability.unknown_task") with input as inp
	endswith(f.msg, "(it lists no task)")
}

test_correction_steps_are_exempt if {
	inp := test.patch([{"op": "add", "path": "/docs/state/steps/-", "value": {"task_id": "T001-correction", "corrects": "T001", "reason": "coverage was 94.2%"}}])
	count(traceability.deny) == 0 with input as inp
}

test_dangling_correction if {
	inp := test.patch([{"op": "add", "path": "/docs/state/steps/-", "value": {"task_id": "T009-correction", "corrects": "T009", "reason": "typo"}}])
	[f] := test.of(traceability.deny, "h3a.traceability.dangling_correction") with input as inp
	f.pointer == "/steps/3/corrects"
	f.msg == "step 3 corrects T009, but no step has that task_id"
}

test_verdict_without_cycle if {
	inp := test.patch([{"op": "replace", "path": "/docs/executor_report/tdd_cycles", "value": []}])
	[f] := test.of(traceability.deny, "h3a.traceability.verdict_without_cycle") with input as inp
	f.pointer == "/verdicts/0/task_id"
}

test_cycle_without_plan if {
	inp := test.patch([{"op": "replace", "path": "/docs/planner_report/reports/0/tasks_created", "value": []}])
	[f] := test.of(traceability.deny, "h3a.traceability.cycle_without_plan") with input as inp
	f.msg == "TDD cycle 0 is about task \"T001\", which no planner_report.json report created (tasks_created)"
}

roadmap_with_t000(done) := [
	{"op": "add", "path": "/docs/roadmap/tasks/0", "value": {"id": "T000", "text": "set up", "done": done, "completed_at": "", "line": 20}},
	{"op": "replace", "path": "/docs/current_task/dependencies", "value": ["T000"]},
]

test_dependency_unknown if {
	inp := test.patch([{"op": "replace", "path": "/docs/current_task/dependencies", "value": ["T000"]}])
	[f] := test.of(traceability.deny, "h3a.traceability.dependency_incomplete") with input as inp
	f.msg == "the current task depends on \"T000\", which is not in the ROADMAP.md task queue"
	f.pointer == "/dependencies/0"
	f.task_id == "T001"
}

test_dependency_open if {
	inp := test.patch(roadmap_with_t000(false))
	[f] := test.of(traceability.deny, "h3a.traceability.dependency_incomplete") with input as inp
	f.msg == "the current task is \"complete\" but its dependency \"T000\" is not complete (open in ROADMAP.md and no passing verdict)"
}

test_dependency_done if {
	count(test.of(traceability.deny, "h3a.traceability.dependency_incomplete")) == 0 with input as test.patch(roadmap_with_t000(true))
}

test_dependency_passed_by_a_verdict if {
	inp := test.patch(array.concat(roadmap_with_t000(false), test.add_verdict({"task_id": "T000", "status": "pass_with_notes"})))
	count(test.of(traceability.deny, "h3a.traceability.dependency_incomplete")) == 0 with input as inp
}

test_dependency_before_work_starts if {
	inp := test.patch(array.concat(roadmap_with_t000(false), test.task_status("ready_for_execution")))
	count(test.of(traceability.deny, "h3a.traceability.dependency_incomplete")) == 0 with input as inp
}

blocked := "h3a.gates.complete_while_blocked"

blocked_by(xs) := {"op": "replace", "path": "/docs/current_task/blocked_by", "value": xs}

test_complete_while_blocked_quiet_on_ok_runs if {
	count(test.of(traceability.warn, blocked)) == 0 with input as fixture.complete
	count(test.of(traceability.warn, blocked)) == 0 with input as fixture.fresh
}

test_complete_while_blocked if {
	inp := test.patch([blocked_by(["missing API key for the token service"])])
	[f] := test.of(traceability.warn, blocked) with input as inp
	f.msg == `the current task is "complete" but blocked_by still lists "missing API key for the token service"; a person must confirm the blocker was resolved`
	f.file == "state/CURRENT_TASK.json"
	f.pointer == "/blocked_by/0"
	f.task_id == "T001"
	f.needs_human == true
}

test_complete_while_blocked_by_an_open_task if {
	inp := test.patch(array.concat(roadmap_with_t000(false), [blocked_by(["T000"])]))
	[f] := test.of(traceability.warn, blocked) with input as inp
	f.pointer == "/blocked_by/0"
}

test_complete_while_blocked_by_a_complete_task_is_quiet if {
	# the blocking task is done: the block was lifted
	count(test.of(traceability.warn, blocked)) == 0 with input as test.patch(array.concat(roadmap_with_t000(true), [blocked_by(["T000"])]))
	inp := test.patch(array.concat(roadmap_with_t000(false), array.concat(
		test.add_verdict({"task_id": "T000", "status": "pass"}),
		[blocked_by(["T000"])],
	)))
	count(test.of(traceability.warn, blocked)) == 0 with input as inp
}

test_blocked_before_completion_is_quiet if {
	# a documented blocker is allowed while the task is open (H1 Executor's Assumptions)
	every st in ["in_progress", "awaiting_validation", "validation", "escalation_required"] {
		inp := test.patch(array.concat(test.task_status(st), [blocked_by(["missing API key"])]))
		count(test.of(traceability.warn, blocked)) == 0 with input as inp
	}
}

test_complete_while_blocked_ignores_empty_entries if {
	count(test.of(traceability.warn, blocked)) == 0 with input as test.patch([blocked_by(["", "  "])])
}

test_done_without_verdict if {
	inp := test.patch(test.verdict_status(0, "needs_remediation"))
	[f] := test.of(traceability.deny, "h3a.traceability.done_without_verdict") with input as inp
	f.file == "state/ROADMAP.md"
	f.line == 21
	f.task_id == "T001"
}

test_open_task_needs_no_verdict if {
	inp := test.patch(array.concat(test.verdict_status(0, "fail"), [{"op": "replace", "path": "/docs/roadmap/tasks/0/done", "value": false}]))
	count(test.of(traceability.deny, "h3a.traceability.done_without_verdict")) == 0 with input as inp
}

# An unreadable document is not evidence of absence: rules that need it stay quiet.
test_unreadable_reports_are_not_guessed if {
	inp := test.patch([
		{"op": "replace", "path": "/docs/validator_report", "value": null},
		{"op": "replace", "path": "/docs/executor_report", "value": null},
		{"op": "replace", "path": "/docs/planner_report", "value": null},
	])
	count(traceability.deny) == 0 with input as inp
}

# Every place task_refs locates is also read by the cheap pass (task_ids):
# a place added to task_refs only would never be found unknown. Each place
# in turn gets an id of its own, which the cheap pass must see.
test_cheap_pass_reads_every_positioned_task_id if {
	places := {[key, r.pointer] |
		some r in traceability.task_refs
		some key, file in lib.doc_file
		file == r.file
	} with input as fixture.complete
	count(places) >= 5
	every place in places {
		[key, pointer] := place
		inp := test.patch([{"op": "replace", "path": sprintf("/docs/%s%s", [key, pointer]), "value": "T-ONLY-HERE"}])
		"T-ONLY-HERE" in traceability.task_ids with input as inp
	}
}

roadmap_open := "h3a.traceability.roadmap_complete_with_open_task"

untick_t001 := {"op": "replace", "path": "/docs/roadmap/tasks/0/done", "value": false}

test_roadmap_complete_with_open_task if {
	inp := test.patch([{"op": "add", "path": "/docs/roadmap/tasks/-", "value": {"id": "T002", "text": "rotate keys", "done": false, "completed_at": "", "line": 22}}])
	[f] := test.of(traceability.deny, roadmap_open) with input as inp
	f.msg == `ROADMAP.md Status is "Complete" but task "T002" is still open in its task queue`
	f.file == "state/ROADMAP.md"
	f.line == 22
	f.task_id == "T002"
}

test_roadmap_complete_spellings if {
	every s in ["✅ COMPLETED", "**Complete**", "done"] {
		inp := test.patch([untick_t001, {"op": "replace", "path": "/docs/roadmap/status", "value": s}])
		count(test.of(traceability.deny, roadmap_open)) == 1 with input as inp
	}
}

test_roadmap_in_progress_with_open_task_is_quiet if {
	count(test.of(traceability.deny, roadmap_open)) == 0 with input as fixture.complete
	every s in ["Execution Phase", "Validation Phase", "Incomplete", ""] {
		inp := test.patch([untick_t001, {"op": "replace", "path": "/docs/roadmap/status", "value": s}])
		count(test.of(traceability.deny, roadmap_open)) == 0 with input as inp
	}
}

complete_open := "h3a.traceability.complete_task_open_in_roadmap"

test_complete_task_open_in_roadmap if {
	inp := test.patch([untick_t001])
	[f] := test.of(traceability.deny, complete_open) with input as inp
	f.msg == `CURRENT_TASK.json status is "complete" but ROADMAP.md still shows task "T001" open ("- [ ]")`
	f.line == 21
	f.task_id == "T001"
}

test_open_task_not_complete_is_quiet if {
	count(test.of(traceability.deny, complete_open)) == 0 with input as fixture.complete
	every st in ["in_progress", "awaiting_validation", "validation"] {
		inp := test.patch(array.concat(test.task_status(st), [untick_t001]))
		count(test.of(traceability.deny, complete_open)) == 0 with input as inp
	}
}

roadmap_criterion := "h3a.traceability.roadmap_complete_with_open_criterion"

untick_coverage := {"op": "replace", "path": "/docs/roadmap/criteria/1/done", "value": false}

test_roadmap_complete_with_open_criterion if {
	inp := test.patch([untick_coverage])
	[f] := test.of(traceability.warn, roadmap_criterion) with input as inp
	f.msg == `ROADMAP.md Status is "Complete" but its success criterion "Coverage ≥ 90%" is still open ("- [ ]"); a person must say whether it was met`
	f.file == "state/ROADMAP.md"
	f.line == 27
	f.needs_human == true
	count(traceability.deny) == 0 with input as inp
}

test_roadmap_open_criterion_before_completion_is_quiet if {
	inp := test.patch([untick_coverage, {"op": "replace", "path": "/docs/roadmap/status", "value": "Validation Phase"}])
	count(test.of(traceability.warn, roadmap_criterion)) == 0 with input as inp
}

test_roadmap_complete_with_ticked_criteria_is_quiet if {
	count(test.of(traceability.warn, roadmap_criterion)) == 0 with input as fixture.complete
}
