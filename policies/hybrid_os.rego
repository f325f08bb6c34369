# METADATA
# title: Hybrid_AI_OS
# description: >-
#   Runs of the hybrid-os layout (hybrid-ai-os-v1.4.md): the consistency scan the spec
#   describes (summaries and the files they list, the log and its counters), the process
#   (phases, retries, errors, the current plan) and the artifacts' references; and, for
#   the later vX.2 generation, its drift from the v1.4 vocabulary as warnings. What
#   needs a file read is in the input: which summary paths are files of the run
#   (docs.paths), the log units in order with their lines (docs.units), and what each
#   annotated artifact's file says (docs.annotations). Every rule is guarded by the
#   layout, so it never fires on another layout's runs.
# schemas:
#   - input: schema.input["hybrid-os"]
package h3a.rules.hybrid_os

import data.h3a.lib

hybrid if input.run.layout == "hybrid-os"

v14 if {
	hybrid
	input.docs.generation == "v1.4"
}

x2 if {
	hybrid
	input.docs.generation == "vX.2"
}

# state is state.json when it holds an object.
state := input.docs.state if {
	v14
	is_object(input.docs.state)
}

# --- summaries ----------------------------------------------------------------

# families are the two summaries, each with the files it lists (the files
# that hold an object).
families := [
	{"summary": "plan_summary.json", "what": "plan", "doc": input.docs.plan_summary, "files": objects(input.docs.plans)},
	{"summary": "registry_summary.json", "what": "artifact", "doc": input.docs.registry_summary, "files": objects(input.docs.artifacts)},
] if v14

objects(family) := {p: doc | some p, doc in family; is_object(doc)}

# entries lists the entries of a summary that name a path: its id, the path
# as written, and the version it recorded (null when it records none).
entries(summary) := [{"id": id, "path": p, "v": recorded_version(e)} |
	is_object(summary.map)
	some id, e in summary.map
	p := entry_path(e)
	p != ""
]

entry_path(e) := e if is_string(e)

else := lib.str(lib.get(e, "path"))

recorded_version(e) := v if {
	is_object(e)
	v := lib.int64(e.v)
} else := null

# named holds for a string that is not empty.
named(x) if {
	is_string(x)
	x != ""
}

# id_of is an object's id when it is a string, else "".
id_of(x) := lib.str(lib.get(x, "id"))

map_pointer(id) := concat("", ["/map/", lib.escape_token(id)])

# METADATA
# title: Summary and files disagree
# description: >-
#   A plan_summary.json or registry_summary.json entry points at a file that does not
#   exist, or a plan or artifact file is not in its summary (an orphan), or an
#   artifact's loc names a missing file. hybrid-ai-os-v1.4.md, Consistency Check:
#   "Verify summary mappings to physical files. Detect orphans"; Summaries: "map
#   identifiers to file paths".
# custom:
#   id: h3a.integrity.hybrid_orphan
#   category: integrity
#   severity: error
#   remediation: >-
#     re-run the consistency scan's repair: add the missing summary entry or remove the
#     entry whose file is gone, in the same write as the file
deny contains f if {
	some item in orphans
	f := lib.finding(rego.metadata.rule(), item)
}

orphans contains item if {
	some fam in families
	not is_object(fam.doc)
	n := count(fam.files)
	n > 0
	not input.files[fam.summary].present
	item := {
		"msg": sprintf("%s is missing but %d %s file(s) exist; every %s file must be in its summary", [fam.summary, n, fam.what, fam.what]),
		"file": fam.summary,
	}
}

orphans contains item if {
	some fam in families
	some e in entries(fam.doc)
	target := input.docs.paths[e.path]
	not fam.files[target.clean]
	not target.file
	item := {
		"msg": sprintf("%s %q points at %q, which does not exist", [fam.what, e.id, e.path]),
		"file": fam.summary,
		"pointer": map_pointer(e.id),
	}
}

orphans contains item if {
	some fam in families
	some e in entries(fam.doc)
	doc := fam.files[input.docs.paths[e.path].clean]
	id := doc.id
	named(id)
	id != e.id
	item := {
		"msg": sprintf("%s %q points at %q, whose id is %q", [fam.what, e.id, e.path, id]),
		"file": fam.summary,
		"pointer": map_pointer(e.id),
	}
}

orphans contains item if {
	some fam in families
	is_object(fam.doc)
	listed := {e.path | some e in entries(fam.doc)}
	some p, doc in fam.files
	not p in listed
	item := {
		"msg": sprintf("%s file %q is not in %s (an orphan); expected an entry mapping %q to it", [fam.what, p, fam.summary, id_of(doc)]),
		"file": p,
	}
}

orphans contains item if {
	some p, a in artifacts
	fact := input.docs.annotations[p]
	fact.missing
	item := {
		"msg": sprintf("artifact %q has loc %q, which does not exist", [id_of(a), fact.loc]),
		"file": p,
		"pointer": "/loc",
	}
}

# METADATA
# title: Duplicate id
# description: >-
#   Two plan files, or two artifact records, carry the same id, so the summary can point
#   at only one of them. hybrid-ai-os-v1.4.md, Consistency Check: "Detect orphans,
#   duplicate ids, version drift".
# custom:
#   id: h3a.integrity.hybrid_duplicate_id
#   category: integrity
#   severity: error
#   remediation: give one of them a new id and register it under that id
deny contains f if {
	some fam in families
	some p, doc in fam.files
	id := doc.id
	named(id)
	first := min({q | some q, other in fam.files; other.id == id})
	first != p
	f := lib.finding(rego.metadata.rule(), {
		"msg": sprintf("%s id %q is also the id of %s; ids must be unique", [fam.what, id, first]),
		"file": p,
		"pointer": "/id",
	})
}

# METADATA
# title: File version differs from its summary
# description: >-
#   A plan or artifact file's v is not the version its summary recorded at the last
#   write: a write finished on one side only (the spec's BLK_SUM/BLK_PSUM case) and was
#   never reconciled. hybrid-ai-os-v1.4.md, Consistency Check: "Detect orphans, duplicate
#   ids, version drift"; Summaries: "updated after each successful write of a
#   corresponding entity".
# custom:
#   id: h3a.integrity.hybrid_version_drift
#   category: integrity
#   severity: error
#   remediation: re-read the file and write the summary entry with the file's current v, then clear the blocked state
deny contains f if {
	some fam in families
	some e in entries(fam.doc)
	e.v != null
	p := input.docs.paths[e.path].clean
	v := lib.int64(fam.files[p].v)
	v != e.v
	f := lib.finding(rego.metadata.rule(), {
		"msg": sprintf("%s %q has v %d but %s last recorded v %d", [fam.what, e.id, v, fam.summary, e.v]),
		"file": p,
		"pointer": "/v",
	})
}

# --- the log ------------------------------------------------------------------

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

# --- the process --------------------------------------------------------------

# next_phase lists the legal successors of each phase besides itself.
next_phase := {"A": ["B"], "B": ["C"], "C": ["V"], "V": ["C", "I"], "I": ["A"]}

phased := [{"at": r, "ph": ph} | some r in records; ph := r.record.ph; is_string(ph); next_phase[ph]]

quote_all(xs) := "none" if count(xs) == 0

else := concat(" or ", [sprintf("%q", [x]) | some x in xs])

# METADATA
# title: Illegal phase transition
# description: >-
#   The phases logged in order must follow A → B → C → V → (C|I), and I → A for a new
#   goal; any other change skips a phase (for example construct without a blueprint, or
#   idle without validation). hybrid-ai-os-v1.4.md, Phases: "Phase transitions follow
#   `A → B → C → V → (loop|I)`".
# custom:
#   id: h3a.gates.hybrid_phase_transition
#   category: gates
#   severity: error
#   remediation: run the skipped phase, or find the log entry written with the wrong ph
deny contains f if {
	some j, x in phased
	j > 0
	before := phased[j - 1]
	x.ph != before.ph
	not x.ph in next_phase[before.ph]
	f := lib.finding(rego.metadata.rule(), {
		"msg": sprintf("phase changes from %q (%s line %d) to %q; after %q comes %s", [before.ph, before.at.unit, before.at.line, x.ph, before.ph, quote_all(next_phase[before.ph])]),
		"file": x.at.unit,
		"pointer": sprintf("/%d/ph", [x.at.i]),
	})
}

# METADATA
# title: Error state without a logged error
# description: >-
#   st = ERROR is set by a logging call with level E, so the log must hold an E entry.
#   hybrid-ai-os-v1.4.md, Error States: "ERROR | Logging call with level `E`".
# custom:
#   id: h3a.evidence.hybrid_error_unlogged
#   category: evidence
#   severity: error
#   remediation: log the error that caused the state, or clear the state if there was none
deny contains f if {
	state.st == "ERROR"
	not error_logged
	f := lib.finding(rego.metadata.rule(), {
		"msg": `st is "ERROR" but no log unit holds an entry with L "E"`,
		"file": "state.json",
		"pointer": "/st",
	})
}

error_logged if {
	some r in records
	r.record.L == "E"
}

# current_plan_path is the path plan_summary.json gives the plan state.json
# names as cp.
current_plan_path := e.path if {
	cp := state.cp
	named(cp)
	some e in entries(input.docs.plan_summary)
	e.id == cp
}

# current_plan is that plan's file, when it holds an object.
current_plan := objects(input.docs.plans)[input.docs.paths[current_plan_path].clean]

plan_tasks(plan) := [id | some t in lib.items(plan.tasks); id := t.id; named(id)]

# METADATA
# title: Current plan or task unknown
# description: >-
#   state.json cp must name a plan of plan_summary.json and ct a task of that plan.
#   hybrid-ai-os-v1.4.md, state.json: "cp | str? | Current plan id", "ct | str? |
#   Current task id"; Plan File: "goal, task list".
# custom:
#   id: h3a.traceability.hybrid_unknown_plan
#   category: traceability
#   severity: error
#   remediation: point cp and ct at the plan and task being worked on, or set them to null
deny contains f if {
	some item in unknown_plans
	f := lib.finding(rego.metadata.rule(), item)
}

unknown_plans contains item if {
	cp := state.cp
	named(cp)
	not current_plan_path
	item := {"msg": sprintf("cp %q is not a plan in plan_summary.json", [cp]), "file": "state.json", "pointer": "/cp"}
}

unknown_plans contains item if {
	ct := state.ct
	named(ct)
	tasks := plan_tasks(current_plan)
	not ct in tasks
	item := {
		"msg": sprintf("ct %q is not a task of plan %q (tasks: %s)", [ct, state.cp, quote_all(tasks)]),
		"file": "state.json",
		"pointer": "/ct",
	}
}

# stated_limit is the current plan's max_rt: the spec says only "MAX", so
# a plan that states its limit is the only firm one.
stated_limit := lib.int64(current_plan.max_rt)

# retry_limit is the stated limit, else 3, a guess the spec does not make.
retry_limit := n if {
	n := stated_limit
} else := 3

# METADATA
# title: Retry limit exceeded without blocking
# description: >-
#   A task's retry count in state.json rt is above the limit but st is not BLK_MAX. The
#   limit is the current plan's max_rt; the spec names no value, so without one the
#   limit is taken as 3 and the finding is a warning. hybrid-ai-os-v1.4.md, Retries:
#   "Per-task retry counter in `state.rt` [...] Exceeding `MAX` sets `st = BLK_MAX`".
# custom:
#   id: h3a.retries.hybrid_retry_limit
#   category: retries
#   severity: error
#   remediation: set st to BLK_MAX and hand the task to a person; do not retry further
deny contains f if {
	is_object(state.rt)
	not state.st == "BLK_MAX"
	some task, count_ in state.rt
	n := lib.int64(count_)
	n > retry_limit
	f := lib.finding(rego.metadata.rule(), object.union(
		{
			"msg": sprintf("task %q has %d retries, over the %s, but st is %q; expected \"BLK_MAX\"", [task, n, limit_text, lib.str(lib.get(state, "st"))]),
			"file": "state.json",
			"pointer": concat("", ["/rt/", lib.escape_token(task)]),
		},
		limit_severity,
	))
}

limit_text := sprintf("limit %d", [stated_limit]) if stated_limit

else := sprintf("default limit %d (the current plan states no max_rt)", [retry_limit])

# limit_severity makes a finding about the default limit a warning.
limit_severity := {} if stated_limit

else := {"severity": "warning"}

# METADATA
# title: Retry counter differs from its plan
# description: >-
#   A task of the current plan has a retry count in state.json rt (0 when absent) that
#   is not the rt its plan file persisted (0 when absent). hybrid-ai-os-v1.4.md, Retries:
#   "Per-task retry counter in `state.rt` and persisted in plan file"; Plan File:
#   "per-task state, retry counters".
# custom:
#   id: h3a.retries.hybrid_retry_mismatch
#   category: retries
#   severity: error
#   remediation: >-
#     find which write was lost: set the plan task's rt and state.json rt to the retries
#     the log shows for the task
deny contains f if {
	is_object(state.rt)
	plan_path := input.docs.paths[current_plan_path].clean
	some i, t in lib.items(current_plan.tasks)
	task := t.id
	named(task)
	persisted := retries(lib.get(t, "rt"))
	counted := retries(lib.get(state.rt, task))
	persisted != counted
	f := lib.finding(rego.metadata.rule(), {
		"msg": sprintf("task %q has %d retries in state.json rt but %d in %s; the plan file persists the same counter", [task, counted, persisted, plan_path]),
		"file": plan_path,
		"pointer": sprintf("/tasks/%d/rt", [i]),
	})
}

# retries reads a retry count: absent (null) is none.
retries(null) := 0

retries(x) := lib.int64(x)

# stop_causes are the error states that stop a run until a person (or a
# program told to by one) clears them, with the spec's cause of each.
# BLK_SUM and BLK_PSUM are summary conflicts the consistency scan may
# repair by itself ("auto-repair allowed"), so they stop nothing.
stop_causes := {
	"ERROR": "a logging call with level E",
	"BLK_MAX": "task retries exceeded the limit",
	"BLK_CON": "an optimistic lock conflict",
}

# stopped_state is [file, st] of the run's state when it holds an object.
stopped_state := ["state.json", state.st] if state

else := ["state.txt", x2_state.st] if x2_state

# METADATA
# title: Run stopped, a person must clear it
# description: >-
#   st is ERROR, BLK_MAX or BLK_CON: the run stopped in an error state, so the gate
#   needs a human. hybrid-ai-os-v1.4.md, Error States: "BLK_CON | Any optimistic lock
#   conflict", "BLK_MAX | Task retries exceeded limit", "ERROR | Logging call with level
#   `E`", "Recovery requires manual or programmed conflict resolution followed by state
#   clearance". BLK_SUM and BLK_PSUM are left to the Consistency Check: "auto-repair
#   allowed".
# custom:
#   id: h3a.gates.hybrid_stopped
#   category: gates
#   severity: warning
#   remediation: >-
#     a person resolves the cause (the conflict, the retried task or the logged error),
#     logs the decision and sets st back to READY
warn contains f if {
	[file, st] := stopped_state
	cause := stop_causes[st]
	f := lib.finding(rego.metadata.rule(), object.union(current_task, {
		"msg": sprintf("st is %q (%s): the run stopped and a person must resolve it and clear the state", [st, cause]),
		"file": file,
		"pointer": "/st",
		"needs_human": true,
	}))
}

# current_task names the task state.json (ct) or state.txt (ct_id) is on.
current_task := {"task_id": state.ct} if named(state.ct)

else := {"task_id": x2_state.ct_id} if named(x2_state.ct_id)

else := {}

# --- artifacts ----------------------------------------------------------------

artifacts := objects(input.docs.artifacts) if v14

# registered holds the id of every artifact ("" for one without a string id).
registered := {id_of(a) | some a in artifacts}

# issue_statuses gives the status of each issue of known_issues.json.
issue_statuses := {id: lib.str(lib.get(issue, "st")) | some id, issue in input.docs.known_issues.issues} if is_object(input.docs.known_issues.issues)

else := {}

has_issues if is_object(input.docs.known_issues)

strings(xs) := [x | some x in lib.items(xs); is_string(x)]

# METADATA
# title: Reference to an unknown artifact or issue
# description: >-
#   A Depends on list or dep[] names an artifact id that is not registered, or an Issue:
#   tag or ki[] names an issue that known_issues.json does not hold.
#   hybrid-ai-os-v1.4.md, Task Execution Output Schema: `"dep": ["<artifact id>"]`;
#   Annotation Rules: "`// Depends on: [ArtifactID]` list", "`// Issue: <issueId>` tags";
#   Issue Handling: "RECORD: add issue entry, link id into artifact `ki[]`".
# custom:
#   id: h3a.traceability.hybrid_unknown_reference
#   category: traceability
#   severity: error
#   remediation: register the artifact or issue, or correct the id
deny contains f if {
	some item in unknown_references
	f := lib.finding(rego.metadata.rule(), item)
}

unknown_references contains item if {
	some p, a in artifacts
	some i, dep in strings(lib.get(a, "dep"))
	not dep in registered
	item := {
		"msg": sprintf("artifact %q depends on %q, which is not a registered artifact", [id_of(a), dep]),
		"file": p,
		"pointer": sprintf("/dep/%d", [i]),
	}
}

unknown_references contains item if {
	has_issues
	some p, a in artifacts
	some i, issue in strings(lib.get(a, "ki"))
	not issue in object.keys(issue_statuses)
	item := {
		"msg": sprintf("artifact %q links issue %q, which known_issues.json does not hold", [id_of(a), issue]),
		"file": p,
		"pointer": sprintf("/ki/%d", [i]),
	}
}

unknown_references contains item if {
	some p, fact in annotations
	some dep in lib.items(fact.depends_on)
	not dep in registered
	item := {
		"msg": sprintf("%s says it depends on %q, which is not a registered artifact", [fact.loc, dep]),
		"file": p,
		"pointer": "/loc",
	}
}

unknown_references contains item if {
	has_issues
	some p, fact in annotations
	some issue in fact.issues
	not issue in object.keys(issue_statuses)
	item := {
		"msg": sprintf("%s tags issue %q, which known_issues.json does not hold", [fact.loc, issue]),
		"file": p,
		"pointer": "/loc",
	}
}

# METADATA
# title: Resolved issue still linked
# description: >-
#   RESOLVE unlinks an issue from its artifacts; an artifact whose ki[] still names an
#   issue that is RES was not updated. hybrid-ai-os-v1.4.md, Issue Handling: "RESOLVE:
#   mark `known_issues.json`, unlink from artifact".
# custom:
#   id: h3a.traceability.hybrid_resolved_issue_linked
#   category: traceability
#   severity: error
#   remediation: remove the issue id from the artifact's ki[] in the same write that resolved it
deny contains f if {
	some p, a in artifacts
	some i, issue in strings(lib.get(a, "ki"))
	issue_statuses[issue] == "RES"
	f := lib.finding(rego.metadata.rule(), {
		"msg": sprintf("artifact %q still links issue %q, which is resolved (RES); resolving unlinks it", [id_of(a), issue]),
		"file": p,
		"pointer": sprintf("/ki/%d", [i]),
	})
}

# cached_issues are the ids state.json iss caches: its keys when it is an
# object, its strings when it is an array.
cached_issues := object.keys(state.iss) if is_object(state.iss)

else := {id | some id in state.iss; is_string(id)} if is_array(state.iss)

iss_pointer(id) := concat("", ["/iss/", lib.escape_token(id)]) if is_object(state.iss)

else := sprintf("/iss/%d", [min({i | some i, x in state.iss; x == id})])

# METADATA
# title: Active-issue cache differs from known_issues.json
# description: >-
#   state.json iss caches the active issues: every id it holds is an ACTIVE issue of
#   known_issues.json, and every ACTIVE issue is in it. hybrid-ai-os-v1.4.md, state.json:
#   "iss | obj | Active issues cache"; Issue Ledger: "status ACTIVE / RES"; Startup
#   Sequence: "Load active issues into memory".
# custom:
#   id: h3a.traceability.hybrid_issue_cache
#   category: traceability
#   severity: error
#   remediation: >-
#     rebuild iss from known_issues.json: the ids of its ACTIVE issues, in the same write
#     that records or resolves an issue
deny contains f if {
	some item in issue_cache_problems
	f := lib.finding(rego.metadata.rule(), item)
}

issue_cache_problems contains item if {
	has_issues
	some id in cached_issues
	not issue_statuses[id] == "ACTIVE"
	item := {
		"msg": sprintf("iss caches issue %q, which is %s in known_issues.json; the cache holds the ACTIVE issues", [id, issue_state_text(id)]),
		"file": "state.json",
		"pointer": iss_pointer(id),
	}
}

issue_cache_problems contains item if {
	has_issues
	cached_issues
	some id, st in issue_statuses
	st == "ACTIVE"
	not id in cached_issues
	item := {
		"msg": sprintf("issue %q is ACTIVE in known_issues.json but iss does not cache it", [id]),
		"file": "state.json",
		"pointer": "/iss",
	}
}

issue_state_text(id) := sprintf("%q", [issue_statuses[id]]) if issue_statuses[id]

else := "missing"

# METADATA
# title: Record in another domain's folder
# description: >-
#   An artifact record's dom (or a plan's, when it has one) is not the <dom> folder it
#   sits in. hybrid-ai-os-v1.4.md, Directory Layout: "registry/ └── <domain>/<id>.json #
#   Artifact records", "plans/ └── <domain>/<id>.json"; Task Execution Output Schema:
#   `"dom": "<registry domain>"`.
# custom:
#   id: h3a.integrity.hybrid_domain_mismatch
#   category: integrity
#   severity: error
#   remediation: move the record to the folder of its dom and update its summary entry, or correct dom
deny contains f if {
	some fam in families
	some p, doc in fam.files
	dom := doc.dom
	is_string(dom)
	folder := split(p, "/")[1]
	dom != folder
	f := lib.finding(rego.metadata.rule(), {
		"msg": sprintf("%s %q has dom %q but sits in %s/; a record sits in the folder of its domain", [fam.what, id_of(doc), dom, concat("/", array.slice(split(p, "/"), 0, 2))]),
		"file": p,
		"pointer": "/dom",
	})
}

# annotations are the annotated artifacts' files the checker could read.
annotations := {p: fact | some p, fact in input.docs.annotations; artifacts[p]; not fact.missing}

# METADATA
# title: Artifact lacks its annotations
# description: >-
#   A code, config or doc artifact registered with a loc inside the repository must
#   embed a purpose statement ("Purpose:") and a "Depends on: [ids]" list; the Validator
#   rejects artifacts without them. hybrid-ai-os-v1.4.md, Annotation Rules: "Code,
#   config, and doc artifacts created or modified in phase C must embed: Purpose
#   statement. [...] `// Depends on: [ArtifactID]` list", "Validator rejects artifacts
#   lacking these annotations".
# custom:
#   id: h3a.evidence.hybrid_annotation_missing
#   category: evidence
#   severity: error
#   remediation: add the purpose statement and the Depends on list to the file and re-validate the task
deny contains f if {
	some p, fact in annotations
	lacks := [what |
		some [what, has] in [
			[`a purpose statement ("Purpose: …")`, fact.purpose],
			[`a "Depends on: [ids]" list`, fact.depends_on != null],
		]
		not has
	]
	count(lacks) > 0
	f := lib.finding(rego.metadata.rule(), {
		"msg": sprintf("%s artifact %q at %q lacks %s", [lib.str(lib.get(artifacts[p], "type")), id_of(artifacts[p]), fact.loc, concat(" and ", lacks)]),
		"file": p,
		"pointer": "/loc",
	})
}

# --- vX.2 -------------------------------------------------------------------

x2_state := input.docs.x2_state if {
	x2
	is_object(input.docs.x2_state)
}

x2_phases := ["A", "B", "C", "V", "I", "ANALYZE", "BLUEPRINT", "CONSTRUCT", "VALIDATE", "IDLE"]

x2_statuses := ["READY", "BUSY", "BLK_CON", "BLK_SUM", "BLK_PSUM", "BLK_MAX", "ERROR"]

# METADATA
# title: Drift from the Hybrid_AI_OS vocabulary
# description: >-
#   A vX.2 control file uses a value or shape the specification does not define (an
#   unknown st or ph, a missing ph, rt that is not an object, a reference in a form the
#   files do not use). It changes what a reader can rely on, so it is reported, but it is
#   not a broken gate. hybrid-ai-os-v1.4.md, state.json: "st | enum | READY, BUSY,
#   BLK_CON, BLK_SUM, BLK_PSUM, BLK_MAX, ERROR", "rt | obj | `{taskId:int}` retry
#   counts", "iss | obj | Active issues cache"; the vX.2 files are a later generation
#   the spec does not describe, so every departure is a warning.
# custom:
#   id: h3a.schema.hybrid_drift
#   category: schema
#   severity: warning
#   remediation: >-
#     use the specification's vocabulary: ph A|B|C|V|I (or ANALYZE, BLUEPRINT, CONSTRUCT,
#     VALIDATE, IDLE), st READY|BUSY|BLK_CON|BLK_SUM|BLK_PSUM|BLK_MAX|ERROR, rt an object
#     of counts
warn contains f if {
	some item in drift
	f := lib.finding(rego.metadata.rule(), {
		"msg": concat("", ["vX.2: ", item.msg]),
		"file": "state.txt",
		"pointer": item.pointer,
	})
}

drift contains {"msg": sprintf("%s is %s, expected an integer", [key, lib.describe(value)]), "pointer": concat("", ["/", key])} if {
	some key in ["v", "g"]
	value := lib.get(x2_state, key)
	not lib.int64(value)
}

drift contains {"msg": sprintf("state.txt has no ph; expected one of %s", [concat(", ", x2_phases)]), "pointer": ""} if {
	not "ph" in object.keys(x2_state)
}

drift contains {"msg": sprintf("ph is %s, not a phase (%s)", [lib.describe(ph), concat(", ", x2_phases)]), "pointer": "/ph"} if {
	ph := x2_state.ph
	not lib.str(ph) in x2_phases
}

drift contains {"msg": sprintf("st is %s, not a status (%s)", [lib.describe(st), concat(", ", x2_statuses)]), "pointer": "/st"} if {
	st := x2_state.st
	not lib.str(st) in x2_statuses
}

drift contains {"msg": "state.txt has no rt; expected an object of retry counts ({} when none)", "pointer": ""} if {
	not "rt" in object.keys(x2_state)
}

drift contains {"msg": sprintf("rt is %s, expected an object of retry counts", [lib.describe(rt)]), "pointer": "/rt"} if {
	rt := x2_state.rt
	not is_object(rt)
}

# The active issues state.txt caches are open issues of issues_summary.txt.
drift contains {"msg": sprintf("active issue %q is not in issues_summary.txt", [id]), "pointer": sprintf("/active_issue_ids/%d", [i])} if {
	issues := x2_issues
	some i, id in strings(lib.get(x2_state, "active_issue_ids"))
	not is_object(lib.get(issues, id))
}

drift contains {"msg": sprintf("active issue %q is %q in issues_summary.txt", [id, status]), "pointer": sprintf("/active_issue_ids/%d", [i])} if {
	issues := x2_issues
	some i, id in strings(lib.get(x2_state, "active_issue_ids"))
	is_object(issues[id])
	status := lib.str(lib.get(issues[id], "status"))
	startswith(upper(status), "RES")
}

# x2_issues is issues_summary.txt's issues_map, when the file holds an object.
x2_issues := object.get(input.docs.x2_issues_summary, "issues_map", {}) if is_object(input.docs.x2_issues_summary)
