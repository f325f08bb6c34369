# METADATA
# title: Secrets
# description: No credential is written into a state document, ledger or report.
package h3a.rules.security

import data.h3a.lib

# The checker scans every document of the run once, in Go, while it holds
# them, and lists what it found in input.secrets (masked, located, sorted):
# the credential patterns, member names and placeholders live in
# internal/secrets. This rule only words the findings.

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
	some s in input.secrets
	f := lib.finding(rego.metadata.rule(), object.union(place(s), {"msg": message(s)}))
}

# place is where a secret is written: a pointer into a structured document,
# or the line of a ledger record.
place(s) := {"file": s.file, "pointer": s.pointer} if is_string(s.pointer)

else := {"file": s.file, "line": s.line}

message(s) := sprintf("member %q holds a credential: %q", [lower(s.member), s.masked]) if is_string(s.member)

else := sprintf("value looks like %s: %q", [s.kind, s.masked])
