# The process: phases, errors, the current plan, retries and stops.
# (The package and its metadata: hybrid_os.rego.)
package h3a.rules.hybrid_os

import data.h3a.lib

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
#   idle without validation). state.json's ph, the current phase, is the last logged
#   phase or the one that may follow it: a state that says idle after a logged construct
#   skipped the validation the log never shows. hybrid-ai-os-v1.4.md, Phases: "Phase
#   transitions follow `A → B → C → V → (loop|I)`"; state.json: "ph | enum | Current
#   phase".
# custom:
#   id: h3a.gates.hybrid_phase_transition
#   category: gates
#   severity: error
#   remediation: >-
#     run the skipped phase, or find the log entry (or the state.json ph) written with the
#     wrong phase
deny contains f if {
	some item in phase_skips
	f := lib.finding(rego.metadata.rule(), item)
}

phase_skips contains item if {
	some j, x in phased
	j > 0
	before := phased[j - 1]
	x.ph != before.ph
	not x.ph in next_phase[before.ph]
	item := {
		"msg": sprintf("phase changes from %q (%s line %d) to %q; after %q comes %s", [before.ph, before.at.unit, before.at.line, x.ph, before.ph, quote_all(next_phase[before.ph])]),
		"file": x.at.unit,
		"pointer": sprintf("/%d/ph", [x.at.i]),
	}
}

# The current phase goes on from the last logged one: the state may be a
# step ahead of its log, never past a phase the log does not show.
phase_skips contains item if {
	ph := state.ph
	next_phase[ph]
	count(phased) > 0
	last := phased[count(phased) - 1]
	ph != last.ph
	not ph in next_phase[last.ph]
	item := {
		"msg": sprintf("state.json ph is %q, but the last logged phase is %q (%s line %d); after %q comes %s", [ph, last.ph, last.at.unit, last.at.line, last.ph, quote_all(next_phase[last.ph])]),
		"file": "state.json",
		"pointer": "/ph",
	}
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
#   state.json cp must name a plan of plan_summary.json whose entry maps it to a plan
#   file of the run, and ct a task of that plan; an entry naming some other file leaves
#   the current plan, and so ct and its retry counters, unknown. hybrid-ai-os-v1.4.md,
#   state.json: "cp | str? | Current plan id", "ct | str? | Current task id"; Directory
#   Layout: "plan_summary.json # id → plan path map", "<domain>/<id>.json # Plan
#   files"; Plan File: "goal, task list".
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
	cp := state.cp
	named(cp)
	p := current_plan_path
	input.docs.paths[p].file
	not current_plan
	item := {
		"msg": sprintf("cp %q maps to %q in plan_summary.json, which is not a plan file (plans/<domain>/<id>.json holding an object)", [cp, p]),
		"file": "state.json",
		"pointer": "/cp",
	}
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

# plan_files are the plan files that hold an object, by path.
plan_files := objects(input.docs.plans)

# current_plan_file is the path of the current plan's file, when loaded.
current_plan_file := p if {
	p := input.docs.paths[current_plan_path].clean
	plan_files[p]
}

# max_retries is the retry limit of the configuration, params.max_retries
# (default 3): read at the trusted base in CI, so nothing the change under
# review writes sets it. 3 stands in should the input lack a whole number
# of at least 1 (the configuration refuses one).
max_retries := n if {
	n := lib.int64(input.params.max_retries)
	n >= 1
} else := 3

# plan_limit is the retry limit of a plan file's tasks: the plan's max_rt
# where that is not above max_retries, else max_retries ("from" says
# which). A plan may hold its tasks to fewer retries, never to more: the
# run's own files cannot lift its limit. The spec says only "MAX", so a
# plan that states its limit makes the limit firm (stated); without one
# the limit is the configuration's alone (stated false).
plan_limit(p) := {"n": n, "stated": true, "plan": p, "from": "plan"} if {
	n := lib.int64(plan_files[p].max_rt)
	n <= max_retries
} else := {"n": max_retries, "stated": true, "plan": p, "from": "config", "max_rt": m} if {
	m := lib.int64(plan_files[p].max_rt)
} else := {"n": max_retries, "stated": false, "plan": p, "from": "config"}

# strictest is the lowest of a set of limits, a stated one before a guessed
# one of the same value, then by path.
strictest(limits) := lim if {
	[_, _, p] := min({[l.n, stated_last(l), l.plan] | some l in limits})
	some lim in limits
	lim.plan == p
}

stated_last(l) := 0 if l.stated

else := 1

# plans_holding are the plan files that list a task.
plans_holding(task) := {p |
	some p, plan in plan_files
	task in plan_tasks(plan)
}

# rt_limit is the limit of a counter of state.json rt: that of the plan
# holding the task, the current plan first (a task id may recur in another
# plan), else the strictest plan file listing it. When no plan file lists
# the task its limit is unknown, so the strictest of all plans stands in
# (max_retries without any), flagged unknown: the finding is then a warning.
rt_limit(task) := plan_limit(current_plan_file) if {
	task in plan_tasks(plan_files[current_plan_file])
} else := strictest({plan_limit(p) | some p in plans_holding(task)}) if {
	count(plans_holding(task)) > 0
} else := object.union(strictest({plan_limit(p) | some p, _ in plan_files}), {"unknown": true}) if {
	count(plan_files) > 0
} else := {"n": max_retries, "stated": false, "plan": "", "from": "config", "unknown": true}

# counters are the retry counters the spec keeps per task, each with the
# limit it is held to: state.json rt, against the limit of the task's plan,
# and every plan file's tasks, against that plan's max_rt. A plan task
# whose counter state.json rt holds alike, judged against the same plan, is
# left to the state.json counter, so one fact gives one finding.
counters contains c if {
	is_object(state.rt)
	some task, count_ in state.rt
	c := {
		"task": task, "n": lib.int64(count_), "where": "state.json rt", "limit": rt_limit(task),
		"file": "state.json", "pointer": concat("", ["/rt/", lib.escape_token(task)]),
	}
}

counters contains c if {
	state
	some p, plan in plan_files
	some i, t in lib.items(plan.tasks)
	task := t.id
	named(task)
	n := lib.int64(lib.get(t, "rt"))
	not counted_in_state(task, n, p)
	c := {"task": task, "n": n, "where": p, "limit": plan_limit(p), "file": p, "pointer": sprintf("/tasks/%d/rt", [i])}
}

counted_in_state(task, n, p) if {
	is_object(state.rt)
	lib.int64(state.rt[task]) == n
	rt_limit(task).plan == p
	not rt_limit(task).unknown
}

# METADATA
# title: Retry limit exceeded without blocking
# description: >-
#   A task's retry count, in state.json rt or in the plan file that holds the task, is
#   above the limit but st is not BLK_MAX. The configuration sets MAX: params.max_retries
#   (default 3), read at the trusted base in CI. The plan that holds the task may lower it
#   with its max_rt, never raise it (for state.json rt: the current plan when it lists the
#   task, else the plan file that does, the lowest limit when several do), and another
#   plan's max_rt never applies. The spec names no value for MAX and the configuration
#   does, so a count over max_retries is an error wherever its limit came from (a plan
#   that states no max_rt, or deletes it, is held to it all the same); a counter of
#   state.json rt whose task no plan file lists is held to the lowest limit of any plan,
#   since its own is unknown, and is a warning while it is not over max_retries. Each message says where its limit came from: the
#   configuration's max_retries, or a plan's lower max_rt. In the vX.2 generation, checked
#   leniently, a count of state.txt rt or of a vX.2 plan file's task (rt, retry_count)
#   over max_retries, or of a v1.4 plan file beside it over its plan's limit, while st
#   does not read as BLK_MAX is a warning that asks for a
#   human: the drift is the file's own, so it cannot turn a
#   task past its limit into a pass. hybrid-ai-os-v1.4.md, Retries:
#   "Per-task retry counter in `state.rt` and persisted in plan file. Exceeding `MAX` sets
#   `st = BLK_MAX`"; Plan File: "per-task state, retry counters".
# custom:
#   id: h3a.retries.hybrid_retry_limit
#   category: retries
#   severity: error
#   remediation: set st to BLK_MAX and hand the task to a person; do not retry further
deny contains f if {
	some item in over_limit
	f := lib.finding(rego.metadata.rule(), item)
}

over_limit contains item if {
	not state.st == "BLK_MAX"
	some c in counters
	c.n > c.limit.n
	item := object.union(
		{
			"msg": sprintf("task %q has %d retries in %s, over %s, but st is %q; expected \"BLK_MAX\"", [c.task, c.n, c.where, limit_text(c), lib.str(lib.get(state, "st"))]),
			"file": c.file,
			"pointer": c.pointer,
		},
		limit_severity(c),
	)
}

# A v1.4 plan file beside a vX.2 state.txt keeps its tasks' counts too.
over_limit contains item if {
	is_object(x2_state)
	not x2_blocked
	some p, plan in plan_files
	some i, t in lib.items(plan.tasks)
	named(t.id)
	n := lib.int64(lib.get(t, "rt"))
	n > plan_limit(p).n
	item := {
		"msg": sprintf("vX.2: task %q has %d retries in %s, over %s, but state.txt st is %s; expected \"BLK_MAX\" (an error beside a v1.4 state.json; a person decides whether it holds here)", [t.id, n, p, limit_text({"where": p, "limit": plan_limit(p)}), lib.describe(lib.get(x2_state, "st"))]),
		"file": p,
		"pointer": sprintf("/tasks/%d/rt", [i]),
		"severity": "warning",
		"needs_human": true,
	}
}

# limit_text says which limit a counter is over and where it comes from:
# a plan's max_rt (not above the configuration's), or the configuration's
# max_retries, with the plan's own max_rt where that is higher.
limit_text(c) := sprintf("the limit %d, the lowest max_rt of any plan (%s), since no plan file lists the task", [c.limit.n, c.limit.plan]) if {
	c.limit.unknown
	c.limit.from == "plan"
} else := sprintf("the configuration's max_retries %d, since no plan file lists the task and none states a lower max_rt", [c.limit.n]) if {
	c.limit.unknown
} else := sprintf("its plan's max_rt %d", [c.limit.n]) if {
	c.limit.from == "plan"
	c.where == c.limit.plan
} else := sprintf("the limit %d, the max_rt of %s, which lists the task", [c.limit.n, c.limit.plan]) if {
	c.limit.from == "plan"
} else := sprintf("the configuration's max_retries %d (its plan's max_rt %d cannot raise it)", [c.limit.n, c.limit.max_rt]) if {
	c.limit.stated
	c.where == c.limit.plan
} else := sprintf("the configuration's max_retries %d (the max_rt %d of %s, which lists the task, cannot raise it)", [c.limit.n, c.limit.max_rt, c.limit.plan]) if {
	c.limit.stated
} else := sprintf("the configuration's max_retries %d (its plan states no max_rt)", [c.limit.n]) if {
	c.where == c.limit.plan
} else := sprintf("the configuration's max_retries %d (%s, which lists the task, states no max_rt)", [c.limit.n, c.limit.plan])

# limit_severity: a count over the configuration's max_retries is over MAX
# itself, an error wherever its limit came from; one over a lower limit
# borrowed from another plan (no plan file lists the task) is a warning.
limit_severity(c) := {} if {
	c.n > max_retries
} else := {"severity": "warning"} if {
	c.limit.unknown
} else := {}

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
# BLK_SUM and BLK_PSUM are in the same Error States table: the consistency
# scan may repair the summary ("auto-repair allowed"), but recovery is still
# "followed by state clearance", and a run whose st was never cleared has
# not recovered.
stop_causes := {
	"ERROR": "a logging call with level E",
	"BLK_MAX": "task retries exceeded the limit",
	"BLK_CON": "an optimistic lock conflict",
	"BLK_SUM": "a registry summary write conflict",
	"BLK_PSUM": "a plan summary load/write conflict",
}

# stopped_state is [file, st as written, st as read] of the run's state
# when it holds an object.
stopped_state := ["state.json", state.st, state.st] if state

else := ["state.txt", x2_state.st, x2_status(x2_state.st)] if x2_state

# x2_status reads a vX.2 st as the status it spells in another case or with
# other spacing ("error", "Blk_Max", "blk-con", " ERROR "): the vX.2 files
# are checked leniently, so such a spelling is only drift, and read as
# written it would stop nothing. Any other value is kept as written.
# stops are [file, st as written, st as read, cause] of a state that stopped
# the run: one of the spec's error states, or in a vX.2 state.txt a word that
# says the run is blocked, failed or halted (BLOCK_INPUT, BLOCKED, FAILED),
# which the lenient reading leaves as drift: a person reads it as stopped.
stops contains [file, written, st, cause] if {
	[file, written, st] := stopped_state
	cause := stop_causes[st]
}

stops contains ["state.txt", written, written, "a stopped state the specification does not name"] if {
	x2_state
	not state
	written := x2_state.st
	is_string(written)
	not stop_causes[x2_status(written)]
	regex.match(`^(BLK|BLOCK(S|ED|ING)?|FAIL(S|ED|URE)?|ERRORED|HALT(S|ED)?|STOP(S|PED)?)(_[A-Z0-9_]+)?$`, x2_word(written))
}

# x2_blocked holds when state.txt st reads as BLK_MAX. A rule asks "not
# x2_blocked", never "not x2_status(...) == ...": without st that call is
# undefined, and a negated undefined comparison must not read as blocked.
x2_blocked if x2_status(x2_state.st) == "BLK_MAX"

x2_status(st) := word if {
	is_string(st)
	word := x2_word(st)
	word in x2_statuses
} else := st

# x2_word is a vX.2 st as the word it spells: upper case, its spaces and
# hyphens as underscores ("blk-con" is BLK_CON).
x2_word(st) := upper(regex.replace(trim_space(st), `[\s-]+`, "_"))

# read_as names the status a spelling was read as, for a message.
read_as(written, read) := "" if written == read

else := sprintf(", read as %s", [read])

# METADATA
# title: Run stopped, a person must clear it
# description: >-
#   st is ERROR, BLK_MAX, BLK_CON, BLK_SUM or BLK_PSUM: the run stopped in an error
#   state, so the gate needs a human. hybrid-ai-os-v1.4.md, Error States: "BLK_CON | Any
#   optimistic lock conflict", "BLK_SUM | Registry summary write conflict", "BLK_PSUM |
#   Plan summary load/write conflict", "BLK_MAX | Task retries exceeded limit", "ERROR |
#   Logging call with level `E`", "Recovery requires manual or programmed conflict
#   resolution followed by state clearance". The Consistency Check's "auto-repair allowed"
#   may repair a summary, but a st still BLK_SUM or BLK_PSUM was never cleared. A vX.2 state.txt, checked leniently, may spell st in another case or with
#   other spacing ("error", "Blk_Max"); it is read as the status it spells (state.json,
#   st: "enum | READY, BUSY, BLK_CON, BLK_SUM, BLK_PSUM, BLK_MAX, ERROR"), so a spelling
#   cannot turn a stopped run into a pass. So is a vX.2 st that says the run is blocked,
#   failed or halted in a word the spec does not name (BLOCK_INPUT, BLOCKED, FAILED): it is
#   drift (h3a.schema.hybrid_drift), and a person reads it as stopped all the same.
# custom:
#   id: h3a.gates.hybrid_stopped
#   category: gates
#   severity: warning
#   remediation: >-
#     a person resolves the cause (the conflict, the summary, the retried task or the
#     logged error), logs the decision and sets st back to READY
warn contains f if {
	some [file, written, st, cause] in stops
	f := lib.finding(rego.metadata.rule(), object.union(current_task, {
		"msg": sprintf("st is %q%s (%s): the run stopped and a person must resolve it and clear the state", [written, read_as(written, st), cause]),
		"file": file,
		"pointer": "/st",
		"needs_human": true,
	}))
}

# METADATA
# title: Error cleared without a logged recovery
# description: >-
#   A log entry has level E while st is READY or BUSY: a logging call with level E sets
#   st = ERROR, so the state was cleared (or never set), and the log format has no entry
#   that records the resolution the spec requires before it: an entry logged after the
#   error may be any later work, not its recovery. The spec does not say that the
#   recovery itself is logged, so this is a warning, but it asks for a human, as the
#   ERROR state it stands for does (h3a.gates.hybrid_stopped). The latest such entry is
#   named. BLK_* states are h3a.gates.hybrid_stopped's: a lock conflict logs an error and
#   sets its own state. hybrid-ai-os-v1.4.md,
#   Error States: "ERROR | Logging call with level `E`", "Recovery requires manual or
#   programmed conflict resolution followed by state clearance"; Startup Sequence: "Log
#   session start; `st = READY`"; Optimistic Lock Protocol: "Conflict sets `st = BLK_CON`
#   and logs error".
# custom:
#   id: h3a.gates.hybrid_error_cleared
#   category: gates
#   severity: warning
#   remediation: >-
#     a person confirms the logged error was resolved and logs the recovery; if it was
#     not, set st to ERROR until it is
warn contains f if {
	st := state.st
	st in {"READY", "BUSY"}
	count(error_entries) > 0
	k := error_entries[count(error_entries) - 1]
	e := records[k]
	f := lib.finding(rego.metadata.rule(), object.union(current_task, {
		"msg": error_cleared_msg(e, (count(records) - k) - 1, st),
		"file": "state.json",
		"pointer": "/st",
		"needs_human": true,
	}))
}

# error_entries are the indexes in records of the entries logged with level E.
error_entries := [k | some k, r in records; r.record.L == "E"]

error_cleared_msg(e, 0, st) := sprintf("the last log entry (%s line %d%s) has level \"E\" but st is %q: the error sets st to ERROR, and no recovery is logged after it; a person must confirm it was resolved", [e.unit, e.line, entry_id(e.record), st])

error_cleared_msg(e, later, st) := sprintf("the log entry %s line %d%s has level \"E\" but st is %q: the error sets st to ERROR, and no entry after it (%d logged) records a resolution; a person must confirm it was resolved", [e.unit, e.line, entry_id(e.record), st, later]) if later > 0

entry_id(r) := sprintf(", id %d", [id]) if id := lib.int64(r.id)

else := ""

# current_task names the task state.json (ct) or state.txt (ct_id) is on.
current_task := {"task_id": state.ct} if named(state.ct)

else := {"task_id": x2_state.ct_id} if named(x2_state.ct_id)

else := {}
