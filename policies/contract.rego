# METADATA
# title: Artifact contract
# description: >-
#   Runs of the contract layout: a doer's handoff.json, a judge's verdict.json and an
#   auditor's audit.json per round, and the orchestrator's summary.json. The verdicts
#   must not contradict their own content, every touched requirement must be traced,
#   and the summary must follow from the last round. Every rule is guarded by the
#   layout, so it never fires on another layout's runs.
# schemas:
#   - input: schema.input.contract
package h3a.rules.contract

import data.h3a.lib

contract if input.run.layout == "contract"

rounds := lib.items(input.docs.rounds) if contract

summary := input.docs.summary if {
	contract
	is_object(input.docs.summary)
}

last_round := rounds[count(rounds) - 1] if count(rounds) > 0

# round_name names a round in messages: its folder, or "the run" when flat.
round_name(r) := r.dir if r.dir != ""

else := "the run"

# outcomes written by orchestrators when a stage did not run for real.
not_run := {"not-run", "dry-run"}

gates := {"pass", "fail", "needs-human"}

verdicts := {"pass", "reject", "needs-human"}

# METADATA
# title: Pass over open items
# description: >-
#   A verdict of pass has no required_changes and no requirements_missing, and the
#   round's handoff.json has no failed smoke check: each of these says the work is not done.
# custom:
#   id: h3a.gates.contract_pass_with_open_items
#   category: gates
#   severity: error
#   remediation: >-
#     the judge re-evaluates the round: either the items are done (remove them) or the
#     verdict is reject with the items as required changes
deny contains f if {
	some item in open_items
	f := lib.finding(rego.metadata.rule(), item)
}

# open_items lists what a passing verdict leaves open: its own lists, and the
# failed smoke checks of its round's handoff.
open_items contains item if {
	some r in rounds
	r.verdict.verdict == "pass"
	some key in ["required_changes", "requirements_missing"]
	items := lib.items(r.verdict[key])
	count(items) > 0
	item := {
		"msg": sprintf("verdict is pass but %s lists %d item(s): %s", [key, count(items), quoted(items)]),
		"file": r.files.verdict,
		"pointer": sprintf("/%s", [key]),
	}
}

open_items contains item if {
	some r in rounds
	r.verdict.verdict == "pass"
	some i, check in lib.items(r.handoff.smoke_checks)
	check.status == "fail"
	item := {
		"msg": sprintf("verdict is pass but smoke check %d (%q) of %s failed", [i, object.get(check, "command", ""), r.files.handoff]),
		"file": r.files.verdict,
		"pointer": "/verdict",
	}
}

quoted(items) := concat(", ", [sprintf("%q", [x]) | some x in items])

# METADATA
# title: Reject without reason or required change
# description: A verdict of reject gives at least one reason and at least one required change, so the doer knows what to fix.
# custom:
#   id: h3a.gates.contract_reject_without_reason
#   category: gates
#   severity: error
#   remediation: >-
#     the judge adds the failing check to reasons and an actionable, implementation-neutral
#     item to required_changes
deny contains f if {
	some r in rounds
	r.verdict.verdict == "reject"
	some key in ["reasons", "required_changes"]
	count(lib.items(r.verdict[key])) == 0
	f := lib.finding(rego.metadata.rule(), {
		"msg": sprintf("verdict is reject but %s is empty; expected at least one entry", [key]),
		"file": r.files.verdict,
		"pointer": sprintf("/%s", [key]),
	})
}

# METADATA
# title: Audit fail without required actions
# description: An audit gate of fail lists in required_actions what blocks landing.
# custom:
#   id: h3a.gates.contract_audit_fail_without_actions
#   category: gates
#   severity: error
#   remediation: the auditor writes what must change before the work can land into required_actions
deny contains f if {
	some r in rounds
	r.audit.gate == "fail"
	count(lib.items(r.audit.required_actions)) == 0
	f := lib.finding(rego.metadata.rule(), {
		"msg": "audit gate is fail but required_actions is empty; expected what blocks landing",
		"file": r.files.audit,
		"pointer": "/required_actions",
	})
}

# METADATA
# title: Audit without risk or policy
# description: >-
#   The contract's audit.json has risk and policy; real auditors leave them out, which
#   loses the risk level but not the gate, so it is a warning.
# custom:
#   id: h3a.structure.contract_audit_incomplete
#   category: structure
#   severity: warning
#   remediation: the auditor writes risk {level, reasons} and policy {artifact_integrity, eval_commands}
warn contains f if {
	some r in rounds
	is_object(r.audit)
	some key in ["risk", "policy"]
	not key in object.keys(r.audit)
	f := lib.finding(rego.metadata.rule(), {
		"msg": sprintf("audit.json has no %q object; the contract asks for it", [key]),
		"file": r.files.audit,
	})
}

# METADATA
# title: Audit claims matching task ids
# description: >-
#   An audit whose traceability.task_id_match is pass while the checker finds task ids
#   that differ across the run's artifacts, summary or folder name: the audit did not
#   check what it claims.
# custom:
#   id: h3a.traceability.contract_false_task_id_claim
#   category: traceability
#   severity: error
#   traceability: task_id_match
#   remediation: >-
#     fix the mismatched task ids (h3a.traceability.contract_task_id), then re-run the
#     auditor; never hand-edit its verdict
deny contains f if {
	contract
	input.docs.task_ids_agree == false
	some r in rounds
	r.audit.traceability.task_id_match == "pass"
	ids := sort({ref.task_id | some ref in input.docs.task_ids})
	f := lib.finding(rego.metadata.rule(), {
		"msg": sprintf("audit claims traceability.task_id_match pass, but the run names %d task ids: %s", [count(ids), quoted(ids)]),
		"file": r.files.audit,
		"pointer": "/traceability/task_id_match",
	})
}

# METADATA
# title: Touched requirement not traced
# description: >-
#   Every requirement in a round's handoff.json requirements_touched is in the same
#   round's verdict.json requirements_checked or requirements_missing.
# custom:
#   id: h3a.traceability.contract_requirement_untraced
#   category: traceability
#   severity: error
#   traceability: requirements_coverage
#   remediation: >-
#     the judge checks the requirement and lists it in requirements_checked, or lists it in
#     requirements_missing
deny contains f if {
	some r in rounds
	is_object(r.verdict)
	traced := {id | some key in ["requirements_checked", "requirements_missing"]; some id in lib.items(r.verdict[key])}
	some i, id in lib.items(r.handoff.requirements_touched)
	not id in traced
	f := lib.finding(rego.metadata.rule(), {
		"msg": sprintf("requirement %q is touched but %s lists it in neither requirements_checked nor requirements_missing", [id, r.files.verdict]),
		"file": r.files.handoff,
		"pointer": sprintf("/requirements_touched/%d", [i]),
	})
}

# METADATA
# title: rounds_completed differs from the rounds present
# description: summary.json rounds_completed equals the number of rounds in the run.
# custom:
#   id: h3a.structure.contract_rounds_completed
#   category: structure
#   severity: error
#   remediation: >-
#     a round folder was lost or added after the loop ended: restore the run as the
#     orchestrator left it, or re-run the loop
deny contains f if {
	n := summary.rounds_completed
	is_number(n)
	n != count(rounds)
	f := lib.finding(rego.metadata.rule(), {
		"msg": sprintf("summary.json rounds_completed is %v but the run holds %d round(s)", [n, count(rounds)]),
		"file": "summary.json",
		"pointer": "/rounds_completed",
	})
}

# expected_final is the final verdict the last round gives, with why.
expected_final := [v, sprintf("the last round's judge verdict is %q", [v])] if {
	v := last_round.verdict.verdict
	v in {"reject", "needs-human"}
} else := ["pass", "the judge passed the last round and the audit is disabled"] if {
	last_round.verdict.verdict == "pass"
	summary.audit_enabled == false
} else := [final_of_gate[g], sprintf("the judge passed the last round and its audit gate is %q", [g])] if {
	last_round.verdict.verdict == "pass"
	g := last_round.audit.gate
	final_of_gate[g]
} else := ["", "the last round has no audit.json although the judge passed it and the audit is enabled"] if {
	last_round.verdict.verdict == "pass"
	not is_object(last_round.audit)
}

final_of_gate := {"pass": "pass", "fail": "reject", "needs-human": "needs-human"}

# METADATA
# title: final_verdict does not follow from the last round
# description: >-
#   summary.json final_verdict follows from the last round: the judge's reject or
#   needs-human; when the judge passed, pass if the audit is disabled, else the audit gate
#   (pass, fail gives reject, needs-human). pass only when the judge passed and the audit
#   passed or was disabled. not-run and dry-run are accepted as written.
# custom:
#   id: h3a.gates.contract_final_verdict
#   category: gates
#   severity: error
#   remediation: >-
#     the summary was written from stale or wrong outcomes; re-run the orchestrator's
#     summary step, never edit the verdict by hand
deny contains f if {
	final := summary.final_verdict
	is_string(final)
	not final in not_run
	[want, why] := expected_final
	final != want
	f := lib.finding(rego.metadata.rule(), {
		"msg": sprintf("summary.json final_verdict is %q but %s%s", [final, why, expected_suffix(want)]),
		"file": "summary.json",
		"pointer": "/final_verdict",
	})
}

expected_suffix("") := ""

expected_suffix(want) := sprintf(", so it should be %q", [want]) if want != ""

# METADATA
# title: audit_gate is not the last round's
# description: >-
#   summary.json audit_gate equals the gate of the last round's audit.json; a value carried
#   over from an earlier round is stale. not-run and dry-run are accepted when the last
#   round has no audit.
# custom:
#   id: h3a.gates.contract_stale_audit_gate
#   category: gates
#   severity: error
#   remediation: >-
#     the orchestrator must reset audit_gate every round; re-run its summary step so
#     audit_gate is the last round's gate (or not-run)
deny contains f if {
	some msg in stale_audit_gate
	f := lib.finding(rego.metadata.rule(), {"msg": msg, "file": "summary.json", "pointer": "/audit_gate"})
}

stale_audit_gate contains msg if {
	gate := summary.audit_gate
	gate in gates
	last := last_round
	last_gate := audit_gate_of(last)
	gate != last_gate
	msg := sprintf("summary.json audit_gate %q is not the last round's: %s%s", [gate, last_gate_text(last, last_gate), earlier_source(gate)])
}

stale_audit_gate contains msg if {
	gate := summary.audit_gate
	gate in not_run
	last := last_round
	last_gate := last.audit.gate
	last_gate in gates
	msg := sprintf("summary.json audit_gate is %q but %s", [gate, last_gate_text(last, last_gate)])
}

audit_gate_of(r) := r.audit.gate if is_object(r.audit)

else := null

last_gate_text(last, g) := sprintf("the last round (%s) has no audit.json", [round_name(last)]) if not is_string(g)

else := sprintf("the last round's %s gate is %q", [last.files.audit, g])

# earlier_source names the earlier round whose gate the summary carries.
earlier_source(gate) := sprintf(" (it is %s's gate, a stale value)", [concat(", ", names)]) if {
	names := [r.files.audit | some i, r in rounds; i < count(rounds) - 1; r.audit.gate == gate]
	count(names) > 0
} else := ""

# METADATA
# title: judge_verdict is not the last round's
# description: summary.json judge_verdict equals the verdict of the last round's verdict.json (not-run and dry-run are accepted as written).
# custom:
#   id: h3a.gates.contract_stale_judge_verdict
#   category: gates
#   severity: error
#   remediation: re-run the orchestrator's summary step so judge_verdict is the last round's verdict
deny contains f if {
	v := summary.judge_verdict
	is_string(v)
	not v in not_run
	want := last_round.verdict.verdict
	want in verdicts
	v != want
	f := lib.finding(rego.metadata.rule(), {
		"msg": sprintf("summary.json judge_verdict %q differs from the last round's %s verdict %q", [v, last_round.files.verdict, want]),
		"file": "summary.json",
		"pointer": "/judge_verdict",
	})
}
