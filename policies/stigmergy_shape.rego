# Other shapes: a state that differs from schema 3.0.
# (The package and its metadata: stigmergy.rego.)
package h3a.rules.stigmergy

import data.h3a.lib

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
#   are reported as warnings naming the version. A status spelled in another case or
#   spacing ("failed", "Completed", "in progress") is read by the other rules as the
#   enum value it spells; any other word is kept as written. stigmergy-state-schema.md,
#   Root Object: "`project_status` (Enum)", tasks "`status` (Enum: "PENDING" |
#   "IN_PROGRESS" | "COMPLETED" | "FAILED")", issue_log "`status` (Enum: "OPEN" |
#   "IN_PROGRESS" | "RESOLVED" | "FAILED_TO_RESOLVE")"; "This
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

# METADATA
# title: Root key schema 3.0 does not define
# description: >-
#   A schema 3.0 state file holds a root key the schema does not list. The schema names
#   the root object's keys one by one, and the file is "the sole source of truth for
#   project state", so what an unknown key says is read by no rule: a warning. A key
#   whose name speaks of a status (status, state, phase, stage: "status" beside
#   project_status) is a second status of the project that no rule reads, and a reader
#   cannot tell which of the two holds, so a person decides (needs-human).
#   stigmergy-state-schema.md: "This document defines the official schema for the
#   `.ai/state.json` file", "All agents MUST read from and write to this file in
#   accordance with this schema"; Root Object: schema_version, project_name, goal,
#   project_status, project_manifest, history, issue_log.
# custom:
#   id: h3a.schema.stigmergy_unknown_key
#   category: schema
#   severity: warning
#   remediation: >-
#     remove the key, or move what it says where schema 3.0 keeps it (the project's
#     status in project_status, a task's in its project_manifest task)
warn contains f if {
	ledger
	strict
	some k in object.keys(ledger)
	not k in root_keys
	f := lib.finding(rego.metadata.rule(), object.union(
		{
			"msg": sprintf("root key %q is not in schema 3.0 (which defines %s), so no rule reads what it says%s", [k, concat(", ", root_keys), status_key_why(k)]),
			"file": ledger_file,
			"pointer": lib.pointer([k]),
		},
		status_key_human(k),
	))
}

# status_words are what a root key's name holds when it carries a status of
# the project beside project_status.
status_words := ["status", "state", "phase", "stage"]

status_key(k) if {
	some w in status_words
	contains(lower(k), w)
}

status_key_why(k) := sprintf(": it names a status beside project_status %s, and which of them holds cannot be told, so a person decides", [lib.describe(ledger.project_status)]) if status_key(k)

else := ""

status_key_human(k) := {"needs_human": true} if status_key(k)

else := {}
