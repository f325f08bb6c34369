package h3a.user.slow

import data.h3a.lib

# METADATA
# title: Slow rule
# description: Counts to a billion.
# custom:
#   id: h3a.user.slow.count
deny contains f if {
	n := count([x | some x in numbers.range(1, 1000000000); x % 7 == 0])
	f := lib.finding(rego.metadata.rule(), {"msg": sprintf("%d", [n])})
}
