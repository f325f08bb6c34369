# The stages: their documents, execution, a halted project, the blueprint against the manifest.
# (The package and its metadata: stigmergy.rego.)
package h3a.rules.stigmergy

import data.h3a.lib

# METADATA
# title: Stage passed without its document
# description: >-
#   A project_status past a NEEDS_X stage requires that stage's document: docs/brief.md,
#   docs/prd.md, docs/architecture.md, execution-blueprint.yml. stigmergy-state-schema.md,
#   Root Object, project_status: "`NEEDS_BRIEFING`: Awaiting creation of
#   `docs/brief.md`" (and so on to "`NEEDS_BLUEPRINT`: Awaiting creation of
#   `execution-blueprint.yml`").
# custom:
#   id: h3a.evidence.stigmergy_missing_document
#   category: evidence
#   severity: error
#   remediation: write the missing document, or set project_status back to the stage that produces it
deny contains f if {
	status := project_status
	some at, reached in stages
	reached[0] == status
	some i, [stage, document] in stages
	i < at
	document != ""
	not input.docs.documents[document]
	f := lib.finding(rego.metadata.rule(), judged({
		"msg": sprintf("project_status %q is past %s but %s does not exist", [status, stage, document]),
		"file": ledger_file,
		"pointer": "/project_status",
	}))
}

# before_execution holds for a project_status of a stage before
# READY_FOR_EXECUTION: the spec's NEEDS_X stages, and in a file not held to
# 3.0 any NEEDS_ status (3.1 writes NEEDS_INITIALIZATION).
before_execution(status) if status in {stage | some [stage, document] in stages; document != ""}

before_execution(status) if {
	not strict
	startswith(status, "NEEDS_")
}

# METADATA
# title: Task started before execution
# description: >-
#   project_status is a stage before READY_FOR_EXECUTION (a NEEDS_X stage) but a task is
#   IN_PROGRESS, COMPLETED or FAILED: the swarm built before its blueprint was complete.
#   stigmergy-state-schema.md, Root Object, project_status: "`READY_FOR_EXECUTION`:
#   Blueprint is complete, swarm can begin building", "`EXECUTION_IN_PROGRESS`: Actively
#   working on blueprint tasks".
# custom:
#   id: h3a.gates.stigmergy_started_early
#   category: gates
#   severity: error
#   remediation: >-
#     set project_status to the stage the project is really in, or put the task back to
#     PENDING until the blueprint is complete
deny contains f if {
	status := project_status
	is_string(status)
	before_execution(status)
	some [i, id, t] in tasks
	t.status in {"IN_PROGRESS", "COMPLETED", "FAILED"}
	f := lib.finding(rego.metadata.rule(), judged({
		"msg": sprintf("task %q is %s but project_status is %q; tasks start once the project is READY_FOR_EXECUTION", [id, t.status, status]),
		"file": ledger_file,
		"pointer": task_pointer(i, "/status"),
	}))
}

# METADATA
# title: Project halted, a person must decide
# description: >-
#   project_status is EXECUTION_HALTED: the swarm stopped on an unrecoverable error, so
#   the gate needs a human. stigmergy-state-schema.md, Root Object, project_status:
#   "`EXECUTION_HALTED`: A critical, unrecoverable error occurred".
# custom:
#   id: h3a.gates.stigmergy_halted
#   category: gates
#   severity: warning
#   remediation: >-
#     a person reads the issue_log and history, decides how to go on, logs the decision
#     in history and sets project_status accordingly
warn contains f if {
	project_status == "EXECUTION_HALTED"
	f := lib.finding(rego.metadata.rule(), labelled({
		"msg": sprintf("project_status is \"EXECUTION_HALTED\" (a critical, unrecoverable error occurred; %s): a person must decide how to go on", [open_issues_text]),
		"file": ledger_file,
		"pointer": "/project_status",
		"needs_human": true,
	}))
}

# METADATA
# title: State says resolved, its history does not
# description: >-
#   The history, the immutable ledger, says more than the state does: its last entry whose
#   signal says the project halted (EXECUTION_HALTED, HALTED), while project_status is
#   another stage; or an issue that issue_log says is RESOLVED is named last in history
#   (as a word of its own, in the signal or summary) by an entry whose signal says it was
#   not resolved or that something failed (ISSUE_UNRESOLVED, FAILED_TO_RESOLVE, REOPENED,
#   TASK_FAILED, ERROR): the resolution, a system action, then has no entry of its own in
#   the ledger of all of them, as for a task; or a task that the
#   manifest says is COMPLETED is named last in history by an entry whose signal says it
#   failed, was rejected or reopened (TASK_FAILED, ERROR, REJECTED, REOPENED). The state
#   then tells a story its own ledger does not, and a halt, an unresolved issue or a failed
#   task is lifted without a word of why; a person decides which holds.
#   stigmergy-state-schema.md, Root Object: "`history` (Array of Objects): The
#   **immutable ledger** of all system actions", "`EXECUTION_HALTED`: A critical,
#   unrecoverable error occurred", "`issue_log` ... A log of persistent failures requiring
#   a Responder", tasks "`status` (Enum: "PENDING" | "IN_PROGRESS" | "COMPLETED" |
#   "FAILED")".
# custom:
#   id: h3a.gates.stigmergy_state_behind_history
#   category: gates
#   severity: warning
#   remediation: >-
#     a person reads the history: if the halt, the issue or the task's failure still
#     stands, the state says so (EXECUTION_HALTED, the issue's or the task's status); if it
#     was resolved, history gets the entry that says how
warn contains f if {
	some item in behind_history
	f := lib.finding(rego.metadata.rule(), labelled(object.union(item, {"file": ledger_file, "needs_human": true})))
}

behind_history contains item if {
	is_string(project_status)
	project_status != "EXECUTION_HALTED"
	halts := [i | some i, entry in history_entries; contains(entry.signal, "HALT")]
	count(halts) > 0
	i := max(halts)
	item := {
		"msg": sprintf("history entry %d (%s) says the project halted, but project_status is %q: a halt is lifted by a person's decision, which the state does not show; a person must decide whether the project goes on", [i, history_entries[i].raw_signal, project_status]),
		"pointer": sprintf("/history/%d/signal", [i]),
	}
}

behind_history contains item if {
	some k, issue in lib.items(ledger.issue_log)
	issue_status(issue) == "RESOLVED"
	id := lib.get(issue, "issue_id")
	lib.filled(id)
	naming := [i | some i, entry in history_entries; id in entry.words]
	count(naming) > 0
	i := max(naming)
	regex.match(`UNRESOLVED|FAILED_TO_RESOLVE|NOT_RESOLVED|REOPEN|FAIL|ERROR`, history_entries[i].signal)
	item := {
		"msg": sprintf("issue %q is RESOLVED in issue_log, but history entry %d (%s), the last to name it, says it was not resolved: a person must decide whether it is", [id, i, history_entries[i].raw_signal]),
		"pointer": sprintf("/issue_log/%d/status", [k]),
	}
}

# A task the manifest calls COMPLETED whose last word in history is a failure:
# the completion has no entry of its own, so the ledger does not show it.
behind_history contains item if {
	some [i, id, t] in tasks
	t.status == "COMPLETED"
	id != ""
	naming := [k | some k, entry in history_entries; id in entry.words]
	count(naming) > 0
	k := max(naming)
	regex.match(`FAIL|ERROR|REJECT|REOPEN`, history_entries[k].signal)
	item := {
		"msg": sprintf("task %q is COMPLETED in the manifest, but history entry %d (%s), the last to name it, says it did not complete: a person must decide whether it did", [id, k, history_entries[k].raw_signal]),
		"pointer": task_pointer(i, "/status"),
	}
}

# history_entries reads each history entry's signal in upper case with "_"
# for spacing, and the words of its signal and summary.
history_entries := {i: {"signal": signal, "raw_signal": lib.describe(raw), "words": words} |
	some i, entry in lib.items(ledger.history)
	is_object(entry)
	raw := lib.get(entry, "signal")
	signal := regex.replace(upper(trim_space(lib.str(raw))), `[\s-]+`, "_")
	text := concat(" ", [lib.str(raw), lib.str(lib.get(entry, "summary"))])
	words := {w | some w in regex.split(`[^A-Za-z0-9_.-]+`, text); w != ""} | {trim_right(w, ".") | some w in regex.split(`[^A-Za-z0-9_.-]+`, text)}
}

# METADATA
# title: Project complete over an unresolved issue
# description: >-
#   project_status is PROJECT_COMPLETE while issue_log holds an issue that is not RESOLVED
#   (OPEN, IN_PROGRESS, FAILED_TO_RESOLVE, or, in a file not held to schema 3.0, a status
#   of no enum, such as REOPENED, or none): a persistent failure still awaits a Responder,
#   or one could not resolve it, yet the project says it is done. The schema ties
#   PROJECT_COMPLETE to the tasks only, so this is a warning; it asks for a human, since
#   the ledger contradicts its own completion. stigmergy-state-schema.md, Root Object:
#   "`PROJECT_COMPLETE`: All manifest tasks are complete", "`issue_log` (Array of
#   Objects): A log of persistent failures requiring a Responder", "`status` (Enum:
#   "OPEN" | "IN_PROGRESS" | "RESOLVED" | "FAILED_TO_RESOLVE")".
# custom:
#   id: h3a.gates.stigmergy_complete_with_open_issue
#   category: gates
#   severity: warning
#   remediation: >-
#     a Responder resolves the issue (status RESOLVED) and says so in history, or
#     project_status goes back to the stage the project is in
warn contains f if {
	project_status == "PROJECT_COMPLETE"
	some i, issue in lib.items(ledger.issue_log)
	not resolved(issue)
	f := lib.finding(rego.metadata.rule(), labelled({
		"msg": sprintf("project_status is \"PROJECT_COMPLETE\" but issue %q (task %s) is %s: a person must decide whether the project is done", [lib.str(lib.get(issue, "issue_id")), lib.describe_field(issue, "task_id_ref"), issue_status_text(issue)]),
		"file": ledger_file,
		"pointer": sprintf("/issue_log/%d/status", [i]),
		"needs_human": true,
	}))
}

resolved(issue) if issue_status(issue) == "RESOLVED"

# issue_status_text is an issue's status for a message: the enum value it
# spells, else as written (or missing).
issue_status_text(issue) := issue_status(issue) if issue_status(issue) in issue_statuses

else := lib.describe_field(issue, "status")

open_issues := [lib.str(lib.get(issue, "issue_id")) |
	some issue in lib.items(ledger.issue_log)
	issue_status(issue) in unresolved_statuses
]

# unresolved_statuses are the issue statuses of an issue not yet resolved.
unresolved_statuses := {"OPEN", "IN_PROGRESS", "FAILED_TO_RESOLVE"}

open_issues_text := "no open issue in issue_log" if count(open_issues) == 0

else := sprintf("unresolved issues: %s", [concat(", ", open_issues)])

# blueprint_list lists [index, task, pointer] of each entry of the task list of
# execution-blueprint.yml: a "tasks" list at the top, or a list at the top.
blueprint_list := [[i, t, sprintf("/%d", [i])] | some i, t in input.docs.blueprint] if is_array(input.docs.blueprint)

else := [[i, t, sprintf("/tasks/%d", [i])] | some i, t in input.docs.blueprint.tasks] if is_array(input.docs.blueprint.tasks)

# blueprint_tasks lists [id, pointer] of each task of the blueprint's list that
# has an id (a string that is not empty).
blueprint_tasks := [[t.id, sprintf("%s/id", [p])] | some [_, t, p] in blueprint_list; lib.str(lib.get(t, "id")) != ""] if is_array(blueprint_list)

# METADATA
# title: Blueprint and manifest disagree
# description: >-
#   The manifest is derived from execution-blueprint.yml: both must hold the same task
#   ids. stigmergy-state-schema.md, Root Object: "`project_manifest` (Object): The master
#   plan derived from the blueprint".
# custom:
#   id: h3a.traceability.stigmergy_blueprint_mismatch
#   category: traceability
#   severity: error
#   remediation: re-derive the manifest from the blueprint, or add the task to the blueprint
deny contains f if {
	some item in blueprint_mismatches
	f := lib.finding(rego.metadata.rule(), judged(item))
}

blueprint_mismatches contains item if {
	ledger
	blueprint_tasks
	in_manifest := {id | some [_, id, _] in tasks}
	some [id, pointer] in blueprint_tasks
	not id in in_manifest
	item := {
		"msg": sprintf("blueprint task %q is not in the manifest of %s", [id, ledger_file]),
		"file": blueprint_path,
		"pointer": pointer,
	}
}

# A task of the blueprint without an id as a string (id: 4, id: 0x04, id: [a],
# no id at all) is matched with no task of the manifest: a task the manifest
# lacks would go unnoticed. stigmergy-state-schema.md: "`id` (String): A unique
# ID for the task".
blueprint_mismatches contains item if {
	ledger
	some [i, t, p] in blueprint_list
	lib.str(lib.get(t, "id")) == ""
	item := {
		"msg": sprintf("blueprint task %d has no id as a string (id: %s), so it is not compared with the manifest of %s", [i, lib.describe_field(t, "id"), ledger_file]),
		"file": blueprint_path,
		"pointer": blueprint_id_pointer(t, p),
	}
}

# Likewise a task of the manifest without an id as a string, in a file not held
# to schema 3.0 (in a 3.0 file the schema reports it).
blueprint_mismatches contains item if {
	not strict
	blueprint_tasks
	some i, t in lib.items(ledger.project_manifest.tasks)
	lib.str(lib.get(t, "id")) == ""
	item := {
		"msg": sprintf("manifest task %d has no id as a string (id: %s), so it is not compared with %s", [i, lib.describe_field(t, "id"), blueprint_path]),
		"file": ledger_file,
		"pointer": blueprint_id_pointer(t, task_pointer(i, "")),
	}
}

blueprint_id_pointer(t, p) := sprintf("%s/id", [p]) if {
	is_object(t)
	"id" in object.keys(t)
} else := p

blueprint_mismatches contains item if {
	blueprint_tasks
	in_blueprint := {id | some [id, _] in blueprint_tasks}
	some [i, id, _] in tasks
	id != ""
	not id in in_blueprint
	item := {
		"msg": sprintf("manifest task %q is not in %s", [id, blueprint_path]),
		"file": ledger_file,
		"pointer": task_pointer(i, "/id"),
	}
}

# METADATA
# title: Blueprint without a task list
# description: >-
#   execution-blueprint.yml holds no list of tasks (a list at its top, or one under
#   tasks:), so whether the manifest was derived from it cannot be checked. The
#   specification does not say how a blueprint lists its tasks, so this is a warning; it
#   asks for a human, since the blueprint is what the manifest answers to and a run must
#   not pass that check by leaving it unreadable. stigmergy-state-schema.md, Root Object:
#   "`project_manifest` (Object): The master plan derived from the blueprint".
# custom:
#   id: h3a.traceability.stigmergy_blueprint_unread
#   category: traceability
#   severity: warning
#   remediation: >-
#     list the blueprint's tasks with their ids under tasks: (or as the top-level list),
#     as the manifest's tasks are derived from them; or have a person compare the two
warn contains f if {
	ledger
	input.files[blueprint_path].present
	bp := input.docs.blueprint
	bp != null
	not blueprint_tasks
	f := lib.finding(rego.metadata.rule(), labelled({
		"msg": sprintf("%s holds no task list (a list at its top, or one under tasks:), so the manifest of %s is not compared with it: a person must", [blueprint_path, ledger_file]),
		"file": blueprint_path,
		"needs_human": true,
	}))
}
