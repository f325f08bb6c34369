# The escalation's own record: the issue file a human decides on.
# (The package and its metadata: retries.rego.)
package h3a.rules.retries

import data.h3a.lib
import data.h3a.model

# METADATA
# title: Escalation without its issue file
# description: >-
#   A task that was escalated has its escalation issue, artifacts/escalation/issue_<task-id>.md
#   (a file of artifacts/escalation/ whose name holds the task id counts too). A task is
#   escalated when a validator verdict about it, or CURRENT_TASK.json status, means an
#   escalation (escalation, escalation_required), or when GATES_LEDGER.md logs an
#   ESCALATION event while it is the current task. The file is what the human reviews, so
#   without it the escalation skipped a step of its process. What the gate means is carried
#   by the person: an escalation needs a human (h3a.retries.escalation,
#   h3a.retries.resolved_without_human) until a person's decision is recorded, and a
#   decision made without the issue file is still that person's; so this is a warning.
#   gate_framework.md, Escalation Protocol, Escalation Process: "1.
#   Validator sets status: "escalation_required" in validator_report.json", "2. Update
#   GATES_LEDGER.md with ESCALATION event", "3. Create
#   artifacts/escalation/issue_<task-id>.md with: Problem description, Failed attempts
#   summary, Recommended solution (if any)", "4. Human reviews and provides guidance".
# custom:
#   id: h3a.retries.escalation_issue_missing
#   category: retries
#   severity: warning
#   remediation: >-
#     write artifacts/escalation/issue_<task-id>.md (the problem, a summary of the failed
#     attempts, a recommended solution if any), log it in EVIDENCE_LOG.md, and have the
#     human review it
warn contains f if {
	some id in escalated_tasks
	not issue_file(id)
	at := escalation_position(id)
	f := lib.finding(rego.metadata.rule(), object.union(object.remove(at, ["what"]), {
		"msg": sprintf("task %q was escalated (%s) but the run has no %q: the escalation issue the human reviews is missing", [id, at.what, issue_path(id)]),
		"task_id": id,
	}))
}

issue_path(id) := sprintf("artifacts/escalation/issue_%s.md", [id])

issue_file(id) if lib.in_tree(issue_path(id))

issue_file(id) if {
	some p in lib.files_under("artifacts/escalation/")
	contains(lib.base_name(p), id)
}

# escalated_tasks are the ids of the tasks the run records as escalated.
escalated_tasks contains id if {
	some i, v in model.verdicts
	model.verdict_meaning(i).outcome == "escalation"
	id := v.task_id
	lib.filled(id)
}

escalated_tasks contains model.current_task_id if {
	model.task_meaning.outcome == "escalation"
}

escalated_tasks contains model.current_task_id if {
	some ev in model.ledger_events
	ev.status in escalation_statuses
}

# escalation_position is where task id is first recorded as escalated: its
# first escalating verdict, else CURRENT_TASK.json status, else the first
# ESCALATION event of the ledger; "what" names it for the message.
escalation_position(id) := {"what": sprintf("verdict %d has status %q", [i, model.verdicts[i].status]), "file": lib.doc_file.validator_report, "pointer": sprintf("/verdicts/%d/status", [i])} if {
	found := {i |
		some i, v in model.verdicts
		v.task_id == id
		model.verdict_meaning(i).outcome == "escalation"
	}
	count(found) > 0
	i := min(found)
} else := {"what": sprintf("CURRENT_TASK.json status is %q", [input.docs.current_task.status]), "file": lib.doc_file.current_task, "pointer": "/status"} if {
	id == model.current_task_id
	model.task_meaning.outcome == "escalation"
} else := {"what": sprintf("GATES_LEDGER.md logs %s %s", [ev.gate, ev.status]), "file": lib.doc_file.gates_ledger, "line": ev.line} if {
	found := {k | some k, e in model.ledger_events; e.status in escalation_statuses}
	count(found) > 0
	ev := model.ledger_events[min(found)]
}
