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

test_unreadable_times_are_skipped_by_the_order_rules if {
	inp := test.patch([{"op": "replace", "path": "/docs/gates_ledger/events/3/time", "value": "yesterday"}])
	count(ledger.deny) == 1 with input as inp
	count(test.of(ledger.deny, "h3a.gates.ledger_time_format")) == 1 with input as inp
	count(ledger.warn) == 0 with input as inp
}

test_unread_events if {
	inp := test.patch([
		{"op": "add", "path": "/docs/gates_ledger/events/6", "value": test.event("2025-09-29T15:10:00Z", "G2_validation", "FAIL", "validator", 32)},
		{"op": "add", "path": "/docs/gates_ledger/events/7", "value": test.event("2025-09-29T15:11:00Z", "G2-validation", "FAILED", "validator", 33)},
		{"op": "add", "path": "/docs/gates_ledger/events/8", "value": test.event("2025-09-29T15:12:00Z", "G2_validation", "ESCALATION_REQUIRED", "validator", 34)},
		{"op": "add", "path": "/docs/gates_ledger/events/9", "value": test.event("2025-09-29T15:13:00Z", "G2validation", "PASS_FAIL", "validator", 35)},
		{"op": "add", "path": "/docs/gates_ledger/events/10", "value": test.event("2025-09-29T15:14:00Z", "G2_validation", "REVIEWED", "human", 36)},
		{"op": "add", "path": "/docs/gates_ledger/events/11", "value": test.event("2025-09-29T15:15:00Z", "G12", "NOTE", "human", 37)},
		{"op": "add", "path": "/docs/gates_ledger/events/12", "value": test.event("2025-09-29T15:16:00Z", "G02_validation", "FAILED", "validator", 38)},
		{"op": "add", "path": "/docs/gates_ledger/events/13", "value": test.event("2025-09-29T15:17:00Z", "G003", "STARTED", "system", 39)},
		{"op": "add", "path": "/docs/gates_ledger/events/14", "value": test.event("2025-09-29T15:18:00Z", "G023", "NOTE", "human", 40)},
	])
	fs := test.of(ledger.deny, "h3a.gates.ledger_unread_event") with input as inp
	{f.line | some f in fs} == {32, 33, 34, 35, 38, 39}
	count(fs) == 7
	msgs := {f.msg | some f in fs}
	"G02_validation FAILED at 2025-09-29T15:16:00Z: the gate id G02_validation is read as no gate; write G2 or G2_validation" in msgs
	"G003 STARTED at 2025-09-29T15:17:00Z: the gate id G003 is read as no gate; write G3 or G3_production_ready" in msgs
	"G2_validation FAIL at 2025-09-29T15:10:00Z: the status FAIL is read as a note, not as a move of the gate; write FAILED" in msgs
	"G2-validation FAILED at 2025-09-29T15:11:00Z: the gate id G2-validation is read as no gate; write G2 or G2_validation" in msgs
	"G2_validation ESCALATION_REQUIRED at 2025-09-29T15:12:00Z: the status ESCALATION_REQUIRED is read as a note, not as a move of the gate; write ESCALATION" in msgs
	"G2validation PASS_FAIL at 2025-09-29T15:13:00Z: the status PASS_FAIL is read as a note, not as a move of the gate; write PASSED or FAILED" in msgs
}

# A passed gate followed by a word the rules read as a note asks a person
# whether the gate still stands; a note, an event before the pass, and a move
# after the word do not.
test_note_after_pass if {
	inp := test.patch([
		{"op": "add", "path": "/docs/gates_ledger/events/6", "value": test.event("2025-09-29T15:10:00Z", "G2_validation", "REVOKED", "validator", 32)},
		{"op": "add", "path": "/docs/gates_ledger/events/7", "value": test.event("2025-09-29T15:11:00Z", "G2_validation", "REVIEWED", "human", 33)},
		{"op": "add", "path": "/docs/gates_ledger/events/8", "value": test.event("2025-09-29T15:12:00Z", "G1_implementation", "BLOCKED", "executor", 34)},
	])
	fs := test.of(ledger.warn, "h3a.gates.ledger_note_after_pass") with input as inp
	{[f.line, f.gate] | some f in fs} == {[32, "G2"], [34, "G1"]}
	every f in fs {
		f.needs_human == true
	}
	count(ledger.deny) == 0 with input as inp
	msgs := {f.msg | some f in fs}
	"G2_validation REVOKED at 2025-09-29T15:10:00Z by \"validator\" comes after G2_validation PASSED (line 31) and is read as a note, so the gate stays passed; the status REVOKED is no move of a gate, and a person must say whether the gate still stands" in msgs
}

test_note_after_pass_quiet if {
	# before the pass
	before := test.patch([{"op": "add", "path": "/docs/gates_ledger/events/5", "value": test.event("2025-09-29T14:55:00Z", "G2_validation", "BLOCKED", "validator", 30)}])
	count(test.of(ledger.warn, "h3a.gates.ledger_note_after_pass")) == 0 with input as before

	# a move after it decides the gate
	moved := test.patch([
		{"op": "add", "path": "/docs/gates_ledger/events/6", "value": test.event("2025-09-29T15:10:00Z", "G2_validation", "BLOCKED", "validator", 32)},
		{"op": "add", "path": "/docs/gates_ledger/events/7", "value": test.event("2025-09-29T15:11:00Z", "G2_validation", "FAILED", "validator", 33)},
	])
	count(test.of(ledger.warn, "h3a.gates.ledger_note_after_pass")) == 0 with input as moved

	# a spelling of a move is an error of its own
	spelt := test.patch([{"op": "add", "path": "/docs/gates_ledger/events/6", "value": test.event("2025-09-29T15:10:00Z", "G2_validation", "IN_PROGRESS", "validator", 32)}])
	count(test.of(ledger.warn, "h3a.gates.ledger_note_after_pass")) == 0 with input as spelt
	[f] := test.of(ledger.deny, "h3a.gates.ledger_unread_event") with input as spelt
	f.msg == "G2_validation IN_PROGRESS at 2025-09-29T15:10:00Z: the status IN_PROGRESS is read as a note, not as a move of the gate; write STARTED"
}

# A note after a gate's pass by an agent that says the gate's work is taken
# back or broken asks a person whether the gate stands.
test_note_takes_back_pass if {
	revoked := object.union(test.event("2025-09-29T15:10:00Z", "G2_validation", "NOTE", "validator", 32), {"note": "Gate revoked: regression found, tests now failing"})
	reviewed := object.union(test.event("2025-09-29T15:11:00Z", "G1_implementation", "REVIEWED", "executor", 33), {"note": "Rolled back the T001 merge"})
	inp := test.patch([
		{"op": "add", "path": "/docs/gates_ledger/events/6", "value": revoked},
		{"op": "add", "path": "/docs/gates_ledger/events/7", "value": reviewed},
	])
	fs := test.of(ledger.warn, "h3a.gates.ledger_note_takes_back_pass") with input as inp
	{[f.line, f.gate] | some f in fs} == {[32, "G2"], [33, "G1"]}
	every f in fs {
		f.needs_human == true
	}
	count(ledger.deny) == 0 with input as inp
	msgs := {f.msg | some f in fs}
	"G2_validation NOTE at 2025-09-29T15:10:00Z by \"validator\" comes after G2_validation PASSED (line 31) and says \"revoked\", so the gate is read as passed while its own log says it may not stand; a person must say whether it does" in msgs

	# an agent that calls itself human in the change under review is no person's word
	claimed := test.patch([{"op": "add", "path": "/docs/gates_ledger/events/6", "value": test.claimed(object.union(revoked, {"agent": "human"}))}])
	count(test.of(ledger.warn, "h3a.gates.ledger_note_takes_back_pass")) == 1 with input as claimed
}

# A note filed under a gate that has not passed, about gates that have, asks
# the same: the gates it names are the ones it takes back.
test_note_takes_back_named_pass if {
	other := object.union(test.event("2025-09-29T15:10:00Z", "G3_production_ready", "NOTE", "system", 32), {"note": "G1/G2_validation results revoked"})
	inp := test.patch([{"op": "add", "path": "/docs/gates_ledger/events/6", "value": other}])
	fs := test.of(ledger.warn, "h3a.gates.ledger_note_takes_back_pass") with input as inp
	{[f.line, f.gate] | some f in fs} == {[32, "G1"], [32, "G2"]}
	"G3_production_ready NOTE at 2025-09-29T15:10:00Z by \"system\" comes after G2_validation PASSED (line 31) and says \"revoked\", so the gate is read as passed while its own log says it may not stand; a person must say whether it does" in {f.msg | some f in fs}

	# "gate 2" names it too
	spelt := test.patch([{"op": "add", "path": "/docs/gates_ledger/events/6", "value": object.union(other, {"note": "gate 2 is no longer valid"})}])
	{f.gate | some f in test.of(ledger.warn, "h3a.gates.ledger_note_takes_back_pass")} == {"G2"} with input as spelt
}

test_note_takes_back_named_pass_quiet if {
	# a gate that has not passed, or a name that is no gate's
	for_g3 := test.patch([{"op": "add", "path": "/docs/gates_ledger/events/6", "value": object.union(test.event("2025-09-29T15:10:00Z", "G3_production_ready", "NOTE", "system", 32), {"note": "G3 smoke test failing, G23 and pg2 broken"})}])
	count(test.of(ledger.warn, "h3a.gates.ledger_note_takes_back_pass")) == 0 with input as for_g3

	# a note naming a passed gate without taking it back
	fine := test.patch([{"op": "add", "path": "/docs/gates_ledger/events/6", "value": object.union(test.event("2025-09-29T15:10:00Z", "G3_production_ready", "NOTE", "system", 32), {"note": "G2 results archived"})}])
	count(test.of(ledger.warn, "h3a.gates.ledger_note_takes_back_pass")) == 0 with input as fine
}

test_note_takes_back_pass_quiet if {
	# a plain note
	plain := test.patch([{"op": "add", "path": "/docs/gates_ledger/events/6", "value": object.union(test.event("2025-09-29T15:10:00Z", "G2_validation", "NOTE", "validator", 32), {"note": "Report archived, all checks green"})}])
	count(test.of(ledger.warn, "h3a.gates.ledger_note_takes_back_pass")) == 0 with input as plain

	# a person's decision
	person := test.patch([{"op": "add", "path": "/docs/gates_ledger/events/6", "value": object.union(test.event("2025-09-29T15:10:00Z", "G2_validation", "DECIDED", "human", 32), {"note": "flaky test failing once; gate stands"})}])
	count(test.of(ledger.warn, "h3a.gates.ledger_note_takes_back_pass")) == 0 with input as person

	# before the pass
	before := test.patch([{"op": "add", "path": "/docs/gates_ledger/events/5", "value": object.union(test.event("2025-09-29T14:55:00Z", "G2_validation", "NOTE", "validator", 30), {"note": "first run failing, fixing"})}])
	count(test.of(ledger.warn, "h3a.gates.ledger_note_takes_back_pass")) == 0 with input as before
}

test_time_format if {
	inp := test.patch([{"op": "replace", "path": "/docs/gates_ledger/events/5/time", "value": "2025-09-29T15:00:00"}])
	[f] := test.of(ledger.deny, "h3a.gates.ledger_time_format") with input as inp
	f.line == 31
	f.msg == "G2_validation PASSED: the time \"2025-09-29T15:00:00\" is not an ISO 8601 UTC time such as 2025-09-29T14:45:00Z, so the order of this event in time is not checked"
}

test_time_format_every_time if {
	every time in ["yesterday", "2025-09-29T15:00:00", "2025-09-29 15:00:00Z", "2025-13-45T99:99:99Z", "2025-02-30T15:00:00Z"] {
		count(test.of(ledger.deny, "h3a.gates.ledger_time_format")) == 1 with input as test.patch([{"op": "replace", "path": "/docs/gates_ledger/events/5/time", "value": time}])
	}
}

# A gate table row whose status cannot be read drops the table from the
# comparison of records; a human is asked to read it.
test_table_unread_status if {
	inp := test.patch([
		{"op": "replace", "path": "/docs/gates_ledger/table/2/raw_status", "value": "Blocked"},
		{"op": "replace", "path": "/docs/gates_ledger/table/2/status", "value": ""},
	])
	[f] := test.of(ledger.warn, "h3a.gates.table_unread_status") with input as inp
	f.msg == "the gate table's row for G2_validation has the status \"Blocked\", which is not one of the Status Legend's (Passed, In Progress, Failed, Not Started), so the table is not compared with the other records of the gates"
	f.line == input.docs.gates_ledger.table[2].line with input as inp
	f.gate == "G2"
	f.needs_human
	count(ledger.deny) == 0 with input as inp
}

# A row for no gate G0 to G3 (a total, a note) is not a gate's status.
test_table_unread_status_only_gate_rows if {
	inp := test.patch([{"op": "add", "path": "/docs/gates_ledger/table/-", "value": {"gate": "", "name": "Total", "owner": "", "raw_status": "3 of 4", "status": "", "line": 14}}])
	count(test.of(ledger.warn, "h3a.gates.table_unread_status")) == 0 with input as inp
}

# A Current Gate section that says a passed gate failed, or is anything but
# passed, asks a person; one that agrees, or names a gate not passed, does not.
test_current_gate_disagrees if {
	inp := test.patch([
		{"op": "replace", "path": "/docs/gates_ledger/current/0/status", "value": "failed"},
		{"op": "replace", "path": "/docs/gates_ledger/current/0/raw_status", "value": "Failed"},
	])
	[f] := test.of(ledger.warn, "h3a.gates.current_gate_disagrees") with input as inp
	f.line == 38
	f.gate == "G2"
	f.needs_human == true
	f.msg == "the Current Gate section names G2_validation with the status \"Failed\", but the run's records claim G2_validation passed; a person must say whether it stands"

	unread := test.patch([
		{"op": "replace", "path": "/docs/gates_ledger/current/0/status", "value": ""},
		{"op": "replace", "path": "/docs/gates_ledger/current/0/raw_status", "value": "Revoked"},
	])
	count(test.of(ledger.warn, "h3a.gates.current_gate_disagrees")) == 1 with input as unread

	not_passed := test.patch([
		{"op": "replace", "path": "/docs/gates_ledger/current/0/gate", "value": "G3_production_ready"},
		{"op": "replace", "path": "/docs/gates_ledger/current/0/status", "value": "in_progress"},
	])
	count(test.of(ledger.warn, "h3a.gates.current_gate_disagrees")) == 0 with input as not_passed
	count(test.of(ledger.warn, "h3a.gates.current_gate_disagrees")) == 0 with input as fixture.fresh
}

test_current_gate_blocked if {
	inp := test.patch([{"op": "add", "path": "/docs/gates_ledger/current/0/blockers/1", "value": {"text": "Security scan reports CVE-2024-33663 (high), unresolved", "line": 60}}])
	[f] := test.of(ledger.warn, "h3a.gates.current_gate_blocked") with input as inp
	f.line == 60
	f.gate == "G2"
	f.needs_human == true
	f.msg == "the Current Gate section of G2_validation lists the blocker \"Security scan reports CVE-2024-33663 (high), unresolved\", but the run's records claim G2_validation passed; a person must confirm it was resolved"

	every none in ["None", "**None**", "none.", "N/A", "-"] {
		count(test.of(ledger.warn, "h3a.gates.current_gate_blocked")) == 0 with input as test.patch([{"op": "replace", "path": "/docs/gates_ledger/current/0/blockers/0/text", "value": none}])
	}

	# a gate not passed may be blocked: that is what a blocker is for
	count(test.of(ledger.warn, "h3a.gates.current_gate_blocked")) == 0 with input as test.patch([
		{"op": "replace", "path": "/docs/gates_ledger/current/0/gate", "value": "G3"},
		{"op": "replace", "path": "/docs/gates_ledger/current/0/blockers/0/text", "value": "waiting on the deploy window"},
	])
}

# A hand-over refused in the ledger asks for a person until a human's event
# of the gate follows it.
test_rejection_without_human if {
	rejected := {"op": "add", "path": "/docs/gates_ledger/events/4", "value": test.event("2025-09-29T14:47:00Z", "G2_validation", "REJECTED", "validator", 30)}
	inp := test.patch([rejected])
	[f] := test.of(ledger.warn, "h3a.gates.rejection_without_human") with input as inp
	f.line == 30
	f.gate == "G2"
	f.needs_human == true
	f.msg == "G2_validation REJECTED at 2025-09-29T14:47:00Z by \"validator\": the hand-over was refused, and no event of G2_validation by agent \"human\" follows; the rejection goes to a human, who has it remediated before the gate goes on"

	decided := test.patch([
		rejected,
		{"op": "add", "path": "/docs/gates_ledger/events/5", "value": test.event("2025-09-29T14:48:00Z", "G2_validation", "DECIDED", "human", 31)},
	])
	count(test.of(ledger.warn, "h3a.gates.rejection_without_human")) == 0 with input as decided

	# a human's event of another gate does not answer it
	other := test.patch([
		rejected,
		{"op": "add", "path": "/docs/gates_ledger/events/5", "value": test.event("2025-09-29T14:48:00Z", "G1_implementation", "DECIDED", "human", 31)},
	])
	count(test.of(ledger.warn, "h3a.gates.rejection_without_human")) == 1 with input as other
}

# collapsed_pass is the ok run with G2_validation FAILED in view and PASSED
# after it inside a collapsed <details> block.
collapsed_pass := test.patch([
	{"op": "replace", "path": "/docs/gates_ledger/events/5/status", "value": "FAILED"},
	{"op": "add", "path": "/docs/gates_ledger/events/6", "value": object.union(test.event("2025-09-29T15:05:00Z", "G2_validation", "PASSED", "validator", 40), {"collapsed": true})},
])

test_collapsed_event_changes_the_status_in_view if {
	[f] := test.of(ledger.deny, "h3a.gates.ledger_collapsed_status") with input as collapsed_pass
	f.line == 40
	f.gate == "G2"
	f.msg == "G2_validation PASSED at 2025-09-29T15:05:00Z (line 40) stands inside a collapsed <details> block, which GitHub shows closed, so a reader sees G2_validation FAILED (line 31) as the gate's latest event while the rules would read PASSED"
}

test_collapsed_event_that_changes_nothing_is_quiet if {
	inp := json.patch(collapsed_pass, [{"op": "replace", "path": "/docs/gates_ledger/events/5/status", "value": "PASSED"}])
	count(test.of(ledger.deny, "h3a.gates.ledger_collapsed_status")) == 0 with input as inp
}

test_collapsed_event_without_one_in_view_is_quiet if {
	inp := test.patch([{"op": "add", "path": "/docs/gates_ledger/events/0/collapsed", "value": true}])
	count(test.of(ledger.deny, "h3a.gates.ledger_collapsed_status")) == 0 with input as inp
}

test_visible_event_after_a_collapsed_one_is_quiet if {
	inp := test.patch([{"op": "add", "path": "/docs/gates_ledger/events/4/collapsed", "value": true}])
	count(test.of(ledger.deny, "h3a.gates.ledger_collapsed_status")) == 0 with input as inp
}
