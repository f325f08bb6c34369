package h3a.user.team

import data.h3a.lib

# METADATA
# title: Branch is not a feature branch
# description: This team lands work only from feature/* branches.
# custom:
#   id: h3a.user.team.feature_branch
#   category: policy
#   severity: warning
#   remediation: run the agents on a feature/<topic> branch
warn contains f if {
	branch := input.docs.state.meta.branch
	is_string(branch)
	not startswith(branch, "feature/")
	f := lib.finding(rego.metadata.rule(), {
		"msg": sprintf("branch %q is not a feature/* branch", [branch]),
		"file": "state.json",
		"pointer": "/meta/branch",
	})
}
