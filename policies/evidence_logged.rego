# Gate evidence: logged and verified in the evidence log.
# (The package and its metadata: evidence.rego.)
package h3a.rules.evidence

import data.h3a.lib
import data.h3a.model

# METADATA
# title: Gate evidence missing, unlogged, unverified or empty
# description: >-
#   Every artifact a passed gate requires, and every one its GATES_LEDGER.md "Current Gate"
#   section lists under "**Evidence Required:**" (a report or state file of the run aside,
#   which is checked as such), is present, logged in EVIDENCE_LOG.md, its hash
#   verified, not empty nor white space alone (such a file shows no test run, coverage or
#   scan), not the content of a report or state file of the run nor of another artifact the
#   gates require (a copy or a symbolic link: the same logged hash), and not one of
#   the run's own documents (a report or state file the checker reads, such as
#   planner_report.json or state/CURRENT_TASK.json, is not the scan or test output the gate
#   lists beside it): G1 the RED
#   and GREEN test outputs and coverage_delta.json; G2
#   security_scan.json and mutation_report.txt; G3 pre_deploy_checklist.md and
#   rollback_plan.md. The path is the one the reports name, else the specification's;
#   G3's two have no report to name them, so they are at the specification's path under
#   artifacts/system/, and a file of the same name in another folder does not count.
#   gate_framework.md, Core Principle: "No artifact = No progress"; Evidence Protocol,
#   Artifact Requirements by Gate; G3 Entry Criteria: "All artifacts logged", "Hash
#   verification | All artifact hashes in EVIDENCE_LOG match actual files"; Artifact
#   Requirements by Gate lists each gate's artifacts apart from the reports (G2:
#   "validator_report.json, security_scan.json, mutation_report.txt");
#   h3a-state-specification.md, Directory Structure: "artifacts/  # Evidence storage"; G3 Artifacts
#   Required: "`artifacts/system/pre_deploy_checklist.md`", "`artifacts/system/rollback_plan.md`";
#   h3a-state-specification.md, GATES_LEDGER.md Schema: "**Evidence Required:** -
#   `<artifact path>` - <description>".
# custom:
#   id: h3a.evidence.required_artifact
#   category: evidence
#   severity: error
#   remediation: >-
#     produce the artifact by running the step, save it under artifacts/ and log it with
#     h3a-check log RUN FILE "description"; no artifact, no gate
deny contains f if {
	some r in required_or_listed
	problem := artifact_problem(r)
	position := object.filter(r, ["file", "pointer", "line"])
	f := lib.finding(rego.metadata.rule(), element(r.gate, object.union(position, {
		"msg": sprintf("%s is passed but its %s %q %s%s", [model.gate_names[r.gate], r.what, r.path, problem, object.get(r, "note", "")]),
	})))
}

# required_or_listed adds to required each artifact a passed gate's Current
# Gate section lists under "**Evidence Required:**" that no report names
# for it already and that is none of the run's documents (a report or a
# state file, which the checker reads and checks as such).
required_or_listed := required | {r |
	some r in listed_evidence
	not lib.clean(r.path) in {lib.clean(x.path) | some x in required}
}

listed_evidence contains r if {
	some c in lib.items(input.docs.gates_ledger.current)
	n := model.gate_from_name(c.gate)
	n in model.claimed_passed
	some e in c.evidence
	not input.files[lib.clean(e.path)]
	r := {
		"gate": n, "what": "evidence listed in its Current Gate section", "path": e.path,
		"file": lib.doc_file.gates_ledger, "line": e.line,
	}
}

# artifact_problem says why required artifact r is no proof: not logged,
# present and verified, one of the run's own documents (a report or a
# state file, which the gate lists apart from its artifacts, or which is
# the record of the claim itself), or empty (its verified hash is the
# SHA-256 of no bytes) or blank (white space alone, a fact of the
# hashing), which shows nothing; or it has the content of a document of
# the run or of another artifact the gates require (the same logged hash:
# a copy of it, or a symbolic link to it), which is that file, not this
# one. An empty or blank RED output, and one with the GREEN output's
# content, are h3a.evidence.tdd_red_not_failure's.
artifact_problem(r) := problem if {
	problem := model.evidence_problem(r.path)
} else := sprintf("is not a %s of its own but the run's %s document, which the checker reads as a report or state file; the gate's evidence is a file of its own under artifacts/", [r.what, doc]) if {
	doc := input.files[lib.clean(r.path)].doc
} else := "is empty: it is logged with the SHA-256 of no bytes, so it shows nothing" if {
	r.what != "RED test output"
	startswith(empty_digest, logged_digest(r.path))
} else := "holds nothing but white space (blank lines, spaces), so it shows nothing" if {
	r.what != "RED test output"
	input.evidence[lib.clean(r.path)].blank
} else := sprintf("has the content of the run's %s document %q (its logged hash is that file's SHA-256), not a %s of its own", [f.doc, fp, r.what]) if {
	d := logged_digest(r.path)
	some fp, f in input.files
	is_string(f.sha256)
	startswith(f.sha256, d)
} else := sprintf("has the same content as its %s %q (the same logged hash %s): one file cannot be both", [o.what, o.path, d]) if {
	r.what != "RED test output"
	d := logged_digest(r.path)
	some o in required
	o.what != "RED test output"
	o.what != r.what
	lib.clean(o.path) != lib.clean(r.path)
	logged_digest(o.path) == d
}

required contains r if {
	1 in model.claimed_passed
	some phase, field in tdd_outputs
	p := phases[phase][field]
	lib.filled(p)
	r := {
		"gate": 1, "what": sprintf("%s test output", [upper(phase)]), "path": p,
		"file": lib.doc_file.executor_report,
		"pointer": sprintf("/tdd_cycles/%d/tdd_phases/%s/%s", [model.current_cycle, phase, field]),
	}
}

required contains r if {
	1 in model.claimed_passed
	some phase, field in tdd_outputs
	not current_cycle_names(phase, field)
	r := object.union(model.claim_position(1), {
		"gate": 1, "what": sprintf("%s test output", [upper(phase)]),
		"path": sprintf("artifacts/executor/test_output_%s.txt", [phase]),
	})
}

tdd_outputs := {"red": "failure_output", "green": "test_output"}

required contains r if {
	1 in model.claimed_passed
	r := object.union({"gate": 1, "what": "coverage report"}, coverage_artifact)
}

coverage_artifact := {"path": p, "file": lib.doc_file.executor_report, "pointer": sprintf("/tdd_cycles/%d/artifacts/%d", [model.current_cycle, j])} if {
	paths := [[k, x] | some k, x in lib.items(model.cycles[model.current_cycle].artifacts); is_string(x); endswith(x, "coverage_delta.json")]
	count(paths) > 0
	[j, p] := paths[0]
} else := object.union(model.claim_position(1), {"path": "artifacts/executor/coverage_delta.json"})

validator_reports := {
	"security": {"what": "security scan", "path": "artifacts/validator/security_scan.json"},
	"mutation": {"what": "mutation report", "path": "artifacts/validator/mutation_report.txt"},
}

required contains r if {
	2 in model.claimed_passed
	some check, spec in validator_reports
	p := model.verdicts[model.current_verdict].verification_results[check].report
	lib.filled(p)
	r := {
		"gate": 2, "what": spec.what, "path": p,
		"file": lib.doc_file.validator_report,
		"pointer": sprintf("/verdicts/%d/verification_results/%s/report", [model.current_verdict, check]),
	}
}

required contains r if {
	2 in model.claimed_passed
	some check, spec in validator_reports
	not verdict_names(check)
	r := object.union(model.claim_position(2), {"gate": 2, "what": spec.what, "path": spec.path})
}

verdict_names(check) if lib.filled(model.verdicts[model.current_verdict].verification_results[check].report)

system_artifacts := {"pre_deploy_checklist.md": "pre-deploy checklist", "rollback_plan.md": "rollback plan"}

# G3's artifacts have no report to name them: the path is the gate framework's,
# artifacts/system/<name>, and a file of that name logged in another folder
# does not stand in for it.
required contains r if {
	3 in model.claimed_passed
	some name, what in system_artifacts
	path := sprintf("artifacts/system/%s", [name])
	r := object.union(system_position(path), {"gate": 3, "what": what, "path": path, "note": elsewhere_note(name, path)})
}

# system_position is the last evidence-log entry of path, else where G3 is
# claimed passed.
system_position(path) := {"file": lib.doc_file.evidence_log, "line": lines[count(lines) - 1]} if {
	lines := [e.line | some i, e in logged_entries; logged_paths[i] == path]
	count(lines) > 0
} else := model.claim_position(3)

# elsewhere_note names the files of the same name logged outside
# artifacts/system/, when path itself is not logged.
elsewhere_note(name, path) := sprintf(" (%s logged elsewhere, but G3 requires %q)", [concat(", ", [sprintf("%q", [p]) | some p in others]), path]) if {
	not path in logged_paths
	others := sort({p | some p in logged_paths; lib.base_name(p) == name})
	count(others) > 0
} else := ""

# METADATA
# title: Gate evidence logged after the gate passed
# description: >-
#   Every artifact a passed gate requires (the list of h3a.evidence.required_artifact) has
#   an EVIDENCE_LOG.md entry whose time is not later than the time of the gate's last PASSED
#   event in GATES_LEDGER.md. When every entry of the artifact is later, the log says the
#   gate passed before its evidence was there. gate_framework.md, Purpose: each gate
#   "requires artifact proof to pass", Core Principle: "No artifact = No progress";
#   h3a-state-specification.md, EVIDENCE_LOG.md update protocol: "Agents append entries when
#   creating artifacts", "Include timestamp"; handoff_contracts.md, Best Practices for
#   Sending Agents: "Complete all obligations before handoff". The gate framework also
#   remedies a passed gate whose artifacts exist but were not logged by logging them
#   afterwards (Troubleshooting, Gate Passed But Artifacts Missing: "Add missing entries to
#   EVIDENCE_LOG.md with hashes"; "If artifacts truly missing, revert gate to FAILED and
#   re-run"), and a late entry cannot tell the two apart, so this is a warning that asks
#   for a human. An entry time the rules cannot read (not an ISO 8601 UTC time such as
#   2025-09-29T14:45:00Z) does not show the artifact was logged in time, and nothing else
#   reports it, so it counts as not in time; a PASSED time the rules cannot read is not
#   compared (h3a.gates.ledger_time_format reports it), nor a PASSED time earlier than its
#   gate's STARTED time (h3a.gates.ledger_time_inverted reports that one).
# custom:
#   id: h3a.evidence.logged_after_gate
#   category: evidence
#   severity: warning
#   remediation: >-
#     if the artifact existed when the gate passed and was only logged late, a human
#     confirms it; if it was produced afterwards, the gate passed without its evidence:
#     append a FAILED event for the gate, re-run it, and append a new PASSED event once the
#     evidence is logged
warn contains f if {
	some v in late_evidence
	f := lib.finding(rego.metadata.rule(), element(v.gate, object.union(v.at, {"needs_human": true})))
}

late_evidence contains {"gate": r.gate, "at": at} if {
	some r in required
	passed := last_pass[r.gate].event
	passed_ns := last_pass[r.gate].ns
	want := lib.clean(r.path)
	entries := [e | some i, e in logged_entries; logged_paths[i] == want]
	count(entries) > 0
	every e in entries {
		not logged_by(e, passed_ns)
	}
	first := entries[0]
	at := {
		"msg": late_message(passed, r, entries),
		"file": lib.doc_file.evidence_log,
		"line": first.line,
	}
}

# logged_by(e, ns) holds for an entry whose time can be read and is not
# later than ns.
logged_by(e, ns) if lib.time_ns(e.time) <= ns

late_message(passed, r, entries) := sprintf(
	"%s PASSED at %s (GATES_LEDGER.md line %d), but its %s %q is logged only later, first at %s: the gate passed before its evidence was logged",
	[passed.gate, passed.time, passed.line, r.what, r.path, entries[0].time],
) if {
	every e in entries {
		lib.time_ns(e.time)
	}
} else := sprintf(
	"%s PASSED at %s (GATES_LEDGER.md line %d), but its %s %q is logged only at %s, %s: no entry shows it was logged before the gate passed; write entry times as ISO 8601 UTC such as 2025-09-29T14:45:00Z",
	[passed.gate, passed.time, passed.line, r.what, r.path, concat(", ", [sprintf("%q", [e.time]) | some e in entries]), unreadable_words(entries)],
)

unreadable_words(entries) := "a time that cannot be read" if count(entries) == 1

else := "times that cannot be read or are later"

# last_passed[n] is the index of the last PASSED event of gate n in the ledger.
last_passed[n] := max(found) if {
	some n in model.gate_numbers
	found := model.event_indexes[[n, "PASSED"]]
}

# last_pass[n] is the last PASSED event of gate n and its time, once per
# gate, when the time can be read and is no error of its own.
last_pass[n] := {"event": ev, "ns": model.event_ns[k]} if {
	some n, k in last_passed
	not pass_time_known_wrong(k, n)
	ev := model.ledger_events[k]
}

# pass_time_known_wrong(k, n): PASSED event k of gate n is timed before the
# STARTED event it ends, an error of its own (h3a.gates.ledger_time_inverted),
# so its time is no measure for the evidence.
pass_time_known_wrong(k, n) if model.event_ns[k] < model.event_ns[model.last_before(k, n, "STARTED")]

# METADATA
# title: Gate evidence replaced after the gate passed
# description: >-
#   An artifact a passed gate requires (the list of h3a.evidence.required_artifact) was
#   logged in EVIDENCE_LOG.md by the time of the gate's last PASSED event, and its last
#   entry, the one the file is verified against, is logged after that time with another
#   hash than the last entry logged by then: the file the gate passed on was replaced
#   after it passed. The gate framework
#   lets a modified file be logged again with its reason, and asks for an investigation
#   where tampering is suspected; the checker cannot tell a re-capture from evidence
#   rewritten to fit, so a person reads it. gate_framework.md, Troubleshooting, Hash
#   Mismatch: "If file modified: Update hash in EVIDENCE_LOG and note reason", "If
#   tampering suspected: Investigate, possibly revert and re-run"; Core Principle: "No
#   artifact = No progress"; h3a-state-specification.md, Compliance & Audit: "Hash
#   verification detects tampering or corruption".
# custom:
#   id: h3a.evidence.replaced_after_gate
#   category: evidence
#   severity: warning
#   remediation: >-
#     a person compares the two versions: if the change does not touch what the gate
#     checked, they confirm it; otherwise append a FAILED event for the gate and take it
#     through again on the new file
warn contains f if {
	some v in replaced_evidence
	f := lib.finding(rego.metadata.rule(), element(v.gate, object.union(v.at, {"needs_human": true})))
}

replaced_evidence contains {"gate": r.gate, "at": at} if {
	some r in required
	passed := last_pass[r.gate]
	want := lib.clean(r.path)
	entries := [e | some i, e in logged_entries; logged_paths[i] == want]
	last := entries[count(entries) - 1]
	lib.time_ns(last.time) > passed.ns
	in_time := [e | some e in entries; logged_by(e, passed.ns)]
	count(in_time) > 0
	e := in_time[count(in_time) - 1]
	not same_hash(e.hash, last.hash)
	at := {
		"msg": sprintf(
			"%s PASSED at %s (GATES_LEDGER.md line %d), but its %s %q was logged again at %s with hash %s, after the gate passed on hash %s (line %d): the file the gate passed on has been replaced",
			[passed.event.gate, passed.event.time, passed.event.line, r.what, r.path, last.time, last.hash, e.hash, e.line],
		),
		"file": lib.doc_file.evidence_log,
		"line": last.line,
	}
}

# same_hash holds when two logged hashes name the same content: one is a
# prefix of the other, case and a "sha256:" prefix aside.
same_hash(a, b) if {
	x := hex_of(a)
	y := hex_of(b)
	n := min([count(x), count(y)])
	substring(x, 0, n) == substring(y, 0, n)
}

hex_of(h) := trim_suffix(trim_suffix(trim_prefix(lower(h), "sha256:"), "..."), "…")

# METADATA
# title: GREEN output that shows tests failing
# description: >-
#   G1 passed needs a GREEN output that shows the tests passing: the current TDD cycle's
#   GREEN output (tdd_phases.green.test_output) holds no line in which a test runner
#   says tests failed, in its summary or at a failed test (pytest "3 failed, 5 passed in
#   0.4s", "FAILED tests/x.py::test" or "tests/x.py::test FAILED [ 34%]", go test "---
#   FAIL: TestX" or "FAIL", jest "Tests: 2 failed", "✕ does the thing" or "FAIL
#   src/x.test.js", unittest "FAILED (failures=1)" or "FAIL: test_a (tests.x.T)"; a
#   count of 0 is no failure, a passing test named for failure none). The checker reads
#   the file and gives those lines (docs.test_outputs). gate_framework.md, G1 Exit Criteria:
#   "GREEN phase documented | GREEN test output saved showing all tests passing"; G2
#   checklist: "RED→GREEN evidence exists and shows test failure → success".
# custom:
#   id: h3a.evidence.tdd_green_not_passing
#   category: evidence
#   severity: error
#   remediation: >-
#     make the tests pass, run them again, and save and log that run's output as the
#     GREEN output; an output that shows failures is not GREEN
deny contains f if {
	1 in model.claimed_passed
	i := model.current_cycle
	green := model.cycles[i].tdd_phases.green.test_output
	output := input.docs.test_outputs[lib.clean(green)]
	failures := lib.items(output.failures)
	count(failures) > 0
	first := failures[0]
	f := lib.finding(rego.metadata.rule(), element(1, {
		"msg": sprintf(
			"G1_implementation is passed but the GREEN output %q shows tests failing, in the TDD cycle for %s: line %v reads %q%s",
			[green, task_name, first.line, first.text, more_failures(output.count)],
		),
		"file": lib.doc_file.executor_report,
		"pointer": sprintf("/tdd_cycles/%d/tdd_phases/green/test_output", [i]),
	}))
}

more_failures(n) := sprintf(" (and %d more such line(s))", [n - 1]) if n > 1

else := ""
