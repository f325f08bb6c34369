# METADATA
# title: Helpers for H3A rules
# description: >-
#   Shared by the shipped rules and open to user rules (import data.h3a.lib).
#   finding() is how every rule builds a result element: it takes the rule id
#   from the rule's own metadata, so an element always names its rule.
package h3a.lib

# finding returns one result element of the rule whose metadata is meta:
# fields plus the rule id. Always pass rego.metadata.rule(), never a literal,
# so that an element cannot claim another rule's id.
finding(meta, fields) := object.union(fields, {"rule": meta.custom.id})

# --- documents --------------------------------------------------------------

# doc_file maps a key of input.docs to the file it was read from. A key
# that several files share (one per round of a layout with rounds) is left
# out: such rules name the file themselves.
doc_file := {key: path |
	some key, paths in doc_paths
	count(paths) == 1
	some path in paths
}

doc_paths[f.doc] contains path if some path, f in input.files

# filled holds for a string with something other than white space in it.
filled(x) if {
	is_string(x)
	trim_space(x) != ""
}

# items returns x when it is an array, else an empty array: rules iterate
# documents that may break their schema, and must not guess.
items(x) := x if is_array(x)

else := []

# get returns x[key], or null when x has none (x need not be an object):
# a rule negating a test of a member reads it through get, since a call
# whose argument is undefined is itself undefined, never false, and so is
# its negation.
get(x, key) := v if {
	v := x[key]
} else := null

# str is x when it is a string, else "".
str(x) := x if is_string(x)

else := ""

# int64 is x as a whole number when x is a number with no fractional part
# that a 64-bit integer holds (2, 2.0 and 2e0 alike); undefined for
# anything else. It judges the value, never its spelling: OPA reuses a
# function's result for arguments that are equal as numbers, so a rule
# that told 2.0 from 2 by its text would answer one way or the other
# depending on what it was asked first.
int64(x) := round(x) if {
	is_number(x)
	x >= -9223372036854775808
	x <= 9223372036854775807
	x == round(x)
}

# describe names a value for a message: a string quoted, a number as
# written, "an object", "an array", "null", "true" or "false".
describe(x) := sprintf("%q", [x]) if is_string(x)

else := json.marshal(x) if is_number(x)

else := "an object" if is_object(x)

else := "an array" if is_array(x)

else := sprintf("%v", [x])

# describe_field describes member key of object m, or says it is missing
# (also when m is no object).
describe_field(m, key) := describe(m[key]) if {
	is_object(m)
	key in object.keys(m)
} else := "missing"

# finite holds for a number a 64-bit float can hold, as the checker's Go
# code reads numbers: 1e400 is no score.
finite(x) if {
	is_number(x)
	x <= 1.7976931348623157e308
	x >= -1.7976931348623157e308
}

# pointer renders a path (as walk() yields it) as an RFC 6901 JSON pointer.
pointer(path) := concat("", [sprintf("/%s", [escape_token(tok)]) | some tok in path])

# (replace builds a string replacer on every call, so a token without "~"
# or "/", which is nearly every one, is returned as it is.)
escape_token(tok) := tok if {
	is_string(tok)
	not contains(tok, "~")
	not contains(tok, "/")
} else := replace(replace(tok, "~", "~0"), "/", "~1") if is_string(tok)

else := sprintf("%v", [tok])

# --- gates ------------------------------------------------------------------

# gate_names are the gates in order, as state.json names them.
gate_names := ["G0_planning", "G1_implementation", "G2_validation", "G3_production_ready"]

gate_numbers := numbers.range(0, 3)

# gate_number reads the gate number of "G1", "G1_implementation" or "G1_passed".
# (String builtins, not a regex: it runs for every ledger event.)
gate_number(s) := to_number(digit) if {
	is_string(s)
	startswith(s, "G")
	digit := substring(s, 1, 1)
	digit in {"0", "1", "2", "3"}
	gate_suffix_ok(substring(s, 2, 1))
}

gate_suffix_ok("")

gate_suffix_ok("_")

# parse_gate_status reads a gate_status such as "G2_passed" into
# {"gate": 2, "status": "passed"}.
parse_gate_status(s) := {"gate": gate_number(s), "status": substring(s, 3, -1)} if {
	is_string(s)
	regex.match(`^G[0-3]_(pending|not_started|in_progress|passed|failed)$`, s)
}

# status_frontier is the last gate a gate_status implies is passed: "G2_passed"
# means G0 to G2, "G2_in_progress" G0 and G1; -1 when none.
status_frontier(st) := st.gate if st.status == "passed"

else := st.gate - 1

ledger_events := items(input.docs.gates_ledger.events)

# human_event(ev): a person's decision: an event by agent "human" whose
# provenance (set by the checker, docs/trust-model.md) lies outside the
# change under review: the base holds it ("base"), a commit signed by a key
# the base names as a human's added it ("signed"), or the working tree is
# the person's own ("local"). An event with any other provenance, or none,
# is only claimed.
human_event(ev) if {
	lower(ev.agent) == "human"
	decided(ev)
}

decided(ev) if ev.provenance in decided_provenance

decided_provenance := {"base", "signed", "local"}

# claimed_human_event(ev): an event by agent "human" that the change under
# review wrote itself: a reviewer must confirm it.
claimed_human_event(ev) if {
	lower(ev.agent) == "human"
	not decided(ev) # (a ref inside "not x in y" that is undefined makes it undefined)
}

# event_gates[i] is the gate number of ledger event i (-1 for none), worked
# out once: rules look it up for every pair of events.
event_gates := [gate_or_none(ev) | some ev in ledger_events]

gate_or_none(ev) := n if {
	n := gate_number(ev.gate)
} else := -1

# gate_moves are the event statuses that change a gate's state; other words
# (REVIEWED, NOTE, DECIDED, ...) record something about a gate without moving it.
gate_moves := {"STARTED", "PASSED", "FAILED", "REJECTED", "ESCALATION", "ESCALATED"}

# ledger_latest[n] is the last event that moved gate n, in file order.
ledger_latest := {n: ledger_events[max(indexes)] | some n, indexes in gate_move_indexes}

# gate_move_indexes[n] holds the indexes of the events that moved gate n.
gate_move_indexes[n] contains i if {
	some i, ev in ledger_events
	ev.status in gate_moves
	n := event_gates[i]
	n >= 0
}

# current_task_status and handoff_status are the gate_status of
# CURRENT_TASK.json and SESSION_HANDOFF.json, with where they were read. A
# handoff in the handoff-contract shape states "G1_passed → G2_pending" in
# gate_transition instead; its left side is what has been reached.
current_task_status := {"value": s, "parsed": parse_gate_status(s), "pointer": "/gate_status"} if {
	s := input.docs.current_task.gate_status
}

handoff_status := {"value": s, "parsed": parse_gate_status(s), "pointer": "/gate_status"} if {
	s := input.docs.handoff.gate_status
	is_string(s)
} else := {"value": s, "parsed": parse_gate_status(s), "pointer": "/gate_transition"} if {
	t := input.docs.handoff.gate_transition
	is_string(t)
	s := trim_space(split(t, "→")[0])
}

# gate_sources lists every place that states how far the gates have got, with
# its frontier: the last gate it says is passed (-1 for none). Order decides
# which source the others are compared with.
gate_sources contains src if {
	gates := input.docs.state.gates
	is_object(gates)
	passed := {n | some n in gate_numbers; gates[gate_names[n]] == "passed"}
	src := {
		"order": 0, "name": "state.json gates", "file": doc_file.state, "pointer": "/gates",
		"frontier": max(passed | {-1}),
	}
}

gate_sources contains src if {
	input.docs.gates_ledger != null
	passed := {n | some n in gate_numbers; ledger_latest[n].status == "PASSED"}
	src := {
		"order": 1, "name": "the latest GATES_LEDGER.md events", "file": doc_file.gates_ledger,
		"line": ledger_line, "frontier": max(passed | {-1}),
	}
}

gate_sources contains src if {
	st := current_task_status
	src := {
		"order": 2, "name": sprintf("CURRENT_TASK.json gate_status %q", [st.value]),
		"file": doc_file.current_task, "pointer": st.pointer, "frontier": status_frontier(st.parsed),
	}
}

gate_sources contains src if {
	st := handoff_status
	src := {
		"order": 3, "name": sprintf("SESSION_HANDOFF.json %s %q", [trim_prefix(st.pointer, "/"), st.value]),
		"file": doc_file.handoff, "pointer": st.pointer, "frontier": status_frontier(st.parsed),
	}
}

# ledger_line is where a finding about the ledger as a whole points: its last
# event, or the events heading.
ledger_line := ledger_events[count(ledger_events) - 1].line if count(ledger_events) > 0

else := input.docs.gates_ledger.events_line

# claimed_passed holds every gate some source says is passed. Evidence rules
# hold each such claim to its gate's exit criteria.
claimed_passed contains n if {
	some n in gate_numbers
	input.docs.state.gates[gate_names[n]] == "passed"
}

claimed_passed contains n if {
	some n in gate_numbers
	ledger_latest[n].status == "PASSED"
}

claimed_passed contains n if {
	some n in implied_passed(current_task_status)
}

claimed_passed contains n if {
	some n in implied_passed(handoff_status)
}

# implied_passed lists the gates a gate_status implies are passed.
implied_passed(st) := numbers.range(0, f) if {
	f := status_frontier(st.parsed)
	f >= 0
} else := []

# claim_position(n) is where gate n is claimed passed: state.json when it says
# so, else the ledger event, else the gate_status that implies it.
claim_position(n) := {"file": doc_file.state, "pointer": sprintf("/gates/%s", [gate_names[n]])} if {
	input.docs.state.gates[gate_names[n]] == "passed"
} else := {"file": doc_file.gates_ledger, "line": ledger_latest[n].line} if {
	ledger_latest[n].status == "PASSED"
} else := {"file": doc_file.current_task, "pointer": current_task_status.pointer} if {
	status_frontier(current_task_status.parsed) >= n
} else := {"file": doc_file.handoff, "pointer": handoff_status.pointer}

# ledger_has(n, status) holds when the ledger logs gate n with that status.
ledger_has(n, status) if {
	some i, ev in ledger_events
	event_gates[i] == n
	ev.status == status
}

# --- tasks, cycles, verdicts -------------------------------------------------

# current_task_id is the task the run is working on: CURRENT_TASK.json's, else
# the handoff's.
current_task_id := id if {
	id := input.docs.current_task.task_id
	filled(id)
} else := id if {
	id := input.docs.handoff.payload.task_id
	filled(id)
}

roadmap_ids := {t.id | some t in items(input.docs.roadmap.tasks)}

# last_index returns the index of the last element of xs whose task_id is id.
last_index(xs, id) := max(matches) if {
	matches := {i | some i, x in items(xs); x.task_id == id}
	count(matches) > 0
}

cycles := items(input.docs.executor_report.tdd_cycles)

verdicts := items(input.docs.validator_report.verdicts)

# current_cycle is the index of the executor cycle for the current task (its
# last iteration), current_verdict that of its last verdict; with no task id
# known, the last one. Undefined when there is none.
current_cycle := last_index(cycles, current_task_id)

current_cycle := count(cycles) - 1 if {
	not current_task_id
	count(cycles) > 0
}

current_verdict := last_index(verdicts, current_task_id)

current_verdict := count(verdicts) - 1 if {
	not current_task_id
	count(verdicts) > 0
}

# limit is the iteration limit: the task's own max_iterations, else params.
limit := n if {
	n := input.docs.current_task.max_iterations
	is_number(n)
} else := input.params.max_iterations

# --- statuses -----------------------------------------------------------------

# What a status means comes from input.meanings, worked out by the checker
# from its one status mapping (docs/status-meanings.md lists it): the three documents spell
# some statuses in more than one way, so rules test the meaning, never a
# spelling.

# verdict_meaning(i) is what the status of verdict i means; undefined for a
# status no document defines.
verdict_meaning(i) := m if {
	m := input.meanings.verdicts[i]
	m != null
}

# verdict_passes(i) holds for a passing verdict (pass, pass_with_notes).
verdict_passes(i) if verdict_meaning(i).outcome == "pass"

# task_meaning is what CURRENT_TASK.json status means.
task_meaning := m if {
	m := input.meanings.task
	m != null
}

# describe_verdict_status(i) quotes verdict i's status and says what it means.
describe_verdict_status(i) := sprintf("status %q (%s)", [m.status, outcome_words[m.outcome]]) if {
	m := verdict_meaning(i)
} else := sprintf("status %s, which no document defines", [written_status(verdicts[i])])

outcome_words := {
	"open": "not decided",
	"pass": "a pass",
	"fail": "a failure, remediation due",
	"escalation": "an escalation to a human",
}

written_status(x) := sprintf("%q", [x.status]) if is_string(x.status)

else := "missing" if not has_status(x)

else := sprintf("%v", [x.status])

has_status(x) if {
	is_object(x)
	"status" in object.keys(x)
}

# passing_verdict_statuses: the passing spellings as they were before the
# status mapping; kept for user rules, the shipped rules use verdict_passes.
passing_verdict_statuses := {"pass", "pass_with_notes"}

# --- paths and evidence -------------------------------------------------------

# clean normalises a reference the way the checker normalises evidence-log
# paths, so that "./artifacts/x" and "artifacts/x" are one file.
# A reference that needs none of it, nearly every one, is returned as it is:
# replace builds a string replacer on every call.
clean(p) := p if {
	not contains(p, `\`)
	not contains(p, "/./")
	not contains(p, "//")
	not startswith(p, "./")
} else := trim_prefix(replace(replace(replace(p, `\`, "/"), "/./", "/"), "//", "/"), "./")

is_dir_ref(p) if endswith(p, "/")

# files_under lists the run's files inside folder reference p.
files_under(p) := [f | prefix := clean(p); some f in items(input.tree); startswith(f, prefix)]

# evidence_problem explains why path p is not proven evidence; undefined when
# it is logged, present and its hash verified.
evidence_problem(p) := entry_problem(object.get(input.evidence, clean(p), null))

entry_problem(null) := "is not logged in state/EVIDENCE_LOG.md"

entry_problem(e) := "is logged but resolves to a place outside the run directory" if {
	e != null
	not e.inside_run
} else := "is logged but not present in the run" if {
	e != null
	not e.exists
} else := "is logged but its hash is not verified (see the integrity finding on its EVIDENCE_LOG.md entry)" if {
	e != null
	not e.hash_ok
}

# in_tree holds when the run holds file p.
in_tree(p) if tree_set[clean(p)]

tree_set := {f | some f in items(input.tree)}

# --- time ---------------------------------------------------------------------

rfc3339 := `^[0-9]{4}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])T([01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9](\.[0-9]{1,9})?(Z|[+-]([01][0-9]|2[0-3]):[0-5][0-9])$`

# time_ns parses an RFC 3339 time; undefined for anything else, so a rule
# comparing times skips a value it cannot read instead of guessing. The
# date is checked first: time.parse_rfc3339_ns fails (a builtin error) on a
# 30 February.
time_ns(s) := time.parse_rfc3339_ns(s) if {
	is_string(s)
	regex.match(rfc3339, s)
	day_exists(to_number(substring(s, 0, 4)), to_number(substring(s, 5, 2)), to_number(substring(s, 8, 2)))
}

month_days := [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]

day_exists(_, month, day) if day <= month_days[month - 1]

day_exists(year, 2, 29) if leap(year)

leap(year) if {
	year % 4 == 0
	year % 100 != 0
}

leap(year) if year % 400 == 0

# --- secrets ------------------------------------------------------------------

# mask shows enough of a secret to find it, never the secret itself.
mask(s) := sprintf("%s… (%d characters, masked)", [substring(s, 0, 4), count(s)]) if count(s) > 8

else := sprintf("… (%d characters, masked)", [count(s)])
