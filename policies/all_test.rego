package h3a.tests.all

import data.h3a.test
import data.h3a.test.fixture

test_complete_run_is_clean if {
	count(test.all_findings) == 0 with input as fixture.complete
}

test_fresh_run_is_clean if {
	count(test.all_findings) == 0 with input as fixture.fresh
}

# Every element names a rule of the package it comes from: the Go side
# rejects any other.
test_elements_name_their_rule if {
	inp := test.patch([
		{"op": "replace", "path": "/docs/state/gates/G3_production_ready", "value": "passed"},
		{"op": "replace", "path": "/docs/current_task/iteration_count", "value": 5},
	])
	fs := test.all_findings with input as inp
	count(fs) > 3
	every f in fs {
		startswith(f.rule, "h3a.")
		is_string(f.msg)
	}
}
