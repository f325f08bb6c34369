package h3a.tests.security

import data.h3a.rules.security
import data.h3a.test
import data.h3a.test.fixture

test_security_quiet_on_ok_runs if {
	count(security.deny) == 0 with input as fixture.complete
	count(security.deny) == 0 with input as fixture.fresh
}

secret_in_notes(value) := fs if {
	fs := security.deny with input as test.patch([{"op": "replace", "path": "/docs/state/steps/1/notes", "value": value}])
}

test_known_shapes if {
	shapes := {
		"an AWS access key id": "key AKIAIOSFODNN7EXAMPLE in use",
		"a private key block": "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA",
		"a GitHub token": "ghp_0123456789abcdefghijABCDEFGHIJ012345",
		"a GitLab token": "glpat-abcdefghij0123456789",
		"a Slack token": "xoxb-1234567890-abcdef",
		"a Stripe live key": "sk_live_0123456789abcdefABCD",
		"a Google API key": "AIzaSyA0123456789abcdefghijklmnopqrstuv",
		"an OpenAI API key": "sk-proj-0123456789abcdefghijklmnopqrstuv",
		"an npm token": "npm_0123456789abcdefghijABCDEFGHIJ012345",
		"a password assignment": "connect with password=hunter2hunter2",
	}
	every value in ["client secret  =  9f8e7d6c5b4a", "SECRET:\tletmein-now", "api-key: 0a1b2c3d"] {
		some f in secret_in_notes(value)
		startswith(f.msg, "value looks like a password assignment: ")
	}
	every kind, value in shapes {
		fs := secret_in_notes(value)
		some f in fs
		startswith(f.msg, sprintf("value looks like %s: ", [kind]))
		f.file == "state.json"
		f.pointer == "/steps/1/notes"
	}
}

test_the_secret_is_masked if {
	fs := secret_in_notes("export AWS_KEY=AKIAIOSFODNN7EXAMPLE")
	count(fs) > 0
	every f in fs {
		not contains(f.msg, "IOSFODNN7EXAMPLE")
	}
}

test_secret_members if {
	inp := test.patch([{"op": "add", "path": "/docs/state/meta/api_token~1x", "value": "abc"}, {"op": "add", "path": "/docs/current_task/password", "value": "s3cr3t-Pa55"}])
	[f] := test.of(security.deny, "h3a.security.secret") with input as inp
	f.pointer == "/password"
	f.msg == "member \"password\" holds a credential: \"s3cr… (11 characters, masked)\""
}

test_placeholders_are_not_secrets if {
	every value in ["${DB_PASSWORD}", "<redacted>", "null", "  ", "***"] {
		inp := test.patch([{"op": "add", "path": "/docs/current_task/password", "value": value}])
		count(security.deny) == 0 with input as inp
	}
	every text in ["Secret key rotation documented", "password: <set in vault>", "token expiry after 1 hour", "cd $(pwd)"] {
		count(secret_in_notes(text)) == 0
	}
}

test_secrets_in_ledgers if {
	inp := test.patch([
		{"op": "replace", "path": "/docs/gates_ledger/events/0/note", "value": "used token=ghp_0123456789abcdefghijABCDEFGHIJ012345"},
		{"op": "replace", "path": "/docs/evidence_log/entries/0/description", "value": "AKIAIOSFODNN7EXAMPLE"},
		{"op": "replace", "path": "/docs/roadmap/tasks/0/text", "value": "rotate passwd: Winter2025!"},
	])
	fs := security.deny with input as inp
	{[f.file, f.line] | some f in fs} == {["state/GATES_LEDGER.md", 26], ["state/EVIDENCE_LOG.md", 14], ["state/ROADMAP.md", 21]}
}

gate_state_input(notes) := {
	"run": {"layout": "gate-state"},
	"docs": {"pipelines": [{
		"prefix": "d-f", "path": ".state/d-f-pipeline.json",
		"pipeline": {"status": "IN_PROGRESS", "metadata": {"domain": "d", "feature": "f"}},
		"gates": {"1": {
			"path": ".state/d-f-gate1-output.json",
			"doc": {"gate": 1, "agent": "A", "output": {"notes": notes}},
			"variants": ["outputData"],
		}},
	}]},
}

test_gate_state_secret if {
	fs := security.deny with input as gate_state_input("use AKIAIOSFODNN7EXAMPLE")
	some f in fs
	f.file == ".state/d-f-gate1-output.json"
	f.pointer == "/outputData/notes"
	startswith(f.msg, "value looks like an AWS access key id: ")
}

test_gate_state_quiet if {
	count(security.deny) == 0 with input as gate_state_input("login form mapped")
}
