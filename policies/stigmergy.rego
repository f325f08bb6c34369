# METADATA
# title: Stigmergy ledger
# description: >-
#   Runs of the stigmergy layout (stigmergy-state-schema.md): the ledger .ai/state.json
#   (or the engine's .stigmergy/state/current.json) against itself, its blueprint and
#   its stage documents. Only a file declaring schema_version "3.0" is held to the
#   schema (docs.strict); any other shape is checked for what it shares with 3.0, and
#   every finding about it is a warning that names the version (docs.version). Which
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

strict if input.docs.strict == true

# judged is an element as the ledger's shape has it judged: as written for
# a schema 3.0 file, else a warning that names the shape recognised.
judged(item) := item if strict

else := object.union(item, {"severity": "warning", "msg": sprintf("%s: %s", [input.docs.version, item.msg])})

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

# tasks are the manifest's tasks that are objects: [index, id, task].
tasks := [[i, lib.str(lib.get(t, "id")), t] | some i, t in lib.items(ledger.project_manifest.tasks); is_object(t)]

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

strings(xs) := [x | some x in lib.items(xs); is_string(x)]

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
	some j, dep in strings(lib.get(t, "dependencies"))
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
	some dep in strings(lib.get(t, "dependencies"))
	[_, _, dependency] := first_task[dep]
	not dependency.status == "COMPLETED"
	f := lib.finding(rego.metadata.rule(), judged({
		"msg": sprintf("task %q is %s but its dependency %q is %s; expected COMPLETED", [id, status, dep, lib.describe(lib.get(dependency, "status"))]),
		"file": ledger_file,
		"pointer": task_pointer(i, "/status"),
	}))
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
	ledger.project_status == "PROJECT_COMPLETE"
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
	status := ledger.project_status
	status in {"READY_FOR_EXECUTION", "EXECUTION_IN_PROGRESS", "EXECUTION_HALTED"}
	item := {
		"msg": sprintf("every task is COMPLETED but project_status is %q; expected \"PROJECT_COMPLETE\"", [status]),
		"file": ledger_file,
		"pointer": "/project_status",
	}
}

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
	status := ledger.project_status
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
	status := ledger.project_status
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
	ledger.project_status == "EXECUTION_HALTED"
	f := lib.finding(rego.metadata.rule(), labelled({
		"msg": sprintf("project_status is \"EXECUTION_HALTED\" (a critical, unrecoverable error occurred; %s): a person must decide how to go on", [open_issues_text]),
		"file": ledger_file,
		"pointer": "/project_status",
		"needs_human": true,
	}))
}

open_issues := [lib.str(lib.get(issue, "issue_id")) |
	some issue in lib.items(ledger.issue_log)
	issue.status in {"OPEN", "IN_PROGRESS", "FAILED_TO_RESOLVE"}
]

open_issues_text := "no open issue in issue_log" if count(open_issues) == 0

else := sprintf("unresolved issues: %s", [concat(", ", open_issues)])

# blueprint_tasks lists [id, pointer] of each task of execution-blueprint.yml
# that has an id: a "tasks" list at the top, or a list at the top.
blueprint_tasks := [[t.id, sprintf("/%d/id", [i])] | some i, t in input.docs.blueprint; lib.str(lib.get(t, "id")) != ""] if is_array(input.docs.blueprint)

else := [[t.id, sprintf("/tasks/%d/id", [i])] | some i, t in input.docs.blueprint.tasks; lib.str(lib.get(t, "id")) != ""] if is_array(input.docs.blueprint.tasks)

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

# --- time ---------------------------------------------------------------------

# timestamp_parts reads a timestamp as the ledger may write it (ISO 8601:
# seconds and fraction optional, Z or an offset with or without its colon)
# into its numbers; undefined for any other text.
timestamp_parts(s) := [to_number(y), to_number(mo), to_number(d), to_number(h), to_number(mi), seconds, fraction, zone] if {
	is_string(s)
	[[_, y, mo, d, h, mi, sec, fraction, sign, oh, om]] := regex.find_all_string_submatch_n(`^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d+))?)?(?:Z|([+-])(\d{2}):?(\d{2}))$`, s, 1)
	seconds := to_number(concat("", ["0", sec]))
	zone := offset(sign, oh, om)
}

offset("", _, _) := [0, 0, 0]

offset(sign, h, m) := [{"+": 1, "-": -1}[sign], to_number(h), to_number(m)] if sign != ""

# instant gives the instant of a timestamp in nanoseconds from an epoch of
# its own, or is undefined when the timestamp names no real date and time
# (a 30 February, hour 24; an offset up to 24:60 is accepted, as Go reads
# RFC 3339).
instant(parts) := ((((((days_from_civil(y, mo, d) * 86400) + (h * 3600)) + (mi * 60)) + s) - (sign * ((oh * 3600) + (om * 60)))) * 1000000000) + nanoseconds(fraction) if {
	[y, mo, d, h, mi, s, fraction, [sign, oh, om]] := parts
	mo >= 1
	mo <= 12
	d >= 1
	lib.day_exists(y, mo, d)
	h <= 23
	mi <= 59
	s <= 59
	oh <= 24
	om <= 60
}

nanoseconds(fraction) := to_number(concat("", ["0", substring(concat("", [fraction, "000000000"]), 0, 9)]))

# days_from_civil counts days from 1970-01-01 (H. Hinnant's algorithm).
days_from_civil(y, m, d) := ((era * 146097) + doe) - 719468 if {
	year := y - to_number(m <= 2)
	era := floor(year / 400)
	yoe := year - (era * 400)
	mp := (m + 9) % 12
	doy := (floor(((153 * mp) + 2) / 5) + d) - 1
	doe := (((yoe * 365) + floor(yoe / 4)) - floor(yoe / 100)) + doy
}

# written_as gives a timestamp as Go writes it in RFC 3339: seconds always,
# the fraction without trailing zeros, Z for a zero offset.
written_as(parts) := concat("", [
	sprintf("%04d-%02d-%02dT%02d:%02d:%02d", [y, mo, d, h, mi, s]),
	fraction_text(fraction),
	zone_text(zone),
]) if {
	[y, mo, d, h, mi, s, fraction, zone] := parts
}

fraction_text(fraction) := "" if trim_right(substring(fraction, 0, 9), "0") == ""

else := concat("", [".", trim_right(substring(fraction, 0, 9), "0")])

# zone_text writes an offset as Go does, from its minutes: +00:60 is +01:00.
zone_text([sign, h, m]) := "Z" if h + m == 0

else := sprintf("%s%02d:%02d", [{1: "+", -1: "-"}[sign], floor(((h * 60) + m) / 60), ((h * 60) + m) % 60])

# METADATA
# title: Timestamp not ISO 8601
# description: >-
#   A history or issue_log timestamp is not an ISO 8601 date and time (e.g.
#   2025-09-01T10:00:00Z). stigmergy-state-schema.md, Root Object, history and issue_log:
#   "`timestamp` (String): ISO 8601 timestamp".
# custom:
#   id: h3a.schema.stigmergy_timestamp
#   category: schema
#   severity: error
#   remediation: write the time as YYYY-MM-DDTHH:MM:SS with Z or an offset
deny contains f if {
	some item in timestamp_problems
	f := lib.finding(rego.metadata.rule(), judged(item))
}

# stamped lists [list, index, timestamp as written] of every entry of
# history and issue_log that has a timestamp.
stamped contains [list, i, entry.timestamp] if {
	some list in ["history", "issue_log"]
	some i, entry in lib.items(ledger[list])
	is_object(entry)
	"timestamp" in object.keys(entry)
}

timestamp_problems contains item if {
	some [list, i, raw] in stamped
	not timestamp_parts(raw)
	item := {
		"msg": sprintf("%s[%d].timestamp %s is not an ISO 8601 date and time", [list, i, lib.describe(raw)]),
		"file": ledger_file,
		"pointer": sprintf("/%s/%d/timestamp", [list, i]),
	}
}

timestamp_problems contains item if {
	some [list, i, raw] in stamped
	not instant(timestamp_parts(raw))
	timestamp_parts(raw)
	item := {
		"msg": sprintf("%s[%d].timestamp %q is not a real date and time", [list, i, raw]),
		"file": ledger_file,
		"pointer": sprintf("/%s/%d/timestamp", [list, i]),
	}
}

# timed lists [index, instant, parts, as written] of the history entries
# whose timestamp is a real date and time, in order.
timed := [[i, t, parts, raw] |
	some i, entry in lib.items(ledger.history)
	raw := entry.timestamp
	parts := timestamp_parts(raw)
	t := instant(parts)
]

# METADATA
# title: History out of time order
# description: >-
#   A history entry is older than the one before it. Clocks and hand edits make this
#   common, so it is a warning; the order of the ledger is its order in the file.
#   stigmergy-state-schema.md, Root Object: "`history` (Array of Objects): The immutable
#   ledger of all system actions. This is append-only."
# custom:
#   id: h3a.schema.stigmergy_time_order
#   category: schema
#   severity: warning
#   remediation: append entries as they happen; do not insert or re-time old ones
warn contains f if {
	some k, [i, t, _, raw] in timed
	k > 0
	[before, earlier, parts, _] := timed[k - 1]
	t < earlier
	f := lib.finding(rego.metadata.rule(), labelled({
		"msg": sprintf("history[%d] (%s) is older than history[%d] (%s)", [i, raw, before, written_as(parts)]),
		"file": ledger_file,
		"pointer": sprintf("/history/%d/timestamp", [i]),
	}))
}

# --- other shapes -------------------------------------------------------------

root_keys := ["schema_version", "project_name", "goal", "project_status", "project_manifest", "history", "issue_log"]

task_keys := ["id", "summary", "agent", "status", "dependencies", "failure_count"]

history_keys := ["timestamp", "agent_id", "signal", "summary"]

# lacking lists the keys of keys that some of entries lack, in the order
# the entries first lack them (an entry that is no object lacks them all).
lacking(entries, keys) := [key |
	some [_, _, key] in sort([[first, k, key] |
		some k, key in keys
		first := min({i | some i, e in entries; not key in object.keys(as_object(e))})
	])
]

as_object(x) := x if is_object(x)

else := {}

# METADATA
# title: State differs from schema 3.0
# description: >-
#   The state file declares another schema_version (or none, or is the engine's
#   current.json): it is checked for what it shares with schema 3.0, and the differences
#   are reported as warnings naming the version. stigmergy-state-schema.md: "This
#   document defines the official schema for the `.ai/state.json` file", "`schema_version`
#   (String): The version of this schema.".
# custom:
#   id: h3a.schema.stigmergy_drift
#   category: schema
#   severity: warning
#   remediation: migrate the file to schema 3.0, or ignore the warning if the engine of that version wrote it
warn contains f if {
	ledger
	not strict
	some item in drift
	f := lib.finding(rego.metadata.rule(), {
		"msg": sprintf("%s: %s", [input.docs.version, item.msg]),
		"file": ledger_file,
		"pointer": item.pointer,
	})
}

drift contains {"msg": sprintf("lacks %s of schema 3.0", [concat(", ", missing)]), "pointer": ""} if {
	missing := [k | some k in root_keys; not k in object.keys(ledger)]
	count(missing) > 0
}

drift contains {"msg": sprintf("has keys schema 3.0 does not define: %s", [concat(", ", extra)]), "pointer": ""} if {
	extra := sort([k | some k in object.keys(ledger); not k in root_keys])
	count(extra) > 0
}

drift contains {"msg": sprintf("goal is %s, expected the user's goal as a string", [lib.describe(goal)]), "pointer": "/goal"} if {
	goal := ledger.goal
	not is_string(goal)
}

drift contains {"msg": sprintf("project_status %s is not a 3.0 status", [lib.describe(status)]), "pointer": "/project_status"} if {
	status := ledger.project_status
	not lib.str(status) in {stage | some [stage, _] in stages}
}

drift contains {"msg": sprintf("tasks lack %s", [concat(", ", missing)]), "pointer": "/project_manifest/tasks"} if {
	missing := lacking(lib.items(ledger.project_manifest.tasks), task_keys)
	count(missing) > 0
}

drift contains {"msg": sprintf("task statuses outside PENDING, IN_PROGRESS, COMPLETED, FAILED: %s", [concat(", ", odd)]), "pointer": "/project_manifest/tasks"} if {
	odd := [sprintf("%s (%s)", [lib.str(lib.get(t, "id")), lib.describe(t.status)]) |
		some t in lib.items(ledger.project_manifest.tasks)
		"status" in object.keys(as_object(t))
		not lib.str(t.status) in task_statuses
	]
	count(odd) > 0
}

drift contains {"msg": sprintf("history entries lack %s", [concat(", ", missing)]), "pointer": "/history"} if {
	missing := lacking(lib.items(ledger.history), history_keys)
	count(missing) > 0
}
