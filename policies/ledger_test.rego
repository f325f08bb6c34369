package h3a.tests.ledger

import data.h3a.rules.ledger
import data.h3a.test
import data.h3a.test.fixture

test_ledger_quiet_on_ok_runs if {
	count(ledger.deny) == 0 with input as fixture.complete
	count(ledger.warn) == 0 with input as fixture.complete
	count(ledger.deny) == 0 with input as fixture.fresh
}

test_unstarted_outcome if {
	inp := test.patch([{"op": "remove", "path": "/docs/gates_ledger/events/2"}])
	[f] := test.of(ledger.deny, "h3a.gates.ledger_unstarted") with input as inp
	f.line == 29
	f.gate == "G1"
	f.msg == "G1_implementation PASSED at 2025-09-29T14:45:00Z has no earlier G1_implementation STARTED event"
}

test_started_before_the_previous_gate_passed if {
	inp := test.patch([{"op": "remove", "path": "/docs/gates_ledger/events/1"}])
	[f] := test.of(ledger.deny, "h3a.gates.ledger_started_early") with input as inp
	f.line == 28
	f.msg == "G1_implementation STARTED at 2025-09-29T14:10:00Z, but no G0 PASSED event comes before it"
}

test_started_earlier_in_time if {
	inp := test.patch([{"op": "replace", "path": "/docs/gates_ledger/events/2/time", "value": "2025-09-29T14:00:00Z"}])
	[f] := test.of(ledger.deny, "h3a.gates.ledger_started_early") with input as inp
	f.msg == "G1_implementation STARTED at 2025-09-29T14:00:00Z, earlier than G0_planning PASSED at 2025-09-29T14:05:30Z (line 27)"
	count(ledger.warn) == 0 with input as inp
}

test_outcome_before_its_start if {
	inp := test.patch([{"op": "replace", "path": "/docs/gates_ledger/events/3/time", "value": "2025-09-29T14:09:00Z"}])
	[f] := test.of(ledger.deny, "h3a.gates.ledger_time_inverted") with input as inp
	f.line == 29
	f.msg == "G1_implementation PASSED at 2025-09-29T14:09:00Z, earlier than its STARTED event at 2025-09-29T14:10:00Z (line 28)"
	count(ledger.warn) == 0 with input as inp
}

test_time_backwards_between_unrelated_events if {
	inp := test.patch([{"op": "add", "path": "/docs/gates_ledger/events/4", "value": test.event("2025-09-29T14:20:00Z", "G1_implementation", "REVIEWED", "human", 30)}])
	[f] := test.of(ledger.warn, "h3a.gates.ledger_time_backwards") with input as inp
	count(ledger.warn) == 1 with input as inp
	f.line == 30
	count(ledger.deny) == 0 with input as inp
}

test_unreadable_times_are_skipped if {
	inp := test.patch([{"op": "replace", "path": "/docs/gates_ledger/events/3/time", "value": "yesterday"}])
	count(ledger.deny) == 0 with input as inp
	count(ledger.warn) == 0 with input as inp
}
