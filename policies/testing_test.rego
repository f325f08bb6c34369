# METADATA
# title: Helpers for the policy unit tests
# description: Each test takes an ok run's input and breaks one thing in it.
package h3a.test

import data.h3a.test.fixture

# patch returns the complete run's input with JSON patch operations applied.
patch(ops) := json.patch(fixture.complete, ops)

# patch_fresh does the same to the freshly initialised run.
patch_fresh(ops) := json.patch(fixture.fresh, ops)

# of returns the findings of one rule.
of(findings, id) := [f | some f in findings; f.rule == id]

# rules lists the ids among findings.
rules(findings) := {f.rule | some f in findings}

# all_findings gathers deny and warn of every shipped rule package.
all_findings contains f if {
	some pkg in data.h3a.rules
	some kind in ["deny", "warn"]
	some f in object.get(pkg, kind, set())
}

# event builds a gates-ledger event for patches.
event(t, gate, status, agent, line) := {"time": t, "gate": gate, "status": status, "agent": agent, "note": "", "line": line, "provenance": "base"}

# claimed(ev) is ev as the change under review wrote it: no commit signed
# by a human's key added it (docs/trust-model.md).
claimed(ev) := object.union(ev, {"provenance": "claimed"})

# patch_contract does the same to the two-round contract run.
patch_contract(ops) := json.patch(fixture.contract_rounds, ops)

# verdict_status(i, s) sets the status of verdict i and its meaning, as the
# checker gives it (null for a spelling no document defines). A status that
# means a failure or an escalation gets gate_status G2_failed, as the
# validator writes it: a failing verdict that keeps G2_passed contradicts
# itself (h3a.evidence.verdict_numbers).
verdict_status(i, s) := array.concat(
	[
		{"op": "replace", "path": sprintf("/docs/validator_report/verdicts/%d/status", [i]), "value": s},
		{"op": "replace", "path": sprintf("/meanings/verdicts/%d", [i]), "value": object.get(fixture.status_meanings.verdictStatus, s, null)},
	],
	[{"op": "replace", "path": sprintf("/docs/validator_report/verdicts/%d/gate_status", [i]), "value": "G2_failed"} |
		object.get(fixture.status_meanings.verdictStatus, [s, "outcome"], null) in {"fail", "escalation"}
	],
)

# task_status(s) sets CURRENT_TASK.json status and its meaning.
task_status(s) := [
	{"op": "replace", "path": "/docs/current_task/status", "value": s},
	{"op": "replace", "path": "/meanings/task", "value": object.get(fixture.status_meanings.taskStatus, s, null)},
]

# add_verdict(v) appends verdict v with the meaning of its status.
add_verdict(v) := [
	{"op": "add", "path": "/docs/validator_report/verdicts/-", "value": v},
	{"op": "add", "path": "/meanings/verdicts/-", "value": object.get(fixture.status_meanings.verdictStatus, v.status, null)},
]
