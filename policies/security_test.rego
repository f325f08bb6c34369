package h3a.tests.security

import data.h3a.rules.security
import data.h3a.test
import data.h3a.test.fixture

# The scan itself (patterns, member names, placeholders, masking) is tested
# in internal/secrets; these tests hold the rule to its wording and places.

test_security_quiet_on_ok_runs if {
	count(security.deny) == 0 with input as fixture.complete
	count(security.deny) == 0 with input as fixture.fresh
	count(security.deny) == 0 with input as fixture.contract_rounds
}

with_secrets(list) := test.patch([{"op": "replace", "path": "/secrets", "value": list}])

test_shape_in_a_document if {
	fs := security.deny with input as with_secrets([{
		"file": "state.json", "pointer": "/steps/1/notes",
		"kind": "an AWS access key id", "masked": "AKIA… (20 characters, masked)",
	}])
	fs == {{
		"rule": "h3a.security.secret", "file": "state.json", "pointer": "/steps/1/notes",
		"msg": "value looks like an AWS access key id: \"AKIA… (20 characters, masked)\"",
	}}
}

test_secret_members if {
	[f] := test.of(security.deny, "h3a.security.secret") with input as with_secrets([{
		"file": "CURRENT_TASK.json", "pointer": "/Password",
		"kind": "a credential member", "member": "Password", "masked": "s3cr… (11 characters, masked)",
	}])
	f.pointer == "/Password"
	f.msg == "member \"password\" holds a credential: \"s3cr… (11 characters, masked)\""
}

test_secrets_in_ledgers if {
	fs := security.deny with input as with_secrets([
		{"file": "state/GATES_LEDGER.md", "line": 26, "kind": "a GitHub token", "masked": "ghp_… (40 characters, masked)"},
		{"file": "state/EVIDENCE_LOG.md", "line": 14, "kind": "an AWS access key id", "masked": "AKIA… (20 characters, masked)"},
		{"file": "state/ROADMAP.md", "line": 21, "kind": "a password assignment", "masked": "pass… (19 characters, masked)"},
	])
	{[f.file, f.line] | some f in fs} == {["state/GATES_LEDGER.md", 26], ["state/EVIDENCE_LOG.md", 14], ["state/ROADMAP.md", 21]}
	every f in fs {
		not f.pointer
		startswith(f.msg, "value looks like ")
	}
}

test_one_finding_per_fact if {
	fs := security.deny with input as with_secrets([
		{"file": ".state/d-f-gate1-output.json", "pointer": "/outputData/token", "kind": "a credential member", "member": "token", "masked": "ghp_… (40 characters, masked)"},
		{"file": ".state/d-f-gate1-output.json", "pointer": "/outputData/token", "kind": "a GitHub token", "masked": "ghp_… (40 characters, masked)"},
	])
	count(fs) == 2
	every f in fs {
		f.pointer == "/outputData/token"
	}
}
