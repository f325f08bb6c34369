# METADATA
# title: Retry limits and escalation
# description: >-
#   A task is retried at most max_iterations times (default 2, from params when
#   CURRENT_TASK.json has none); past that a human decides.
package h3a.rules.retries

import data.h3a.lib

ct := input.docs.current_task

# METADATA
# title: Iteration limit exceeded
# description: >-
#   iteration_count in CURRENT_TASK.json or in an executor cycle is greater than the limit:
#   CURRENT_TASK.json max_iterations, else params.max_iterations (default 2).
# custom:
#   id: h3a.retries.over_limit
#   category: retries
#   severity: error
#   remediation: >-
#     stop retrying: set the task to escalation_required and have a human decide; a
#     human who resets the task sets iteration_count back to 0
deny contains f if {
	some v in over_limit
	f := lib.finding(rego.metadata.rule(), v)
}

over_limit contains v if {
	n := ct.iteration_count
	is_number(n)
	n > lib.limit
	v := object.union(task, {
		"msg": sprintf("iteration_count %v exceeds the limit of %v iterations", [n, lib.limit]),
		"file": lib.doc_file.current_task,
		"pointer": "/iteration_count",
	})
}

over_limit contains v if {
	some i, cycle in lib.cycles
	n := cycle.iteration_count
	is_number(n)
	n > lib.limit
	v := {
		"msg": sprintf("TDD cycle %d (task %v) has iteration_count %v, over the limit of %v iterations", [i, object.get(cycle, "task_id", "unknown"), n, lib.limit]),
		"file": lib.doc_file.executor_report,
		"pointer": sprintf("/tdd_cycles/%d/iteration_count", [i]),
	}
}

task := {"task_id": lib.current_task_id} if lib.current_task_id

else := {}

# METADATA
# title: Escalation needs a human
# description: >-
#   The gate needs a human when CURRENT_TASK.json status means an escalation
#   (escalation_required), when a failed task (failed, remediation_needed) or gate is at
#   iteration_count >= the limit, or when the last verdict's status means an escalation
#   (escalation, escalation_required), unless a human decision is recorded after it: a
#   GATES_LEDGER.md event by agent "human" later than the last FAILED or ESCALATION event.
# custom:
#   id: h3a.retries.escalation
#   category: retries
#   severity: warning
#   remediation: >-
#     a human reviews the failed attempts, records the decision as a GATES_LEDGER.md event
#     by agent "human", updates CURRENT_TASK.json and resets iteration_count to 0
warn contains f if {
	some v in escalations
	not human_decision
	f := lib.finding(rego.metadata.rule(), object.union(object.union(task, gate), object.union(v, {"needs_human": true})))
}

gate := {"gate": sprintf("G%d", [lib.current_task_status.parsed.gate])} if lib.current_task_status.parsed

else := {}

escalations contains v if {
	lib.task_meaning.outcome == "escalation"
	v := {"msg": sprintf("the task's status is %s: a human must decide how to go on", [ct.status]), "file": lib.doc_file.current_task, "pointer": "/status"}
}

escalations contains v if {
	lib.task_meaning.outcome == "fail"
	is_number(ct.iteration_count)
	ct.iteration_count >= lib.limit
	v := {
		"msg": sprintf("the task is %q after %v of %v iterations: a human must decide how to go on", [ct.status, ct.iteration_count, lib.limit]),
		"file": lib.doc_file.current_task,
		"pointer": "/status",
	}
}

escalations contains v if {
	is_number(ct.iteration_count)
	ct.iteration_count >= lib.limit
	some n in lib.gate_numbers
	input.docs.state.gates[lib.gate_names[n]] == "failed"
	v := {
		"msg": sprintf("%s failed after %v of %v iterations: a human must decide how to go on", [lib.gate_names[n], ct.iteration_count, lib.limit]),
		"file": lib.doc_file.state,
		"pointer": sprintf("/gates/%s", [lib.gate_names[n]]),
	}
}

escalations contains v if {
	i := lib.current_verdict
	m := lib.verdict_meaning(i)
	m.outcome == "escalation"
	v := {"msg": sprintf("the last verdict's status is %s: a human must decide how to go on", [m.status]), "file": lib.doc_file.validator_report, "pointer": sprintf("/verdicts/%d/status", [i])}
}

setbacks := {"FAILED", "ESCALATION", "ESCALATED", "REJECTED"}

# human_decision: the ledger records a human's event after its last setback.
human_decision if {
	last_setback := max({i | some i, ev in lib.ledger_events; ev.status in setbacks} | {-1})
	some j, ev in lib.ledger_events
	j > last_setback
	lower(ev.agent) == "human"
}

# METADATA
# title: Remediation needed without a plan
# description: >-
#   A verdict whose status means a failure with remediation due (fail, needs_remediation)
#   has a remediation_plan, and so has the task's last verdict when CURRENT_TASK.json
#   status is remediation_needed.
# custom:
#   id: h3a.retries.no_remediation_plan
#   category: retries
#   severity: error
#   remediation: >-
#     the validator writes a specific remediation_plan (what to fix, how to show it is
#     fixed) in the verdict that sent the task back
deny contains f if {
	some v in missing_plan
	f := lib.finding(rego.metadata.rule(), v)
}

missing_plan contains v if {
	some i, verdict in lib.verdicts
	m := lib.verdict_meaning(i)
	m.remediation_due
	not verdict_has_plan(i)
	v := object.union(verdict_task(verdict), {
		"msg": sprintf("verdict %d has status %q, which sends the task back for remediation, but no remediation_plan", [i, m.status]),
		"file": lib.doc_file.validator_report,
		"pointer": plan_pointer(i),
	})
}

verdict_task(verdict) := {"task_id": verdict.task_id} if lib.filled(verdict.task_id)

else := {}

missing_plan contains v if {
	lib.task_meaning.remediation_due
	i := lib.current_verdict
	not lib.verdict_meaning(i).remediation_due # reported above when it has no plan
	not verdict_has_plan(i)
	v := object.union(task, {
		"msg": sprintf("the task's status is %s but its last verdict has no remediation_plan", [ct.status]),
		"file": lib.doc_file.validator_report,
		"pointer": plan_pointer(i),
	})
}

plan_pointer(i) := sprintf("/verdicts/%d/remediation_plan", [i]) if {
	is_object(lib.verdicts[i])
	"remediation_plan" in object.keys(lib.verdicts[i])
}

else := sprintf("/verdicts/%d", [i])

missing_plan contains v if {
	lib.task_meaning.remediation_due
	not lib.current_verdict
	v := object.union(task, {
		"msg": sprintf("the task's status is %s but validator_report.json has no verdict for it, so no remediation_plan", [ct.status]),
		"file": lib.doc_file.current_task,
		"pointer": "/status",
	})
}

# verdict_has_plan wraps the ref: "not f(undefined)" is undefined in Rego.
verdict_has_plan(i) if plan_given(lib.verdicts[i].remediation_plan)

plan_given(x) if lib.filled(x)

plan_given(x) if {
	is_array(x)
	count(x) > 0
}

plan_given(x) if {
	is_object(x)
	count(x) > 0
}
