# The log: its records, ids and counters.
# (The package and its metadata: hybrid_os.rego.)
package h3a.rules.hybrid_os

import data.h3a.lib

units := lib.items(input.docs.units) if v14

# records are the log's records in order, unit by unit, each with its unit,
# index and line.
records := [{"unit": u.path, "i": i, "line": u.lines[i], "record": r} |
	some u in units
	some i, r in lib.items(object.get(input.docs.logs, u.path, []))
]

# numbered are the records with a whole-number id, in order.
numbered := [{"at": r, "id": id} | some r in records; id := lib.int64(r.record.id)]

unit_size(u) := count(lib.items(object.get(input.docs.logs, u.path, [])))

# METADATA
# title: Event counter out of step with the log
# description: >-
#   Log ids must strictly increase across all units, and state.json g must equal the id
#   of the last log entry (the startup sequence syncs g from it). hybrid-ai-os-v1.4.md,
#   state.json: "g | Global monotonic event counter"; Logging: "`id` (global event)";
#   Startup Sequence: "Sync global event counter from last log entry".
# custom:
#   id: h3a.integrity.hybrid_log_counter
#   category: integrity
#   severity: error
#   remediation: find the lost or duplicated log entry; set g from the last log entry
deny contains f if {
	some item in counter_problems
	f := lib.finding(rego.metadata.rule(), item)
}

counter_problems contains item if {
	some j, x in numbered
	j > 0
	before := numbered[j - 1]
	x.id <= before.id
	item := {
		"msg": sprintf("log id %d does not increase: the entry before it (%s line %d) has id %d", [x.id, before.at.unit, before.at.line, before.id]),
		"file": x.at.unit,
		"pointer": sprintf("/%d/id", [x.at.i]),
	}
}

counter_problems contains item if {
	count(units) > 0
	g := lib.int64(state.g)
	count(numbered) > 0
	last := numbered[count(numbered) - 1]
	g != last.id
	item := {
		"msg": sprintf("g is %d but the last log entry (%s line %d) has id %d; g must equal it", [g, last.at.unit, last.at.line, last.id]),
		"file": "state.json",
		"pointer": "/g",
	}
}

# METADATA
# title: Log rollover inconsistent
# description: >-
#   state.json ln must equal the number of entries in the newest log unit and be below
#   max, and every earlier (full) unit must hold exactly max entries.
#   hybrid-ai-os-v1.4.md, state.json: "ln | Entries in current log file", "max |
#   Log-rollover threshold"; Logging: "Rollover triggered when `ln ≥ max`; new file
#   created, counter reset".
# custom:
#   id: h3a.integrity.hybrid_log_rollover
#   category: integrity
#   severity: error
#   remediation: >-
#     find the unit that lost or gained lines; restore it from version control and set ln
#     to the newest unit's line count
deny contains f if {
	some item in rollover_problems
	f := lib.finding(rego.metadata.rule(), item)
}

rollover_problems contains item if {
	count(units) > 0
	ln := lib.int64(state.ln)
	newest := units[count(units) - 1]
	unit_size(newest) != ln
	item := {
		"msg": sprintf("ln is %d but the newest log unit %s has %d entries", [ln, newest.path, unit_size(newest)]),
		"file": "state.json",
		"pointer": "/ln",
	}
}

rollover_problems contains item if {
	count(units) > 0
	ln := lib.int64(state.ln)
	most := lib.int64(state.max)
	ln >= most
	item := {
		"msg": sprintf("ln %d is not below max %d; the log should have rolled over to a new unit", [ln, most]),
		"file": "state.json",
		"pointer": "/ln",
	}
}

rollover_problems contains item if {
	most := lib.int64(state.max)
	some k, u in units
	k < count(units) - 1
	unit_size(u) != most
	item := {
		"msg": sprintf("full log unit %s has %d entries; a unit rolls over at exactly max %d", [u.path, unit_size(u), most]),
		"file": u.path,
	}
}

# METADATA
# title: Error snippet that the log never recorded
# description: >-
#   state.json err holds an error snippet while st is READY or BUSY and no log entry has
#   level E: an error happened (the state keeps its snippet), but it was never logged as
#   one, so the ERROR state a logging call with level E sets was never entered and nothing
#   shows the error was resolved. A person decides whether it was (needs-human). An error
#   that was logged is h3a.gates.hybrid_error_cleared's; a stopped state is
#   h3a.gates.hybrid_stopped's. The snippet is read under the later generation's name too:
#   last_error, in state.json (a key its schema leaves open) and in a vX.2 state.txt, whose
#   st is read as the status it spells and whose log the checker does not read, so nothing
#   there shows the error was resolved either. So is a snippet (err, last_error) that a
#   task its plan file marks done keeps (st, or the later generation's status: DONE,
#   COMPLETE, COMPLETED or COMPLETED_SUCCESS, in any case and spacing): the plan holds
#   "per-task state", and a task done on an error nobody logged is the same unrecorded
#   error. hybrid-ai-os-v1.4.md, state.json: "err |
#   str? | Last error snippet"; Error States: "ERROR | Logging call with level `E`",
#   "Recovery requires manual or programmed conflict resolution followed by state
#   clearance".
# custom:
#   id: h3a.gates.hybrid_err_snippet_unlogged
#   category: gates
#   severity: warning
#   remediation: >-
#     a person confirms the error was resolved, logs it (level E) and its recovery, and
#     clears err (last_error); if it was not resolved, set st to ERROR until it is
warn contains f if {
	some [file, key, snippet, st, why] in error_snippets
	st in {"READY", "BUSY"}
	lib.filled(snippet)
	count(error_entries) == 0
	f := lib.finding(rego.metadata.rule(), object.union(current_task, {
		"msg": sprintf("%s holds %q but st is %q%s", [key, snippet, st, why]),
		"file": file,
		"pointer": concat("", ["/", key]),
		"needs_human": true,
	}))
}

# error_snippets are [file, key, snippet, st as read, the rest of the message] of
# each error snippet the state keeps: err, the spec's name, and last_error,
# the vX.2 generation's.
error_snippets contains ["state.json", key, state[key], state.st, " and no log entry has level \"E\": the error was never logged, so nothing shows it was resolved; a person must confirm it was"] if {
	some key in ["err", "last_error"]
}

error_snippets contains ["state.txt", key, x2_state[key], x2_status(x2_state.st), " (vX.2): nothing in the state shows the error was logged or resolved; a person must confirm it was"] if {
	some key in ["last_error", "err"]
}

# A task its plan file marks done while it keeps an error snippet of its
# own: the task ended on an error that the log never recorded.
error_snippets contains [path, sprintf("tasks/%d/%s", [i, key]), t[key], state.st, why] if {
	some path, plan in plan_files
	some i, t in lib.items(plan.tasks)
	[skey, status] := done_status(t)
	some key in ["err", "last_error"]
	why := sprintf(" in state.json, task %s is %s %q in %s and no log entry has level \"E\": the error was never logged, so nothing shows it was resolved; a person must confirm it was", [lib.describe_field(t, "id"), skey, status, path])
}

# done_status is [key, value] of a plan task's status that says the task is
# done: st, the spec's "per-task state", or status, the later generation's
# name (its plans write "status": "DONE"), read in any case and spacing,
# with a hyphen or a space for an underscore: DONE, COMPLETE, COMPLETED, and
# COMPLETED_SUCCESS, the later generation's word for a finished plan.
done_status(t) := ["st", t.st] if {
	status_word(t.st) in done_words
} else := ["status", t.status] if {
	status_word(t.status) in done_words
}

done_words := {"DONE", "COMPLETE", "COMPLETED", "COMPLETED_SUCCESS"}

status_word(s) := replace(replace(upper(trim_space(s)), "-", "_"), " ", "_") if is_string(s)
