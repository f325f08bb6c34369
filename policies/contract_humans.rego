# Where a person decides: a loop that stopped, and decisions claimed by the change under review.
# (The package and its metadata: contract.rego.)
package h3a.rules.contract

import data.h3a.lib

# METADATA
# title: The loop stopped and needs a human
# description: >-
#   A contract run whose record says the loop stopped without success waits for a
#   person: summary.json final_verdict needs-human, or reject (the summary is written
#   once no further round will run), or, in the last round, an auditor's gate or a
#   judge's verdict of needs-human. So does a last round the judge passed that holds
#   no audit.json in a run without summary.json: the auditor runs by default after a
#   pass, and only the summary records that it was disabled (audit_enabled false), so
#   nothing says the change was meant to land unaudited. The gate is needs-human
#   (exit 3). artifact-contract.md, verdict.json and audit.json Rules: "`verdict` must
#   be `pass|reject|needs-human`", "`gate` must be `pass|fail|needs-human`", summary.json:
#   "audit_enabled": true; judge-evaluate scoring-rubric.md: "`needs-human`: Requirements
#   are ambiguous or conflicting"; loop-orchestrator SKILL.md: "Cap iterations with
#   `--max-rounds`", "`needs-human` -> final `needs-human`", "Run auditor gate
#   (default)", "Run auditor in read-only mode after judge `pass`", "Disable auditor
#   stage only when explicitly needed", "Persist `summary.json` with judge and audit
#   outcomes".
# custom:
#   id: h3a.gates.contract_needs_human
#   category: gates
#   severity: warning
#   remediation: >-
#     a person reads the last round's verdict.json and audit.json, decides, and starts a
#     new run (or lands the change by hand); the record itself is not edited
warn contains f if {
	item := stopped
	f := lib.finding(rego.metadata.rule(), object.union(item, {"needs_human": true}))
}

stopped := item if {
	final := summary.final_verdict
	final in {"reject", "needs-human"}
	item := {
		"msg": sprintf("the loop ended with final_verdict %q after %d round(s): %s", [final, count(rounds), stop_reason[final]]),
		"file": "summary.json",
		"pointer": "/final_verdict",
	}
} else := item if {
	last_round.audit.gate == "needs-human"
	item := {
		"msg": sprintf("the auditor's gate in %s is needs-human: a person must decide whether the change lands", [round_name(last_round)]),
		"file": last_round.files.audit,
		"pointer": "/gate",
	}
} else := item if {
	last_round.verdict.verdict == "needs-human"
	item := {
		"msg": sprintf("the judge's verdict in %s is needs-human: a person must settle what the judge could not", [round_name(last_round)]),
		"file": last_round.files.verdict,
		"pointer": "/verdict",
	}
} else := item if {
	unaudited_pass
	item := {
		"msg": sprintf("the judge passed %s and no audit.json follows: the auditor runs after a judge's pass unless the loop is run with --skip-audit, which only summary.json records (audit_enabled false), and the run has no summary.json, so the change was never audited and a person must decide whether it lands", [round_name(last_round)]),
		"file": last_round.files.verdict,
		"pointer": "/verdict",
	}
}

# unaudited_pass: the last round's judge passed, no audit.json follows, and no
# summary.json says the audit was disabled. The summary is the only record of
# --skip-audit; a run without one (still running, or stopped) has nothing that
# says the auditor was meant to stay out. Under --write-audit the checker is
# that auditor (params.writing_audit), and the missing audit.json is its own.
unaudited_pass if {
	not summary
	last_round.verdict.verdict == "pass"
	not last_round.files.audit
	not input.params.writing_audit == true
}

stop_reason := {
	"reject": "no further round will run and the change was not accepted, so a person decides what next",
	"needs-human": "the loop asks for a person",
}

# METADATA
# title: A person's decision claimed by the change under review
# description: >-
#   A round that follows a round whose judge's verdict or auditor's gate was needs-human
#   records a person's decision: the loop went on only because someone settled what the
#   judge or the auditor could not. It counts only when its provenance lies outside the
#   change under review: the base revision holds the round's documents, every line of them
#   came in a commit signed by a key the base's configuration names as a human's (humans:
#   allowed-signers or gpg-fingerprints), or the check runs on the person's own working
#   tree (docs/trust-model.md; the checker gives docs.provenance). Otherwise the decision
#   is claimed and the gate needs a human. artifact-contract.md, verdict.json and
#   audit.json Rules: "`verdict` must be `pass|reject|needs-human`", "`gate` must be
#   `pass|fail|needs-human`"; loop-orchestrator SKILL.md: "`needs-human` -> final
#   `needs-human`"; judge-evaluate scoring-rubric.md: "`needs-human`: Requirements are
#   ambiguous or conflicting".
# custom:
#   id: h3a.security.contract_human_claimed
#   category: security
#   severity: warning
#   remediation: >-
#     a reviewer confirms with the person who settled the needs-human round that they did;
#     the person commits the next round signed with a key that the allowed signers file
#     named by .h3a-check.yaml humans.allowed-signers lists at the base (git commit -S)
warn contains f if {
	some i, r in rounds
	i > 0
	prev := rounds[i - 1]
	asks_for_person(prev)
	claimed := [file | some role in ["handoff", "verdict", "audit"]; file := r.files[role]; not decided_document(file)]
	count(claimed) > 0
	f := lib.finding(rego.metadata.rule(), {
		"msg": sprintf(
			"a human decision claimed in this change; a reviewer must confirm it: %s goes on after %s asked for a person (%s), and %s came from the change under review, not from a commit signed by a key the base names as a human's",
			[round_name(r), round_name(prev), person_reason(prev), concat(", ", claimed)],
		),
		"file": claimed[0],
		"needs_human": true,
	})
}

asks_for_person(r) if r.verdict.verdict == "needs-human"

asks_for_person(r) if r.audit.gate == "needs-human"

person_reason(r) := "the judge's verdict is needs-human" if r.verdict.verdict == "needs-human"

else := "the auditor's gate is needs-human"

# decided_document(file): the document's provenance lies outside the change.
decided_document(file) if input.docs.provenance[file] in lib.decided_provenance
