# METADATA
# title: Gates ledger semantics
# description: The GATES_LEDGER.md events tell a possible story; STARTED comes first, in order and in time.
# schemas:
#   - input: schema.input.h3a
package h3a.rules.ledger

import data.h3a.lib
import data.h3a.model

events := model.ledger_events

ledger_file := lib.doc_file.gates_ledger

# outcomes end a gate attempt that a STARTED event opened.
outcomes := {"PASSED", "FAILED"}

# METADATA
# title: Gate outcome without a start
# description: >-
#   A PASSED or FAILED event of a gate needs an earlier STARTED event of the same gate.
#   gate_framework.md, Gate Lifecycle & State Machine: "G0_pending ──→ G0_in_progress ──→
#   G0_passed" (a gate passes or fails from in progress); h3a-state-specification.md,
#   GATES_LEDGER.md update protocol: "Agents append to "Gate Events Log" on status
#   changes".
# custom:
#   id: h3a.gates.ledger_unstarted
#   category: gates
#   severity: error
#   remediation: >-
#     a gate outcome needs its attempt: if the STARTED event was lost, restore the ledger
#     from history; never write outcomes without running the gate
deny contains f if {
	some i, ev in events
	ev.status in outcomes
	n := model.event_gates[i]
	n >= 0
	not event_before(i, n, "STARTED")
	f := lib.finding(rego.metadata.rule(), {
		"msg": sprintf("%s %s at %s has no earlier %s STARTED event", [ev.gate, ev.status, ev.time, ev.gate]),
		"file": ledger_file,
		"line": ev.line,
		"gate": sprintf("G%d", [n]),
	})
}

# METADATA
# title: Gate started before the previous gate passed
# description: >-
#   G(n) STARTED needs an earlier G(n-1) PASSED event, and its time must not be before the
#   time of the last such event. gate_framework.md, G1 Entry Criteria: "G0 passed |
#   GATES_LEDGER.md shows G0_planning PASSED" (and G2's "G1 passed", G3's "G2 passed").
# custom:
#   id: h3a.gates.ledger_started_early
#   category: gates
#   severity: error
#   remediation: >-
#     start a gate only after the previous gate has passed; if the order in the log is
#     wrong, append a correcting event instead of rewriting the ledger
deny contains f if {
	some v in started_early
	f := lib.finding(rego.metadata.rule(), v)
}

started_early contains v if {
	some i, ev in events
	ev.status == "STARTED"
	n := model.event_gates[i]
	n >= 0
	n > 0
	not event_before(i, n - 1, "PASSED")
	v := {
		"msg": sprintf("%s STARTED at %s, but no G%d PASSED event comes before it", [ev.gate, ev.time, n - 1]),
		"file": ledger_file,
		"line": ev.line,
		"gate": sprintf("G%d", [n]),
	}
}

started_early contains v if {
	some i, ev in events
	ev.status == "STARTED"
	n := model.event_gates[i]
	n >= 0
	n > 0
	k := last_before(i, n - 1, "PASSED")
	prev := events[k]
	event_ns[i] < event_ns[k]
	v := {
		"msg": sprintf("%s STARTED at %s, earlier than %s PASSED at %s (line %d)", [ev.gate, ev.time, prev.gate, prev.time, prev.line]),
		"file": ledger_file,
		"line": ev.line,
		"gate": sprintf("G%d", [n]),
	}
}

# METADATA
# title: Gate outcome earlier than its start
# description: >-
#   A PASSED or FAILED time earlier than the time of the STARTED event it ends.
#   gate_framework.md, Gate Lifecycle & State Machine: "G0_in_progress ──→ G0_passed";
#   h3a-state-specification.md, GATES_LEDGER.md update protocol: "Use ISO 8601 timestamps
#   with UTC timezone".
# custom:
#   id: h3a.gates.ledger_time_inverted
#   category: gates
#   severity: error
#   remediation: >-
#     record real UTC times when events happen; a gate cannot pass before it started,
#     so check which of the two times is wrong and append a correction
deny contains f if {
	some v in inverted
	f := lib.finding(rego.metadata.rule(), v)
}

inverted contains v if {
	some i, ev in events
	ev.status in outcomes
	n := model.event_gates[i]
	n >= 0
	k := last_before(i, n, "STARTED")
	start := events[k]
	event_ns[i] < event_ns[k]
	v := {
		"msg": sprintf("%s %s at %s, earlier than its STARTED event at %s (line %d)", [ev.gate, ev.status, ev.time, start.time, start.line]),
		"file": ledger_file,
		"line": ev.line,
		"gate": sprintf("G%d", [n]),
	}
}

# METADATA
# title: Ledger time goes backwards
# description: >-
#   An event's time is earlier than the time of the event before it, where the two are not a
#   start and outcome of one gate or consecutive gates (those are errors of their own). Real
#   logs are not always in time order, and the specification asks only that events be
#   appended, so this is a warning. h3a-state-specification.md, GATES_LEDGER.md update
#   protocol: "Agents append to "Gate Events Log" on status changes"; "Never delete
#   history".
# custom:
#   id: h3a.gates.ledger_time_backwards
#   category: gates
#   severity: warning
#   remediation: append events in the order they happen, with UTC times from one clock
warn contains f if {
	some i, ev in events
	i > 0
	prev := events[i - 1]
	event_ns[i] < event_ns[i - 1]
	not ev.line in flagged_lines
	f := lib.finding(rego.metadata.rule(), {
		"msg": sprintf("%s %s at %s is earlier than the event before it (%s %s at %s, line %d)", [ev.gate, ev.status, ev.time, prev.gate, prev.status, prev.time, prev.line]),
		"file": ledger_file,
		"line": ev.line,
	})
}

flagged_lines := {v.line | some v in inverted} | {v.line | some v in started_early}

event_before(i, n, status) if {
	some j in model.event_indexes[[n, status]]
	j < i
}

last_before(i, n, status) := model.last_before(i, n, status)

event_ns := model.event_ns

# METADATA
# title: Gate event the rules cannot read
# description: >-
#   A Gate Events Log event whose gate id spells G0 to G3 another way (G2-validation,
#   G2validation, G02_validation), or whose status spells a move of a gate another way (FAIL, PASS,
#   PASS_WITH_NOTES, ESCALATION_REQUIRED, START, IN_PROGRESS): the rules read the gate of G<n> and
#   G<n>_<name>, and the moves STARTED, PASSED, FAILED, REJECTED, ESCALATION and ESCALATED,
#   so the event would count for no gate, or as a note, and the story it tells would be
#   lost. Other words (REVIEWED, DECIDED, NOTE) stay notes about the gate (after its
#   pass, any but these three asks for a person: h3a.gates.ledger_note_after_pass).
#   h3a-state-specification.md, GATES_LEDGER.md: "[2025-09-29T14:45:00Z]
#   G1_implementation - PASSED - executor - ..." and "Agents append to "Gate Events Log"
#   on status changes"; gate_framework.md, Escalation Process: "Update GATES_LEDGER.md with
#   ESCALATION event", Gate Lifecycle & State Machine: "G0_pending ──→ G0_in_progress"
#   (the state STARTED moves a gate to); handoff_contracts.md: "G1_implementation -
#   REJECTED - executor".
# custom:
#   id: h3a.gates.ledger_unread_event
#   category: gates
#   severity: error
#   remediation: >-
#     append a corrected event, spelled as the specification writes it (G2_validation,
#     FAILED, ESCALATION); never edit the line that is there
deny contains f if {
	some v in unread_events
	f := lib.finding(rego.metadata.rule(), v)
}

unread_events contains v if {
	some i, ev in events
	model.event_gates[i] < 0
	n := unread_gate(ev.gate)
	v := {
		"msg": sprintf("%s %s at %s: the gate id %s is read as no gate; write G%d or %s", [ev.gate, ev.status, ev.time, ev.gate, n, model.gate_names[n]]),
		"file": ledger_file,
		"line": ev.line,
	}
}

unread_events contains v if {
	some ev in events
	is_string(ev.status)
	not ev.status in model.gate_moves
	moves := [move | some [stem, move] in move_stems; contains(ev.status, stem)]
	count(moves) > 0
	v := {
		"msg": sprintf("%s %s at %s: the status %s is read as a note, not as a move of the gate; write %s", [ev.gate, ev.status, ev.time, ev.status, concat(" or ", moves)]),
		"file": ledger_file,
		"line": ev.line,
	}
}

# unread_gate is the gate G0 to G3 that a gate id the rules read as no gate
# spells another way: with more after the digit (G2-validation, G2validation)
# or with leading zeros (G02_validation, G02).
unread_gate(g) := to_number(substring(g, 1, 1)) if {
	is_string(g)
	regex.match(`^G[0-3][^0-9_]`, g)
}

unread_gate(g) := to_number(m[0][1]) if {
	is_string(g)
	m := regex.find_all_string_submatch_n(`^G0+([0-3])([^0-9]|$)`, g, 1)
	count(m) == 1
}

# move_stems pairs each move with the part its other spellings share, in
# order: FAIL and FAILURE spell FAILED, ESCALATION_REQUIRED spells ESCALATION.
# IN_PROGRESS is the state a STARTED event moves a gate to (gate_framework.md,
# Gate Lifecycle & State Machine: "G0_pending ──→ G0_in_progress").
move_stems := [["START", "STARTED"], ["IN_PROGRESS", "STARTED"], ["PASS", "PASSED"], ["FAIL", "FAILED"], ["REJECT", "REJECTED"], ["ESCALAT", "ESCALATION"]]

# METADATA
# title: Gate passed, then an event the rules read as a note
# description: >-
#   An event of a gate after the gate's last move, when that move is PASSED, whose status is
#   no move (STARTED, PASSED, FAILED, REJECTED, ESCALATION, ESCALATED), no other spelling of
#   one (h3a.gates.ledger_unread_event) and none of the notes REVIEWED, DECIDED and NOTE:
#   BLOCKED, REVOKED, REOPENED, PENDING. The rules read it as a note and the gate stays
#   passed, while a person reads the gate as taken back; agents append events "on status
#   changes", and the checker cannot tell which this one is, so a person reads it.
#   h3a-state-specification.md, GATES_LEDGER.md update protocol: "Agents append to "Gate
#   Events Log" on status changes"; gate_framework.md, Gate Lifecycle & State Machine
#   (pending, in_progress, passed, failed, escalation_required), Troubleshooting, Gate
#   Passed But Artifacts Missing: "revert gate to FAILED and re-run".
# custom:
#   id: h3a.gates.ledger_note_after_pass
#   category: gates
#   severity: warning
#   remediation: >-
#     if the gate no longer stands, append its FAILED event (or STARTED for another attempt)
#     and take it through again; if the event was only a note, a person confirms it and
#     the next event is spelt REVIEWED or NOTE
warn contains f if {
	some n, last in model.ledger_latest
	last.status == "PASSED"
	k := max(model.gate_move_indexes[n])
	some j, ev in events
	j > k
	model.event_gates[j] == n
	is_string(ev.status)
	not ev.status in model.gate_moves
	not ev.status in note_statuses
	not spells_move(ev.status)
	f := lib.finding(rego.metadata.rule(), {
		"msg": sprintf("%s %s at %s by %s comes after %s PASSED (line %d) and is read as a note, so the gate stays passed; the status %s is no move of a gate, and a person must say whether the gate still stands", [ev.gate, ev.status, ev.time, lib.describe(ev.agent), last.gate, last.line, ev.status]),
		"file": ledger_file,
		"line": ev.line,
		"gate": sprintf("G%d", [n]),
		"needs_human": true,
	})
}

# note_statuses are the words that record something about a gate without moving it.
note_statuses := {"REVIEWED", "DECIDED", "NOTE"}

# METADATA
# title: Gate passed, then a note that takes it back
# description: >-
#   An event after a gate's last move, when that move is PASSED, filed under the gate or
#   naming it in its note ("G2", "G2_validation", "gate 2"), whose status is
#   one of the notes REVIEWED, DECIDED and NOTE, written by an agent that is not a person
#   (no agent "human" with the base's or a signed commit's word, lib.human_event), and whose
#   note says the gate is taken back or its work broke: revoked, reverted, reopened,
#   regression, failing, broken, blocked, withdrawn, invalidated, rolled back, no longer. The
#   rules read a note as moving nothing, so the gate stays passed, while the agent itself
#   says it does not stand; the gate protocol takes a gate back with a FAILED event, not a
#   note, so a person reads it.
#   h3a-state-specification.md, GATES_LEDGER.md update protocol: "Agents append to "Gate
#   Events Log" on status changes" and "Include agent name and brief notes";
#   gate_framework.md, Gate Lifecycle & State Machine (passed, failed), Troubleshooting,
#   Gate Passed But Artifacts Missing: "revert gate to FAILED and re-run".
# custom:
#   id: h3a.gates.ledger_note_takes_back_pass
#   category: gates
#   severity: warning
#   remediation: >-
#     if the gate no longer stands, append its FAILED event (or STARTED for another attempt)
#     and take it through again; if the note only tells of something already mended, a
#     person confirms that the gate stands
warn contains f if {
	some j, ev in events
	ev.status in note_statuses
	not lib.human_event(ev)
	is_string(ev.note)
	some word in regex.find_n(takes_back_pattern, lower(ev.note), 1)
	some n in note_gates(j, ev)
	last := model.ledger_latest[n]
	last.status == "PASSED"
	j > max(model.gate_move_indexes[n])
	f := lib.finding(rego.metadata.rule(), {
		"msg": sprintf("%s %s at %s by %s comes after %s PASSED (line %d) and says %q, so the gate is read as passed while its own log says it may not stand; a person must say whether it does", [ev.gate, ev.status, ev.time, lib.describe(ev.agent), last.gate, last.line, word]),
		"file": ledger_file,
		"line": ev.line,
		"gate": sprintf("G%d", [n]),
		"needs_human": true,
	})
}

# note_gates(j, ev) are the gates a note is about: the gate it is filed under,
# and every gate its text names ("G2", "G2_validation", "gate 2"), since an
# agent may file what takes G2 back under the gate it is working on.
note_gates(j, ev) := {n | n := model.event_gates[j]; n >= 0} | {to_number(m[1]) |
	some m in regex.find_all_string_submatch_n(named_gate_pattern, lower(ev.note), -1)
}

named_gate_pattern := `\b(?:g|gate[ _-]?)([0-3])(?:[^0-9]|$)`

# takes_back_pattern matches, in a lower-cased note, the words an agent uses
# when a passed gate's work is taken back or found broken. "fail" matches a
# count of none too ("0 failures"): a person reading that costs less than a
# revoked gate read as passed.
takes_back_pattern := `\b(revok\w*|revert\w*|reopen\w*|regress\w*|retract\w*|withdr[ae]wn?|invalidat\w*|roll(ed|ing)?[ -]?back|no longer|fail\w*|broken|breaks|block\w*|not pass\w*)\b`

spells_move(status) if {
	some [stem, _] in move_stems
	contains(status, stem)
}

# METADATA
# title: Gate table status the rules cannot read
# description: >-
#   A row of the GATES_LEDGER.md gate framework table, for a gate G0 to G3, whose Status
#   cell names none of the statuses of the Status Legend (Passed, In Progress, Failed, Not
#   Started, or their emoji), or more than one; or whose Status column holds something else
#   because the row has a cell too many or too few. The table is compared with the other
#   records only when every gate row's status can be read
#   (h3a.gates.sources_disagree), so one such row drops the whole table, and a row that
#   says a gate failed or is in progress goes unread. The checker cannot tell what the row
#   means, so a human reads it. h3a-state-specification.md, GATES_LEDGER.md: "| **G0:
#   Planning** | Planner | Task decomposition, TDD strategy | 🟢 Passed |" and "**Status
#   Legend:** 🟢 Passed, 🟡 In Progress, 🔴 Failed (remediation needed), ⚪ Not Started".
# custom:
#   id: h3a.gates.table_unread_status
#   category: gates
#   severity: warning
#   remediation: >-
#     write the gate's status in the table's Status column with one of the legend's
#     statuses (🟢 Passed, 🟡 In Progress, 🔴 Failed, ⚪ Not Started), with as many cells
#     as the header has
warn contains f if {
	some r in lib.items(input.docs.gates_ledger.table)
	n := model.gate_from_name(r.gate)
	r.status == ""
	f := lib.finding(rego.metadata.rule(), {
		"msg": sprintf("the gate table's row for %s has the status %s, which is not one of the Status Legend's (Passed, In Progress, Failed, Not Started), so the table is not compared with the other records of the gates", [model.gate_names[n], lib.describe(r.raw_status)]),
		"file": ledger_file,
		"line": r.line,
		"gate": sprintf("G%d", [n]),
		"needs_human": true,
	})
}

# METADATA
# title: Gate event time unreadable
# description: >-
#   An event's time is not an ISO 8601 time with a UTC offset (RFC 3339, such as
#   2025-09-29T14:45:00Z), or names a day or hour that does not exist, so the rules that
#   compare event times cannot place it. h3a-state-specification.md, GATES_LEDGER.md update
#   protocol: "Use ISO 8601 timestamps with UTC timezone".
# custom:
#   id: h3a.gates.ledger_time_format
#   category: gates
#   severity: error
#   remediation: >-
#     write event times as UTC with the date, a T, the time and a Z
#     (2025-09-29T14:45:00Z); append a corrected event rather than editing the line
deny contains f if {
	some i, ev in events
	not event_ns[i]
	f := lib.finding(rego.metadata.rule(), {
		"msg": sprintf("%s %s: the time %q is not an ISO 8601 UTC time such as 2025-09-29T14:45:00Z, so the order of this event in time is not checked", [ev.gate, ev.status, ev.time]),
		"file": ledger_file,
		"line": ev.line,
	})
}

# METADATA
# title: Current Gate section says a passed gate is not passed
# description: >-
#   The GATES_LEDGER.md "Current Gate" section names a gate that the run's records claim as
#   passed (state.json gates, the ledger's events, a gate_status), but its Status is another
#   (Failed, In Progress, Not Started) or one the rules cannot read. A person reading the
#   ledger sees the gate not passed while the checker would pass it; the checker cannot
#   tell a section left stale from a gate taken back, so a person reads it.
#   h3a-state-specification.md, GATES_LEDGER.md Schema: "## Current Gate: <Gate ID>",
#   "**Status:** <In Progress | Passed | Failed>".
# custom:
#   id: h3a.gates.current_gate_disagrees
#   category: gates
#   severity: warning
#   remediation: >-
#     if the gate still stands, a person confirms it and the section is brought up to date
#     at the next write; if it does not, append its FAILED event and set every record back
warn contains f if {
	some c in lib.items(input.docs.gates_ledger.current)
	c.status_line > 0
	n := model.gate_from_name(c.gate)
	n in model.claimed_passed
	c.status != "passed"
	f := lib.finding(rego.metadata.rule(), {
		"msg": sprintf("the Current Gate section names %s with the status %s, but the run's records claim %s passed; a person must say whether it stands", [c.gate, lib.describe(c.raw_status), model.gate_names[n]]),
		"file": ledger_file,
		"line": c.status_line,
		"gate": sprintf("G%d", [n]),
		"needs_human": true,
	})
}

# METADATA
# title: Current Gate section lists a blocker of a passed gate
# description: >-
#   The GATES_LEDGER.md "Current Gate" section of a gate that the run's records claim as
#   passed lists a blocker under "**Blockers:**" other than "None". A blocker is what stops
#   the gate, and the escalation protocol sends it to a human; the specification says
#   nothing of clearing one, so a blocker left in place cannot be told from a gate passed
#   over it: a person reads it. h3a-state-specification.md, GATES_LEDGER.md Schema:
#   "**Blockers:** - <None | Description of blocker>"; gate_framework.md, Escalation
#   Triggers: "Architectural blocker (e.g., dependency conflict)".
# custom:
#   id: h3a.gates.current_gate_blocked
#   category: gates
#   severity: warning
#   remediation: >-
#     a person confirms the blocker was resolved before the gate passed (then the section
#     says None at the next write), or the gate is failed and taken through again
warn contains f if {
	some c in lib.items(input.docs.gates_ledger.current)
	n := model.gate_from_name(c.gate)
	n in model.claimed_passed
	some b in c.blockers
	not no_blocker(b.text)
	f := lib.finding(rego.metadata.rule(), {
		"msg": sprintf("the Current Gate section of %s lists the blocker %s, but the run's records claim %s passed; a person must confirm it was resolved", [c.gate, lib.describe(b.text), model.gate_names[n]]),
		"file": ledger_file,
		"line": b.line,
		"gate": sprintf("G%d", [n]),
		"needs_human": true,
	})
}

# no_blocker(text) holds for an item that says there is none: "None",
# "None.", "_None_", "n/a", "-".
no_blocker(text) if {
	t := lower(trim(trim_space(text), "*_`. "))
	t in {"none", "n/a", "na", "-", ""}
}

# METADATA
# title: Rejected hand-over without a human after it
# description: >-
#   A REJECTED event of a gate in the Gate Events Log, with no later event of that gate by
#   agent "human". A receiving agent that refuses a hand-over logs the rejection, and the
#   protocol sends it to a human, who has the sending agent remediate before the receiver
#   re-validates and accepts; without the human's event, the gate went on over a refused
#   hand-over, or still waits on one, and a person must step in. (SESSION_HANDOFF.json
#   says it too while its status is "rejected", h3a.gates.handoff_rejected; the ledger keeps
#   it after the handoff is written over.) handoff_contracts.md, Handoff Rejection
#   Protocol, Rejection Process: "Log rejection in GATES_LEDGER.md: [...]
#   G1_implementation - REJECTED - executor - Reason: ...", "Escalate to human", "Human
#   coordinates with sending agent to remediate", "Retry after fix".
# custom:
#   id: h3a.gates.rejection_without_human
#   category: gates
#   severity: warning
#   remediation: >-
#     a human reviews the rejection, has the sending agent remediate, and records the
#     decision as a GATES_LEDGER.md event of the gate by agent "human" before the receiver
#     takes the hand-over again
warn contains f if {
	some i, ev in events
	ev.status == "REJECTED"
	n := model.event_gates[i]
	n >= 0
	not human_after(i, n)
	f := lib.finding(rego.metadata.rule(), {
		"msg": sprintf("%s REJECTED at %s by %s: the hand-over was refused, and no event of %s by agent \"human\" follows; the rejection goes to a human, who has it remediated before the gate goes on", [ev.gate, ev.time, lib.describe(ev.agent), model.gate_names[n]]),
		"file": ledger_file,
		"line": ev.line,
		"gate": sprintf("G%d", [n]),
		"needs_human": true,
	})
}

# human_after(i, n): an event of gate n by agent "human" follows event i.
human_after(i, n) if {
	some j, e in events
	j > i
	model.event_gates[j] == n
	lower(e.agent) == "human"
}
