# METADATA
# title: Stigmergy ledger
# description: >-
#   Runs of the stigmergy layout (stigmergy-state-schema.md): the ledger .ai/state.json
#   (or the engine's .stigmergy/state/current.json) against itself, its blueprint and
#   its stage documents. Only a file declaring schema_version "3.0" is held to the
#   schema (docs.strict); any other shape is checked for what it shares with 3.0, and
#   every finding about it is a warning that names the version (docs.version). One that
#   would be an error under 3.0 asks for a human: the shape is what the run declares of
#   itself, so it cannot turn a contradiction into a pass. Which
#   stage documents exist and the dependency cycles are facts of the input. Every rule
#   is guarded by the layout, so it never fires on another layout's runs.
# schemas:
#   - input: schema.input.stigmergy
package h3a.rules.stigmergy

import data.h3a.lib

stigmergy if input.run.layout == "stigmergy"

state_path := ".ai/state.json"

engine_path := ".stigmergy/state/current.json"

blueprint_path := "execution-blueprint.yml"

# ledger_file is the ledger the run keeps: .ai/state.json when present.
ledger_file := state_path if {
	stigmergy
	input.files[state_path].present
} else := engine_path if {
	stigmergy
	input.files[engine_path].present
} else := state_path if stigmergy

# ledger is the ledger's document, when it holds an object; no rule speaks of
# one that does not (the loader reports it).
ledger := doc if {
	doc := {state_path: input.docs.state, engine_path: input.docs.engine_state}[ledger_file]
	is_object(doc)
}

# METADATA
# title: Two ledgers in one root
# description: >-
#   The root holds both .ai/state.json and the engine's .stigmergy/state/current.json.
#   Only .ai/state.json is checked as the ledger, so what current.json says (a halted
#   project, a task over its failure limit, tasks completed out of order) passes
#   unchecked, while a reader may take it for the project's state: it is the file
#   the engine writes now. stigmergy-state-schema.md, opening paragraph: "This file
#   is the **sacred ledger** of the swarm's activity and the sole source of truth for
#   project state. All agents MUST read from and write to this file".
# custom:
#   id: h3a.structure.stigmergy_two_ledgers
#   category: structure
#   severity: error
#   remediation: >-
#     keep one ledger: delete the one the swarm no longer writes (git rm), after
#     carrying over to the other what it holds that the other does not
deny contains f if {
	stigmergy
	input.files[state_path].present
	input.files[engine_path].present
	f := lib.finding(rego.metadata.rule(), {
		"msg": sprintf("the root holds two ledgers, %s and %s; only %s is checked, so what %s says is not: keep one", [state_path, engine_path, state_path, engine_path]),
		"file": engine_path,
	})
}

strict if input.docs.strict == true

# judged is an element of a rule that fails a schema 3.0 file, as the
# ledger's shape has it judged: as written for a 3.0 file; else a warning
# that names the shape recognised and asks for a human. The rule may not
# hold for another shape, but the shape is what the file says of itself
# (schema_version "2.1", or none), and no run may turn its own contradiction
# into a pass by declaring it.
judged(item) := item if strict

else := object.union(item, {"severity": "warning", "needs_human": true, "msg": sprintf("%s: %s (an error in a schema 3.0 file; a person decides whether it holds for this one)", [input.docs.version, item.msg])})

# labelled names the shape recognised in a message about a file that is not
# schema 3.0, keeping the rule's severity.
labelled(item) := item if strict

else := object.union(item, {"msg": sprintf("%s: %s", [input.docs.version, item.msg])})

stages := [
	["NEEDS_BRIEFING", "docs/brief.md"],
	["NEEDS_PRD", "docs/prd.md"],
	["NEEDS_ARCHITECTURE", "docs/architecture.md"],
	["NEEDS_BLUEPRINT", blueprint_path],
	["READY_FOR_EXECUTION", ""],
	["EXECUTION_IN_PROGRESS", ""],
	["EXECUTION_HALTED", ""],
	["PROJECT_COMPLETE", ""],
]

task_statuses := ["PENDING", "IN_PROGRESS", "COMPLETED", "FAILED"]

issue_statuses := ["OPEN", "IN_PROGRESS", "RESOLVED", "FAILED_TO_RESOLVE"]

# spelled reads a status as the enum value it spells in another case or
# with other spacing ("failed", "Completed", " in progress", "in-progress"),
# so a file of another shape (whose values the schema does not hold to the
# enum) cannot hide a FAILED task or an OPEN issue by spelling it otherwise.
# Any other value is kept as written. stigmergy-state-schema.md, Root
# Object: project_status (Enum), project_manifest.tasks status (Enum:
# "PENDING" | "IN_PROGRESS" | "COMPLETED" | "FAILED"), issue_log status
# (Enum: "OPEN" | "IN_PROGRESS" | "RESOLVED" | "FAILED_TO_RESOLVE").
spelled(s, known) := word if {
	is_string(s)
	word := upper(regex.replace(trim_space(s), `[\s-]+`, "_"))
	word in known
} else := s

# project_status is the ledger's project_status as the rules read it.
project_status := spelled(ledger.project_status, {stage | some [stage, _] in stages})

# issue_status is an issue's status as the rules read it.
issue_status(issue) := spelled(issue.status, issue_statuses)

# read_task is a task with its status read as the enum value it spells.
read_task(t) := object.union(t, {"status": spelled(t.status, task_statuses)}) if "status" in object.keys(t)

else := t

# tasks are the manifest's tasks that are objects: [index, id, task], the
# status read as the enum value it spells.
tasks := [[i, lib.str(lib.get(t, "id")), read_task(t)] | some i, t in lib.items(ledger.project_manifest.tasks); is_object(t)]

task_pointer(i, rest) := sprintf("/project_manifest/tasks/%d%s", [i, rest])

# first_task maps each task id to the first task that has it.
first_task := {id: t |
	some [_, id, _] in tasks
	id != ""
	t := [x | some x in tasks; x[1] == id][0]
}

# METADATA
# title: Duplicate task id
# description: >-
#   Two tasks of project_manifest.tasks share an id, so dependencies and issues cannot
#   tell them apart. stigmergy-state-schema.md, Root Object, project_manifest.tasks: "`id`
#   (String): A unique ID for the task".
# custom:
#   id: h3a.traceability.stigmergy_duplicate_task
#   category: traceability
#   severity: error
#   remediation: give each task its own id, as the blueprint does
deny contains f if {
	some [i, id, _] in tasks
	[first, _, _] := first_task[id]
	first != i
	f := lib.finding(rego.metadata.rule(), judged({
		"msg": sprintf("task id %q is used twice (tasks[%d] and tasks[%d])", [id, first, i]),
		"file": ledger_file,
		"pointer": task_pointer(i, "/id"),
	}))
}

# METADATA
# title: Reference to an unknown task
# description: >-
#   A task's dependencies or an issue_log entry's task_id_ref names a task id that the
#   manifest does not hold. stigmergy-state-schema.md, Root Object: "`dependencies`
#   (Array of Strings): A list of task IDs that must be completed first", "`task_id_ref`
#   (String): The ID of the task that failed".
# custom:
#   id: h3a.traceability.stigmergy_unknown_task
#   category: traceability
#   severity: error
#   remediation: correct the id, or add the task to the blueprint and the manifest
deny contains f if {
	some item in unknown_tasks
	f := lib.finding(rego.metadata.rule(), judged(item))
}

unknown_tasks contains item if {
	some [i, id, t] in tasks
	some j, dep in lib.string_items(lib.get(t, "dependencies"))
	not first_task[dep]
	item := {
		"msg": sprintf("task %q depends on %q, which is not a task of the manifest", [id, dep]),
		"file": ledger_file,
		"pointer": task_pointer(i, sprintf("/dependencies/%d", [j])),
	}
}

unknown_tasks contains item if {
	known := {id | some [_, id, _] in tasks}
	some i, issue in lib.items(ledger.issue_log)
	ref := issue.task_id_ref
	is_string(ref)
	not ref in known
	item := {
		"msg": sprintf("issue %q references task %q, which is not a task of the manifest", [lib.str(lib.get(issue, "issue_id")), ref]),
		"file": ledger_file,
		"pointer": sprintf("/issue_log/%d/task_id_ref", [i]),
	}
}

# A task_id_ref that is not a string names no task of the manifest either; in a
# file not held to 3.0 no schema reports it.
unknown_tasks contains item if {
	not strict
	some i, issue in lib.items(ledger.issue_log)
	ref := issue.task_id_ref
	not is_string(ref)
	item := {
		"msg": sprintf("issue %q references task %s, not a task id as a string, so it names no task of the manifest", [lib.str(lib.get(issue, "issue_id")), lib.describe(ref)]),
		"file": ledger_file,
		"pointer": sprintf("/issue_log/%d/task_id_ref", [i]),
	}
}

# METADATA
# title: Task started before its dependencies
# description: >-
#   A task IN_PROGRESS or COMPLETED has a dependency that is not COMPLETED.
#   stigmergy-state-schema.md, Root Object: "`dependencies` (Array of Strings): A list of
#   task IDs that must be completed first".
# custom:
#   id: h3a.gates.stigmergy_dependency_incomplete
#   category: gates
#   severity: error
#   remediation: finish the dependency first, or correct the task's status
deny contains f if {
	some [i, id, t] in tasks
	status := t.status
	status in {"IN_PROGRESS", "COMPLETED"}
	some dep in lib.string_items(lib.get(t, "dependencies"))
	[_, _, dependency] := first_task[dep]
	not dependency.status == "COMPLETED"
	f := lib.finding(rego.metadata.rule(), judged({
		"msg": sprintf("task %q is %s but its dependency %q is %s; expected COMPLETED", [id, status, dep, lib.describe(lib.get(dependency, "status"))]),
		"file": ledger_file,
		"pointer": task_pointer(i, "/status"),
	}))
}

# METADATA
# title: Started task whose dependencies cannot be read
# description: >-
#   A task IN_PROGRESS or COMPLETED in a file not held to schema 3.0 has dependencies
#   that are not a list of task ids (a string, objects, numbers): whether the tasks it
#   depends on are COMPLETED cannot be read, and the dependency rule would pass it unseen.
#   As any finding that would fail a 3.0 file, it asks for a human (needs-human, exit 3);
#   in a 3.0 file the schema reports the type (h3a.schema.violation).
#   stigmergy-state-schema.md, Root Object, project_manifest.tasks: "`dependencies`
#   (Array of Strings): A list of task IDs that must be completed first".
# custom:
#   id: h3a.gates.stigmergy_dependencies_unread
#   category: gates
#   severity: warning
#   remediation: write dependencies as an array of task ids, as schema 3.0 does
warn contains f if {
	not strict
	some [i, id, t] in tasks
	status := t.status
	status in {"IN_PROGRESS", "COMPLETED"}
	deps := t.dependencies
	deps != null
	not id_list(deps)
	f := lib.finding(rego.metadata.rule(), judged({
		"msg": sprintf("task %q is %s but its dependencies are %s, not a list of task ids: whether they are COMPLETED cannot be read", [id, status, lib.describe(deps)]),
		"file": ledger_file,
		"pointer": task_pointer(i, "/dependencies"),
	}))
}

# id_list holds for an array of strings.
id_list(xs) if {
	is_array(xs)
	count(lib.string_items(xs)) == count(xs)
}

# METADATA
# title: Failed task without an issue
# description: >-
#   A task is FAILED but no issue_log entry references it. The spec sets no failure
#   limit and no rule for when an issue is logged, so this is drift a reviewer may want
#   to see, a warning. stigmergy-state-schema.md, Root Object: "`issue_log` (Array of
#   Objects): A log of persistent failures requiring a Responder", "`task_id_ref`
#   (String): The ID of the task that failed", "`failure_count` (Number): [...] the
#   number of consecutive failures".
# custom:
#   id: h3a.retries.stigmergy_failure_limit
#   category: retries
#   severity: warning
#   remediation: log an issue referencing the task for a Responder, or say in history why it needs none
warn contains f if {
	referenced := {issue.task_id_ref | some issue in lib.items(ledger.issue_log)}
	some [i, id, t] in tasks
	t.status == "FAILED"
	not id in referenced
	f := lib.finding(rego.metadata.rule(), labelled({
		"msg": sprintf("task %q is FAILED (failure_count %s) but no issue_log entry references it; issue_log holds the persistent failures a Responder takes", [id, lib.describe_field(t, "failure_count")]),
		"file": ledger_file,
		"pointer": task_pointer(i, "/status"),
	}))
}

# METADATA
# title: Dependency cycle
# description: >-
#   The task dependencies form a cycle, so none of the tasks on it can ever start.
#   stigmergy-state-schema.md, Root Object: "`dependencies` (Array of Strings): A list of
#   task IDs that must be completed first".
# custom:
#   id: h3a.gates.stigmergy_dependency_cycle
#   category: gates
#   severity: error
#   remediation: break the cycle in the blueprint and re-derive the manifest
deny contains f if {
	ledger
	some cycle in input.docs.dependency_cycles
	[first, _, _] := first_task[cycle[0]]
	f := lib.finding(rego.metadata.rule(), judged({
		"msg": sprintf("dependency cycle: %s", [concat(" → ", array.concat(cycle, [cycle[0]]))]),
		"file": ledger_file,
		"pointer": task_pointer(first, "/dependencies"),
	}))
}

# METADATA
# title: Project status disagrees with its tasks
# description: >-
#   project_status is PROJECT_COMPLETE exactly when every manifest task is COMPLETED.
#   stigmergy-state-schema.md, Root Object, project_status: "`PROJECT_COMPLETE`: All
#   manifest tasks are complete".
# custom:
#   id: h3a.gates.stigmergy_project_complete
#   category: gates
#   severity: error
#   remediation: >-
#     set project_status from the tasks: PROJECT_COMPLETE only once all of them are
#     COMPLETED
deny contains f if {
	some item in completion_problems
	f := lib.finding(rego.metadata.rule(), judged(item))
}

not_completed := [id | some [_, id, t] in tasks; not t.status == "COMPLETED"]

completion_problems contains item if {
	count(tasks) > 0
	project_status == "PROJECT_COMPLETE"
	count(not_completed) > 0
	item := {
		"msg": sprintf("project_status is PROJECT_COMPLETE but %d task(s) are not COMPLETED: %s", [count(not_completed), concat(", ", not_completed)]),
		"file": ledger_file,
		"pointer": "/project_status",
	}
}

completion_problems contains item if {
	count(tasks) > 0
	count(not_completed) == 0
	status := project_status
	status in {"READY_FOR_EXECUTION", "EXECUTION_IN_PROGRESS", "EXECUTION_HALTED"}
	item := {
		"msg": sprintf("every task is COMPLETED but project_status is %q; expected \"PROJECT_COMPLETE\"", [status]),
		"file": ledger_file,
		"pointer": "/project_status",
	}
}
