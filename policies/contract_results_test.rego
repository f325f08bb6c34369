# Tests of the judge's and the auditor's optional results: eval-results.json, audit-results.json.
# (The helpers findings, stops and located: contract_test.rego.)
package h3a.tests.contract

e2 := "rounds/round-2/eval-results.json"

ar2 := "rounds/round-2/audit-results.json"

e1 := "rounds/round-1/eval-results.json"

# with_results adds results to round i of the two-round run: its document
# under key (eval_results, audit_results) and its file.
with_results(i, key, file, doc) := [
	{"op": "add", "path": sprintf("/docs/rounds/%d/files/%s", [i, key]), "value": file},
	{"op": "add", "path": sprintf("/docs/rounds/%d/%s", [i, key]), "value": doc},
]

# results_located lists [file, pointer] of the rule's findings, each of which
# asks for a person.
results_located(ops) := {[f.file, object.get(f, "pointer", null)] |
	some f in stops(ops)
	f.rule == "h3a.gates.contract_eval_failed_under_pass"
}

results_rule_quiet(ops) if {
	count(results_located(ops)) == 0
	count(findings(ops)) == 0
}

eval_doc(results, failed) := {
	"repo": "/repo",
	"results": results,
	"summary": {"commands": count(results), "passed": count(results) - failed, "failed": failed},
}

test_eval_failed_under_pass if {
	ops := with_results(1, "eval_results", e2, eval_doc(
		[
			{"command": "pytest -q", "status": "pass", "exit_code": 0},
			{"command": "ruff check .", "status": "fail", "exit_code": 1},
		],
		1,
	))
	results_located(ops) == {[e2, "/results/1"]}
	count(findings(ops)) == 0
	every f in stops(ops) {
		f.needs_human
	}
}

# A status of pass over a non-zero exit_code is read as failed; a status
# that is no pass (skip, unknown) is no pass either.
test_eval_exit_code_or_status_under_pass if {
	ops := with_results(1, "eval_results", e2, eval_doc(
		[
			{"command": "pytest -q", "status": "pass", "exit_code": 2},
			{"command": "mypy .", "status": "skip"},
			{"command": "go vet", "exit_code": 0},
			{"command": "tox", "status": "PASS", "exit_code": 0},
			{"command": "make", "status": "ok"},
		],
		0,
	))
	results_located(ops) == {[e2, "/results/0"], [e2, "/results/1"]}
	msgs := {f.msg | some f in stops(ops); f.rule == "h3a.gates.contract_eval_failed_under_pass"}
	msgs == {
		`rounds/round-2/verdict.json verdict is pass but rounds/round-2/eval-results.json command 0 ("pytest -q") has exit_code 2 (status "pass"); a person must confirm that it passes`,
		`rounds/round-2/verdict.json verdict is pass but rounds/round-2/eval-results.json command 1 ("mypy .") has status "skip"; a person must confirm that it passes`,
	}
}

# passed, ok or success false is read as failed whatever the status and
# exit_code say, as in a smoke check.
test_eval_passed_false_under_pass if {
	ops := with_results(1, "eval_results", e2, eval_doc(
		[
			{"command": "pytest -q", "status": "pass", "exit_code": 0, "passed": false},
			{"command": "ruff check .", "status": "pass", "exit_code": 0, "ok": true},
		],
		0,
	))
	results_located(ops) == {[e2, "/results/0"]}
	msgs := {f.msg | some f in stops(ops); f.rule == "h3a.gates.contract_eval_failed_under_pass"}
	msgs == {`rounds/round-2/verdict.json verdict is pass but rounds/round-2/eval-results.json command 0 ("pytest -q") has passed false (status "pass"); a person must confirm that it passes`}
}

# An entry that says nothing of its outcome, and a summary count above the
# failures listed, ask for a person too.
test_eval_unreadable_or_counted_under_pass if {
	ops := with_results(1, "eval_results", e2, eval_doc([{"command": "pytest -q"}, "pytest"], 3))
	results_located(ops) == {[e2, "/results/0"], [e2, "/results/1"], [e2, "/summary/failed"]}
}

test_eval_all_pass_is_quiet if {
	results_rule_quiet(with_results(1, "eval_results", e2, eval_doc([{"command": "pytest -q", "status": "pass", "exit_code": 0}], 0)))
	results_rule_quiet(with_results(1, "eval_results", e2, eval_doc([], 0)))
	results_rule_quiet(with_results(1, "eval_results", e2, {}))
}

# A failed eval command under a reject is what the reject is about.
test_eval_failed_under_reject_is_quiet if {
	results_rule_quiet(with_results(0, "eval_results", e1, eval_doc([{"command": "pytest -q", "status": "fail", "exit_code": 1}], 1)))
}

audit_results_doc := {
	"checks": [
		{"name": "handoff_present", "status": "pass", "details": "handoff.json"},
		{"name": "requirements_traceability", "status": "unknown", "details": "handoff has no requirements_touched values"},
		{"name": "task_id_alignment", "status": "fail", "details": "handoff task_id=A, verdict task_id=B"},
	],
	"commands": [{"command": "pip-audit", "status": "fail", "exit_code": 1}],
	"summary": {"checks": 3, "checks_failed": 1, "commands": 1, "commands_failed": 1},
}

test_audit_results_failed_under_pass if {
	ops := with_results(1, "audit_results", ar2, audit_results_doc)
	results_located(ops) == {[ar2, "/checks/2"], [ar2, "/commands/0"]}
}

# The auditor's notes accept a failed check by name, and failed commands as
# eval_commands; a gate other than pass is quiet.
test_audit_results_accepted_or_not_passed if {
	base := with_results(1, "audit_results", ar2, audit_results_doc)
	check_ok := array.concat(base, [{"op": "replace", "path": "/docs/rounds/1/audit/notes", "value": "task_id_alignment fails on a renamed task; accepted by the owner"}])
	results_located(check_ok) == {[ar2, "/commands/0"]}
	commands_ok := array.concat(base, [{"op": "replace", "path": "/docs/rounds/1/audit/notes", "value": "eval_commands fails on a flaky network test, waived by the owner"}])
	results_located(commands_ok) == {[ar2, "/checks/2"]}
	failed := array.concat(base, [
		{"op": "replace", "path": "/docs/rounds/1/audit/gate", "value": "fail"},
		{"op": "replace", "path": "/docs/rounds/1/audit/required_actions", "value": ["fix the task id"]},
	])
	count(results_located(failed)) == 0
}

# The auditor's counts above the failures its lists show.
test_audit_results_counted_under_pass if {
	doc := {"checks": [], "commands": [], "summary": {"checks_failed": 1, "commands_failed": 0}}
	results_located(with_results(1, "audit_results", ar2, doc)) == {[ar2, "/summary/checks_failed"]}
}

results_file(doc) := {"present": true, "parsed": true, "schema_valid": true, "sha256": null, "doc": doc}

# Results that join no round are read against no decision: under a pass of
# their role, a person reads them; results that join a round are read there.
test_results_in_no_round_under_pass if {
	ops := [
		{"op": "add", "path": "/files/eval-results.json", "value": results_file("eval_results")},
		{"op": "add", "path": "/files/rounds~1round-3~1audit-results.json", "value": results_file("audit_results")},
	]
	results_located(ops) == {["eval-results.json", null], ["rounds/round-3/audit-results.json", null]}
	{f.msg | some f in stops(ops); f.file == "eval-results.json"} == {"eval-results.json sits beside no handoff.json, verdict.json or audit.json, so which round it belongs to is unknown and it is read against no decision, while rounds/round-2/verdict.json verdict is pass; a person must read it"}
	placed := array.concat(
		with_results(1, "eval_results", e2, eval_doc([], 0)),
		[{"op": "add", "path": "/files/rounds~1round-2~1eval-results.json", "value": results_file("eval_results")}],
	)
	count(results_located(placed)) == 0
	not_passed := array.concat(ops, [{"op": "replace", "path": "/docs/rounds/1/verdict/verdict", "value": "reject"}])
	{f.file | some f in stops(not_passed); f.rule == "h3a.gates.contract_eval_failed_under_pass"} == {"rounds/round-3/audit-results.json"}
}

# The command list under the other file's name is read all the same: commands
# in eval-results.json, results in audit-results.json, one summary count
# over both.
test_commands_under_either_name if {
	eval := {"commands": [{"command": "pytest -q", "status": "fail", "exit_code": 1}], "summary": {"failed": 1}}
	results_located(with_results(1, "eval_results", e2, eval)) == {[e2, "/commands/0"]}
	audit := {"results": [{"command": "pip-audit", "exit_code": 1}], "summary": {"commands_failed": 2}}
	results_located(with_results(1, "audit_results", ar2, audit)) == {[ar2, "/results/0"], [ar2, "/summary/commands_failed"]}
	accepted := array.concat(with_results(1, "audit_results", ar2, audit), [{"op": "replace", "path": "/docs/rounds/1/audit/notes", "value": "eval_commands fails on a flaky network test, waived by the owner"}])
	count(results_located(accepted)) == 0
}
