package h3a.user.debug

import data.h3a.lib

# METADATA
# title: Debug output
# description: Prints what it looks at and never fires.
# custom:
#   id: h3a.user.debug.print
deny contains f if {
	print("task", input.docs.current_task.task_id)
	false
	f := lib.finding(rego.metadata.rule(), {"msg": "never"})
}
