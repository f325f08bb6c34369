# METADATA
# title: Secrets
# description: No credential is written into a state document, ledger or report.
package h3a.rules.security

import data.h3a.lib

# patterns are credentials with a recognisable shape.
patterns := {
	"an AWS access key id": `\b(AKIA|ASIA|AGPA|AIDA|AROA|ANPA|ANVA|A3T[A-Z0-9])[A-Z0-9]{16}\b`,
	"a private key block": `-----BEGIN ([A-Z0-9]+ )*PRIVATE KEY( BLOCK)?-----`,
	"a GitHub token": `\b((ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{22,})`,
	"a GitLab token": `\bglpat-[A-Za-z0-9_-]{20,}`,
	"a Slack token": `\bxox[abposr]-[A-Za-z0-9-]{10,}`,
	"a Stripe live key": `\b(sk|rk)_live_[A-Za-z0-9]{16,}`,
	"a Google API key": `\bAIza[0-9A-Za-z_-]{35}`,
	"an OpenAI API key": `\bsk-(proj-)?[A-Za-z0-9_-]{32,}`,
	"an npm token": `\bnpm_[A-Za-z0-9]{36}`,
	"a password assignment": `(?i)\b(password|passwd|pwd|secret|api[_-]?key|access[_-]?token|auth[_-]?token|client[_-]?secret)\s*[=:]\s*['"]?[^\s'",;$<*{(\[][^\s'",;]{3,}`,
}

# secret_keys are member names whose value is a credential whatever it looks like.
secret_keys := {
	"password", "passwd", "secret", "client_secret", "api_key", "apikey",
	"access_token", "auth_token", "private_key", "secret_key", "token",
}

# placeholders are values that name no credential.
placeholders := {"", "null", "none", "unknown", "redacted", "changeme", "required", "optional", "true", "false", "n/a"}

json_docs := ["state", "current_task", "handoff", "planner_report", "executor_report", "validator_report"]

# ledger_texts lists the free text of the ledger records, with their line.
ledger_texts contains t if {
	some key, at in {"roadmap": ["tasks", "text"], "gates_ledger": ["events", "note"], "evidence_log": ["entries", "description"]}
	[list, field] := at
	some record in lib.items(input.docs[key][list])
	is_string(record[field])
	t := {"text": record[field], "file": lib.doc_file[key], "line": record.line}
}

# METADATA
# title: Secret in a state document
# description: >-
#   A value in a state document, ledger or report looks like a credential: a cloud access
#   key, a private key block, a token with a known prefix (GitHub, GitLab, Slack, Stripe,
#   Google, OpenAI, npm), a password=... style assignment, or the value of a member named
#   password, secret, token, api_key and the like. The secret is masked in every output.
# custom:
#   id: h3a.security.secret
#   category: security
#   severity: error
#   remediation: >-
#     revoke the credential now (it is in the repository history), then replace the value
#     with a reference such as an environment variable name and log why
deny contains f if {
	some v in secrets
	f := lib.finding(rego.metadata.rule(), v)
}

# Go's regular expressions cost about 200 ns a byte with these patterns,
# while a substring search is nearly free; so every string of the run is
# first searched, lower-cased and at once, for markers that each pattern
# needs (suspect_shape), and only a run with a marker is matched string by
# string. Each marker is a substring of every match of its pattern, lower-cased.
markers := {
	"akia", "asia", "agpa", "aida", "aroa", "anpa", "anva", "a3t",
	"private key", "ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_", "glpat-", "xox",
	"_live_", "aiza", "sk-", "npm_",
	"password", "passwd", "pwd", "api_key", "api-key", "apikey", "access_token", "access-token",
	"accesstoken", "auth_token", "auth-token", "authtoken", "client_secret", "client-secret", "clientsecret",
}

# any_pattern matches where some pattern does, so each suspect string is
# matched once before the patterns are tried one by one.
any_pattern := concat("|", [sprintf("(?:%s)", [p]) | some p in patterns])

json_strings := [value |
	some key in json_docs
	doc := input.docs[key]
	doc != null
	walk(doc, [_, value])
	is_string(value)
]

all_text := lower(concat("\n", array.concat(json_strings, [t.text | some t in ledger_texts])))

suspect_shape if {
	some m in markers
	contains(all_text, m)
}

# "secret" is a common word, so its marker is the assignment itself; a
# pattern that starts with a literal is searched as fast as a substring.
suspect_shape if regex.match(`secret\s*[=:]`, all_text)

secrets contains v if {
	suspect_shape
	some key in json_docs
	doc := input.docs[key]
	doc != null
	walk(doc, [path, value])
	is_string(value)
	regex.match(any_pattern, value)
	some kind, pattern in patterns
	match := regex.find_n(pattern, value, 1)[0]
	v := {"file": lib.doc_file[key], "pointer": lib.pointer(path), "msg": shape_msg(kind, match)}
}

secrets contains v if {
	suspect_shape
	some t in ledger_texts
	regex.match(any_pattern, t.text)
	some kind, pattern in patterns
	match := regex.find_n(pattern, t.text, 1)[0]
	v := {"file": t.file, "line": t.line, "msg": shape_msg(kind, match)}
}

shape_msg(kind, match) := sprintf("value looks like %s: %q", [kind, lib.mask(match)])

# suspect_member(key) holds when document key has a member named like a
# credential; the compact JSON of a document writes every member as "name":.
suspect_member(key) if {
	regex.match(member_pattern, json.marshal(input.docs[key]))
}

member_pattern := sprintf(`(?i)"(%s)":`, [concat("|", secret_keys)])

secrets contains v if {
	some key in json_docs
	suspect_member(key)
	doc := input.docs[key]
	walk(doc, [path, value])
	is_string(value)
	count(path) > 0
	name := path[count(path) - 1]
	is_string(name)
	lower(name) in secret_keys
	not lower(trim_space(value)) in placeholders
	not regex.match(`^[$<*{(\[]`, trim_space(value))
	v := {
		"file": lib.doc_file[key], "pointer": lib.pointer(path),
		"msg": sprintf("member %q holds a credential: %q", [lower(name), lib.mask(value)]),
	}
}


# gate_state_docs lists the documents of a gate-state run with their file,
# and the sibling documents' names the checker read as the guide's, so a
# pointer names the member as the file writes it.
gate_state_docs contains d if {
	input.run.layout == "gate-state"
	some p in input.docs.pipelines
	p.pipeline != null
	d := {"file": p.path, "doc": p.pipeline, "renamed": {}}
}

gate_state_docs contains d if {
	input.run.layout == "gate-state"
	some p in input.docs.pipelines
	some g in p.gates
	g.doc != null
	synonyms := {"agentName": "agent", "outputData": "output", "validationResult": "validation"}
	d := {"file": g.path, "doc": g.doc, "renamed": {field: variant | some variant in g.variants; field := synonyms[variant]}}
}

gate_state_pointer(d, path) := lib.pointer(array.concat([d.renamed[path[0]]], array.slice(path, 1, count(path)))) if {
	count(path) > 0
	d.renamed[path[0]]
} else := lib.pointer(path)

secrets contains v if {
	some d in gate_state_docs
	walk(d.doc, [path, value])
	is_string(value)
	regex.match(any_pattern, value)
	some kind, pattern in patterns
	match := regex.find_n(pattern, value, 1)[0]
	v := {"file": d.file, "pointer": gate_state_pointer(d, path), "msg": shape_msg(kind, match)}
}
