# summary.json against the rounds it sums up: present, counted, final verdict, audit gate, judge verdict, traced requirements.
# (The package and its metadata: contract.rego.)
package h3a.rules.contract

import data.h3a.lib

# METADATA
# title: Contract run without summary.json
# description: >-
#   A contract run with rounds/ has no summary.json: the orchestrator writes it when the
#   loop ends, so a round failed or the loop is still running. artifact-contract.md,
#   summary.json: "Produced by orchestrator after loop completion."
# custom:
#   id: h3a.structure.contract_summary_missing
#   category: structure
#   severity: warning
#   remediation: look at the last round's artifacts to see why the loop stopped; re-run the loop to get a summary
warn contains f if {
	contract
	not input.files["summary.json"].present
	count(rounds) > 0
	rounds[0].dir != ""
	last := rounds[count(rounds) - 1]
	held := [sprintf("%s.json", [role]) | some role in ["handoff", "verdict", "audit"]; last.files[role]]
	f := lib.finding(rego.metadata.rule(), {"msg": sprintf("summary.json is missing: the loop did not finish (the last round is %s, holding %s)", [last.dir, concat(", ", held)])})
}

# METADATA
# title: summary.json inside the rounds
# description: >-
#   A file named summary.json sits under rounds/ (rounds/round-2/summary.json), where the
#   check reads no summary: it reads the one at the run's top level, which the
#   orchestrator writes once, when the loop ends. What the other one says (a final
#   verdict of reject, a failed audit gate) would go unread, beside a top-level summary
#   or in its place; which of them the loop meant cannot be told from the files, so a
#   person decides (needs-human). artifact-contract.md, summary.json: "Produced by
#   orchestrator after loop completion"; loop-orchestrator SKILL.md: "Persist
#   `summary.json` with judge and audit outcomes"; artifact-contract-upstream-docs
#   README: summary.json sits at the run's top level.
# custom:
#   id: h3a.structure.contract_summary_in_round
#   category: structure
#   severity: warning
#   remediation: >-
#     keep one summary.json, at the run's top level, the one that says how the loop
#     ended; remove the other
warn contains f if {
	contract
	some p in lib.items(input.tree)
	startswith(p, "rounds/")
	parts := split(p, "/")
	lower(parts[count(parts) - 1]) == "summary.json"
	f := lib.finding(rego.metadata.rule(), {
		"msg": sprintf("%s is a summary.json under rounds/, which the check does not read: %s; what it says goes unread, so a person must decide which summary holds", [p, summary_in_round_why]),
		"file": p,
		"needs_human": true,
	})
}

summary_in_round_why := "the run's top-level summary.json is the one read" if {
	input.files["summary.json"].present
} else := "the run has no top-level summary.json, the one the orchestrator writes when the loop ends"

# METADATA
# title: Touched requirement not traced
# description: >-
#   Every requirement in a round's handoff.json requirements_touched is in the same
#   round's verdict.json requirements_checked or requirements_missing.
#   loop-orchestrator SKILL.md, Iterate with feedback: "Keep requirement-ID traceability
#   across artifacts (`requirements_touched` -> `requirements_checked|requirements_missing`)".
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
# description: >-
#   summary.json rounds_completed equals the number of rounds in the run (a dry run,
#   final_verdict dry-run, writes no round artifacts and is not compared).
#   artifact-contract.md, summary.json: "rounds_completed": 2, "Produced by orchestrator
#   after loop completion".
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
	summary.final_verdict != "dry-run"
	n != count(rounds)
	f := lib.finding(rego.metadata.rule(), {
		"msg": sprintf("summary.json rounds_completed is %v but the run holds %d round(s)", [n, count(rounds)]),
		"file": "summary.json",
		"pointer": "/rounds_completed",
	})
}

# expected_final is the final verdict the last round gives, with why. The
# last round's audit decides before the summary's audit_enabled: the summary
# is written by the run itself and cannot vouch that no audit ran, so
# "disabled" counts only where the round holds no audit.json at all.
expected_final := [v, sprintf("the last round's judge verdict is %q", [v])] if {
	v := last_round.verdict.verdict
	v in {"reject", "needs-human"}
} else := [final_of_gate[g], sprintf("the judge passed the last round and its audit gate is %q%s", [g, despite_disabled])] if {
	last_round.verdict.verdict == "pass"
	g := last_round.audit.gate
	final_of_gate[g]
} else := ["pass", "the judge passed the last round, which holds no audit.json, and the audit is disabled"] if {
	last_round.verdict.verdict == "pass"
	summary.audit_enabled == false
	not last_round.files.audit
} else := ["", "the last round has no audit.json although the judge passed it and the audit is enabled"] if {
	last_round.verdict.verdict == "pass"
	not is_object(last_round.audit)
	not summary.audit_enabled == false
}

# despite_disabled: a summary that says the audit was disabled over an audit
# that ran is named, so the reader sees why the gate counts.
despite_disabled := " (audit_enabled false does not hide an audit that ran)" if summary.audit_enabled == false

else := ""

final_of_gate := {"pass": "pass", "fail": "reject", "needs-human": "needs-human"}

# METADATA
# title: final_verdict does not follow from the last round
# description: >-
#   summary.json final_verdict follows from the last round: the judge's reject or
#   needs-human; when the judge passed, the gate of the round's audit.json (pass, fail
#   gives reject, needs-human), whatever the summary's audit_enabled says, and pass if the
#   round holds no audit.json and the audit is disabled. pass only when the judge passed and
#   the audit passed or was disabled. not-run and dry-run are accepted as written, but not
#   over a last round that gives reject or needs-human: the judge (or the auditor) ran and
#   said the change does not land, and a final_verdict that says no verdict was reached
#   would let it pass the gate; nor over a last round the judge passed that holds no
#   audit.json while the audit is enabled: the judge ran, and the audit the final verdict
#   would follow was skipped. loop-orchestrator SKILL.md, Run auditor gate: "Map gate
#   status to loop outcome: `pass` -> final `pass`, `fail` -> final `reject` with
#   feedback, `needs-human` -> final `needs-human`"; artifact-contract.md, verdict.json
#   Rules: "`verdict` must be `pass|reject|needs-human`", summary.json: "Produced by
#   orchestrator after loop completion", "final_verdict": "reject".
# custom:
#   id: h3a.gates.contract_final_verdict
#   category: gates
#   severity: error
#   remediation: >-
#     the summary was written from stale or wrong outcomes; re-run the orchestrator's
#     summary step, never edit the verdict by hand
deny contains f if {
	some msg in final_verdict_problems
	f := lib.finding(rego.metadata.rule(), {"msg": msg, "file": "summary.json", "pointer": "/final_verdict"})
}

final_verdict_problems contains msg if {
	final := summary.final_verdict
	is_string(final)
	not final in not_run
	[want, why] := expected_final
	final != want
	msg := sprintf("summary.json final_verdict is %q but %s%s", [final, why, expected_suffix(want)])
}

# A not-run or dry-run final verdict over a last round that did not pass
# would turn a rejected change into a pass.
final_verdict_problems contains msg if {
	final := summary.final_verdict
	final in not_run
	[want, why] := expected_final
	want in {"reject", "needs-human"}
	msg := sprintf("summary.json final_verdict is %q but %s%s: the loop reached a verdict, and %q would let a change that did not pass land", [final, why, expected_suffix(want), final])
}

# Nor over a last round the judge passed and the enabled audit never gated:
# the judge ran, so this is no dry run, and the audit it skipped is the gate.
final_verdict_problems contains msg if {
	final := summary.final_verdict
	final in not_run
	[want, why] := expected_final
	want == ""
	msg := sprintf("summary.json final_verdict is %q but %s: the judge ran, so the loop was no dry run, and %q would let a change the auditor never gated land", [final, why, final])
}

expected_suffix("") := ""

expected_suffix(want) := sprintf(", so it should be %q", [want]) if want != ""

# METADATA
# title: Audit in a run whose summary says the audit was disabled
# description: >-
#   summary.json audit_enabled is false, which says the loop ran with the auditor stage
#   skipped, yet a round holds an audit.json: an auditor ran. The summary is written by the
#   run itself and cannot vouch that no audit ran, so the audit counts (its gate decides
#   the final verdict, h3a.gates.contract_final_verdict) and the summary's claim is an
#   error. loop-orchestrator SKILL.md, Run auditor gate (default): "Run auditor in
#   read-only mode after judge `pass`", "Require `audit.json`", "Disable auditor stage only
#   when explicitly needed: ... `--skip-audit`"; artifact-contract.md, summary.json:
#   "audit_enabled": true.
# custom:
#   id: h3a.gates.contract_audit_disabled_contradiction
#   category: gates
#   severity: error
#   remediation: >-
#     the summary does not match the rounds: find out whether the loop ran with --skip-audit
#     (then the audit.json came from elsewhere: remove it and re-run the loop) or with the
#     auditor (then re-run the orchestrator's summary step so audit_enabled is true)
deny contains f if {
	summary.audit_enabled == false
	audits := [r.files.audit | some r in rounds; r.files.audit]
	count(audits) > 0
	f := lib.finding(rego.metadata.rule(), {
		"msg": sprintf("summary.json says audit_enabled false, but %s exists: an auditor ran, so its gate counts and the summary's claim that the audit was disabled is wrong", [audit_list(audits)]),
		"file": "summary.json",
		"pointer": "/audit_enabled",
	})
}

audit_list(audits) := audits[0] if count(audits) == 1

else := sprintf("%d audit.json files (%s)", [count(audits), concat(", ", audits)])

# METADATA
# title: audit_gate is not the last round's
# description: >-
#   summary.json audit_gate equals the gate of the last round's audit.json, and not-run
#   or dry-run only when the last round has no audit. loop-orchestrator SKILL.md,
#   Iterate with feedback: "Persist `summary.json` with judge and audit outcomes". When
#   the last round has no audit (its judge did not pass) an earlier round's gate carried
#   over is a warning: the upstream orchestrator keeps the last gate it saw.
# custom:
#   id: h3a.gates.contract_stale_audit_gate
#   category: gates
#   severity: error
#   remediation: >-
#     the orchestrator must reset audit_gate every round; re-run its summary step so
#     audit_gate is the last round's gate (or not-run)
deny contains f if {
	some item in stale_audit_gate
	f := lib.finding(rego.metadata.rule(), object.union(item, {"file": "summary.json", "pointer": "/audit_gate"}))
}

stale_audit_gate contains item if {
	gate := summary.audit_gate
	gate in gates
	last := last_round
	last_gate := audit_gate_of(last)
	gate != last_gate
	item := {
		"msg": sprintf("summary.json audit_gate %q is not the last round's: %s%s", [gate, last_gate_text(last, last_gate), earlier_source(gate)]),
		"severity": carried_over_severity(gate, last_gate),
	}
}

stale_audit_gate contains item if {
	gate := summary.audit_gate
	gate in not_run
	last := last_round
	last_gate := last.audit.gate
	last_gate in gates
	item := {"msg": sprintf("summary.json audit_gate is %q but %s", [gate, last_gate_text(last, last_gate)]), "severity": "error"}
}

# carried_over_severity: an earlier round's gate kept while the last round
# had no audit is what the upstream orchestrator writes, so only a warning.
carried_over_severity(gate, last_gate) := "warning" if {
	last_gate == null
	some i, r in rounds
	i < count(rounds) - 1
	r.audit.gate == gate
} else := "error"

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
# description: >-
#   summary.json judge_verdict equals the verdict of the last round's verdict.json
#   (not-run and dry-run are accepted as written). loop-orchestrator SKILL.md, Iterate
#   with feedback: "Persist `summary.json` with judge and audit outcomes".
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
