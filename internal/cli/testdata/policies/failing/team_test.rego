package h3a.user.team_test

import data.h3a.user.team

test_expects_the_wrong_thing if {
	print("branch under test: main")
	count(team.warn) == 0 with input as {"docs": {"state": {"meta": {"branch": "main"}}}, "files": {}}
}
