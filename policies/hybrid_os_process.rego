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
