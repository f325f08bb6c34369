# METADATA
# title: No evidence, no gate
# description: >-
#   A gate that any record claims as passed is held to the exit criteria of
#   gate_framework.md that can be checked mechanically.
# schemas:
#   - input: schema.input.h3a
package h3a.rules.evidence

import data.h3a.lib
import data.h3a.model

task := model.current_task_id

ct := input.docs.current_task

# element adds what every finding of this package carries: the gate and the task.
element(n, v) := object.union({"gate": sprintf("G%d", [n]), "task_id": task}, v) if task

else := object.union({"gate": sprintf("G%d", [n])}, v)

# METADATA
# title: G0 passed without its exit criteria
# description: >-
#   G0 passed needs: a ROADMAP.md "Overall Strategy" section and a task queue with at least
#   one task; CURRENT_TASK.json with task_id, goal, at least one path in files_affected,
#   tdd_plan red, green and refactor and at least three definition-of-done items; a
#   planner_report.json report about the current task (its task_id, or in tasks_created)
#   with research_findings and a tdd_strategy; a G0 PASSED event in GATES_LEDGER.md.
#   gate_framework.md, G0 Exit Criteria: "Strategic plan documented", "Task
#   decomposed", "Current task defined | CURRENT_TASK.json populated with task_id, goal,
#   files_affected, DoD", "TDD plan created", "Definition of Done specified |
#   CURRENT_TASK.json has ≥3 measurable DoD criteria" (three different items: one
#   written again, case and surrounding space aside, counts once), "Planner report generated |
#   planner_report.json exists with research findings and strategy", "Gate logged";
#   handoff_contracts.md, H1 Planner's Obligations: "Planning report | planner_report.json |
#   File exists with task_id entry".
# custom:
#   id: h3a.evidence.g0_exit_criteria
#   category: evidence
#   severity: error
#   remediation: >-
#     the planner completes what is missing and logs it; until then G0 is not passed, so
#     set it back to in_progress in every record
deny contains f if {
	0 in model.claimed_passed
	some v in g0_gaps
	f := lib.finding(rego.metadata.rule(), element(0, v))
}

g0_gaps contains v if {
	sections := {lower(trim_space(s)) | some s in lib.items(input.docs.roadmap.sections)}
	not "overall strategy" in sections
	v := {
		"msg": "G0_planning is passed but ROADMAP.md has no \"Overall Strategy\" section",
		"file": lib.doc_file.roadmap,
		"remediation": g0_fix("add an \"## Overall Strategy\" section to ROADMAP.md: how the task will be done"),
	}
}

g0_gaps contains v if {
	input.docs.roadmap != null
	count(lib.items(input.docs.roadmap.tasks)) == 0
	v := {
		"msg": "G0_planning is passed but the ROADMAP.md task queue lists no task (expected \"- [ ] T001: <description>\")",
		"file": lib.doc_file.roadmap,
		"remediation": g0_fix("add the task to the ROADMAP.md task queue as \"- [ ] T001: <description>\""),
	}
}

g0_gaps contains v if {
	ct != null
	some field in ["task_id", "goal"]
	not task_field_filled(field)
	v := {
		"msg": sprintf("G0_planning is passed but CURRENT_TASK.json %s is empty", [field]),
		"file": lib.doc_file.current_task,
		"pointer": sprintf("/%s", [field]),
		"remediation": g0_fix(sprintf("write the task's %s into CURRENT_TASK.json", [field])),
	}
}

g0_gaps contains v if {
	ct != null
	some phase in ["red", "green", "refactor"]
	not plan_filled(phase)
	v := {
		"msg": sprintf("G0_planning is passed but CURRENT_TASK.json tdd_plan.%s is empty", [phase]),
		"file": lib.doc_file.current_task,
		"pointer": tdd_plan_pointer(phase),
		"remediation": g0_fix(sprintf("write the %s step of the TDD plan into CURRENT_TASK.json tdd_plan.%s", [phase, phase])),
	}
}

# Negating a function whose argument is an undefined ref is itself undefined
# in Rego, so each "is it there" test below wraps the ref in a function of
# its own with defined arguments.
task_field_filled(field) if lib.filled(ct[field])

plan_filled(phase) if lib.filled(ct.tdd_plan[phase])

tdd_plan_pointer(phase) := sprintf("/tdd_plan/%s", [phase]) if is_object(ct.tdd_plan)

else := "/tdd_plan"

g0_gaps contains v if {
	ct != null
	count([p | some p in lib.items(ct.files_affected); lib.filled(p)]) == 0
	v := {
		"msg": "G0_planning is passed but CURRENT_TASK.json names no file in files_affected",
		"file": lib.doc_file.current_task,
		"pointer": "/files_affected",
		"remediation": g0_fix("list the files the task will change in CURRENT_TASK.json files_affected"),
	}
}

# An item of white space alone measures nothing and is not counted, and an
# item written again (case and surrounding space aside) measures what it
# measured the first time: three criteria are three different items.
g0_gaps contains v if {
	ct != null
	items := [item | some item in lib.items(ct.definition_of_done); lib.filled(item)]
	n := count({lower(trim_space(item)) | some item in items})
	n < 3
	v := {
		"msg": dod_count_msg(count(items), n),
		"file": lib.doc_file.current_task,
		"pointer": "/definition_of_done",
		"remediation": g0_fix(sprintf("add %d more definition-of-done item(s) to CURRENT_TASK.json definition_of_done", [3 - n])),
	}
}

dod_count_msg(listed, n) := sprintf("G0_planning is passed but CURRENT_TASK.json lists %d definition-of-done item(s), at least 3 expected", [n]) if {
	listed == n
} else := sprintf("G0_planning is passed but CURRENT_TASK.json lists %d definition-of-done items, %d of them different (an item written again measures nothing more), at least 3 expected", [listed, n])

g0_gaps contains v if {
	input.docs.planner_report != null
	count(lib.items(input.docs.planner_report.reports)) == 0
	v := {
		"msg": "G0_planning is passed but planner_report.json holds no report",
		"file": lib.doc_file.planner_report,
		"pointer": "/reports",
		"remediation": g0_fix("the planner records its report (tasks_created, artifacts) in planner_report.json reports"),
	}
}

# The report must be about the current task (its task_id, or a task it
# created) and record what the planner found and the strategy it chose.
g0_gaps contains v if {
	count(planner_reports) > 0
	task
	count(task_reports) == 0
	v := {
		"msg": sprintf("G0_planning is passed but no planner_report.json report is about task %q (as its task_id or in tasks_created)", [task]),
		"file": lib.doc_file.planner_report,
		"pointer": "/reports",
		"remediation": g0_fix(sprintf("the planner records a report for task %q in planner_report.json reports", [task])),
	}
}

g0_gaps contains v if {
	some [field, what, filled_report] in [
		["research_findings", "research findings", researched],
		["tdd_strategy", "a strategy", strategised],
	]
	count(task_reports) > 0
	count(filled_report) == 0
	i := max(task_reports)
	v := {
		"msg": sprintf("G0_planning is passed but no planner_report.json report about %s records %s (%s)", [task_name, what, field]),
		"file": lib.doc_file.planner_report,
		"pointer": sprintf("/reports/%d", [i]),
		"remediation": g0_fix(sprintf("the planner records %s for the task in its planner_report.json report (%s)", [what, field])),
	}
}

planner_reports := lib.items(input.docs.planner_report.reports)

# task_reports are the indexes of the planner reports about the current task.
task_reports := {i |
	some i, r in planner_reports
	report_covers(r)
}

report_covers(r) if r.task_id == task

report_covers(r) if task in lib.items(r.tasks_created)

# researched and strategised are the reports about the task with research
# findings, and with a TDD strategy for at least one task.
researched := {i |
	some i in task_reports
	some finding in lib.items(planner_reports[i].research_findings)
	lib.filled(finding)
}

strategised := {i |
	some i in task_reports
	strategy := planner_reports[i].tdd_strategy
	is_object(strategy)
	count(strategy) > 0
}

g0_gaps contains v if {
	some v in ledger_gaps(0)
}

# ledger_gaps(n) holds the finding for a gate claimed passed that the ledger never logged passing.
ledger_gaps(n) := {v |
	input.docs.gates_ledger != null
	not model.ledger_has(n, "PASSED")
	v := {
		"msg": sprintf("%s is passed but GATES_LEDGER.md has no %s PASSED event", [model.gate_names[n], model.gate_names[n]]),
		"file": lib.doc_file.gates_ledger,
		"line": input.docs.gates_ledger.events_line,
		"remediation": sprintf("once its exit criteria hold, append \"[<UTC time>] %s - PASSED - <agent> - <evidence>\" to GATES_LEDGER.md; until then the gate is not passed, so set it back to in_progress in every record", [model.gate_names[n]]),
	}
}

# g0_fix is the remediation of a missing G0 exit criterion: what to add,
# and that G0 is not passed until it is there.
g0_fix(add) := sprintf("%s; until then G0 is not passed, so set it back to in_progress in every record", [add])

# METADATA
# title: G1 passed without its exit criteria
# description: >-
#   G1 passed needs an executor_report.json TDD cycle for the current task that names its
#   RED and GREEN test outputs, does not record tests failing after REFACTOR
#   (tdd_phases.refactor.test_still_passing false), and addresses every definition-of-done
#   item of CURRENT_TASK.json, and whose gate_status, when the checker reads one, does not
#   say G1 has not passed (G1_failed, G1_in_progress, a G0 status), and a G1 PASSED event in
#   GATES_LEDGER.md. (The artifacts
#   themselves: h3a.evidence.required_artifact; their times: h3a.evidence.tdd_order.)
#   gate_framework.md, G1 Exit Criteria: "RED phase documented", "GREEN phase documented",
#   "REFACTOR phase completed | Code cleaned up, tests still passing", "DoD checklist
#   addressed | All DoD items from CURRENT_TASK checked", "Executor report generated", "Gate
#   logged"; h3a-state-specification.md, executor_report.json: "test_still_passing": true,
#   "gate_status": "G1_passed"; CURRENT_TASK.json Update Protocol: "Executor updates status,
#   iteration_count, gate_status".
# custom:
#   id: h3a.evidence.g1_exit_criteria
#   category: evidence
#   severity: error
#   remediation: >-
#     the executor records the TDD cycle completely (RED failure output, GREEN test output,
#     one entry per definition-of-done item) before G1 is set to passed
deny contains f if {
	1 in model.claimed_passed
	some v in g1_gaps
	f := lib.finding(rego.metadata.rule(), element(1, v))
}

g1_gaps contains v if {
	input.docs.executor_report != null
	not model.current_cycle
	v := {"msg": sprintf("G1_implementation is passed but executor_report.json has no TDD cycle for %s", [task_name]), "file": lib.doc_file.executor_report, "pointer": "/tdd_cycles"}
}

cycle_names(i, phase, field) if lib.filled(model.cycles[i].tdd_phases[phase][field])

# The executor's own cycle says the tests broke in REFACTOR: the code G1 hands
# on is not the code that passed GREEN.
g1_gaps contains v if {
	i := model.current_cycle
	model.cycles[i].tdd_phases.refactor.test_still_passing == false
	v := {
		"msg": sprintf("G1_implementation is passed but the TDD cycle for %s records tests failing after REFACTOR (tdd_phases.refactor.test_still_passing is false)", [task_name]),
		"file": lib.doc_file.executor_report,
		"pointer": sprintf("/tdd_cycles/%d/tdd_phases/refactor/test_still_passing", [i]),
		"remediation": "fix the refactoring (or undo it) until the tests pass again, record a new TDD cycle with test_still_passing true, and until then set G1 back to in_progress in every record",
	}
}

# The executor's own cycle for the task says G1 has not passed: its owner
# reports the gate failed or still in progress.
g1_gaps contains v if {
	i := model.current_cycle
	gs := model.cycles[i].gate_status
	st := model.parse_gate_status(gs)
	model.status_frontier(st) < 1
	v := {
		"msg": sprintf("G1_implementation is passed but the executor's TDD cycle for %s has gate_status %q", [task_name, gs]),
		"file": lib.doc_file.executor_report,
		"pointer": sprintf("/tdd_cycles/%d/gate_status", [i]),
		"remediation": "if G1 really passed, the executor records a new TDD cycle for the task with gate_status G1_passed; otherwise set G1 back to the status the executor reports in every record",
	}
}

current_cycle_names(phase, field) if cycle_names(model.current_cycle, phase, field)

task_name := sprintf("task %q", [task]) if task

else := "the current task"

g1_gaps contains v if {
	i := model.current_cycle
	some phase, field in tdd_outputs
	not cycle_names(i, phase, field)
	v := {
		"msg": sprintf("G1_implementation is passed but the TDD cycle for %s names no %s output (tdd_phases.%s.%s)", [task_name, upper(phase), phase, field]),
		"file": lib.doc_file.executor_report,
		"pointer": sprintf("/tdd_cycles/%d", [i]),
	}
}

g1_gaps contains v if {
	i := model.current_cycle
	addressed := [lower(trim_space(d.criterion)) | some d in lib.items(model.cycles[i].definition_of_done); is_string(d.criterion)]
	some item in lib.items(ct.definition_of_done)
	is_string(item)
	not is_addressed(lower(trim_space(item)), addressed)
	v := {
		"msg": sprintf("G1_implementation is passed but definition-of-done item %q of CURRENT_TASK.json is not addressed in the TDD cycle for %s", [item, task_name]),
		"file": lib.doc_file.executor_report,
		"pointer": sprintf("/tdd_cycles/%d/definition_of_done", [i]),
	}
}

# is_addressed: the executor's criterion names the item, word for word or as part of
# a longer wording, or in a shorter wording that keeps at least half of the item's
# characters: a criterion "o" is part of every item and addresses none.
is_addressed(item, addressed) if {
	some a in addressed
	a != ""
	contains(a, item)
}

is_addressed(item, addressed) if {
	some a in addressed
	a != ""
	count(a) * 2 >= count(item)
	contains(item, a)
}

g1_gaps contains v if {
	some v in ledger_gaps(1)
}
