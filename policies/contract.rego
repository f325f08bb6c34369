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
#   check fails, include that fact in handoff.json").
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
		"severity": "warning",
	}
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
#   loop-orchestrator SKILL.md, Run auditor gate: "Map gate status to loop outcome: `pass`
#   -> final `pass`, `fail` -> final `reject` with feedback, `needs-human` -> final
#   `needs-human`".
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
#   artifacts `rounds/round-*/`; the upstream run_loop.sh counts rounds from 1.
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
#   traceability check failed, unless its notes name the failed check as accepted;
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

# audit_checks lists [pointer, name, result] of an audit's own checks.
audit_checks(a) := [[sprintf("/%s/%s", [group, name]), name, result] |
	some group in ["policy", "traceability"]
	checks := lib.get(a, group)
	is_object(checks)
	some name, result in checks
	name != "issues"
]

audit_contradictions contains item if {
	some r in rounds
	r.audit.gate == "pass"
	some [pointer, name, "fail"] in audit_checks(r.audit)
	not contains(lower(lib.str(lib.get(r.audit, "notes"))), lower(name))
	item := {
		"msg": sprintf("audit gate is pass but its check %s is fail and its notes do not accept %q", [trim_prefix(pointer, "/"), name]),
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

# METADATA
# title: The loop stopped and needs a human
# description: >-
#   A contract run whose record says the loop stopped without success waits for a
#   person: summary.json final_verdict needs-human, or reject (the summary is written
#   once no further round will run), or, in the last round, an auditor's gate or a
#   judge's verdict of needs-human. The gate is needs-human (exit 3). artifact-contract.md,
#   verdict.json and audit.json Rules: "`verdict` must be `pass|reject|needs-human`",
#   "`gate` must be `pass|fail|needs-human`"; judge-evaluate scoring-rubric.md:
#   "`needs-human`: Requirements are ambiguous or conflicting"; loop-orchestrator SKILL.md:
#   "Cap iterations with `--max-rounds`", "`needs-human` -> final `needs-human`".
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
