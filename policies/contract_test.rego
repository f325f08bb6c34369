package h3a.tests.contract

import data.h3a.rules.contract
import data.h3a.test
import data.h3a.test.fixture

v2 := "rounds/round-2/verdict.json"

a2 := "rounds/round-2/audit.json"

# findings lists what ops break, but the warning that the loop stopped and
# needs a human, which stops(ops) lists: a run may be broken and stopped.
findings(ops) := {f | some f in all_of(ops); not f.needs_human}

stops(ops) := {f | some f in all_of(ops); f.needs_human}

all_of(ops) := fs if {
	deny := contract.deny with input as test.patch_contract(ops)
	warn := contract.warn with input as test.patch_contract(ops)
	fs := deny | warn
}

# located lists [rule, file, pointer] of the findings of ops.
located(ops) := {[f.rule, f.file, object.get(f, "pointer", "")] | some f in findings(ops)}

test_contract_run_is_clean if {
	count(test.all_findings) == 0 with input as fixture.contract_rounds
}

test_quiet_on_other_layouts if {
	count(contract.deny) == 0 with input as fixture.complete
	count(contract.warn) == 0 with input as fixture.complete
	count(contract.deny) == 0 with input as fixture.fresh
}

# Rules of other layouts stay quiet on a contract run even when it is broken.
test_other_rules_quiet_on_contract if {
	fs := test.all_findings with input as test.patch_contract([
		{"op": "replace", "path": "/docs/rounds/1/verdict/verdict", "value": "reject"},
		{"op": "replace", "path": "/docs/task_ids_agree", "value": false},
	])
	every f in fs {
		contains(f.rule, ".contract_")
	}
}

test_pass_with_open_items if {
	located([
		{"op": "add", "path": "/docs/rounds/1/verdict/required_changes/-", "value": "rename x"},
		{"op": "add", "path": "/docs/rounds/1/verdict/requirements_missing/-", "value": "NFR-1"},
	]) == {
		["h3a.gates.contract_pass_with_open_items", v2, "/required_changes"],
		["h3a.gates.contract_pass_with_open_items", v2, "/requirements_missing"],
	}
}

# A failed smoke check in a rejected round is what the reject is about.
test_failed_smoke_in_rejected_round_is_fine if {
	fixture.contract_rounds.docs.rounds[0].handoff.smoke_checks[0].status == "fail"
	count(findings([])) == 0
}

test_reject_without_reason if {
	located([
		{"op": "replace", "path": "/docs/rounds/0/verdict/reasons", "value": []},
		{"op": "replace", "path": "/docs/rounds/0/verdict/required_changes", "value": []},
	]) == {
		["h3a.gates.contract_reject_without_reason", "rounds/round-1/verdict.json", "/reasons"],
		["h3a.gates.contract_reject_without_reason", "rounds/round-1/verdict.json", "/required_changes"],
	}
}

test_audit_fail_without_actions if {
	located([
		{"op": "replace", "path": "/docs/rounds/1/audit/gate", "value": "fail"},
		{"op": "replace", "path": "/docs/rounds/1/audit/policy/eval_commands", "value": "fail"},
		{"op": "replace", "path": "/docs/summary/audit_gate", "value": "fail"},
		{"op": "replace", "path": "/docs/summary/final_verdict", "value": "reject"},
	]) == {["h3a.gates.contract_audit_fail_without_actions", a2, "/required_actions"]}
}

test_audit_fail_with_actions_is_fine if {
	count(findings([
		{"op": "replace", "path": "/docs/rounds/1/audit/gate", "value": "fail"},
		{"op": "replace", "path": "/docs/rounds/1/audit/policy/eval_commands", "value": "fail"},
		{"op": "add", "path": "/docs/rounds/1/audit/required_actions/-", "value": "add the test"},
		{"op": "replace", "path": "/docs/summary/audit_gate", "value": "fail"},
		{"op": "replace", "path": "/docs/summary/final_verdict", "value": "reject"},
	])) == 0
}

# required_actions is what blocks landing: under a pass it asks for a human.
test_audit_pass_with_required_actions if {
	ops := [{"op": "add", "path": "/docs/rounds/1/audit/required_actions/-", "value": "rotate the leaked key"}]
	count(findings(ops)) == 0
	{[f.rule, f.file, f.pointer] | some f in stops(ops)} == {["h3a.gates.contract_pass_with_required_actions", a2, "/required_actions"]}
	denies := contract.deny with input as test.patch_contract(ops)
	count(denies) == 0
	{f.msg | some f in stops(ops)} == {`audit gate is pass but required_actions lists 1 item(s) that block landing: "rotate the leaked key"; a person must decide whether the work lands`}
}

test_audit_pass_without_required_actions_is_fine if {
	count(stops([])) == 0
}

# traceability.issues lists problems the audit found: under a pass it asks for a human.
test_audit_pass_with_traceability_issues if {
	ops := [{"op": "add", "path": "/docs/rounds/1/audit/traceability/issues/-", "value": "RQ-0102 touched but not checked"}]
	count(findings(ops)) == 0
	{[f.rule, f.file, f.pointer] | some f in stops(ops)} == {["h3a.gates.contract_pass_with_traceability_issues", a2, "/traceability/issues"]}
	{f.msg | some f in stops(ops)} == {`audit gate is pass but traceability.issues lists 1 issue(s): "RQ-0102 touched but not checked", and no traceability check is fail and accepted in its notes; a person must decide whether the work lands`}
}

# The issues of a failed check the notes accept are its details.
test_audit_pass_with_accepted_traceability_issues_is_fine if {
	issue := {"op": "add", "path": "/docs/rounds/1/audit/traceability/issues/-", "value": "verdict names TASK-0043"}
	failed := {"op": "replace", "path": "/docs/rounds/1/audit/traceability/task_id_match", "value": "fail"}
	accepted := {"op": "replace", "path": "/docs/rounds/1/audit/notes", "value": "task_id_match fails on verdict.json, accepted: the judge mistyped the id"}
	count([f | some f in all_of([issue, failed, accepted]); f.rule == "h3a.gates.contract_pass_with_traceability_issues"]) == 0

	# notes that accept a policy check do not explain a traceability issue
	policy_failed := {"op": "replace", "path": "/docs/rounds/1/audit/policy/eval_commands", "value": "fail"}
	policy_accepted := {"op": "replace", "path": "/docs/rounds/1/audit/notes", "value": "eval_commands accepted"}
	count([f | some f in all_of([issue, policy_failed, policy_accepted]); f.rule == "h3a.gates.contract_pass_with_traceability_issues"]) == 1

	# a passing check named in the notes accepts nothing
	named := {"op": "replace", "path": "/docs/rounds/1/audit/notes", "value": "task_id_match checked"}
	count([f | some f in all_of([issue, named]); f.rule == "h3a.gates.contract_pass_with_traceability_issues"]) == 1
}

test_audit_fail_with_traceability_issues_is_fine if {
	ops := [
		{"op": "add", "path": "/docs/rounds/1/audit/traceability/issues/-", "value": "RQ-0102 touched but not checked"},
		{"op": "replace", "path": "/docs/rounds/1/audit/gate", "value": "fail"},
	]
	count([f | some f in all_of(ops); f.rule == "h3a.gates.contract_pass_with_traceability_issues"]) == 0
}

test_audit_pass_without_traceability_is_fine if {
	every ops in [
		[{"op": "remove", "path": "/docs/rounds/1/audit/traceability"}],
		[{"op": "remove", "path": "/docs/rounds/1/audit/traceability/issues"}],
		[{"op": "replace", "path": "/docs/rounds/1/audit/traceability/issues", "value": "none"}],
	] {
		count([f | some f in all_of(ops); f.rule == "h3a.gates.contract_pass_with_traceability_issues"]) == 0
	}
}

test_audit_incomplete_is_a_warning if {
	fs := contract.warn with input as test.patch_contract([
		{"op": "remove", "path": "/docs/rounds/1/audit/risk"},
		{"op": "remove", "path": "/docs/rounds/1/audit/policy"},
	])
	{f.msg | some f in fs} == {
		`audit.json has no "risk" object; the contract asks for it`,
		`audit.json has no "policy" object; the contract asks for it`,
	}
}

test_audit_false_task_id_match if {
	located([
		{"op": "replace", "path": "/docs/task_ids_agree", "value": false},
		{"op": "add", "path": "/docs/task_ids/-", "value": {"file": v2, "task_id": "TASK-0043"}},
	]) == {
		["h3a.traceability.contract_false_task_id_claim", a2, "/traceability/task_id_match"],
		["h3a.traceability.contract_task_id", v2, "/task_id"],
	}
}

# Each task id that differs from the first one read (the run folder's name,
# else summary.json, else the rounds' artifacts in order) is reported at its
# file, naming the task the run is about.
test_task_id if {
	ops := [
		{"op": "replace", "path": "/docs/task_ids/3/task_id", "value": "TASK-0043"},
		{"op": "replace", "path": "/docs/task_ids/5/task_id", "value": "TASK-0044"},
		{"op": "replace", "path": "/docs/rounds/1/audit/traceability/task_id_match", "value": "fail"},
	]
	fs := {[f.rule, f.file, f.pointer, f.task_id, f.msg] | some f in findings(ops); f.rule == "h3a.traceability.contract_task_id"}
	fs == {
		["h3a.traceability.contract_task_id", "rounds/round-1/verdict.json", "/task_id", "TASK-0042", `rounds/round-1/verdict.json task_id "TASK-0043" differs from the run folder name "TASK-0042"`],
		["h3a.traceability.contract_task_id", v2, "/task_id", "TASK-0042", `rounds/round-2/verdict.json task_id "TASK-0044" differs from the run folder name "TASK-0042"`],
	}
}

test_task_id_first_read_from_a_file if {
	msgs := {f.msg |
		some f in findings([{"op": "replace", "path": "/docs/task_ids", "value": [
			{"file": "summary.json", "task_id": "TASK-0042"},
			{"file": "rounds/round-1/handoff.json", "task_id": "TASK-0043"},
		]}])
		f.rule == "h3a.traceability.contract_task_id"
	}
	msgs == {`rounds/round-1/handoff.json task_id "TASK-0043" differs from summary.json "TASK-0042"`}
}

test_one_task_id_or_none_is_fine if {
	count(findings([{"op": "replace", "path": "/docs/task_ids", "value": [{"file": "", "task_id": "TASK-7"}]}])) == 0
	count(findings([{"op": "replace", "path": "/docs/task_ids", "value": []}])) == 0
}

test_summary_missing if {
	fs := findings([
		{"op": "replace", "path": "/files/summary.json/present", "value": false},
		{"op": "replace", "path": "/docs/summary", "value": null},
	])
	{[f.rule, object.get(f, "file", "")] | some f in fs} == {["h3a.structure.contract_summary_missing", ""]}
	{f.msg | some f in fs} == {"summary.json is missing: the loop did not finish (the last round is rounds/round-2, holding handoff.json, verdict.json, audit.json)"}
}

test_summary_missing_names_what_the_last_round_holds if {
	{f.msg |
		some f in findings([
			{"op": "replace", "path": "/files/summary.json/present", "value": false},
			{"op": "replace", "path": "/docs/summary", "value": null},
			{"op": "remove", "path": "/docs/rounds/1"},
		])
		f.rule == "h3a.structure.contract_summary_missing"
	} == {"summary.json is missing: the loop did not finish (the last round is rounds/round-1, holding handoff.json, verdict.json)"}
}

# A flat run (its documents at the top, no rounds/) has no loop to finish.
test_summary_not_expected_without_rounds if {
	count({f |
		some f in findings([
			{"op": "replace", "path": "/files/summary.json/present", "value": false},
			{"op": "replace", "path": "/docs/summary", "value": null},
			{"op": "replace", "path": "/docs/rounds/0/dir", "value": ""},
		])
		f.rule == "h3a.structure.contract_summary_missing"
	}) == 0
}

test_audit_that_saw_the_mismatch_is_fine if {
	count(findings([
		{"op": "replace", "path": "/docs/task_ids_agree", "value": false},
		{"op": "replace", "path": "/docs/rounds/1/audit/traceability/task_id_match", "value": "fail"},
		{"op": "replace", "path": "/docs/rounds/1/audit/gate", "value": "fail"},
		{"op": "add", "path": "/docs/rounds/1/audit/required_actions/-", "value": "align the task ids"},
		{"op": "replace", "path": "/docs/summary/audit_gate", "value": "fail"},
		{"op": "replace", "path": "/docs/summary/final_verdict", "value": "reject"},
	])) == 0
}

test_requirement_untraced if {
	fs := findings([{"op": "add", "path": "/docs/rounds/1/handoff/requirements_touched/-", "value": "RQ-9"}])
	[f] := [f | some f in fs]
	f.rule == "h3a.traceability.contract_requirement_untraced"
	f.pointer == "/requirements_touched/1"
	f.msg == `requirement "RQ-9" is touched but rounds/round-2/verdict.json lists it in neither requirements_checked nor requirements_missing`
}

test_requirement_reported_missing_is_traced if {
	fixture.contract_rounds.docs.rounds[0].verdict.requirements_missing == ["RQ-0102"]
	count(findings([])) == 0
}

test_rounds_completed if {
	located([{"op": "replace", "path": "/docs/summary/rounds_completed", "value": 1}]) == {["h3a.structure.contract_rounds_completed", "summary.json", "/rounds_completed"]}
}

test_final_verdict if {
	located([{"op": "replace", "path": "/docs/summary/final_verdict", "value": "reject"}]) == {["h3a.gates.contract_final_verdict", "summary.json", "/final_verdict"]}
}

test_final_pass_needs_an_audit if {
	fs := findings([
		{"op": "replace", "path": "/docs/rounds/1/audit", "value": null},
		{"op": "replace", "path": "/docs/summary/audit_gate", "value": "not-run"},
	])
	[f] := [f | some f in fs]
	f.msg == `summary.json final_verdict is "pass" but the last round has no audit.json although the judge passed it and the audit is enabled`
}

test_final_pass_with_audit_disabled if {
	count(findings([
		{"op": "replace", "path": "/docs/rounds/1/audit", "value": null},
		{"op": "remove", "path": "/docs/rounds/1/files/audit"},
		{"op": "replace", "path": "/docs/summary/audit_gate", "value": "not-run"},
		{"op": "replace", "path": "/docs/summary/audit_enabled", "value": false},
	])) == 0
}

# The summary cannot vouch that no audit ran: a failed audit of the last
# round decides the final verdict even where audit_enabled is false.
test_failed_audit_decides_although_disabled if {
	fs := findings([
		{"op": "replace", "path": "/docs/rounds/1/audit/gate", "value": "fail"},
		{"op": "replace", "path": "/docs/rounds/1/audit/policy/artifact_integrity", "value": "fail"},
		{"op": "add", "path": "/docs/rounds/1/audit/required_actions/-", "value": "remove the secret"},
		{"op": "replace", "path": "/docs/summary/audit_enabled", "value": false},
		{"op": "replace", "path": "/docs/summary/audit_gate", "value": "fail"},
	])
	{[f.rule, f.pointer] | some f in fs} == {
		["h3a.gates.contract_final_verdict", "/final_verdict"],
		["h3a.gates.contract_audit_disabled_contradiction", "/audit_enabled"],
	}
	some f in fs
	f.rule == "h3a.gates.contract_final_verdict"
	f.msg == `summary.json final_verdict is "pass" but the judge passed the last round and its audit gate is "fail" (audit_enabled false does not hide an audit that ran), so it should be "reject"`
}

test_audit_disabled_contradiction if {
	fs := findings([{"op": "replace", "path": "/docs/summary/audit_enabled", "value": false}])
	[f] := [f | some f in fs]
	f.rule == "h3a.gates.contract_audit_disabled_contradiction"
	f.file == "summary.json"
	f.msg == "summary.json says audit_enabled false, but rounds/round-2/audit.json exists: an auditor ran, so its gate counts and the summary's claim that the audit was disabled is wrong"
}

test_audit_disabled_contradiction_names_every_audit if {
	fs := findings([
		{"op": "add", "path": "/docs/rounds/0/audit", "value": {"gate": "fail", "required_actions": ["x"], "findings": [{"category": "policy", "details": "y"}], "risk": {}, "policy": {}}},
		{"op": "add", "path": "/docs/rounds/0/files/audit", "value": "rounds/round-1/audit.json"},
		{"op": "replace", "path": "/docs/summary/audit_enabled", "value": false},
	])
	[f] := [f | some f in fs; f.rule == "h3a.gates.contract_audit_disabled_contradiction"]
	contains(f.msg, "2 audit.json files (rounds/round-1/audit.json, rounds/round-2/audit.json)")
}

# An audit.json that did not parse still ran: audit_enabled false is
# contradicted, and no final verdict is guessed from "disabled".
test_unreadable_audit_under_disabled if {
	located([
		{"op": "replace", "path": "/docs/rounds/1/audit", "value": null},
		{"op": "replace", "path": "/docs/summary/audit_gate", "value": "not-run"},
		{"op": "replace", "path": "/docs/summary/audit_enabled", "value": false},
	]) == {["h3a.gates.contract_audit_disabled_contradiction", "summary.json", "/audit_enabled"]}
}

test_final_not_run_is_accepted if {
	count(findings([{"op": "replace", "path": "/docs/summary/final_verdict", "value": "dry-run"}])) == 0
}

# A judge that rejected the last round is not hidden by a final verdict of
# not-run or dry-run.
test_final_not_run_over_a_reject if {
	some final in ["not-run", "dry-run"]
	fs := findings([
		{"op": "replace", "path": "/docs/rounds/1/verdict/verdict", "value": "reject"},
		{"op": "replace", "path": "/docs/rounds/1/verdict/required_changes", "value": ["x"]},
		{"op": "replace", "path": "/docs/rounds/1/audit", "value": null},
		{"op": "remove", "path": "/docs/rounds/1/files/audit"},
		{"op": "replace", "path": "/docs/summary/judge_verdict", "value": "reject"},
		{"op": "replace", "path": "/docs/summary/audit_gate", "value": "not-run"},
		{"op": "replace", "path": "/docs/summary/final_verdict", "value": final},
	])
	[f] := [f | some f in fs]
	f.rule == "h3a.gates.contract_final_verdict"
	f.pointer == "/final_verdict"
	f.msg == sprintf(`summary.json final_verdict is %q but the last round's judge verdict is "reject", so it should be "reject": the loop reached a verdict, and %q would let a change that did not pass land`, [final, final])
}

# not-run over a failed audit is caught too; over a passed round it stays accepted.
test_final_not_run_over_a_failed_audit if {
	located([
		{"op": "replace", "path": "/docs/rounds/1/audit/gate", "value": "fail"},
		{"op": "replace", "path": "/docs/rounds/1/audit/required_actions", "value": ["x"]},
		{"op": "replace", "path": "/docs/rounds/1/audit/findings", "value": [{"category": "policy", "details": "y"}]},
		{"op": "replace", "path": "/docs/summary/audit_gate", "value": "fail"},
		{"op": "replace", "path": "/docs/summary/final_verdict", "value": "not-run"},
	]) == {["h3a.gates.contract_final_verdict", "summary.json", "/final_verdict"]}
	count(findings([{"op": "replace", "path": "/docs/summary/final_verdict", "value": "not-run"}])) == 0
}

# Nor over a passed last round whose enabled audit never ran: the judge ran,
# so it was no dry run, and the skipped audit is what the final verdict follows.
test_final_not_run_over_a_missing_audit if {
	some final in ["not-run", "dry-run"]
	fs := findings([
		{"op": "replace", "path": "/docs/rounds/1/audit", "value": null},
		{"op": "remove", "path": "/docs/rounds/1/files/audit"},
		{"op": "replace", "path": "/docs/summary/audit_gate", "value": "not-run"},
		{"op": "replace", "path": "/docs/summary/final_verdict", "value": final},
	])
	[f] := [f | some f in fs]
	f.rule == "h3a.gates.contract_final_verdict"
	f.pointer == "/final_verdict"
	f.msg == sprintf(`summary.json final_verdict is %q but the last round has no audit.json although the judge passed it and the audit is enabled: the judge ran, so the loop was no dry run, and %q would let a change the auditor never gated land`, [final, final])
}

# With the audit disabled, a passed last round without audit.json stays accepted.
test_final_not_run_over_a_disabled_audit if {
	count(findings([
		{"op": "replace", "path": "/docs/rounds/1/audit", "value": null},
		{"op": "remove", "path": "/docs/rounds/1/files/audit"},
		{"op": "replace", "path": "/docs/summary/audit_gate", "value": "not-run"},
		{"op": "replace", "path": "/docs/summary/audit_enabled", "value": false},
		{"op": "replace", "path": "/docs/summary/final_verdict", "value": "dry-run"},
	])) == 0
}

test_stale_audit_gate_names_the_earlier_round if {
	fs := findings([
		{"op": "replace", "path": "/docs/rounds/0/verdict/verdict", "value": "pass"},
		{"op": "replace", "path": "/docs/rounds/0/verdict/required_changes", "value": []},
		{"op": "replace", "path": "/docs/rounds/0/verdict/requirements_missing", "value": []},
		{"op": "replace", "path": "/docs/rounds/0/verdict/requirements_checked", "value": ["RQ-0102"]},
		{"op": "replace", "path": "/docs/rounds/0/handoff/smoke_checks/0/status", "value": "pass"},
		{"op": "add", "path": "/docs/rounds/0/audit", "value": {"gate": "fail", "required_actions": ["x"], "findings": [{"category": "policy", "details": "y"}], "risk": {}, "policy": {}}},
		{"op": "add", "path": "/docs/rounds/0/files/audit", "value": "rounds/round-1/audit.json"},
		{"op": "replace", "path": "/docs/summary/audit_gate", "value": "fail"},
	])
	[f] := [f | some f in fs]
	f.rule == "h3a.gates.contract_stale_audit_gate"
	f.msg == `summary.json audit_gate "fail" is not the last round's: the last round's rounds/round-2/audit.json gate is "pass" (it is rounds/round-1/audit.json's gate, a stale value)`
}

test_summary_gate_without_a_last_audit if {
	fs := findings([
		{"op": "replace", "path": "/docs/rounds/1/audit", "value": null},
		{"op": "replace", "path": "/docs/summary/final_verdict", "value": "not-run"},
	])
	{f.msg | some f in fs} == {
		`summary.json audit_gate "pass" is not the last round's: the last round (rounds/round-2) has no audit.json`,
		`summary.json final_verdict is "not-run" but the last round has no audit.json although the judge passed it and the audit is enabled: the judge ran, so the loop was no dry run, and "not-run" would let a change the auditor never gated land`,
	}
}

test_audit_gate_not_run_over_a_real_audit if {
	located([{"op": "replace", "path": "/docs/summary/audit_gate", "value": "not-run"}]) == {["h3a.gates.contract_stale_audit_gate", "summary.json", "/audit_gate"]}
}

test_stale_judge_verdict if {
	located([
		{"op": "replace", "path": "/docs/summary/judge_verdict", "value": "reject"},
	]) == {["h3a.gates.contract_stale_judge_verdict", "summary.json", "/judge_verdict"]}
}

# A verdict outside the enum is a schema finding only.
test_no_logic_finding_on_a_schema_break if {
	count(findings([{"op": "replace", "path": "/docs/rounds/1/verdict/verdict", "value": "approved"}])) == 0
}

test_summary_missing_is_not_a_crash if {
	count(findings([{"op": "replace", "path": "/docs/summary", "value": null}])) == 0
}

# --- severities set per element ------------------------------------------------

# ... that asks for a person: nothing in the round shows the judge's re-run.
test_failed_smoke_under_a_pass_is_a_warning if {
	ops := [{"op": "replace", "path": "/docs/rounds/1/handoff/smoke_checks/0/status", "value": "fail"}]
	count(findings(ops)) == 0
	[f] := [f | some f in stops(ops)]
	f.rule == "h3a.gates.contract_pass_with_open_items"
	[f.file, f.pointer, f.severity] == [v2, "/verdict", "warning"]
}

# A smoke check whose exit_code is not 0, or whose passed is false, failed
# whatever its status says.
test_smoke_failed_by_exit_code_under_a_pass if {
	smoke := "/docs/rounds/1/handoff/smoke_checks/0"
	exit1 := [{"op": "add", "path": concat("", [smoke, "/exit_code"]), "value": 1}]
	count(findings(exit1)) == 0
	[f] := [f | some f in stops(exit1)]
	f.rule == "h3a.gates.contract_pass_with_open_items"
	[f.file, f.pointer, f.severity] == [v2, "/verdict", "warning"]
	f.msg == `verdict is pass but smoke check 0 ("pytest -q tests/test_reset.py") of rounds/round-2/handoff.json has exit_code 1 (status "pass"); a person must confirm that the check passes now`
	{g.msg | some g in stops([{"op": "add", "path": concat("", [smoke, "/passed"]), "value": false}])} == {`verdict is pass but smoke check 0 ("pytest -q tests/test_reset.py") of rounds/round-2/handoff.json has passed false (status "pass"); a person must confirm that the check passes now`}
	both := [{"op": "add", "path": concat("", [smoke, "/passed"]), "value": false}, {"op": "add", "path": concat("", [smoke, "/ok"]), "value": false}]
	{g.msg | some g in stops(both)} == {`verdict is pass but smoke check 0 ("pytest -q tests/test_reset.py") of rounds/round-2/handoff.json has passed false (status "pass"); a person must confirm that the check passes now`}
	count(stops([{"op": "add", "path": concat("", [smoke, "/exit_code"]), "value": 0}])) == 0
	count(stops([{"op": "add", "path": concat("", [smoke, "/ok"]), "value": true}])) == 0
}

# A reason of the judge's own that says fail, under a pass, asks for a person.
test_reason_failed_under_a_pass if {
	failed := [{"op": "add", "path": "/docs/rounds/1/verdict/reasons/-", "value": {"check": "lint", "details": "ruff: 4 errors", "status": "FAIL"}}]
	count(findings(failed)) == 0
	[f] := [f | some f in stops(failed)]
	f.rule == "h3a.gates.contract_pass_with_open_items"
	[f.file, f.pointer, f.severity] == [v2, "/reasons/1/status", "warning"]
	f.msg == `verdict is pass but its reason 1 (check "lint") has status "FAIL"; a person must confirm that the check passes`
	{g.pointer | some g in stops([{"op": "add", "path": "/docs/rounds/1/verdict/reasons/0/passed", "value": false}])} == {"/reasons/0/passed"}
	count(stops([{"op": "add", "path": "/docs/rounds/1/verdict/reasons/0/status", "value": "pass"}])) == 0
	count(all_of([{"op": "add", "path": "/docs/rounds/0/verdict/reasons/0/status", "value": "fail"}])) == 0
}

# A smoke check with status unknown, or skipped with no reason, under a pass
# shows no pass either: a person must confirm it.
test_unproven_smoke_under_a_pass_asks_for_a_person if {
	status := "/docs/rounds/1/handoff/smoke_checks/0/status"
	unknown := [{"op": "replace", "path": status, "value": "unknown"}]
	count(findings(unknown)) == 0
	[f] := [f | some f in stops(unknown)]
	f.rule == "h3a.gates.contract_pass_with_open_items"
	[f.file, f.pointer, f.severity] == [v2, "/verdict", "warning"]
	f.msg == `verdict is pass but smoke check 0 ("pytest -q tests/test_reset.py") of rounds/round-2/handoff.json has status "unknown"; a person must confirm that the check passes`
	skip := [{"op": "replace", "path": status, "value": "skip"}]
	{g.msg | some g in stops(skip)} == {`verdict is pass but smoke check 0 ("pytest -q tests/test_reset.py") of rounds/round-2/handoff.json was skipped with no reason in notes; a person must confirm that the check passes`}
	count(stops(array.concat(skip, [{"op": "replace", "path": "/docs/rounds/1/handoff/notes", "value": " "}]))) == 1
	count(stops(array.concat(skip, [{"op": "replace", "path": "/docs/rounds/1/handoff/notes", "value": "e2e suite out of scope"}]))) == 0
	count(stops(array.concat(skip, [{"op": "add", "path": "/docs/rounds/1/handoff/smoke_checks/0/notes", "value": "needs a GPU"}]))) == 0
	count(stops([{"op": "replace", "path": status, "value": "pass"}])) == 0
}

test_reject_without_required_change_is_a_warning if {
	[f] := [f | some f in findings([{"op": "replace", "path": "/docs/rounds/0/verdict/required_changes", "value": []}])]
	f.rule == "h3a.gates.contract_reject_without_reason"
	f.severity == "warning"
}

test_reject_without_reason_is_an_error if {
	[f] := [f | some f in findings([{"op": "replace", "path": "/docs/rounds/0/verdict/reasons", "value": []}])]
	f.severity == "error"
}

test_audit_needs_human_without_actions if {
	located([
		{"op": "replace", "path": "/docs/rounds/1/audit/gate", "value": "needs-human"},
		{"op": "replace", "path": "/docs/summary/audit_gate", "value": "needs-human"},
		{"op": "replace", "path": "/docs/summary/final_verdict", "value": "needs-human"},
	]) == {["h3a.gates.contract_audit_fail_without_actions", a2, "/required_actions"]}
}

# The upstream orchestrator keeps the last audit gate it saw when a later
# round's judge rejects: drift, not a contradiction.
test_audit_gate_carried_over_is_a_warning if {
	fs := findings(carried_over)
	[f] := [f | some f in fs]
	f.rule == "h3a.gates.contract_stale_audit_gate"
	f.severity == "warning"
}

carried_over := [
	{"op": "replace", "path": "/docs/rounds/0/verdict/verdict", "value": "pass"},
	{"op": "replace", "path": "/docs/rounds/0/verdict/required_changes", "value": []},
	{"op": "replace", "path": "/docs/rounds/0/verdict/requirements_missing", "value": []},
	{"op": "replace", "path": "/docs/rounds/0/verdict/requirements_checked", "value": ["RQ-0102"]},
	{"op": "replace", "path": "/docs/rounds/0/handoff/smoke_checks/0/status", "value": "pass"},
	{"op": "add", "path": "/docs/rounds/0/audit", "value": {"gate": "fail", "required_actions": ["x"], "findings": [{"category": "policy", "details": "y"}], "risk": {}, "policy": {}}},
	{"op": "add", "path": "/docs/rounds/0/files/audit", "value": "rounds/round-1/audit.json"},
	{"op": "replace", "path": "/docs/rounds/1/audit", "value": null},
	{"op": "remove", "path": "/docs/rounds/1/files/audit"},
	{"op": "replace", "path": "/docs/rounds/1/verdict", "value": object.get(fixture.contract_rounds.docs.rounds[0], "verdict", {})},
	{"op": "replace", "path": "/docs/summary/audit_gate", "value": "fail"},
	{"op": "replace", "path": "/docs/summary/judge_verdict", "value": "reject"},
	{"op": "replace", "path": "/docs/summary/final_verdict", "value": "reject"},
]

test_rounds_completed_not_compared_on_a_dry_run if {
	count(findings([
		{"op": "replace", "path": "/docs/summary/final_verdict", "value": "dry-run"},
		{"op": "replace", "path": "/docs/summary/rounds_completed", "value": 1},
	])) == 0
}

undecided := "h3a.gates.contract_pass_with_undecided_check"

# A check left unknown under a pass was not verified: it asks for a human.
test_audit_pass_with_undecided_check if {
	ops := [{"op": "replace", "path": "/docs/rounds/1/audit/policy/artifact_integrity", "value": "unknown"}]
	count(findings(ops)) == 0
	{[f.rule, f.file, f.pointer] | some f in stops(ops)} == {[undecided, a2, "/policy/artifact_integrity"]}
	{f.msg | some f in stops(ops)} == {`audit gate is pass but its check policy/artifact_integrity is "unknown", neither pass nor fail, and its notes do not accept "artifact_integrity"; a person must decide whether the work lands`}
	every v in ["unknown", "skipped", null, true] {
		tid := [{"op": "replace", "path": "/docs/rounds/1/audit/traceability/task_id_match", "value": v}]
		count([f | some f in all_of(tid); f.rule == undecided; f.pointer == "/traceability/task_id_match"]) == 1
	}
}

# An auditor's extra check that does not say pass or fail was not shown to
# pass: it asks for a human, whatever shape it is written in.
test_audit_pass_with_undecided_extra_check if {
	every v in ["unknown", "skipped", "error", true, {"status": "pass"}, {"name": "bandit"}, null] {
		extra := [{"op": "add", "path": "/docs/rounds/1/audit/policy/security_scan", "value": v}]
		count(findings(extra)) == 0
		{[f.rule, f.file, f.pointer] | some f in stops(extra)} == {[undecided, a2, "/policy/security_scan"]}
	}
	{f.msg | some f in stops([{"op": "add", "path": "/docs/rounds/1/audit/policy/security_scan", "value": {"passed": true}}])} == {`audit gate is pass but its check policy/security_scan is {"passed": true}, neither pass nor fail, and its notes do not accept "security_scan"; a person must decide whether the work lands`}
	every v in ["pass", "Passed"] {
		count(all_of([{"op": "add", "path": "/docs/rounds/1/audit/policy/security_scan", "value": v}])) == 0
	}
	accepted := {"op": "replace", "path": "/docs/rounds/1/audit/notes", "value": "security_scan skipped, accepted: no network in CI"}
	count(all_of([{"op": "add", "path": "/docs/rounds/1/audit/policy/security_scan", "value": "skipped"}, accepted])) == 0
}

test_audit_undecided_check_quiet if {
	count([f | some f in all_of([]); f.rule == undecided]) == 0
	unknown := {"op": "replace", "path": "/docs/rounds/1/audit/traceability/task_id_match", "value": "unknown"}
	accepted := {"op": "replace", "path": "/docs/rounds/1/audit/notes", "value": "task_id_match unknown, accepted: the judge left no task id"}
	count([f | some f in all_of([unknown, accepted]); f.rule == undecided]) == 0
	not_pass := {"op": "replace", "path": "/docs/rounds/1/audit/gate", "value": "needs-human"}
	count([f | some f in all_of([unknown, not_pass]); f.rule == undecided]) == 0
	every name in ["policy/eval_commands", "traceability/requirements_coverage"] {
		other := {"op": "replace", "path": sprintf("/docs/rounds/1/audit/%s", [name]), "value": "unknown"}
		count([f | some f in all_of([other]); f.rule == undecided]) == 0
	}
}

# A summary.json in a round folder is not read, so it asks for a human,
# beside the top-level summary or in its place.
test_summary_in_round if {
	in_round := {"op": "add", "path": "/tree/-", "value": "rounds/round-2/summary.json"}
	{[f.rule, f.file] | some f in stops([in_round])} == {["h3a.structure.contract_summary_in_round", "rounds/round-2/summary.json"]}
	{f.msg | some f in stops([in_round])} == {"rounds/round-2/summary.json is a summary.json under rounds/, which the check does not read: the run's top-level summary.json is the one read; what it says goes unread, so a person must decide which summary holds"}
	count(findings([in_round])) == 0
	{f.rule | some f in stops([in_round, {"op": "replace", "path": "/files/summary.json/present", "value": false}])} >= {"h3a.structure.contract_summary_in_round"}
	count(stops([{"op": "add", "path": "/tree/-", "value": "docs/summary.json"}])) == 0
}
