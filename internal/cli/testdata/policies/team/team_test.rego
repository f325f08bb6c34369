package h3a.user.team_test

import data.h3a.user.team

test_feature_branch_is_fine if {
	count(team.warn) == 0 with input as {"docs": {"state": {"meta": {"branch": "feature/jwt"}}}}
}

test_main_is_flagged if {
	some f in team.warn with input as {"docs": {"state": {"meta": {"branch": "main"}}}, "files": {}}
	f.msg == "branch \"main\" is not a feature/* branch"
}
