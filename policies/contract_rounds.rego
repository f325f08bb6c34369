# The rounds: each with its roles' artifacts, numbered in turn, audited after a passing judge verdict.
# (The package and its metadata: contract.rego.)
package h3a.rules.contract

import data.h3a.lib

# METADATA
# title: Round without the artifacts of its roles
# description: >-
#   Each round holds what its roles write: handoff.json always, patch.diff in the
#   orchestrator's round folders (rounds/round-<n>/), verdict.json in every round but a
#   last one the judge may still be working on (no summary.json yet, or judge_verdict
#   not-run or dry-run), and audit.json in an earlier round whose judge passed (the loop
#   went on only because the audit did not pass). loop-orchestrator SKILL.md: "Run doer
#   ... and require: `handoff.json`, `patch.diff`", "Require `verdict.json`", "Run auditor
#   ... after judge `pass`. Require `audit.json`"; doer-implement SKILL.md, Output Rules:
#   "Always produce both artifacts: `patch.diff`, `handoff.json`"; auditor-gate
#   gate-rubric.md, Core Dimensions: "Artifact integrity (`handoff.json`, `verdict.json`
#   present and valid)".
# custom:
#   id: h3a.structure.contract_round_artifact_missing
#   category: structure
#   severity: error
#   remediation: >-
#     restore the round as the orchestrator left it; a round whose role never wrote its
#     artifact did not run to the end, so re-run the loop from that round
deny contains f if {
	some [i, name] in missing_artifacts
	r := rounds[i]
	f := lib.finding(rego.metadata.rule(), {
		"msg": sprintf("%s has no %s; %s", [round_name(r), name, why_required[name]]),
		"file": round_file(r, name),
	})
}

why_required := {
	"handoff.json": "the doer writes it first, in every round",
	"patch.diff": "the doer writes it with handoff.json and the judge applies it",
	"verdict.json": "the judge writes it in every round the loop finished",
	"audit.json": "the judge passed this round, so the auditor ran before the loop went on",
}

round_file(r, name) := concat("/", [round_dir(r), name]) if round_dir(r) != ""

else := name

missing_artifacts contains [i, "handoff.json"] if {
	some i, r in rounds
	not r.files.handoff
}

missing_artifacts contains [i, "patch.diff"] if {
	some i, r in rounds
	round_dir(r) != ""
	not lib.in_tree(round_file(r, "patch.diff"))
}

missing_artifacts contains [i, "verdict.json"] if {
	some i, r in rounds
	not r.files.verdict
	judged(i)
}

missing_artifacts contains [i, "audit.json"] if {
	some i, r in rounds
	i < count(rounds) - 1
	r.verdict.verdict == "pass"
	not r.files.audit
}

# judged holds for round i when its judge must have written a verdict: an
# earlier round, or the last one once the loop ended with the judge run.
judged(i) if i < count(rounds) - 1

judged(i) if {
	i == count(rounds) - 1
	is_object(summary)
	not lib.get(summary, "judge_verdict") in not_run
}

# METADATA
# title: Rounds not numbered 1, 2, 3, ...
# description: >-
#   Round folders are numbered from 1 without gaps or repeats: a missing number is a
#   round lost after the loop ran. loop-orchestrator SKILL.md, Iterate with feedback:
#   "Feed judge/auditor required changes back to doer on the next round", and its
#   artifacts `rounds/round-*/`; the upstream run_loop.sh counts rounds from 1. A folder
#   whose number cannot be read (n null) is h3a.structure.contract_round_number, not a gap.
# custom:
#   id: h3a.structure.contract_round_gap
#   category: structure
#   severity: error
#   remediation: restore the missing round folder as the orchestrator wrote it, or re-run the loop
deny contains f if {
	numbered := [r | some r in rounds; is_number(r.n)]
	some i, r in numbered
	prev := previous_round(numbered, i)
	r.n != prev + 1
	f := lib.finding(rego.metadata.rule(), {
		"msg": gap_message(r, prev),
		"file": round_dir(r),
	})
}

previous_round(_, 0) := 0

previous_round(numbered, i) := numbered[i - 1].n if i > 0

gap_message(r, 0) := sprintf("the first round is %s, expected round-1", [round_dir(r)]) if r.n != 1

gap_message(r, prev) := sprintf("%s repeats round %d", [round_dir(r), prev]) if {
	prev > 0
	r.n == prev
}

gap_message(r, prev) := sprintf("%s follows round %d, expected round-%d: a round is missing", [round_dir(r), prev, prev + 1]) if {
	prev > 0
	r.n > prev + 1
}

# METADATA
# title: Audit without a passing judge verdict
# description: >-
#   An auditor runs only after the judge passed the round, so a round with audit.json
#   has a verdict.json whose verdict is pass. loop-orchestrator SKILL.md, Run auditor
#   gate: "Run auditor in read-only mode after judge `pass`"; auditor-gate SKILL.md: "Use
#   when implementation already has a judge verdict".
# custom:
#   id: h3a.gates.contract_audit_before_pass
#   category: gates
#   severity: error
#   remediation: >-
#     the audit belongs to a round the judge passed: restore that round's verdict.json,
#     or remove the audit written out of turn and re-run the loop
deny contains f if {
	some r in rounds
	r.files.audit
	msg := audit_out_of_turn(r)
	f := lib.finding(rego.metadata.rule(), {"msg": msg, "file": r.files.audit, "pointer": "/gate"})
}

audit_out_of_turn(r) := sprintf("%s holds audit.json but no verdict.json: the auditor ran before the judge", [round_name(r)]) if {
	not r.files.verdict
} else := sprintf("the auditor ran although %s verdict is %q; it runs only after a pass", [r.files.verdict, v]) if {
	v := r.verdict.verdict
	v in verdicts
	v != "pass"
}

# METADATA
# title: Audit gate contradicts its own checks
# description: >-
#   An audit's gate follows from its own results: pass only when no policy or
#   traceability check failed, unless its notes name the failed check and say it is
#   accepted (or waived): notes that only name it, or deny the acceptance ("not
#   accepted", "unacceptable"), report the failure and accept nothing;
#   fail only with a failed check or a finding to show for it. auditor-gate
#   gate-rubric.md, Decision Mapping: "`pass`: no failed artifact/traceability checks, no
#   failed required policy checks", "`fail`: deterministic policy/traceability violation
#   exists"; auditor-gate SKILL.md, Decision Rules: "traceability and policy checks pass
#   or are explicitly accepted".
# custom:
#   id: h3a.gates.contract_audit_gate_contradiction
#   category: gates
#   severity: error
#   remediation: >-
#     re-run the auditor: a failed check makes the gate fail (or the notes say why the
#     check is accepted), a fail names the violation in findings
deny contains f if {
	some item in audit_contradictions
	f := lib.finding(rego.metadata.rule(), item)
}

# audit_checks lists [pointer, name, result] of an audit's own checks, each
# result read as the outcome it spells (check_result).
audit_checks(a) := [[sprintf("/%s/%s", [group, name]), name, check_result(result)] |
	some group in ["policy", "traceability"]
	checks := lib.get(a, group)
	is_object(checks)
	some name, result in checks
	name != "issues"
]

# check_result reads a check's result as the outcome it spells in another case,
# with other spacing or as a participle ("FAIL", "Failed", " fail "): the schema
# holds only the contract's own check names to the enum, and an auditor's extra
# check (policy.security_scan) is read by a person as failed all the same.
# auditor-gate artifact-contract.md: "(`pass` | `fail` | `unknown`)". So is a
# check written as the JSON boolean false, or as an object whose status,
# result, outcome, passed, ok or success says fail or false: a person reads
# false, {"status": "fail"} or {"passed": false} as a failed check. Neither
# form is the contract's, so neither is read as a pass: true, an object that
# says pass, and any other value are kept as written
# (h3a.gates.contract_pass_with_undecided_check asks a person about them under
# a pass).
check_result(x) := "fail" if {
	failed_word(x)
} else := "pass" if {
	is_string(x)
	regex.match(`^pass(es|ed|ing)?$`, lower(trim_space(x)))
} else := "fail" if {
	is_object(x)
	some key in outcome_keys
	failed_word(x[key])
} else := x

# outcome_keys are the keys of a check written as an object that say how it
# went; flag_keys those of them that hold true or false.
outcome_keys := array.concat(["status", "result", "outcome"], flag_keys)

flag_keys := ["passed", "ok", "success"]

# read_as_fail names a failed check's value in a message: fail as the contract
# spells it, any other spelling or shape as written and read.
read_as_fail(raw) := "fail" if raw == "fail"

else := sprintf("%s (read as fail)", [written(raw)])

# failed_word holds for a string that spells fail, and for false.
failed_word(x) if {
	is_string(x)
	regex.match(`^fail(s|ed|ing|ure)?$`, lower(trim_space(x)))
}

failed_word(false)

# notes_accept holds when an audit's notes accept its check name: they name
# the check and say it is accepted (or waived). Notes that only name it,
# such as "eval_commands failed", report the failure and accept nothing; so
# do notes that deny the acceptance ("not accepted", "unacceptable", "no
# waiver") anywhere, and "acceptance" (as in acceptance tests) is no word of
# acceptance.
notes_accept(a, name) if {
	notes := lower(lib.str(lib.get(a, "notes")))
	contains(notes, lower(name))
	regex.match(accept_word, notes)
	not regex.match(denied_accept, notes)
}

accept_word := `\b(accept(s|ed|ing|able)?|waive[ds]?|waiving|waiver)\b`

denied_accept := `(\b(not|never|no|nor|cannot|can't|won't|isn't|wasn't|aren't|weren't|don't|doesn't|didn't|without)\s+((be|been|being|yet|an?|the)\s+)*|\bun)(accept|waiv)`

audit_contradictions contains item if {
	some r in rounds
	r.audit.gate == "pass"
	some [pointer, name, "fail"] in audit_checks(r.audit)
	not notes_accept(r.audit, name)
	raw := object.get(r.audit, [split(pointer, "/")[1], name], null)
	item := {
		"msg": sprintf("audit gate is pass but its check %s is %s and its notes do not accept %q", [trim_prefix(pointer, "/"), read_as_fail(raw), name]),
		"file": r.files.audit,
		"pointer": pointer,
	}
}

audit_contradictions contains item if {
	some r in rounds
	r.audit.gate == "fail"
	count([1 | some [_, _, "fail"] in audit_checks(r.audit)]) == 0
	count(lib.items(lib.get(r.audit, "findings"))) == 0
	item := {
		"msg": "audit gate is fail but no policy or traceability check failed and findings is empty; expected the violation it found",
		"file": r.files.audit,
		"pointer": "/gate",
	}
}
