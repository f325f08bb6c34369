# METADATA
# title: Artifact contract
# description: >-
#   Runs of the contract layout: a doer's handoff.json, a judge's verdict.json and an
#   auditor's audit.json per round, and the orchestrator's summary.json. The verdicts
#   must not contradict their own content, every touched requirement must be traced,
#   and the summary must follow from the last round. Every rule is guarded by the
#   layout, so it never fires on another layout's runs. Each rule quotes what it
#   enforces: artifact-contract.md, or the upstream role documents around it
#   (loop-orchestrator, doer-implement, judge-evaluate, auditor-gate SKILL.md and
#   their rubrics).
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
round_name(r) := round_dir(r) if round_dir(r) != ""

else := "the run"

# round_dir is a round's folder, "" for a flat run (or a folder that is
# not a string: a document the checker did not write).
round_dir(r) := r.dir if is_string(r.dir)

else := ""

# outcomes written by orchestrators when a stage did not run for real.
not_run := {"not-run", "dry-run"}

gates := {"pass", "fail", "needs-human"}

verdicts := {"pass", "reject", "needs-human"}

# METADATA
# title: Pass over open items
# description: >-
#   A verdict of pass has no required_changes and no requirements_missing: each says the
#   work is not done. judge-evaluate scoring-rubric.md, Decision Guidance: "pass: No
#   failing required checks; No unmet task-critical behavior". A failed smoke check in the
#   round's handoff.json under a pass is a warning: the rubric's required checks are the
#   judge's own, which may have passed on a re-run (doer-implement SKILL.md: "If a smoke
#   check fails, include that fact in handoff.json"). Nothing in the round shows that
#   re-run, so the warning asks for a person (scoring-rubric.md: "needs-human: Evidence is
#   incomplete and cannot be reproduced reliably"; smoke-check-guidelines.md: "Never
#   convert failures into prose-only caveats"). So is a smoke check whose status is
#   unknown, or skip with no reason in notes: nothing shows the check passed, and a skip
#   must say why (smoke-check-guidelines.md: "mark as `skip` with reason in `notes`";
#   "Use only statuses: `pass`, `fail`, `skip`, `unknown`"). A smoke check is read as
#   failed by its exit_code too (other than 0) and by passed, ok or success false, whatever
#   its status says (auditor-gate artifact-contract.md, command results: "`command`,
#   `status`, `exit_code`"; smoke-check-guidelines.md: "Never convert failures into
#   prose-only caveats"). A reason of the judge's own whose status, result, outcome,
#   passed, ok or success says fail or false, under a pass, is a warning that asks for a
#   person too: the judge reports a failed check and passes the round over it
#   (scoring-rubric.md, Decision Guidance: "pass: No failing required checks").
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
	how := smoke_failed(check)
	item := {
		"msg": sprintf("verdict is pass but smoke check %d (%q) of %s %s; a person must confirm that the check passes now", [i, object.get(check, "command", ""), r.files.handoff, how]),
		"file": r.files.verdict,
		"pointer": "/verdict",
		"severity": "warning",
		"needs_human": true,
	}
}

open_items contains item if {
	some r in rounds
	r.verdict.verdict == "pass"
	some i, check in lib.items(r.handoff.smoke_checks)
	why := unproven_smoke(check, r.handoff)
	item := {
		"msg": sprintf("verdict is pass but smoke check %d (%q) of %s %s; a person must confirm that the check passes", [i, object.get(check, "command", ""), r.files.handoff, why]),
		"file": r.files.verdict,
		"pointer": "/verdict",
		"severity": "warning",
		"needs_human": true,
	}
}

# smoke_failed says how a smoke check shows it failed: its status, or an
# exit_code other than 0 (the command results of auditor-gate
# artifact-contract.md: "`command`, `status`, `exit_code`"), or passed, ok or
# success false, which a person reads as a failed check whatever its status
# says.
smoke_failed(check) := "failed" if {
	check.status == "fail"
} else := how if {
	how := exit_code_failure(check)
} else := how if {
	how := flag_failure(check)
}

# exit_code_failure says how an entry (a smoke check, a command of the
# judge's or the auditor's results) shows it failed by an exit_code other
# than 0, whatever its status says; undefined when it does not.
exit_code_failure(entry) := sprintf("has exit_code %v (status %s)", [entry.exit_code, written(object.get(entry, "status", null))]) if {
	is_number(entry.exit_code)
	entry.exit_code != 0
}

# flag_failure says the same of passed, ok or success false.
flag_failure(entry) := sprintf("has %s false (status %s)", [keys[0], written(object.get(entry, "status", null))]) if {
	keys := [key | some key in flag_keys; entry[key] == false]
	count(keys) > 0
}

# Under a pass, a reason of the judge's own whose status (result, outcome,
# passed, ok, success) says fail or false: the judge passed a round over a
# check it reports failed.
open_items contains item if {
	some r in rounds
	r.verdict.verdict == "pass"
	some i, reason in lib.items(r.verdict.reasons)
	is_object(reason)
	some key in outcome_keys
	failed_word(reason[key])
	item := {
		"msg": sprintf("verdict is pass but its reason %d (check %s) has %s %s; a person must confirm that the check passes", [i, written(object.get(reason, "check", null)), key, written(reason[key])]),
		"file": r.files.verdict,
		"pointer": sprintf("/reasons/%d/%s", [i, key]),
		"severity": "warning",
		"needs_human": true,
	}
}

# unproven_smoke says why a smoke check shows no pass: its status is unknown,
# or skip with no reason, which the guidelines want in notes (the handoff's,
# or the check's own).
unproven_smoke(check, _) := "has status \"unknown\"" if check.status == "unknown"

unproven_smoke(check, handoff) := "was skipped with no reason in notes" if {
	check.status == "skip"
	not lib.filled(lib.get(handoff, "notes"))
	not lib.filled(lib.get(check, "notes"))
}

quoted(items) := concat(", ", [sprintf("%q", [x]) | some x in items])

# METADATA
# title: Reject without reason or required change
# description: >-
#   A verdict of reject gives at least one reason, so the doer knows what failed.
#   judge-evaluate SKILL.md, Output Rules: "Include concrete `reasons` with `check` and
#   `details`". An empty required_changes is a warning: scoring-rubric.md asks for a 1:1
#   mapping only "where possible", and the loop feeds the reasons back as well.
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
	some [key, severity] in [["reasons", "error"], ["required_changes", "warning"]]
	count(lib.items(r.verdict[key])) == 0
	f := lib.finding(rego.metadata.rule(), {
		"msg": sprintf("verdict is reject but %s is empty; expected at least one entry", [key]),
		"file": r.files.verdict,
		"pointer": sprintf("/%s", [key]),
		"severity": severity,
	})
}

# METADATA
# title: Audit fail without required actions
# description: >-
#   An audit gate of fail or needs-human lists in required_actions what blocks landing.
#   auditor-gate SKILL.md, Output Rules: "Provide concrete `required_actions` for `fail`
#   and `needs-human`"; artifact-contract.md, audit.json: "`required_actions` should
#   explain what blocks landing."
# custom:
#   id: h3a.gates.contract_audit_fail_without_actions
#   category: gates
#   severity: error
#   remediation: the auditor writes what must change before the work can land into required_actions
deny contains f if {
	some r in rounds
	r.audit.gate in {"fail", "needs-human"}
	count(lib.items(r.audit.required_actions)) == 0
	f := lib.finding(rego.metadata.rule(), {
		"msg": sprintf("audit gate is %s but required_actions is empty; expected what blocks landing", [r.audit.gate]),
		"file": r.files.audit,
		"pointer": "/required_actions",
	})
}

# METADATA
# title: Audit pass over required actions
# description: >-
#   An audit gate of pass whose required_actions is not empty: the contract defines that
#   list as what blocks landing, so the audit lets the work land and names what blocks it
#   in one breath. The contract says "should", and an auditor may have meant follow-ups,
#   so this is a warning, but it asks for a human: the gate cannot be read as a pass.
#   artifact-contract.md, audit.json: "`required_actions` should explain what blocks
#   landing."; auditor-gate gate-rubric.md, Core Dimensions: "Remediation clarity for
#   non-pass decisions".
# custom:
#   id: h3a.gates.contract_pass_with_required_actions
#   category: gates
#   severity: warning
#   remediation: >-
#     the auditor re-decides: either nothing blocks landing (empty required_actions, any
#     follow-up in notes) or the gate is fail or needs-human with those actions
warn contains f if {
	some r in rounds
	r.audit.gate == "pass"
	items := lib.items(r.audit.required_actions)
	count(items) > 0
	f := lib.finding(rego.metadata.rule(), {
		"msg": sprintf("audit gate is pass but required_actions lists %d item(s) that block landing: %s; a person must decide whether the work lands", [count(items), quoted(items)]),
		"file": r.files.audit,
		"pointer": "/required_actions",
		"needs_human": true,
	})
}

# METADATA
# title: Audit pass over traceability issues
# description: >-
#   An audit gate of pass whose traceability.issues is not empty, while no traceability
#   check is fail with its notes accepting it: the audit lets the work land and lists
#   traceability problems that no accepted check explains. The auditor's rules allow a
#   pass only when the traceability checks pass "or are explicitly accepted" (an accepted
#   check is one its notes name and accept, as for h3a.gates.contract_audit_gate_contradiction, and
#   its issues are the details of that failure). The contract states no rule for issues
#   of its own, so this is a warning, but it asks for a human: the gate cannot be read as
#   a pass. artifact-contract.md,
#   audit.json: "traceability": {"task_id_match", "requirements_coverage", "issues"},
#   whose example lists its issue under "gate": "fail"; auditor-gate SKILL.md, Decision
#   Rules: "`pass`: traceability and policy checks pass or are explicitly accepted",
#   "`fail`: policy, traceability, or release constraints are violated"; auditor-gate
#   gate-rubric.md, Decision Mapping: "`pass`: no failed artifact/traceability checks".
# custom:
#   id: h3a.gates.contract_pass_with_traceability_issues
#   category: gates
#   severity: warning
#   remediation: >-
#     the auditor re-decides: either the issues are resolved (re-run it on fixed artifacts,
#     which leaves issues empty) or the gate is fail or needs-human with the issues in
#     findings and required_actions
warn contains f if {
	some r in rounds
	r.audit.gate == "pass"
	items := lib.items(lib.get(r.audit.traceability, "issues"))
	count(items) > 0
	not accepted_traceability_failure(r.audit)
	f := lib.finding(rego.metadata.rule(), {
		"msg": sprintf("audit gate is pass but traceability.issues lists %d issue(s): %s, and no traceability check is fail and accepted in its notes; a person must decide whether the work lands", [count(items), quoted(items)]),
		"file": r.files.audit,
		"pointer": "/traceability/issues",
		"needs_human": true,
	})
}

# METADATA
# title: Audit pass over an undecided check
# description: >-
#   An audit gate of pass whose policy.artifact_integrity and traceability.task_id_match
#   are each pass, or fail and accepted in its notes: a check left unknown (or any other
#   value) was not verified, and the auditor lets the work land on it. The auditor's rules
#   allow a pass only when the checks "pass or are explicitly accepted"; the contract
#   defines unknown but states no rule for it under a pass, so this is a warning that asks
#   for a human. eval_commands and requirements_coverage stay out: this checker writes
#   them unknown itself when it cannot run or trace them, and the contract's own example
#   leaves requirements_coverage unknown.
#   artifact-contract.md, audit.json: "policy": {"artifact_integrity", "eval_commands"},
#   "traceability": {"task_id_match", "requirements_coverage", "issues"}; auditor-gate
#   artifact-contract.md: "`artifact_integrity` (`pass` | `fail` | `unknown`)"; auditor-gate
#   SKILL.md, Decision Rules: "`pass`: traceability and policy checks pass or are explicitly
#   accepted". An auditor's own extra check (policy.security_scan, which the schema leaves
#   open) is held to the same: one written as anything but "pass" or "fail" (unknown, true,
#   an object that does not say fail, a word the contract does not use) was not shown to
#   pass; one written as false, or as an object whose status or passed says fail or false,
#   is read as fail (h3a.gates.contract_audit_gate_contradiction).
# custom:
#   id: h3a.gates.contract_pass_with_undecided_check
#   category: gates
#   severity: warning
#   remediation: >-
#     the auditor runs the check and records pass or fail, or accepts it by name in the
#     notes; otherwise the gate is needs-human
warn contains f if {
	some r in rounds
	r.audit.gate == "pass"
	some [pointer, name, result] in audit_checks(r.audit)
	not name in {"eval_commands", "requirements_coverage"}
	not result in {"pass", "fail"}
	not notes_accept(r.audit, name)
	f := lib.finding(rego.metadata.rule(), {
		"msg": sprintf("audit gate is pass but its check %s is %s, neither pass nor fail, and its notes do not accept %q; a person must decide whether the work lands", [trim_prefix(pointer, "/"), written(result), name]),
		"file": r.files.audit,
		"pointer": pointer,
		"needs_human": true,
	})
}

written(x) := sprintf("%q", [x]) if is_string(x)

else := sprintf("%v", [x])

# accepted_traceability_failure holds for an audit with a traceability check
# that is fail and named and accepted in its notes: the auditor accepted it
# explicitly.
accepted_traceability_failure(a) if {
	some [pointer, name, "fail"] in audit_checks(a)
	startswith(pointer, "/traceability/")
	notes_accept(a, name)
}

# METADATA
# title: Audit without risk or policy
# description: >-
#   The contract's audit.json has risk and policy; real auditors leave them out, which
#   loses the risk level but not the gate, so it is a warning. artifact-contract.md,
#   audit.json, Required fields: "risk", "policy".
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
#   check what it claims. auditor-gate gate-rubric.md, Core Dimensions: "Traceability
#   consistency (`task_id` aligned across artifacts)"; artifact-contract.md, audit.json:
#   "traceability": {"task_id_match": ...}.
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
# title: Artifact names another task
# description: >-
#   In a contract run, task_id is identical in every handoff.json, verdict.json and
#   audit.json of every round, in summary.json and in the run folder's name
#   (<TASK_ID>-<YYYYMMDD-HHMMSS>); each one that differs from the first is reported.
#   auditor-gate gate-rubric.md, Core Dimensions: "Traceability consistency (`task_id`
#   aligned across artifacts)"; loop-orchestrator SKILL.md: "Preserve traceability from
#   task to evidence."
# custom:
#   id: h3a.traceability.contract_task_id
#   category: traceability
#   severity: error
#   traceability: task_id_match
#   remediation: >-
#     an artifact with another task's id was copied from another run; regenerate it in
#     this run, never edit the id to make it fit
deny contains f if {
	contract
	refs := lib.items(input.docs.task_ids)
	count(refs) > 1
	first := refs[0]
	some i, ref in refs
	i > 0
	ref.task_id != first.task_id
	f := lib.finding(rego.metadata.rule(), {
		"msg": sprintf("%s task_id %q differs from %s %q", [ref.file, ref.task_id, task_source(first), first.task_id]),
		"file": ref.file,
		"pointer": "/task_id",
		"task_id": first.task_id,
	})
}

# task_source names where a task id was read: a file, or the run folder's
# name (the only source without a file).
task_source(ref) := "the run folder name" if ref.file == ""

else := ref.file
