# Tests of the rounds: their artifacts, numbering, the auditor's turn and checks, a stopped loop.
# (The helpers findings, stops and located: contract_test.rego.)
package h3a.tests.contract

import data.h3a.test.fixture

test_round_artifact_missing if {
	located([
		{"op": "remove", "path": "/tree/1"},
		{"op": "remove", "path": "/docs/rounds/0/files/verdict"},
	]) == {
		["h3a.structure.contract_round_artifact_missing", "rounds/round-1/patch.diff", ""],
		["h3a.structure.contract_round_artifact_missing", "rounds/round-1/verdict.json", ""],
	}
}

test_round_without_handoff if {
	fs := findings([{"op": "remove", "path": "/docs/rounds/1/files/handoff"}])
	{f.msg | some f in fs} == {"rounds/round-2 has no handoff.json; the doer writes it first, in every round"}
}

test_passed_round_without_audit_before_the_last if {
	located([
		{"op": "replace", "path": "/docs/rounds/0/verdict/verdict", "value": "pass"},
		{"op": "replace", "path": "/docs/rounds/0/verdict/required_changes", "value": []},
		{"op": "replace", "path": "/docs/rounds/0/verdict/requirements_missing", "value": []},
		{"op": "replace", "path": "/docs/rounds/0/verdict/requirements_checked", "value": ["RQ-0102"]},
		{"op": "replace", "path": "/docs/rounds/0/handoff/smoke_checks/0/status", "value": "pass"},
	]) == {["h3a.structure.contract_round_artifact_missing", "rounds/round-1/audit.json", ""]}
}

# The last round's judge may still be at work while no summary exists.
test_last_round_unjudged_while_running if {
	count(findings([
		{"op": "replace", "path": "/docs/summary", "value": null},
		{"op": "replace", "path": "/docs/rounds/1/verdict", "value": null},
		{"op": "remove", "path": "/docs/rounds/1/files/verdict"},
		{"op": "replace", "path": "/docs/rounds/1/audit", "value": null},
		{"op": "remove", "path": "/docs/rounds/1/files/audit"},
	])) == 0
}

test_last_round_unjudged_after_the_loop if {
	located([
		{"op": "replace", "path": "/docs/rounds/1/verdict", "value": null},
		{"op": "remove", "path": "/docs/rounds/1/files/verdict"},
		{"op": "replace", "path": "/docs/rounds/1/audit", "value": null},
		{"op": "remove", "path": "/docs/rounds/1/files/audit"},
		{"op": "replace", "path": "/docs/summary/judge_verdict", "value": "not-run"},
		{"op": "replace", "path": "/docs/summary/audit_gate", "value": "not-run"},
		{"op": "replace", "path": "/docs/summary/final_verdict", "value": "not-run"},
	]) == set()
	located([
		{"op": "replace", "path": "/docs/rounds/1/verdict", "value": null},
		{"op": "remove", "path": "/docs/rounds/1/files/verdict"},
		{"op": "replace", "path": "/docs/rounds/1/audit", "value": null},
		{"op": "remove", "path": "/docs/rounds/1/files/audit"},
		{"op": "replace", "path": "/docs/summary/audit_gate", "value": "not-run"},
		{"op": "replace", "path": "/docs/summary/final_verdict", "value": "not-run"},
	]) == {["h3a.structure.contract_round_artifact_missing", "rounds/round-2/verdict.json", ""]}
}

test_flat_run_needs_no_patch if {
	count(findings([
		{"op": "replace", "path": "/docs/rounds", "value": [object.union(fixture.contract_rounds.docs.rounds[1], {"dir": "", "n": null, "files": {"handoff": "handoff.json", "verdict": "verdict.json", "audit": "audit.json"}})]},
		{"op": "replace", "path": "/docs/summary", "value": null},
		{"op": "replace", "path": "/tree", "value": ["audit.json", "handoff.json", "verdict.json"]},
	])) == 0
}

# --- round numbers -------------------------------------------------------------

test_round_gap if {
	located([{"op": "replace", "path": "/docs/rounds/1/n", "value": 3}]) == {["h3a.structure.contract_round_gap", "rounds/round-2", ""]}
	msgs := {f.msg | some f in findings([{"op": "replace", "path": "/docs/rounds/1/n", "value": 3}])}
	msgs == {"rounds/round-2 follows round 1, expected round-2: a round is missing"}
}

test_round_repeat_and_late_start if {
	{f.msg | some f in findings([{"op": "replace", "path": "/docs/rounds/1/n", "value": 1}])} == {"rounds/round-2 repeats round 1"}
	{f.msg | some f in findings([
		{"op": "replace", "path": "/docs/rounds/0/n", "value": 2},
		{"op": "replace", "path": "/docs/rounds/1/n", "value": 3},
	])} == {"the first round is rounds/round-1, expected round-1"}
}

# --- the auditor runs after a pass ----------------------------------------------

test_audit_before_pass if {
	located([
		{"op": "add", "path": "/docs/rounds/0/audit", "value": fixture.contract_rounds.docs.rounds[1].audit},
		{"op": "add", "path": "/docs/rounds/0/files/audit", "value": "rounds/round-1/audit.json"},
	]) == {["h3a.gates.contract_audit_before_pass", "rounds/round-1/audit.json", "/gate"]}
	{f.msg | some f in findings([
		{"op": "remove", "path": "/docs/rounds/1/files/verdict"},
		{"op": "replace", "path": "/docs/rounds/1/verdict", "value": null},
		{"op": "replace", "path": "/docs/summary", "value": null},
	])} == {"rounds/round-2 holds audit.json but no verdict.json: the auditor ran before the judge"}
}

# --- the audit's gate and its own checks ---------------------------------------

test_audit_pass_over_failed_check if {
	located([
		{"op": "replace", "path": "/docs/rounds/1/audit/policy/eval_commands", "value": "fail"},
		{"op": "replace", "path": "/docs/rounds/1/audit/traceability/requirements_coverage", "value": "fail"},
	]) == {
		["h3a.gates.contract_audit_gate_contradiction", a2, "/policy/eval_commands"],
		["h3a.gates.contract_audit_gate_contradiction", a2, "/traceability/requirements_coverage"],
	}
}

# An auditor's extra check spelt FAIL or Failed is a failed check all the same.
test_audit_pass_over_failed_check_spelt_otherwise if {
	every v in ["FAIL", "Failed", " fail ", "failure"] {
		located([{"op": "add", "path": "/docs/rounds/1/audit/policy/security_scan", "value": v}]) == {["h3a.gates.contract_audit_gate_contradiction", a2, "/policy/security_scan"]}
	}
	every v in ["PASS", "passed", "skipped"] {
		count(findings([{"op": "add", "path": "/docs/rounds/1/audit/policy/security_scan", "value": v}])) == 0
	}
}

# An auditor's extra check written as false, or as an object that says fail,
# is a failed check too: a person reads it so.
test_audit_pass_over_failed_check_written_otherwise if {
	every v in [false, {"status": "fail"}, {"status": "FAILED"}, {"name": "bandit", "passed": false}, {"ok": false}, {"result": "failure", "passed": true}] {
		located([{"op": "add", "path": "/docs/rounds/1/audit/policy/security_scan", "value": v}]) == {["h3a.gates.contract_audit_gate_contradiction", a2, "/policy/security_scan"]}
		located([{"op": "add", "path": "/docs/rounds/1/audit/traceability/tickets_linked", "value": v}]) == {["h3a.gates.contract_audit_gate_contradiction", a2, "/traceability/tickets_linked"]}
	}
	{f.msg | some f in findings([{"op": "add", "path": "/docs/rounds/1/audit/policy/security_scan", "value": {"passed": false}}])} == {`audit gate is pass but its check policy/security_scan is {"passed": false} (read as fail) and its notes do not accept "security_scan"`}
	{f.msg | some f in findings([{"op": "replace", "path": "/docs/rounds/1/audit/policy/eval_commands", "value": "fail"}])} == {`audit gate is pass but its check policy/eval_commands is fail and its notes do not accept "eval_commands"`}
	every v in [true, {"status": "pass"}, {"passed": true}, {"skipped": false}] {
		count(findings([{"op": "add", "path": "/docs/rounds/1/audit/policy/security_scan", "value": v}])) == 0
	}
}

# An audit gate of fail whose only failed check is written as false has a
# failed check to show for it.
test_audit_fail_over_check_written_false if {
	count(findings([
		{"op": "replace", "path": "/docs/rounds/1/audit/gate", "value": "fail"},
		{"op": "add", "path": "/docs/rounds/1/audit/required_actions/-", "value": "x"},
		{"op": "add", "path": "/docs/rounds/1/audit/policy/security_scan", "value": {"passed": false}},
		{"op": "replace", "path": "/docs/summary/audit_gate", "value": "fail"},
		{"op": "replace", "path": "/docs/summary/final_verdict", "value": "reject"},
	])) == 0
}

test_audit_pass_over_accepted_check if {
	count(findings([
		{"op": "replace", "path": "/docs/rounds/1/audit/policy/eval_commands", "value": "fail"},
		{"op": "replace", "path": "/docs/rounds/1/audit/notes", "value": "Accepted: eval_commands fails on a flaky network test, waived by the owner"},
	])) == 0
}

# Notes that name a failed check without accepting it report the failure and
# accept nothing.
test_audit_pass_over_check_named_but_not_accepted if {
	located([
		{"op": "replace", "path": "/docs/rounds/1/audit/policy/eval_commands", "value": "fail"},
		{"op": "replace", "path": "/docs/rounds/1/audit/notes", "value": "eval_commands failed: 3 integration tests time out"},
	]) == {["h3a.gates.contract_audit_gate_contradiction", a2, "/policy/eval_commands"]}
	count(findings([
		{"op": "replace", "path": "/docs/rounds/1/audit/policy/eval_commands", "value": "fail"},
		{"op": "replace", "path": "/docs/rounds/1/audit/notes", "value": "eval_commands fails on a flaky test; the owner waived it"},
	])) == 0
}

# Notes that deny the acceptance, or speak of acceptance tests, accept nothing.
test_audit_pass_over_check_acceptance_denied if {
	every notes in [
		"eval_commands failed: 3 integration tests time out; not accepted, fix before landing",
		"eval_commands failing is unacceptable",
		"eval_commands fails and cannot be waived",
		"eval_commands fail: the acceptance tests time out",
	] {
		located([
			{"op": "replace", "path": "/docs/rounds/1/audit/policy/eval_commands", "value": "fail"},
			{"op": "replace", "path": "/docs/rounds/1/audit/notes", "value": notes},
		]) == {["h3a.gates.contract_audit_gate_contradiction", a2, "/policy/eval_commands"]}
	}
}

test_audit_pass_over_check_acceptable if {
	count(findings([
		{"op": "replace", "path": "/docs/rounds/1/audit/policy/eval_commands", "value": "fail"},
		{"op": "replace", "path": "/docs/rounds/1/audit/notes", "value": "eval_commands fails on a flaky test, acceptable for this release"},
	])) == 0
}

test_audit_fail_without_violation if {
	located([
		{"op": "replace", "path": "/docs/rounds/1/audit/gate", "value": "fail"},
		{"op": "add", "path": "/docs/rounds/1/audit/required_actions/-", "value": "x"},
		{"op": "replace", "path": "/docs/summary/audit_gate", "value": "fail"},
		{"op": "replace", "path": "/docs/summary/final_verdict", "value": "reject"},
	]) == {["h3a.gates.contract_audit_gate_contradiction", a2, "/gate"]}
	count(findings([
		{"op": "replace", "path": "/docs/rounds/1/audit/gate", "value": "fail"},
		{"op": "add", "path": "/docs/rounds/1/audit/required_actions/-", "value": "x"},
		{"op": "add", "path": "/docs/rounds/1/audit/findings/-", "value": {"category": "license", "details": "GPL dependency"}},
		{"op": "replace", "path": "/docs/summary/audit_gate", "value": "fail"},
		{"op": "replace", "path": "/docs/summary/final_verdict", "value": "reject"},
	])) == 0
}

# --- a stopped loop needs a human ---------------------------------------------

stop_of(ops) := [f.rule, f.file, f.pointer] if {
	[f] := [f | some f in stops(ops)]
	f.needs_human == true
}

test_passed_run_does_not_stop if {
	count(stops([])) == 0
}

test_final_reject_needs_a_human if {
	stop_of(carried_over) == ["h3a.gates.contract_needs_human", "summary.json", "/final_verdict"]
	count(findings(carried_over)) == 1
}

test_final_needs_human_needs_a_human if {
	stop_of([
		{"op": "replace", "path": "/docs/rounds/1/audit/gate", "value": "needs-human"},
		{"op": "add", "path": "/docs/rounds/1/audit/required_actions/-", "value": "x"},
		{"op": "replace", "path": "/docs/summary/audit_gate", "value": "needs-human"},
		{"op": "replace", "path": "/docs/summary/final_verdict", "value": "needs-human"},
	]) == ["h3a.gates.contract_needs_human", "summary.json", "/final_verdict"]
}

test_running_loop_whose_auditor_needs_a_human if {
	stop_of([
		{"op": "replace", "path": "/docs/rounds/1/audit/gate", "value": "needs-human"},
		{"op": "replace", "path": "/docs/summary", "value": null},
	]) == ["h3a.gates.contract_needs_human", a2, "/gate"]
}

test_running_loop_whose_judge_needs_a_human if {
	stop_of([
		{"op": "replace", "path": "/docs/rounds/1/verdict/verdict", "value": "needs-human"},
		{"op": "replace", "path": "/docs/rounds/1/audit", "value": null},
		{"op": "remove", "path": "/docs/rounds/1/files/audit"},
		{"op": "replace", "path": "/docs/summary", "value": null},
	]) == ["h3a.gates.contract_needs_human", v2, "/verdict"]
}

# An earlier round's needs-human was settled by a person; the loop went on.
test_earlier_needs_human_settled_by_a_person_does_not_stop if {
	every p in ["base", "signed", "local"] {
		count(stops([
			{"op": "replace", "path": "/docs/rounds/0/verdict/verdict", "value": "needs-human"},
			{"op": "replace", "path": "/docs/provenance", "value": {
				"rounds/round-2/handoff.json": p, v2: p, a2: p,
			}},
		])) == 0
	}
}

# The change under review went on after a needs-human round by itself: the
# person's decision is only claimed.
test_earlier_needs_human_settled_by_the_change_needs_a_human if {
	[f] := [f |
		some f in stops([
			{"op": "replace", "path": "/docs/rounds/0/audit", "value": {"gate": "needs-human"}},
			{"op": "replace", "path": "/docs/provenance", "value": {"rounds/round-2/handoff.json": "claimed", v2: "base"}},
		])
		f.rule == "h3a.security.contract_human_claimed"
	]
	f.file == "rounds/round-2/handoff.json"
	f.msg == "a human decision claimed in this change; a reviewer must confirm it: rounds/round-2 goes on after rounds/round-1 asked for a person (the auditor's gate is needs-human), and rounds/round-2/handoff.json, rounds/round-2/audit.json came from the change under review, not from a commit signed by a key the base names as a human's"
}

test_needs_human_in_the_last_round_claims_nothing if {
	fs := stops([{"op": "replace", "path": "/docs/rounds/1/verdict/verdict", "value": "needs-human"}])
	count([f | some f in fs; f.rule == "h3a.security.contract_human_claimed"]) == 0
}

# A rejecting round while the loop still runs: the next round may fix it.
test_running_loop_after_a_reject_does_not_stop if {
	count(stops([
		{"op": "replace", "path": "/docs/summary", "value": null},
		{"op": "remove", "path": "/docs/rounds/1"},
	])) == 0
}

# The judge passed the last round and no auditor followed, in a run without
# summary.json: nothing records --skip-audit, so the change was never audited.
test_running_loop_whose_pass_was_never_audited if {
	stop_of([
		{"op": "replace", "path": "/docs/rounds/1/audit", "value": null},
		{"op": "remove", "path": "/docs/rounds/1/files/audit"},
		{"op": "replace", "path": "/docs/summary", "value": null},
	]) == ["h3a.gates.contract_needs_human", v2, "/verdict"]
}

# The same in a flat run (its documents at the top, no rounds/).
test_flat_pass_never_audited if {
	[f] := [f |
		some f in stops([
			{"op": "replace", "path": "/docs/rounds", "value": [{
				"dir": "",
				"files": {"handoff": "handoff.json", "verdict": "verdict.json"},
				"handoff": fixture.contract_rounds.docs.rounds[1].handoff,
				"verdict": fixture.contract_rounds.docs.rounds[1].verdict,
			}]},
			{"op": "replace", "path": "/docs/summary", "value": null},
		])
	]
	[f.rule, f.file] == ["h3a.gates.contract_needs_human", "verdict.json"]
	contains(f.msg, "the judge passed the run and no audit.json follows")
}

# A summary that says the audit was disabled is the record of --skip-audit.
test_pass_unaudited_with_the_audit_disabled_does_not_stop if {
	count(stops([
		{"op": "replace", "path": "/docs/rounds/1/audit", "value": null},
		{"op": "remove", "path": "/docs/rounds/1/files/audit"},
		{"op": "replace", "path": "/docs/summary/audit_enabled", "value": false},
		{"op": "remove", "path": "/docs/summary/audit_gate"},
	])) == 0
}

# Under --write-audit the checker is the auditor: the missing audit.json is
# the one it writes.
test_pass_audited_by_the_checker_does_not_stop if {
	count(stops([
		{"op": "replace", "path": "/docs/rounds/1/audit", "value": null},
		{"op": "remove", "path": "/docs/rounds/1/files/audit"},
		{"op": "replace", "path": "/docs/summary", "value": null},
		{"op": "add", "path": "/params/writing_audit", "value": true},
	])) == 0
}
