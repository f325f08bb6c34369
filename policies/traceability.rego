# METADATA
# title: Traceability
# description: Run ids and task ids agree across documents, and every piece of work traces back to a planned task.
# schemas:
#   - input: schema.input.h3a
package h3a.rules.traceability

import data.h3a.lib
import data.h3a.model

roadmap := input.docs.roadmap

state_steps := lib.items(input.docs.state.steps)

# METADATA
# title: Report or handoff names another run
# description: >-
#   run_id in SESSION_HANDOFF.json and in the three reports equals the run directory's name
#   (state.json's own run_id: h3a.traceability.run_id_mismatch). When the directory is not
#   named by a run id, they must equal state.json's run_id instead.
#   h3a-state-specification.md, Directory Structure: "Every H3A run creates an immutable,
#   self-contained directory" ("runs/<run-id>/"); a document with another run's id was
#   copied from that run.
# custom:
#   id: h3a.traceability.report_run_id
#   category: traceability
#   severity: error
#   traceability: task_id_match
#   remediation: >-
#     a document with another run's id was copied from that run; regenerate it in this
#     run, never edit the id to make it fit
deny contains f if {
	some key in ["handoff", "planner_report", "executor_report", "validator_report"]
	id := input.docs[key].run_id
	is_string(id)
	[want, source] := expected_run_id
	id != want
	f := lib.finding(rego.metadata.rule(), {
		"msg": sprintf("%s run_id %q differs from %s %q", [lib.base_name(lib.doc_file[key]), id, source, want]),
		"file": lib.doc_file[key],
		"pointer": "/run_id",
	})
}

expected_run_id := [input.run.dir, "the run directory name"] if input.run.dir_is_run_id

else := [id, "state.json run_id"] if {
	id := input.docs.state.run_id
	lib.filled(id)
}

# METADATA
# title: Current task and handoff name different tasks
# description: >-
#   CURRENT_TASK.json task_id equals SESSION_HANDOFF.json payload.task_id when both are set.
#   h3a-state-specification.md, "State Files (Single Source of Truth)": CURRENT_TASK.json is
#   the "Active task being executed", and the handoff payload hands that task over
#   (files_to_review "state/CURRENT_TASK.json"); handoff_contracts.md, Handoff Rejection
#   Protocol: "Verification checklist fails".
# custom:
#   id: h3a.traceability.task_id_mismatch
#   category: traceability
#   severity: error
#   traceability: task_id_match
#   remediation: >-
#     the handoff must carry the task being worked on: update SESSION_HANDOFF.json at
#     the next hand-over, or CURRENT_TASK.json if it is the stale one
deny contains f if {
	ours := input.docs.current_task.task_id
	theirs := input.docs.handoff.payload.task_id
	lib.filled(ours)
	lib.filled(theirs)
	ours != theirs
	f := lib.finding(rego.metadata.rule(), {
		"msg": sprintf("SESSION_HANDOFF.json payload.task_id %q differs from CURRENT_TASK.json task_id %q", [theirs, ours]),
		"file": lib.doc_file.handoff,
		"pointer": "/payload/task_id",
		"task_id": ours,
	})
}

# task_ids are the task ids the documents name: a clean run stops after this
# cheap pass, and task_refs works out positions only when one is unknown.
task_ids contains id if {
	some step in state_steps
	not step.corrects
	id := step.task_id
}

task_ids contains id if {
	some entry in array.concat(model.cycles, model.verdicts)
	id := entry.task_id
}

task_ids contains id if {
	some report in lib.items(input.docs.planner_report.reports)
	id := report.task_id
}

task_ids contains id if {
	some report in lib.items(input.docs.planner_report.reports)
	some id in lib.items(report.tasks_created)
}

task_ids contains id if {
	some entry in lib.items(input.docs.handoff.history)
	id := entry.task_id
}

task_ids contains input.docs.handoff.payload.task_id

task_ids contains input.docs.current_task.task_id

# task_refs lists every task id a document names, with where.
task_refs contains r if {
	some i, step in state_steps
	not step.corrects
	r := task_ref(step.task_id, lib.doc_file.state, sprintf("/steps/%d/task_id", [i]))
}

task_refs contains r if {
	some i, cycle in model.cycles
	r := task_ref(cycle.task_id, lib.doc_file.executor_report, sprintf("/tdd_cycles/%d/task_id", [i]))
}

task_refs contains r if {
	some i, verdict in model.verdicts
	r := task_ref(verdict.task_id, lib.doc_file.validator_report, sprintf("/verdicts/%d/task_id", [i]))
}

task_refs contains r if {
	some i, report in lib.items(input.docs.planner_report.reports)
	r := task_ref(report.task_id, lib.doc_file.planner_report, sprintf("/reports/%d/task_id", [i]))
}

task_refs contains r if {
	some i, report in lib.items(input.docs.planner_report.reports)
	some j, id in lib.items(report.tasks_created)
	r := task_ref(id, lib.doc_file.planner_report, sprintf("/reports/%d/tasks_created/%d", [i, j]))
}

task_refs contains r if {
	r := task_ref(input.docs.handoff.payload.task_id, lib.doc_file.handoff, "/payload/task_id")
}

task_refs contains r if {
	some i, entry in lib.items(input.docs.handoff.history)
	r := task_ref(entry.task_id, lib.doc_file.handoff, sprintf("/history/%d/task_id", [i]))
}

task_refs contains r if {
	r := task_ref(input.docs.current_task.task_id, lib.doc_file.current_task, "/task_id")
}

task_ref(id, file, pointer) := {"id": id, "file": file, "pointer": pointer} if lib.filled(id)

# METADATA
# title: Task not in the roadmap
# description: >-
#   Every task id in state.json steps, executor cycles, validator verdicts, planner reports,
#   the handoff and CURRENT_TASK.json is in the ROADMAP.md task queue. Correction steps
#   (with "corrects") are exempt. h3a-state-specification.md, ROADMAP.md update protocol:
#   "Planner appends tasks as decomposition evolves"; gate_framework.md, G0 Exit Criteria:
#   "Task decomposed | ROADMAP.md has numbered task list (T001, T002, ...)".
# custom:
#   id: h3a.traceability.unknown_task
#   category: traceability
#   severity: error
#   traceability: requirements_coverage
#   remediation: >-
#     the planner adds the task to the ROADMAP.md task queue ("- [ ] T002: <description>"),
#     or the document is corrected to name a planned task
deny contains f if {
	roadmap != null
	count(task_ids - model.roadmap_ids) > 0
	some r in task_refs
	not r.id in model.roadmap_ids
	f := lib.finding(rego.metadata.rule(), {
		"msg": sprintf("task %q is not in the ROADMAP.md task queue%s", [r.id, known_tasks]),
		"file": r.file,
		"pointer": r.pointer,
		"task_id": r.id,
	})
}

known_tasks := sprintf(" (it lists %s)", [concat(", ", sort(model.roadmap_ids))]) if count(model.roadmap_ids) > 0

else := " (it lists no task)"

# METADATA
# title: Verdict without an executor cycle
# description: >-
#   Every validator verdict is about a task that has an executor_report.json TDD cycle.
#   gate_framework.md, G2 Entry Criteria: "G1 passed", "Executor report exists";
#   handoff_contracts.md, H2 Executor's Obligations: "Execution report |
#   executor_report.json | TDD cycle documented, DoD checked".
# custom:
#   id: h3a.traceability.verdict_without_cycle
#   category: traceability
#   severity: error
#   traceability: requirements_coverage
#   remediation: >-
#     a verdict validates executed work: record the executor's TDD cycle, or correct the verdict's task_id
deny contains f if {
	input.docs.executor_report != null
	cycle_tasks := {c.task_id | some c in model.cycles}
	some i, verdict in model.verdicts
	lib.filled(verdict.task_id)
	not verdict.task_id in cycle_tasks
	f := lib.finding(rego.metadata.rule(), {
		"msg": sprintf("verdict %d is about task %q, which has no TDD cycle in executor_report.json", [i, verdict.task_id]),
		"file": lib.doc_file.validator_report,
		"pointer": sprintf("/verdicts/%d/task_id", [i]),
		"task_id": verdict.task_id,
	})
}

# METADATA
# title: Executor cycle without a plan
# description: >-
#   Every executor_report.json TDD cycle is about a task that a planner_report.json report
#   created (tasks_created). handoff_contracts.md, H1 Planner's Obligations: "Planning
#   report | planner_report.json | File exists with task_id entry"; gate_framework.md, G1
#   Entry Criteria: "G0 passed".
# custom:
#   id: h3a.traceability.cycle_without_plan
#   category: traceability
#   severity: error
#   traceability: requirements_coverage
#   remediation: >-
#     work starts from a plan: the planner records the task in tasks_created of its report before the executor starts it
deny contains f if {
	input.docs.planner_report != null
	created := {id | some r in lib.items(input.docs.planner_report.reports); some id in lib.items(r.tasks_created)}
	some i, cycle in model.cycles
	lib.filled(cycle.task_id)
	not cycle.task_id in created
	f := lib.finding(rego.metadata.rule(), {
		"msg": sprintf("TDD cycle %d is about task %q, which no planner_report.json report created (tasks_created)", [i, cycle.task_id]),
		"file": lib.doc_file.executor_report,
		"pointer": sprintf("/tdd_cycles/%d/task_id", [i]),
		"task_id": cycle.task_id,
	})
}

# METADATA
# title: Dependency missing or not complete
# description: >-
#   Every dependency of CURRENT_TASK.json is in the ROADMAP.md task queue, and is complete
#   (marked done, or a passing verdict) before the task is in progress or later (its status
#   means started). gate_framework.md, G0 Entry Criteria: "Previous task complete (if any)";
#   handoff_contracts.md, H1 Executor's Assumptions: "No blocking dependencies (or
#   documented in CURRENT_TASK.json)".
# custom:
#   id: h3a.traceability.dependency_incomplete
#   category: traceability
#   severity: error
#   traceability: requirements_coverage
#   remediation: finish and validate the dependency first, or correct the dependency list if it is wrong
deny contains f if {
	roadmap != null
	some v in dependency_gaps
	f := lib.finding(rego.metadata.rule(), v)
}

dependency_gaps contains v if {
	some j, dep in lib.items(input.docs.current_task.dependencies)
	lib.filled(dep)
	not dep in model.roadmap_ids
	v := dependency_finding(j, sprintf("depends on %q, which is not in the ROADMAP.md task queue", [dep]))
}

dependency_gaps contains v if {
	input.docs.validator_report != null
	model.task_meaning.started
	some j, dep in lib.items(input.docs.current_task.dependencies)
	dep in model.roadmap_ids
	not complete(dep)
	v := dependency_finding(j, sprintf(
		"is %q but its dependency %q is not complete (open in ROADMAP.md and no passing verdict)",
		[input.docs.current_task.status, dep],
	))
}

dependency_finding(j, what) := object.union(
	{"msg": sprintf("the current task %s", [what]), "file": lib.doc_file.current_task, "pointer": sprintf("/dependencies/%d", [j])},
	{"task_id": id | id := input.docs.current_task.task_id; lib.filled(id)},
)

complete(id) if {
	some t in lib.items(roadmap.tasks)
	t.id == id
	t.done
}

complete(id) if has_passing_verdict(id)

has_passing_verdict(id) if {
	some i, verdict in model.verdicts
	verdict.task_id == id
	model.verdict_passes(i)
}

# METADATA
# title: Task complete while blocked
# description: >-
#   CURRENT_TASK.json with a status that means the task passed (complete) lists nothing
#   in blocked_by, other than tasks that are complete themselves (marked done in
#   ROADMAP.md, or with a passing verdict). A blocker is what the executor records when
#   it cannot go on, and it escalates; the specification says nothing of taking a
#   resolved blocker off the list, so a stale entry cannot be told from a task finished
#   over its blocker: a warning that asks for a human. h3a-state-specification.md,
#   CURRENT_TASK.json Schema: "blocked_by": []; handoff_contracts.md, H1 Executor's
#   Assumptions: "No blocking dependencies (or documented in CURRENT_TASK.json)"; Common
#   Handoff Failures (H1): "Missing dependencies | Executor discovers blocker (missing API
#   key) | Executor adds blocker to CURRENT_TASK.json, escalates"; gate_framework.md,
#   Escalation Protocol: "Architectural blocker discovered".
# custom:
#   id: h3a.gates.complete_while_blocked
#   category: gates
#   severity: warning
#   remediation: >-
#     a person confirms the blocker was resolved before the task passed (then it is taken
#     off blocked_by at the next write), or the task goes back to in_progress until it is
warn contains f if {
	model.task_meaning.outcome == "pass"
	some j, blocker in lib.items(input.docs.current_task.blocked_by)
	lib.filled(blocker)
	not complete_task(blocker)
	f := lib.finding(rego.metadata.rule(), object.union(
		{
			"msg": sprintf("the current task is %q but blocked_by still lists %q; a person must confirm the blocker was resolved", [input.docs.current_task.status, blocker]),
			"file": lib.doc_file.current_task,
			"pointer": sprintf("/blocked_by/%d", [j]),
			"needs_human": true,
		},
		{"task_id": id | id := input.docs.current_task.task_id; lib.filled(id)},
	))
}

# complete_task holds for a task id of the roadmap that is complete.
complete_task(id) if {
	id in model.roadmap_ids
	complete(id)
}

# METADATA
# title: Task marked done without a passing verdict
# description: >-
#   A ROADMAP.md task marked done ([x]) has a validator verdict whose status means a pass
#   (pass or pass_with_notes). h3a-state-specification.md, Task Lifecycle: "[PASS] →
#   complete (G2_passed)"; ROADMAP.md update protocol: "Executor marks tasks complete with
#   timestamps".
# custom:
#   id: h3a.traceability.done_without_verdict
#   category: traceability
#   severity: error
#   traceability: requirements_coverage
#   remediation: >-
#     a task is done when the validator passes it: un-tick it until then, or record the verdict
deny contains f if {
	input.docs.validator_report != null
	some t in lib.items(roadmap.tasks)
	t.done
	not has_passing_verdict(t.id)
	f := lib.finding(rego.metadata.rule(), {
		"msg": sprintf("task %q is marked done in ROADMAP.md but validator_report.json has no passing verdict for it", [t.id]),
		"file": lib.doc_file.roadmap,
		"line": t.line,
		"task_id": t.id,
	})
}

# METADATA
# title: Correction points at nothing
# description: >-
#   A state.json correction step's "corrects" names the task_id of an existing,
#   non-correction step. h3a-state-specification.md, state.json update protocol:
#   "Corrections add a new step with corrects: <task_id>".
# custom:
#   id: h3a.traceability.dangling_correction
#   category: traceability
#   severity: error
#   traceability: task_id_match
#   remediation: set corrects to the task_id of the step being corrected
deny contains f if {
	corrected := {s.task_id | some s in state_steps; not s.corrects}
	some i, step in state_steps
	target := step.corrects
	not target in corrected
	f := lib.finding(rego.metadata.rule(), {
		"msg": sprintf("step %d corrects %v, but no step has that task_id", [i, target]),
		"file": lib.doc_file.state,
		"pointer": sprintf("/steps/%d/corrects", [i]),
	})
}

# METADATA
# title: Roadmap complete with an open task
# description: >-
#   A ROADMAP.md whose Status says the run is complete has no open ("- [ ]") task in its
#   task queue. Complete is the phase after Validation Phase, and a task is complete when
#   the validator passes it; an open task was neither executed nor validated, so the
#   status claims work that is not done. h3a-state-specification.md, ROADMAP.md Schema:
#   "**Status:** <Planning Phase | Execution Phase | Validation Phase | Complete>", "- [x]
#   T003: <Task description> ✅ (Completed: <timestamp>)"; Update Protocol: "Executor marks
#   tasks complete with timestamps"; State Machine, Task Lifecycle: "[PASS] → complete
#   (G2_passed)".
# custom:
#   id: h3a.traceability.roadmap_complete_with_open_task
#   category: traceability
#   severity: error
#   traceability: requirements_coverage
#   remediation: >-
#     set the roadmap Status back to the phase the run is in until every task of the queue
#     is done, or tick the tasks that the validator passed
deny contains f if {
	roadmap != null
	roadmap_says_complete
	some t in lib.items(roadmap.tasks)
	not t.done
	f := lib.finding(rego.metadata.rule(), {
		"msg": sprintf("ROADMAP.md Status is %q but task %q is still open in its task queue", [roadmap.status, t.id]),
		"file": lib.doc_file.roadmap,
		"line": t.line,
		"task_id": t.id,
	})
}

# roadmap_says_complete holds for a Status that claims the run is finished,
# whatever mark or emphasis decorates it ("✅ Complete", "COMPLETED", "Done").
roadmap_says_complete if {
	is_string(roadmap.status)
	regex.match(`(?i)^[^a-z0-9]*(complete|completed|done|finished)\b`, roadmap.status)
}

# METADATA
# title: Task complete but open in the roadmap
# description: >-
#   CURRENT_TASK.json with a status that means the task passed (complete) names a task
#   that ROADMAP.md marks done ("- [x]"). Completing a task marks it in the roadmap; a
#   task still open there was not recorded as complete where the plan is kept, so the two
#   records contradict each other. h3a-state-specification.md, ROADMAP.md Update
#   Protocol: "Executor marks tasks complete with timestamps", Schema: "- [x] T003: <Task
#   description> ✅ (Completed: <timestamp>)"; State Machine, Task Lifecycle: "[PASS] →
#   complete (G2_passed)".
# custom:
#   id: h3a.traceability.complete_task_open_in_roadmap
#   category: traceability
#   severity: error
#   traceability: requirements_coverage
#   remediation: >-
#     tick the task in ROADMAP.md with its completion time once the validator passed it,
#     or set CURRENT_TASK.json status back to the state the task is in
deny contains f if {
	roadmap != null
	model.task_meaning.outcome == "pass"
	id := input.docs.current_task.task_id
	lib.filled(id)
	some t in lib.items(roadmap.tasks)
	t.id == id
	not t.done
	f := lib.finding(rego.metadata.rule(), {
		"msg": sprintf("CURRENT_TASK.json status is %q but ROADMAP.md still shows task %q open (\"- [ ]\")", [input.docs.current_task.status, id]),
		"file": lib.doc_file.roadmap,
		"line": t.line,
		"task_id": id,
	})
}
