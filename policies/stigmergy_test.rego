package h3a.tests.stigmergy

import data.h3a.rules.stigmergy
import data.h3a.test
import data.h3a.test.fixture

ledger := ".ai/state.json"

engine := ".stigmergy/state/current.json"

blueprint := "execution-blueprint.yml"

tasks := "/docs/state/project_manifest/tasks"

findings(ops) := fs if {
	inp := json.patch(fixture.stigmergy_complete, ops)
	deny := stigmergy.deny with input as inp
	warn := stigmergy.warn with input as inp
	fs := deny | warn
}

# located lists [rule, severity, file, pointer] of the findings of ops; the
# severity is "rule" where the finding keeps its rule's own.
located(ops) := {[f.rule, object.get(f, "severity", "rule"), f.file, object.get(f, "pointer", "")] | some f in findings(ops)}

msgs(ops) := {f.msg | some f in findings(ops)}

set(path, value) := {"op": "replace", "path": path, "value": value}

put(path, value) := {"op": "add", "path": path, "value": value}

cut(path) := {"op": "remove", "path": path}

# older makes the ledger a file of another schema version: every finding
# about it becomes a warning naming the version.
older := [
	set("/docs/state/schema_version", "2.1"),
	set("/docs/strict", false),
	set("/docs/version", `schema_version "2.1"`),
]

test_stigmergy_run_is_clean if {
	count(test.all_findings) == 0 with input as fixture.stigmergy_complete
}

test_quiet_on_other_layouts if {
	count(stigmergy.deny) == 0 with input as fixture.complete
	count(stigmergy.warn) == 0 with input as fixture.complete
	count(stigmergy.deny) == 0 with input as fixture.hybrid_complete
	count(stigmergy.deny) == 0 with input as fixture.gate_state_complete
}

# Rules of other layouts stay quiet on a stigmergy run even when it is broken.
test_other_rules_quiet_on_stigmergy if {
	fs := test.all_findings with input as json.patch(fixture.stigmergy_complete, [
		set(sprintf("%s/1/id", [tasks]), "T01"),
		set("/docs/state/project_status", "PROJECT_COMPLETE"),
	])
	count(fs) > 0
	every f in fs {
		contains(f.rule, ".stigmergy_")
	}
}

test_duplicate_task if {
	ops := [set(sprintf("%s/2/id", [tasks]), "T01"), set("/docs/blueprint/tasks/2/id", "T01")]
	["h3a.traceability.stigmergy_duplicate_task", "rule", ledger, "/project_manifest/tasks/2/id"] in located(ops)
	`task id "T01" is used twice (tasks[0] and tasks[2])` in msgs(ops)
}

test_duplicate_task_in_an_older_ledger_is_a_warning_for_a_human if {
	ops := array.concat(older, [set(sprintf("%s/2/id", [tasks]), "T01"), set("/docs/blueprint/tasks/2/id", "T01")])
	["h3a.traceability.stigmergy_duplicate_task", "warning", ledger, "/project_manifest/tasks/2/id"] in located(ops)
	`schema_version "2.1": task id "T01" is used twice (tasks[0] and tasks[2]) (an error in a schema 3.0 file; a person decides whether it holds for this one)` in msgs(ops)
	every f in findings(ops) {
		f.needs_human == true
	}
}

# A ledger that drops its schema_version, or writes it as a number, is not
# held to 3.0, but a contradiction in it still stops the gate for a human.
test_a_version_the_ledger_gives_itself_never_passes_a_contradiction if {
	every version in [["no schema_version", null], ["schema_version 3", 3]] {
		fs := [f |
			some f in findings([
				set("/docs/state/schema_version", version[1]),
				set("/docs/strict", false),
				set("/docs/version", version[0]),
				set("/docs/state/project_status", "PROJECT_COMPLETE"),
			])
			f.rule == "h3a.gates.stigmergy_project_complete"
		]
		count(fs) == 1
		fs[0].needs_human == true
		fs[0].severity == "warning"
	}
}

test_unknown_dependency if {
	ops := [set(sprintf("%s/2/dependencies", [tasks]), ["T02", "T09"])]
	located(ops) == {["h3a.traceability.stigmergy_unknown_task", "rule", ledger, "/project_manifest/tasks/2/dependencies/1"]}
	msgs(ops) == {`task "T03" depends on "T09", which is not a task of the manifest`}
}

test_unknown_issue_task if {
	ops := [set("/docs/state/issue_log/0/task_id_ref", "T07")]
	located(ops) == {["h3a.traceability.stigmergy_unknown_task", "rule", ledger, "/issue_log/0/task_id_ref"]}
	msgs(ops) == {`issue "I-1" references task "T07", which is not a task of the manifest`}
}

test_issue_task_reference_not_a_string_in_other_shapes if {
	other := [set("/docs/strict", false), set("/docs/version", "schema_version \"3.0.0\"")]
	every ref in [[99, "99"], [["T99"], "an array"], [null, "null"]] {
		ops := array.concat(other, [set("/docs/state/issue_log/0/task_id_ref", ref[0])])
		located(ops) == {["h3a.traceability.stigmergy_unknown_task", "warning", ledger, "/issue_log/0/task_id_ref"]}
		msgs(ops) == {sprintf(`schema_version "3.0.0": issue "I-1" references task %s, not a task id as a string, so it names no task of the manifest (an error in a schema 3.0 file; a person decides whether it holds for this one)`, [ref[1]])}
	}
	count(findings([set("/docs/state/issue_log/0/task_id_ref", 99)])) == 0 # the schema reports it in a 3.0 file
}

test_issue_without_task_reference_is_fine if {
	count(findings([cut("/docs/state/issue_log/0/task_id_ref")])) == 0
}

test_dependency_incomplete if {
	ops := [set(sprintf("%s/0/status", [tasks]), "PENDING")]
	located(ops) == {["h3a.gates.stigmergy_dependency_incomplete", "rule", ledger, "/project_manifest/tasks/1/status"]}
	msgs(ops) == {`task "T02" is IN_PROGRESS but its dependency "T01" is "PENDING"; expected COMPLETED`}
}

# In a file of another shape, a started task whose dependencies are no list
# of ids asks for a human: the dependency rule cannot read them.
test_dependencies_unread_in_another_version if {
	some deps in ["T01", [{"id": "T01"}], ["T01", 7], {"T01": true}]
	ops := array.concat(older, [set(sprintf("%s/1/dependencies", [tasks]), deps)])
	located(ops) == {["h3a.gates.stigmergy_dependencies_unread", "warning", ledger, "/project_manifest/tasks/1/dependencies"]}
	every f in findings(ops) {
		f.needs_human == true
	}
}

test_dependencies_unread_message if {
	msgs(array.concat(older, [set(sprintf("%s/1/dependencies", [tasks]), "T01")])) == {`schema_version "2.1": task "T02" is IN_PROGRESS but its dependencies are "T01", not a list of task ids: whether they are COMPLETED cannot be read (an error in a schema 3.0 file; a person decides whether it holds for this one)`}
}

# A pending task, null dependencies, and a 3.0 file (whose schema reports
# the type) raise nothing.
test_dependencies_unread_quiet if {
	count(findings(array.concat(older, [set(sprintf("%s/2/dependencies", [tasks]), "T02")]))) == 0
	count(findings(array.concat(older, [set(sprintf("%s/1/dependencies", [tasks]), null)]))) == 0
	count(findings([set(sprintf("%s/1/dependencies", [tasks]), "T01")])) == 0
}

test_pending_task_may_wait_on_anything if {
	count(findings([set(sprintf("%s/1/status", [tasks]), "PENDING")])) == 0
}

# The spec sets no failure limit: a task failing again and again while
# still IN_PROGRESS is a retry, not a finding.
test_failure_count_sets_no_limit if {
	count(findings([set(sprintf("%s/1/failure_count", [tasks]), 2)])) == 0
	count(findings([set(sprintf("%s/1/failure_count", [tasks]), 7)])) == 0
}

# failed makes T02 FAILED after two failures.
failed := [set(sprintf("%s/1/failure_count", [tasks]), 2), set(sprintf("%s/1/status", [tasks]), "FAILED")]

test_failed_task_without_an_issue if {
	ops := array.concat(failed, [set("/docs/state/issue_log/0/task_id_ref", "T01")])
	located(ops) == {["h3a.retries.stigmergy_failure_limit", "rule", ledger, "/project_manifest/tasks/1/status"]}
	msgs(ops) == {`task "T02" is FAILED (failure_count 2) but no issue_log entry references it; issue_log holds the persistent failures a Responder takes`}
	every f in findings(ops) {
		not f.severity
	}
	msgs(array.concat(ops, older)) == {`schema_version "2.1": task "T02" is FAILED (failure_count 2) but no issue_log entry references it; issue_log holds the persistent failures a Responder takes`}
}

# Any entry for the task answers, whatever its status: the spec's own
# FAILED_TO_RESOLVE and RESOLVED too.
test_failed_task_with_an_issue if {
	every status in ["OPEN", "IN_PROGRESS", "RESOLVED", "FAILED_TO_RESOLVE"] {
		count(findings(array.concat(failed, [set("/docs/state/issue_log/0/status", status)]))) == 0
	}
}

test_dependency_cycle if {
	ops := [
		set(sprintf("%s/0/dependencies", [tasks]), ["T03"]),
		set("/docs/dependency_cycles", [["T01", "T02", "T03"]]),
	]
	["h3a.gates.stigmergy_dependency_cycle", "rule", ledger, "/project_manifest/tasks/0/dependencies"] in located(ops)
	"dependency cycle: T01 → T02 → T03 → T01" in msgs(ops)
}

test_project_complete_with_open_tasks if {
	ops := [set("/docs/state/project_status", "PROJECT_COMPLETE")]
	located(ops) == {["h3a.gates.stigmergy_project_complete", "rule", ledger, "/project_status"]}
	msgs(ops) == {"project_status is PROJECT_COMPLETE but 2 task(s) are not COMPLETED: T02, T03"}
}

test_all_tasks_completed_but_not_complete if {
	ops := [
		set(sprintf("%s/1/status", [tasks]), "COMPLETED"),
		set(sprintf("%s/2/status", [tasks]), "COMPLETED"),
	]
	located(ops) == {["h3a.gates.stigmergy_project_complete", "rule", ledger, "/project_status"]}
	msgs(ops) == {`every task is COMPLETED but project_status is "EXECUTION_IN_PROGRESS"; expected "PROJECT_COMPLETE"`}
}

test_all_tasks_completed_and_complete_is_fine if {
	count(findings([
		set(sprintf("%s/1/status", [tasks]), "COMPLETED"),
		set(sprintf("%s/2/status", [tasks]), "COMPLETED"),
		set("/docs/state/project_status", "PROJECT_COMPLETE"),
	])) == 0
}

test_missing_stage_document if {
	ops := [set("/docs/documents/docs~1prd.md", false)]
	located(ops) == {["h3a.evidence.stigmergy_missing_document", "rule", ledger, "/project_status"]}
	msgs(ops) == {`project_status "EXECUTION_IN_PROGRESS" is past NEEDS_PRD but docs/prd.md does not exist`}
}

# unstarted puts every task back to PENDING.
unstarted := [set(sprintf("%s/%d/status", [tasks, i]), "PENDING") | some i in [0, 1]]

test_stage_document_not_yet_due if {
	count(findings(array.concat(unstarted, [
		set("/docs/state/project_status", "NEEDS_PRD"),
		set("/docs/documents/docs~1prd.md", false),
		set("/docs/documents/docs~1architecture.md", false),
	]))) == 0
}

test_started_before_execution if {
	ops := [set("/docs/state/project_status", "NEEDS_BLUEPRINT")]
	located(ops) == {
		["h3a.gates.stigmergy_started_early", "rule", ledger, "/project_manifest/tasks/0/status"],
		["h3a.gates.stigmergy_started_early", "rule", ledger, "/project_manifest/tasks/1/status"],
	}
	msgs(ops) == {
		`task "T01" is COMPLETED but project_status is "NEEDS_BLUEPRINT"; tasks start once the project is READY_FOR_EXECUTION`,
		`task "T02" is IN_PROGRESS but project_status is "NEEDS_BLUEPRINT"; tasks start once the project is READY_FOR_EXECUTION`,
	}
	located(array.concat(unstarted, [set("/docs/state/project_status", "NEEDS_BRIEFING"), set(sprintf("%s/0/status", [tasks]), "FAILED")])) == {
		["h3a.gates.stigmergy_started_early", "rule", ledger, "/project_manifest/tasks/0/status"],
		["h3a.retries.stigmergy_failure_limit", "rule", ledger, "/project_manifest/tasks/0/status"],
	}
}

# From READY_FOR_EXECUTION on, tasks may run; before it, PENDING ones wait.
test_started_at_execution_is_fine if {
	every status in ["READY_FOR_EXECUTION", "EXECUTION_IN_PROGRESS", "EXECUTION_HALTED"] {
		not "h3a.gates.stigmergy_started_early" in {f.rule | some f in findings([set("/docs/state/project_status", status)])}
	}
	count(findings(array.concat(unstarted, [set("/docs/state/project_status", "NEEDS_BLUEPRINT")]))) == 0
}

# Another version's NEEDS_ status is a stage before execution too, judged
# as a warning; one that is not NEEDS_ is not guessed at.
test_started_before_execution_in_another_version if {
	located(array.concat(older, [set("/docs/state/project_status", "NEEDS_INITIALIZATION"), set(sprintf("%s/1/status", [tasks]), "PENDING")])) == {
		["h3a.gates.stigmergy_started_early", "warning", ledger, "/project_manifest/tasks/0/status"],
		["h3a.schema.stigmergy_drift", "rule", ledger, "/project_status"],
	}
	not "h3a.gates.stigmergy_started_early" in {f.rule | some f in findings(array.concat(older, [set("/docs/state/project_status", "PLANNING_PHASE")]))}
	not "h3a.gates.stigmergy_started_early" in {f.rule | some f in findings([set("/docs/state/project_status", "NEEDS_INITIALIZATION")])}
}

test_halted_needs_human if {
	ops := [set("/docs/state/project_status", "EXECUTION_HALTED")]
	located(ops) == {["h3a.gates.stigmergy_halted", "rule", ledger, "/project_status"]}
	msgs(ops) == {`project_status is "EXECUTION_HALTED" (a critical, unrecoverable error occurred; no open issue in issue_log): a person must decide how to go on`}
	every f in findings(ops) {
		f.needs_human == true
	}
	msgs([set("/docs/state/project_status", "EXECUTION_HALTED"), set("/docs/state/issue_log/0/status", "FAILED_TO_RESOLVE")]) == {`project_status is "EXECUTION_HALTED" (a critical, unrecoverable error occurred; unresolved issues: I-1): a person must decide how to go on`}
	msgs(array.concat(older, [set("/docs/state/project_status", "EXECUTION_HALTED")])) == {`schema_version "2.1": project_status is "EXECUTION_HALTED" (a critical, unrecoverable error occurred; no open issue in issue_log): a person must decide how to go on`}
}

# all_completed marks every task COMPLETED and the project PROJECT_COMPLETE:
# a consistent finished project, whose issue I-1 (on T02) is RESOLVED.
all_completed := [
	set("/docs/state/project_status", "PROJECT_COMPLETE"),
	set(sprintf("%s/1/status", [tasks]), "COMPLETED"),
	set(sprintf("%s/2/status", [tasks]), "COMPLETED"),
]

test_complete_with_resolved_issues_passes if {
	count(findings(all_completed)) == 0
}

test_complete_with_open_issue_needs_human if {
	some status in ["OPEN", "IN_PROGRESS", "FAILED_TO_RESOLVE"]
	ops := array.concat(all_completed, [set("/docs/state/issue_log/0/status", status)])
	located(ops) == {["h3a.gates.stigmergy_complete_with_open_issue", "rule", ledger, "/issue_log/0/status"]}
	msgs(ops) == {sprintf(`project_status is "PROJECT_COMPLETE" but issue "I-1" (task "T02") is %s: a person must decide whether the project is done`, [status])}
	every f in findings(ops) {
		f.needs_human == true
	}
}

# In a file not held to schema 3.0, an issue whose status is no enum value
# (or that has none) is not resolved either.
test_complete_with_unknown_issue_status_needs_human if {
	every status in ["REOPENED", "pending review"] {
		ops := array.concat(older, array.concat(all_completed, [set("/docs/state/issue_log/0/status", status)]))
		located(ops) == {["h3a.gates.stigmergy_complete_with_open_issue", "rule", ledger, "/issue_log/0/status"]}
		msgs(ops) == {sprintf(`schema_version "2.1": project_status is "PROJECT_COMPLETE" but issue "I-1" (task "T02") is %q: a person must decide whether the project is done`, [status])}
	}
	missing := array.concat(older, array.concat(all_completed, [cut("/docs/state/issue_log/0/status")]))
	located(missing) == {["h3a.gates.stigmergy_complete_with_open_issue", "rule", ledger, "/issue_log/0/status"]}

	# resolved, however it is spelt
	count(findings(array.concat(older, array.concat(all_completed, [set("/docs/state/issue_log/0/status", "resolved")])))) == 0
}

# An open issue while the project runs is what issue_log is for.
test_open_issue_while_running_passes if {
	count(findings([set("/docs/state/issue_log/0/status", "OPEN")])) == 0
}

# In progress, ready or complete: no human needed.
test_running_passes if {
	every status in ["READY_FOR_EXECUTION", "EXECUTION_IN_PROGRESS"] {
		count(findings([set("/docs/state/project_status", status)])) == 0
	}
}

test_blueprint_task_missing_from_manifest if {
	ops := [put("/docs/blueprint/tasks/-", {"id": "T04"})]
	located(ops) == {["h3a.traceability.stigmergy_blueprint_mismatch", "rule", blueprint, "/tasks/3/id"]}
	msgs(ops) == {`blueprint task "T04" is not in the manifest of .ai/state.json`}
}

test_blueprint_task_without_a_string_id_is_an_error if {
	every id in [4, [["a"], "an array"], [{}, "an object"], [true, "true"], [null, "null"], ["", "\"\""]] {
		[value, text] := blueprint_id_case(id)
		ops := [put("/docs/blueprint/tasks/-", {"id": value, "summary": "docs"})]
		located(ops) == {["h3a.traceability.stigmergy_blueprint_mismatch", "rule", blueprint, "/tasks/3/id"]}
		msgs(ops) == {sprintf("blueprint task 3 has no id as a string (id: %s), so it is not compared with the manifest of .ai/state.json", [text])}
	}
	located([put("/docs/blueprint/tasks/-", {"summary": "docs"})]) == {["h3a.traceability.stigmergy_blueprint_mismatch", "rule", blueprint, "/tasks/3"]}
	located([put("/docs/blueprint/tasks/-", "T04")]) == {["h3a.traceability.stigmergy_blueprint_mismatch", "rule", blueprint, "/tasks/3"]}
	located([set("/docs/blueprint", [{"id": "T01"}, {"id": "T02"}, {"id": "T03"}, {"id": 4}])]) == {["h3a.traceability.stigmergy_blueprint_mismatch", "rule", blueprint, "/3/id"]}
}

blueprint_id_case(id) := [id, "4"] if is_number(id)

else := id

test_manifest_task_without_a_string_id_is_compared_in_other_shapes if {
	task := {"id": 4, "summary": "x", "agent": "james", "status": "PENDING", "dependencies": [], "failure_count": 0}
	ops := [set("/docs/strict", false), set("/docs/version", "schema_version \"3.0.0\""), put(sprintf("%s/-", [tasks]), task)]
	located(ops) == {["h3a.traceability.stigmergy_blueprint_mismatch", "warning", ledger, "/project_manifest/tasks/3/id"]}
	msgs(ops) == {`schema_version "3.0.0": manifest task 3 has no id as a string (id: 4), so it is not compared with execution-blueprint.yml (an error in a schema 3.0 file; a person decides whether it holds for this one)`}
	["h3a.traceability.stigmergy_blueprint_mismatch", "warning", ledger, "/project_manifest/tasks/3"] in located([set("/docs/strict", false), put(sprintf("%s/-", [tasks]), "T04")])
	count(findings([put(sprintf("%s/-", [tasks]), task)])) == 0 # the schema reports it in a 3.0 file
}

test_manifest_task_missing_from_blueprint if {
	ops := [cut("/docs/blueprint/tasks/2")]
	located(ops) == {["h3a.traceability.stigmergy_blueprint_mismatch", "rule", ledger, "/project_manifest/tasks/2/id"]}
	msgs(ops) == {`manifest task "T03" is not in execution-blueprint.yml`}
}

test_blueprint_as_a_top_level_list if {
	count(findings([set("/docs/blueprint", [{"id": "T01"}, {"id": "T02"}, {"id": "T03"}])])) == 0
	located([set("/docs/blueprint", [{"id": "T01"}, {"id": "T02"}])]) == {["h3a.traceability.stigmergy_blueprint_mismatch", "rule", ledger, "/project_manifest/tasks/2/id"]}
}

test_blueprint_without_tasks_is_not_compared_and_asks_for_a_human if {
	every bp in [{"name": "x"}, {"phases": [{"tasks": [{"id": "T04"}]}]}, "tasks", {"tasks": {"T01": {}}}] {
		fs := findings([set("/docs/blueprint", bp)])
		{[f.rule, f.file] | some f in fs} == {["h3a.traceability.stigmergy_blueprint_unread", blueprint]}
		every f in fs {
			f.needs_human == true
			f.msg == "execution-blueprint.yml holds no task list (a list at its top, or one under tasks:), so the manifest of .ai/state.json is not compared with it: a person must"
		}
	}
	count(findings([set("/docs/blueprint", {"tasks": []})])) == 3
}

# stamped(list, i, raw, fact) writes timestamp raw into entry i of list and
# what the checker reads from it into docs.timestamps (the Go side's tests,
# internal/layout, hold the reading itself).
stamped(list, i, raw, fact) := [
	set(sprintf("/docs/state/%s/%d/timestamp", [list, i]), raw),
	set(sprintf("/docs/timestamps/%s/%d", [list, i]), fact),
]

not_iso := {"iso8601": false, "real": false}

not_real := {"iso8601": true, "real": false}

real(instant, text) := {"iso8601": true, "real": true, "instant": instant, "rfc3339": text}

test_timestamp_not_iso if {
	ops := stamped("history", 0, "1 Sep 2025", not_iso)
	located(ops) == {["h3a.schema.stigmergy_timestamp", "rule", ledger, "/history/0/timestamp"]}
	msgs(ops) == {`history[0].timestamp "1 Sep 2025" is not an ISO 8601 date and time`}
}

test_timestamp_not_a_string if {
	msgs(stamped("issue_log", 0, 1756720800, not_iso)) == {"issue_log[0].timestamp 1756720800 is not an ISO 8601 date and time"}
}

test_timestamp_not_a_real_day if {
	ops := stamped("issue_log", 0, "2025-02-30T10:00:00Z", not_real)
	located(ops) == {["h3a.schema.stigmergy_timestamp", "rule", ledger, "/issue_log/0/timestamp"]}
	msgs(ops) == {`issue_log[0].timestamp "2025-02-30T10:00:00Z" is not a real date and time`}
}

# A timestamp the checker did not read is not taken for a good one.
test_timestamp_without_its_reading_is_a_finding if {
	msgs([cut("/docs/timestamps/issue_log/0")]) == {`issue_log[0].timestamp "2025-09-01T11:00:00Z" is not an ISO 8601 date and time`}
}

test_history_out_of_order if {
	ops := stamped("history", 1, "2025-09-01T10:30:00+02:00", real([1756715400, 0], "2025-09-01T10:30:00+02:00"))
	located(ops) == {["h3a.schema.stigmergy_time_order", "rule", ledger, "/history/1/timestamp"]}
	msgs(ops) == {"history[1] (2025-09-01T10:30:00+02:00) is older than history[0] (2025-09-01T10:00:00Z)"}
}

# The earlier time is named as Go writes it; the instants compare as pairs,
# nanoseconds last.
test_history_order_written_as_go_writes_it if {
	msgs(array.concat(
		stamped("history", 0, "2025-09-01T10:00:00.500+00:60", real([1756717200, 500000000], "2025-09-01T10:00:00.5+01:00")),
		stamped("history", 1, "2025-09-01T09:00:00.4Z", real([1756717200, 400000000], "2025-09-01T09:00:00.4Z")),
	)) == {"history[1] (2025-09-01T09:00:00.4Z) is older than history[0] (2025-09-01T10:00:00.5+01:00)"}
}

test_history_order_in_an_older_ledger_names_the_version if {
	ops := array.concat(older, stamped("history", 1, "2025-09-01T10:30:00+02:00", real([1756715400, 0], "2025-09-01T10:30:00+02:00")))
	["h3a.schema.stigmergy_time_order", "rule", ledger, "/history/1/timestamp"] in located(ops)
	`schema_version "2.1": history[1] (2025-09-01T10:30:00+02:00) is older than history[0] (2025-09-01T10:00:00Z)` in msgs(ops)
}

test_strict_ledger_has_no_drift if {
	count([f | some f in findings([put("/docs/state/extra", 1)]); f.rule == "h3a.schema.stigmergy_drift"]) == 0
}

# A schema 3.0 file names its root keys one by one: another is read by no rule.
test_strict_ledger_unknown_key if {
	ops := [put("/docs/state/extra", 1)]
	located(ops) == {["h3a.schema.stigmergy_unknown_key", "rule", ledger, "/extra"]}
	[f] := [f | some f in findings(ops)]
	not f.needs_human
}

# A second status beside project_status: which holds is for a person.
test_strict_ledger_second_status_needs_a_human if {
	ops := [put("/docs/state/status", "EXECUTION_HALTED")]
	[f] := [f | some f in findings(ops)]
	[f.rule, f.pointer, f.needs_human] == ["h3a.schema.stigmergy_unknown_key", "/status", true]
	contains(f.msg, `root key "status" is not in schema 3.0`)
	contains(f.msg, `beside project_status "EXECUTION_IN_PROGRESS"`)
}

# A key of another shape is drift, named once.
test_unknown_key_of_another_shape_is_drift_only if {
	ops := array.concat(older, [put("/docs/state/status", "x")])
	count([f | some f in findings(ops); f.rule == "h3a.schema.stigmergy_unknown_key"]) == 0
}

test_drift if {
	ops := array.concat(older, [
		cut("/docs/state/goal"),
		put("/docs/state/owner", "x"),
		set("/docs/state/project_status", "BUILDING"),
		cut(sprintf("%s/0/agent", [tasks])),
		set(sprintf("%s/1/status", [tasks]), "BLOCKED"),
		cut("/docs/state/history/1/signal"),
	])
	msgs(ops) == {
		`schema_version "2.1": lacks goal of schema 3.0`,
		`schema_version "2.1": has keys schema 3.0 does not define: owner`,
		`schema_version "2.1": project_status "BUILDING" is not a 3.0 status`,
		`schema_version "2.1": tasks lack agent`,
		`schema_version "2.1": task statuses outside PENDING, IN_PROGRESS, COMPLETED, FAILED: T02 ("BLOCKED")`,
		`schema_version "2.1": history entries lack signal`,
	}
	every f in findings(ops) {
		f.rule == "h3a.schema.stigmergy_drift"
		not f.severity
	}
}

test_drift_goal_not_a_string if {
	ops := array.concat(older, [set("/docs/state/goal", {"text": "x"})])
	located(ops) == {["h3a.schema.stigmergy_drift", "rule", ledger, "/goal"]}
}

# The engine's current.json is the ledger when .ai/state.json is absent.
test_engine_state_is_the_ledger if {
	state := fixture.stigmergy_complete.docs.state
	ops := [
		set("/docs/engine_state", json.patch(state, [set("/project_status", "PROJECT_COMPLETE")])),
		set("/docs/state", null),
		set("/files/.ai~1state.json/present", false),
		set("/files/.stigmergy~1state~1current.json/present", true),
		set("/docs/strict", false),
		set("/docs/version", "engine current.json"),
	]
	["h3a.gates.stigmergy_project_complete", "warning", engine, "/project_status"] in located(ops)
	"engine current.json: project_status is PROJECT_COMPLETE but 2 task(s) are not COMPLETED: T02, T03 (an error in a schema 3.0 file; a person decides whether it holds for this one)" in msgs(ops)
}

# Both ledgers: current.json, which no rule reads, is an error of its own.
test_two_ledgers if {
	state := fixture.stigmergy_complete.docs.state
	ops := [
		set("/docs/engine_state", json.patch(state, [set("/project_status", "EXECUTION_HALTED")])),
		set("/files/.stigmergy~1state~1current.json/present", true),
		set("/files/.stigmergy~1state~1current.json/parsed", true),
	]
	located(ops) == {["h3a.structure.stigmergy_two_ledgers", "rule", engine, ""]}
}

test_one_ledger_is_quiet if {
	not "h3a.structure.stigmergy_two_ledgers" in {f.rule | some f in findings([])}
}

# A ledger that is not an object is the loader's to report.
test_ledger_not_an_object_is_quiet if {
	count(findings([set("/docs/state", [1, 2])])) == 0
}

# A file of another shape is not held to the enums, so a status spelled in
# another case or spacing is read as the enum value it spells: it cannot
# hide a COMPLETED task on an unfinished dependency, an unfinished project
# marked complete, or an open issue.
test_status_spelled_otherwise_is_read if {
	every spelling in ["completed", "Completed", " COMPLETED ", "COMPLETED\n"] {
		ops := array.concat(older, [set(sprintf("%s/2/status", [tasks]), spelling)])
		["h3a.gates.stigmergy_dependency_incomplete", "warning", ledger, "/project_manifest/tasks/2/status"] in located(ops)
	}
	every spelling in ["project_complete", "Project Complete", "project-complete"] {
		ops := array.concat(older, [set("/docs/state/project_status", spelling)])
		["h3a.gates.stigmergy_project_complete", "warning", ledger, "/project_status"] in located(ops)
	}
	every spelling in ["open", "Open", "in progress", "failed_to_resolve"] {
		ops := array.concat(older, [
			set("/docs/state/project_status", "PROJECT_COMPLETE"),
			set(sprintf("%s/1/status", [tasks]), "COMPLETED"),
			set(sprintf("%s/2/status", [tasks]), "COMPLETED"),
			set("/docs/state/issue_log/0/status", spelling),
		])
		some f in findings(ops)
		f.pointer == "/issue_log/0/status"
		f.needs_human
	}
	every spelling in ["failed", "Failed "] {
		ops := array.concat(older, [set(sprintf("%s/1/status", [tasks]), spelling), cut("/docs/state/issue_log/0")])
		["h3a.retries.stigmergy_failure_limit", "rule", ledger, "/project_manifest/tasks/1/status"] in located(ops)
	}
}

# A word that spells no enum value is kept as written (real engines write
# PLANNED, UNDER_REVIEW, development), and reported as drift only.
test_status_of_no_enum_is_kept if {
	ops := array.concat(older, [set(sprintf("%s/2/status", [tasks]), "PLANNED")])
	{f.rule | some f in findings(ops)} == {"h3a.schema.stigmergy_drift"}
}

# behind_all lists the findings of ops of the rule below; the timestamps
# that patches add have no parsed facts, so other rules speak of them too.
behind_all(ops) := [f | some f in findings(ops); f.rule == "h3a.gates.stigmergy_state_behind_history"]

behind(ops) := {[f.rule, object.get(f, "severity", "rule"), f.file, f.pointer] | some f in behind_all(ops)}

behind_msgs(ops) := {f.msg | some f in behind_all(ops)}

# A halt in history under another project_status, or a RESOLVED issue that
# history last names as unresolved, asks a person which holds.
test_state_behind_history if {
	halt := put("/docs/state/history/-", {"timestamp": "2025-09-01T14:00:00Z", "agent_id": "saul", "signal": "EXECUTION_HALTED", "summary": "halted: T02 cannot complete"})
	behind([halt]) == {["h3a.gates.stigmergy_state_behind_history", "rule", ledger, "/history/2/signal"]}
	behind_msgs([halt]) == {`history entry 2 ("EXECUTION_HALTED") says the project halted, but project_status is "EXECUTION_IN_PROGRESS": a halt is lifted by a person's decision, which the state does not show; a person must decide whether the project goes on`}
	every f in behind_all([halt]) {
		f.needs_human == true
	}

	# a later entry does not lift it
	resumed := put("/docs/state/history/-", {"timestamp": "2025-09-01T14:10:00Z", "agent_id": "saul", "signal": "EXECUTION_RESUMED", "summary": "going on"})
	behind([halt, resumed]) == {["h3a.gates.stigmergy_state_behind_history", "rule", ledger, "/history/2/signal"]}

	unresolved := put("/docs/state/history/-", {"timestamp": "2025-09-01T14:00:00Z", "agent_id": "responder", "signal": "issue unresolved", "summary": "I-1: the flaky test still fails."})
	behind([unresolved]) == {["h3a.gates.stigmergy_state_behind_history", "rule", ledger, "/issue_log/0/status"]}
	behind_msgs([unresolved]) == {`issue "I-1" is RESOLVED in issue_log, but history entry 2 ("issue unresolved"), the last to name it, says it was not resolved: a person must decide whether it is`}

	# a failure named last: the resolution has no entry of its own
	every signal in ["ERROR", "TASK_FAILED", "test failure"] {
		behind([put("/docs/state/history/-", {"timestamp": "2025-09-01T14:00:00Z", "agent_id": "james", "signal": signal, "summary": "I-1 still broken"})]) == {["h3a.gates.stigmergy_state_behind_history", "rule", ledger, "/issue_log/0/status"]}
	}
	count(behind_all([
		put("/docs/state/history/-", {"timestamp": "2025-09-01T14:00:00Z", "agent_id": "james", "signal": "ERROR", "summary": "I-1 still broken"}),
		put("/docs/state/history/-", {"timestamp": "2025-09-01T14:10:00Z", "agent_id": "responder", "signal": "ISSUE_RESOLVED", "summary": "I-1 fixed"}),
	])) == 0
}

# A COMPLETED task that history last names as failed asks the same.
test_state_behind_history_task if {
	failed := put("/docs/state/history/-", {"timestamp": "2025-09-01T14:00:00Z", "agent_id": "james", "signal": "task failed", "summary": "T01: tests failing after the merge"})
	behind([failed]) == {["h3a.gates.stigmergy_state_behind_history", "rule", ledger, "/project_manifest/tasks/0/status"]}
	behind_msgs([failed]) == {`task "T01" is COMPLETED in the manifest, but history entry 2 ("task failed"), the last to name it, says it did not complete: a person must decide whether it did`}

	# completed again after the failure; a task not COMPLETED; another task's id
	done := put("/docs/state/history/-", {"timestamp": "2025-09-01T14:10:00Z", "agent_id": "james", "signal": "TASK_COMPLETE", "summary": "T01 fixed and done"})
	count(behind_all([failed, done])) == 0
	count(behind_all([put("/docs/state/history/-", {"timestamp": "2025-09-01T14:00:00Z", "agent_id": "james", "signal": "TASK_FAILED", "summary": "T02 failing"})])) == 0
	count(behind_all([put("/docs/state/history/-", {"timestamp": "2025-09-01T14:00:00Z", "agent_id": "james", "signal": "TASK_FAILED", "summary": "T011 failing"})])) == 0
}

test_state_behind_history_quiet if {
	# halted, and the state says so
	count([f |
		some f in findings([
			put("/docs/state/history/-", {"timestamp": "2025-09-01T14:00:00Z", "agent_id": "saul", "signal": "EXECUTION_HALTED", "summary": "x"}),
			set("/docs/state/project_status", "EXECUTION_HALTED"),
		])
		f.rule == "h3a.gates.stigmergy_state_behind_history"
	]) == 0

	# resolved after the unresolved entry; another issue's id
	unresolved := put("/docs/state/history/-", {"timestamp": "2025-09-01T14:00:00Z", "agent_id": "responder", "signal": "ISSUE_UNRESOLVED", "summary": "I-1 still fails"})
	resolved := put("/docs/state/history/-", {"timestamp": "2025-09-01T14:10:00Z", "agent_id": "responder", "signal": "ISSUE_RESOLVED", "summary": "I-1 fixed"})
	count(behind_all([unresolved, resolved])) == 0
	count(behind_all([put("/docs/state/history/-", {"timestamp": "2025-09-01T14:00:00Z", "agent_id": "responder", "signal": "ISSUE_UNRESOLVED", "summary": "I-10 still fails"})])) == 0
}
