# The vX.2 generation: its drift from the v1.4 vocabulary.
# (The package and its metadata: hybrid_os.rego.)
package h3a.rules.hybrid_os

import data.h3a.lib

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
#   unknown st or ph, a missing st or ph, rt that is not an object, a reference in a form the
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

drift contains {"msg": sprintf("state.txt has no st; expected one of %s", [concat(", ", x2_statuses)]), "pointer": ""} if {
	not "st" in object.keys(x2_state)
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
	some i, id in lib.string_items(lib.get(x2_state, "active_issue_ids"))
	not is_object(lib.get(issues, id))
}

drift contains {"msg": sprintf("active issue %q is %q in issues_summary.txt", [id, status]), "pointer": sprintf("/active_issue_ids/%d", [i])} if {
	issues := x2_issues
	some i, id in lib.string_items(lib.get(x2_state, "active_issue_ids"))
	is_object(issues[id])
	status := lib.str(lib.get(issues[id], "status"))
	startswith(upper(status), "RES")
}

# x2_issues is issues_summary.txt's issues_map, when the file holds an object.
x2_issues := object.get(input.docs.x2_issues_summary, "issues_map", {}) if is_object(input.docs.x2_issues_summary)

# The vX.2 counters of h3a.retries.hybrid_retry_limit (hybrid_os_process.rego).

# A vX.2 state.txt keeps rt too; its st is read as the status it spells.
over_limit contains item if {
	not x2_blocked
	is_object(x2_state.rt)
	some task, count_ in x2_state.rt
	n := lib.int64(count_)
	n > max_retries
	item := {
		"msg": sprintf("vX.2: task %q has %d retries in state.txt rt, over the configuration's max_retries %d, but st is %s; expected \"BLK_MAX\" (an error in a v1.4 state.json; a person decides whether it holds here)", [task, n, max_retries, lib.describe(lib.get(x2_state, "st"))]),
		"file": "state.txt",
		"pointer": concat("", ["/rt/", lib.escape_token(task)]),
		"severity": "warning",
		"needs_human": true,
	}
}

# A vX.2 plan file (plans/*.txt) persists its tasks' counts too, as rt or
# retry_count.
over_limit contains item if {
	is_object(x2_state)
	not x2_blocked
	some p, plan in objects(input.docs.x2_plans)
	some i, t in lib.items(plan.tasks)
	some key in ["rt", "retry_count"]
	n := lib.int64(lib.get(t, key))
	n > max_retries
	item := {
		"msg": sprintf("vX.2: task %s has %d retries in %s %s, over the configuration's max_retries %d, but state.txt st is %s; expected \"BLK_MAX\" (an error beside a v1.4 state.json; a person decides whether it holds here)", [lib.describe_field(t, "id"), n, p, key, max_retries, lib.describe(lib.get(x2_state, "st"))]),
		"file": p,
		"pointer": sprintf("/tasks/%d/%s", [i, key]),
		"severity": "warning",
		"needs_human": true,
	}
}
