package h3a.user.team

import data.h3a.lib

# METADATA
# title: Goal is written
# description: A task without a goal cannot be validated. (The field name is misspelt on purpose.)
# custom:
#   id: h3a.user.team.goal
#   severity: warning
warn contains f if {
	input.docs.current_task.gaol == ""
	f := lib.finding(rego.metadata.rule(), {"msg": "the current task has no goal", "file": "state/CURRENT_TASK.json"})
}
