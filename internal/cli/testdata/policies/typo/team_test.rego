package h3a.user.team_test

import data.h3a.user.team

test_empty_goal_is_flagged if {
	count(team.warn) == 1 with input as {"docs": {"current_task": {"gaol": ""}}}
}
