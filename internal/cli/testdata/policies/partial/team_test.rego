package h3a.user.team_test

import data.h3a.user.team

# Only the branch that is fine: the lines building the finding are never
# reached, so coverage stays under 100%.
test_feature_branch_is_fine if {
	count(team.warn) == 0 with input as {"docs": {"state": {"meta": {"branch": "feature/jwt"}}}}
}
