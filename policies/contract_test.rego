package h3a.tests.contract

import data.h3a.rules.contract
import data.h3a.test
import data.h3a.test.fixture

v2 := "rounds/round-2/verdict.json"

a2 := "rounds/round-2/audit.json"

findings(ops) := fs if {
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
		{"op": "replace", "path": "/docs/rounds/1/handoff/smoke_checks/0/status", "value": "fail"},
	]) == {
		["h3a.gates.contract_pass_with_open_items", v2, "/required_changes"],
		["h3a.gates.contract_pass_with_open_items", v2, "/requirements_missing"],
		["h3a.gates.contract_pass_with_open_items", v2, "/verdict"],
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
		{"op": "replace", "path": "/docs/summary/audit_gate", "value": "fail"},
		{"op": "replace", "path": "/docs/summary/final_verdict", "value": "reject"},
	]) == {["h3a.gates.contract_audit_fail_without_actions", a2, "/required_actions"]}
}

test_audit_fail_with_actions_is_fine if {
	count(findings([
		{"op": "replace", "path": "/docs/rounds/1/audit/gate", "value": "fail"},
		{"op": "add", "path": "/docs/rounds/1/audit/required_actions/-", "value": "add the test"},
		{"op": "replace", "path": "/docs/summary/audit_gate", "value": "fail"},
		{"op": "replace", "path": "/docs/summary/final_verdict", "value": "reject"},
	])) == 0
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
	]) == {["h3a.traceability.contract_false_task_id_claim", a2, "/traceability/task_id_match"]}
}

test_audit_that_saw_the_mismatch_is_fine if {
	count(findings([
		{"op": "replace", "path": "/docs/task_ids_agree", "value": false},
		{"op": "replace", "path": "/docs/rounds/1/audit/traceability/task_id_match", "value": "fail"},
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
		{"op": "replace", "path": "/docs/summary/audit_gate", "value": "not-run"},
		{"op": "replace", "path": "/docs/summary/audit_enabled", "value": false},
	])) == 0
}

test_final_not_run_is_accepted if {
	count(findings([{"op": "replace", "path": "/docs/summary/final_verdict", "value": "dry-run"}])) == 0
}

test_stale_audit_gate_names_the_earlier_round if {
	fs := findings([
		{"op": "replace", "path": "/docs/rounds/0/verdict/verdict", "value": "pass"},
		{"op": "replace", "path": "/docs/rounds/0/verdict/required_changes", "value": []},
		{"op": "replace", "path": "/docs/rounds/0/verdict/requirements_missing", "value": []},
		{"op": "replace", "path": "/docs/rounds/0/verdict/requirements_checked", "value": ["RQ-0102"]},
		{"op": "replace", "path": "/docs/rounds/0/handoff/smoke_checks/0/status", "value": "pass"},
		{"op": "add", "path": "/docs/rounds/0/audit", "value": {"gate": "fail", "required_actions": ["x"], "risk": {}, "policy": {}}},
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
	{f.msg | some f in fs} == {`summary.json audit_gate "pass" is not the last round's: the last round (rounds/round-2) has no audit.json`}
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
