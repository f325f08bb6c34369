# The TDD cycle: phase order, coverage and the G2 exit criteria.
# (The package and its metadata: evidence.rego.)
package h3a.rules.evidence

import data.h3a.lib
import data.h3a.model

# METADATA
# title: TDD phases out of order
# description: >-
#   G1 passed needs the current TDD cycle's RED time before its GREEN time, and the GREEN
#   time before the REFACTOR time when a refactor is recorded with a time.
#   gate_framework.md, G1 TDD Non-Negotiables: "GREEN phase MUST follow RED - Chronological
#   order matters"; G1 Purpose: "TDD execution (RED→GREEN→REFACTOR)".
# custom:
#   id: h3a.evidence.tdd_order
#   category: evidence
#   severity: error
#   remediation: >-
#     TDD writes the failing test first: record each phase's real time when it happens;
#     if the tests were written after the code, redo the cycle test-first
deny contains f if {
	1 in model.claimed_passed
	some v in order_gaps
	f := lib.finding(rego.metadata.rule(), element(1, v))
}

phases := model.cycles[model.current_cycle].tdd_phases

order_gaps contains v if {
	is_object(phases)
	some phase in ["red", "green"]
	not phase_time(phase)
	v := {
		"msg": sprintf("the TDD cycle for %s has no %s time (tdd_phases.%s.timestamp), so RED before GREEN cannot be shown", [task_name, upper(phase), phase]),
		"file": lib.doc_file.executor_report,
		"pointer": phase_pointer(phase),
	}
}

order_gaps contains v if {
	some earlier, later in {"red": "green", "green": "refactor"}
	t1 := lib.time_ns(phases[earlier].timestamp)
	t2 := lib.time_ns(phases[later].timestamp)
	t1 >= t2
	v := {
		"msg": sprintf("%s at %s is not before %s at %s in the TDD cycle for %s", [upper(earlier), phases[earlier].timestamp, upper(later), phases[later].timestamp, task_name]),
		"file": lib.doc_file.executor_report,
		"pointer": phase_pointer(later),
	}
}

phase_time(phase) if lib.time_ns(phases[phase].timestamp)

# METADATA
# title: TDD phase timed after G1 passed
# description: >-
#   A TDD phase of the current cycle (RED, GREEN, or REFACTOR when recorded with a time)
#   is not timed after the G1 PASSED event of GATES_LEDGER.md that passed the gate: the
#   phases are G1's exit criteria, so a phase run later says the gate passed before they
#   were met. Checked while the ledger's latest G1 event is PASSED (a G1 started again for
#   a remediation is a new attempt), against that event; times the rules cannot read are
#   not compared, nor a PASSED time earlier than its STARTED time
#   (h3a.gates.ledger_time_inverted). gate_framework.md, G1 Exit Criteria: "RED phase
#   documented | RED test output saved showing initial test failure", "GREEN phase
#   documented | GREEN test output saved showing all tests passing", "REFACTOR phase
#   completed", "Gate logged | GATES_LEDGER.md shows G1 PASSED event"; Purpose: each gate
#   "cannot be skipped and requires artifact proof to pass"; TDD Non-Negotiables:
#   "Chronological order matters".
# custom:
#   id: h3a.evidence.tdd_after_gate
#   category: evidence
#   severity: error
#   remediation: >-
#     G1 passes only once its TDD cycle is done: append a FAILED event for G1, finish the
#     cycle, log its evidence and append a new PASSED event; never edit the times of the
#     ledger or the report to make them fit
deny contains f if {
	model.ledger_latest[1].status == "PASSED"
	pass := last_pass[1]
	some phase in ["red", "green", "refactor"]
	t := phases[phase].timestamp
	lib.time_ns(t) > pass.ns
	f := lib.finding(rego.metadata.rule(), element(1, {
		"msg": sprintf(
			"G1_implementation PASSED at %s (GATES_LEDGER.md line %d), but the %s phase of the TDD cycle for %s is timed later, at %s: the gate passed before its TDD cycle was done",
			[pass.event.time, pass.event.line, upper(phase), task_name, t],
		),
		"file": lib.doc_file.executor_report,
		"pointer": sprintf("/tdd_cycles/%d/tdd_phases/%s/timestamp", [model.current_cycle, phase]),
	}))
}

phase_pointer(phase) := sprintf("/tdd_cycles/%d/tdd_phases/%s", [model.current_cycle, phase]) if is_object(phases[phase])

else := sprintf("/tdd_cycles/%d/tdd_phases", [model.current_cycle])

# METADATA
# title: Coverage decreased
# description: >-
#   G1 passed needs the current TDD cycle's coverage_delta not to be negative, and written
#   so that it can be read (+5.2%, -1.2%, 0.4, -0.3 pp, a number): a delta that cannot be
#   read could hide a decrease. The other records of the task's coverage are held to it too:
#   the coverage_delta of the last state.json step of G1 for the task (or of a later
#   correction of the task that sets it in corrected_values), and, with G2 passed, the
#   coverage delta the current verdict measured (verification_results.coverage.delta) are
#   not negative. gate_framework.md, G1 TDD Non-Negotiables: "Coverage MUST NOT decrease -
#   Absolute minimum requirement"; G2 Common Failures: "Coverage drop | Coverage decreased
#   from baseline | FAIL gate, Executor must add tests"; handoff_contracts.md, H2 Common
#   Handoff Failures: "Coverage delta negative | coverage_delta shows "-1.2%" | Validator
#   fails G2"; h3a-state-specification.md, state.json: "Append-only execution history
#   (audit log)", "coverage_delta": "+5.2%".
# custom:
#   id: h3a.evidence.coverage_decreased
#   category: evidence
#   severity: error
#   remediation: add tests for the code paths that lost coverage, then re-run the GREEN phase
deny contains f if {
	some r in coverage_records
	r.gate in model.claimed_passed
	some why in r.problems
	f := lib.finding(rego.metadata.rule(), element(r.gate, {
		"msg": sprintf("%s is passed but %s %v of %s for %s %s", [model.gate_names[r.gate], r.field, json.marshal(r.delta), r.where, task_name, why]),
		"file": r.file,
		"pointer": r.pointer,
	}))
}

# coverage_records are the records of the current task's coverage change,
# each with the gate it is held to and what is wrong with it.
coverage_records contains r if {
	i := model.current_cycle
	delta := model.cycles[i].coverage_delta
	r := {
		"gate": 1, "field": "coverage_delta", "delta": delta, "where": "the TDD cycle",
		"file": lib.doc_file.executor_report, "pointer": sprintf("/tdd_cycles/%d/coverage_delta", [i]),
		"problems": coverage_problem(delta),
	}
}

# The last state.json record of the task's G1 coverage: its last G1 step, or
# a later correction of the task that sets coverage_delta.
coverage_records contains r if {
	s := max(coverage_steps)
	[field, delta] := step_coverage(state_steps[s])
	coverage_value(delta) < 0
	r := {
		"gate": 1, "field": "coverage_delta", "delta": delta, "where": sprintf("state.json step %d", [s]),
		"file": lib.doc_file.state, "pointer": sprintf("/steps/%d/%s", [s, field]), "problems": {"is negative"},
	}
}

state_steps := lib.items(input.docs.state.steps)

# coverage_steps are the indexes of the state.json steps that record the
# current task's G1 coverage: its G1 steps (with a coverage_delta or not),
# and its corrections that set coverage_delta.
coverage_steps contains s if {
	some s, step in state_steps
	step.gate == "G1_implementation"
	step.task_id == task
	not step.corrects
}

coverage_steps contains s if {
	some s, step in state_steps
	step.corrects == task
	step.corrected_values.coverage_delta != null
}

# step_coverage is [field, coverage_delta] of a step that coverage_steps
# names; undefined for a G1 step without a delta.
step_coverage(step) := ["corrected_values/coverage_delta", step.corrected_values.coverage_delta] if {
	step.corrects
} else := ["coverage_delta", step.coverage_delta]

coverage_records contains r if {
	i := model.current_verdict
	delta := model.verdicts[i].verification_results.coverage.delta
	coverage_value(delta) < 0
	r := {
		"gate": 2, "field": "verification_results.coverage.delta", "delta": delta, "where": "the verdict",
		"file": lib.doc_file.validator_report, "pointer": sprintf("/verdicts/%d/verification_results/coverage/delta", [i]),
		"problems": {"is negative"},
	}
}

# coverage_problem holds what is wrong with a coverage_delta: negative, or
# written so that it cannot be read (null is the schema's to judge).
coverage_problem(delta) := {"is negative"} if {
	coverage_value(delta) < 0
} else := {"is not a change the rule can read (like +5.2%, -1.2% or 0.4), so a decrease would go unseen"} if {
	delta != null
	not coverage_value(delta)
} else := set()

# coverage_value reads "+5.2%", "-1.2%", "0.4", "-0.3 pp" or a number; a
# minus sign or dash (U+2212, U+2013) reads as "-".
coverage_value(x) := x if is_number(x)

coverage_value(x) := to_number(trim_prefix(trim_suffix(trim_suffix(s, "%"), "pp"), "+")) if {
	is_string(x)
	s := replace(replace(replace(trim_space(x), " ", ""), "\u2212", "-"), "\u2013", "-")
	regex.match(`^[+-]?[0-9]+(\.[0-9]+)?(%|pp)?$`, s)
}

# METADATA
# title: G2 passed without its exit criteria
# description: >-
#   G2 passed needs a validator_report.json verdict for the current task whose status means
#   a pass (pass or pass_with_notes) and whose verification_results hold a result for each
#   check of the G2 exit criteria, as h3a-state-specification.md's validator_report.json
#   names them (tdd_compliance, tests, coverage, mutation, security, lint, type_check,
#   accessibility, dod_checklist; one that does not apply says not_applicable), no other
#   verdict handed over in SESSION_HANDOFF.json payload.verdict, and a G2 PASSED event in
#   GATES_LEDGER.md. (The security scan and mutation report:
#   h3a.evidence.required_artifact.) gate_framework.md, G2 Exit Criteria: "TDD compliance
#   verified", "Tests quality verified", "Coverage verified", "Mutation score verified",
#   "Security scan passed", "Lint passed", "Type check passed", "Accessibility verified |
#   A11y scan passed (if UI changes) OR N/A documented", "DoD verified", "Validator report
#   generated | validator_report.json has comprehensive verification results", "Gate
#   logged"; G2 Verification Commands: "jq -e '.verdicts[-1].status == "pass"'"; Validation
#   Status Types: "PASS", "PASS_WITH_NOTES"; handoff_contracts.md, H3 Validator's
#   Obligations: "Verification results | validator_report.json → verification_results |
#   10-point checklist results", "Handoff logged | state/SESSION_HANDOFF.json | Updated with
#   verdict".
# custom:
#   id: h3a.evidence.g2_exit_criteria
#   category: evidence
#   severity: error
#   remediation: >-
#     the validator records a passing verdict for the task before G2 is set to passed; a
#     failing verdict sends the task back to the executor
deny contains f if {
	2 in model.claimed_passed
	some v in g2_gaps
	f := lib.finding(rego.metadata.rule(), element(2, v))
}

g2_gaps contains v if {
	input.docs.validator_report != null
	not model.current_verdict
	v := {"msg": sprintf("G2_validation is passed but validator_report.json has no verdict for %s", [task_name]), "file": lib.doc_file.validator_report, "pointer": "/verdicts"}
}

g2_gaps contains v if {
	i := model.current_verdict
	not model.verdict_passes(i)
	v := {
		"msg": sprintf("G2_validation is passed but the verdict for %s has %s, expected a passing status (pass or pass_with_notes)", [task_name, model.describe_verdict_status(i)]),
		"file": lib.doc_file.validator_report,
		"pointer": verdict_status_pointer(i),
	}
}

verdict_status_pointer(i) := sprintf("/verdicts/%d/status", [i]) if model.has_status(model.verdicts[i])

else := sprintf("/verdicts/%d", [i])

# The passing verdict states a result for every check of the G2 exit
# criteria: a check it does not mention was not verified. (Intent alignment
# is the validator's notes, command verification its fresh outputs: the
# specification's validator_report.json names no result for either.)
g2_gaps contains v if {
	i := model.current_verdict
	model.verdict_passes(i)
	results := lib.get(model.verdicts[i], "verification_results")
	missing := [check | some check in g2_checks; not has_result(results, check)]
	count(missing) > 0
	v := {
		"msg": sprintf("G2_validation is passed but the verdict for %s states no verification result for %s, expected one for each check of the G2 exit criteria (%s)", [task_name, concat(", ", missing), concat(", ", g2_checks)]),
		"file": lib.doc_file.validator_report,
		"pointer": results_pointer(i),
		"remediation": "the validator runs each missing check and records its result in the verdict's verification_results (a check that does not apply, such as accessibility without UI changes, with status not_applicable and a note); until then G2 is not passed, so set it back to in_progress in every record",
	}
}

g2_checks := ["tdd_compliance", "tests", "coverage", "mutation", "security", "lint", "type_check", "accessibility", "dod_checklist"]

has_result(results, check) if is_object(results[check])

results_pointer(i) := sprintf("/verdicts/%d/verification_results", [i]) if {
	is_object(model.verdicts[i].verification_results)
} else := sprintf("/verdicts/%d", [i])

# The verdict the validator hands over (H3) is the verdict too.
g2_gaps contains v if {
	m := input.meanings.handoff_verdict
	m != null
	m.outcome != "pass"
	v := {
		"msg": sprintf("G2_validation is passed but SESSION_HANDOFF.json hands over the verdict %q (%s), expected a passing status (pass or pass_with_notes)", [m.status, model.outcome_words[m.outcome]]),
		"file": lib.doc_file.handoff,
		"pointer": "/payload/verdict",
	}
}

g2_gaps contains v if {
	some v in ledger_gaps(2)
}

# METADATA
# title: G1 passed over a failed command
# description: >-
#   G1 passed needs the tests, lint and type checks of the current task to exit with code
#   0: in the current TDD cycle's commands_run, and in the state.json steps of G1 for the
#   task, the last run of each command has exit_code 0. A run whose artifact is the
#   cycle's RED output is the failure the RED phase expects, and is not counted.
#   gate_framework.md, G1 Exit Criteria: "All tests passing | pytest ... exits with code
#   0", "No lint errors | ... exits with code 0", "Type checks passing | mypy ... exits with
#   code 0"; handoff_contracts.md, H2: "commands_run array shows exit_code: 0 for
#   tests/lint/type".
# custom:
#   id: h3a.evidence.g1_command_failed
#   category: evidence
#   severity: error
#   remediation: >-
#     fix what the command reports and run it again until it exits with 0, log its output,
#     and only then set G1 to passed
deny contains f if {
	1 in model.claimed_passed
	some v in failed_commands
	f := lib.finding(rego.metadata.rule(), element(1, v))
}

failed_commands contains v if {
	i := model.current_cycle
	some [j, run] in last_failures(lib.items(model.cycles[i].commands_run), red_outputs)
	v := command_failure(run, "the TDD cycle", lib.doc_file.executor_report, sprintf("/tdd_cycles/%d/commands_run/%d/exit_code", [i, j]))
}

failed_commands contains v if {
	some s, step in lib.items(input.docs.state.steps)
	step.gate == "G1_implementation"
	step.task_id == task
	some [j, run] in last_failures(lib.items(step.commands_run), red_outputs)
	v := command_failure(run, sprintf("state.json step %d", [s]), lib.doc_file.state, sprintf("/steps/%d/commands_run/%d/exit_code", [s, j]))
}

# red_outputs are the paths of the current cycle's RED output.
red_outputs := {p |
	i := model.current_cycle
	p := model.cycles[i].tdd_phases.red.failure_output
	is_string(p)
}

# last_failures are [index, run] of the runs whose last run did not exit
# with 0. (Messages and pointers are written only for these: a cycle's or
# step's are not, for every step of a long history.)
last_failures(runs, red) := {[j, run] |
	some j, run in runs
	is_string(run.cmd)
	not red_run(run, red)
	not later_run(runs, j, run.cmd)
	is_number(run.exit_code)
	run.exit_code != 0
}

command_failure(run, where, file, pointer) := {
	"msg": sprintf("G1_implementation is passed but %q last exited with %v in %s for %s", [run.cmd, run.exit_code, where, task_name]),
	"file": file,
	"pointer": pointer,
}

red_run(run, red) if run.artifact in red

later_run(runs, j, cmd) if {
	some k, other in runs
	k > j
	other.cmd == cmd
}

# METADATA
# title: RED output that cannot show a failure
# description: >-
#   G1 passed needs a RED output that shows the tests failing before the GREEN output
#   shows them passing: the current TDD cycle's RED output (failure_output) is not the same
#   file as its GREEN output (test_output), not logged in EVIDENCE_LOG.md with the same hash
#   (the same content), and not empty nor white space alone. gate_framework.md, G1 Exit Criteria: "RED test
#   output saved showing initial test failure"; TDD Non-Negotiables: "RED phase MUST exist";
#   G2 checklist: "RED→GREEN evidence exists and shows test failure → success".
# custom:
#   id: h3a.evidence.tdd_red_not_failure
#   category: evidence
#   severity: error
#   remediation: >-
#     save the output of the test run that failed before the implementation (RED) in its
#     own file, log it, and keep it apart from the passing run's output (GREEN)
deny contains f if {
	1 in model.claimed_passed
	some v in red_problems
	f := lib.finding(rego.metadata.rule(), element(1, v))
}

red_problems contains v if {
	[i, red, green] := tdd_outputs_of_cycle
	lib.clean(red) == lib.clean(green)
	v := red_problem(i, sprintf("the RED output %q is the GREEN output's file", [red]))
}

red_problems contains v if {
	[i, red, green] := tdd_outputs_of_cycle
	lib.clean(red) != lib.clean(green)
	d := logged_digest(red)
	d == logged_digest(green)
	v := red_problem(i, sprintf("the RED output %q is logged with the same hash as the GREEN output %q (%s): the same content cannot show a failure and then a pass", [red, green, d]))
}

red_problems contains v if {
	[i, red, _] := tdd_outputs_of_cycle
	startswith(empty_digest, logged_digest(red))
	v := red_problem(i, sprintf("the RED output %q is logged with the hash of an empty file", [red]))
}

red_problems contains v if {
	[i, red, _] := tdd_outputs_of_cycle
	not startswith(empty_digest, logged_digest(red))
	input.evidence[lib.clean(red)].blank
	v := red_problem(i, sprintf("the RED output %q holds nothing but white space", [red]))
}

red_problem(i, what) := {
	"msg": sprintf("G1_implementation is passed but %s, in the TDD cycle for %s", [what, task_name]),
	"file": lib.doc_file.executor_report,
	"pointer": sprintf("/tdd_cycles/%d/tdd_phases/red/failure_output", [i]),
}

# tdd_outputs_of_cycle is [cycle index, RED output, GREEN output] of the
# current TDD cycle, when both are named.
tdd_outputs_of_cycle := [i, red, green] if {
	i := model.current_cycle
	red := model.cycles[i].tdd_phases.red.failure_output
	green := model.cycles[i].tdd_phases.green.test_output
	lib.filled(red)
	lib.filled(green)
}

# logged_digest is the first 16 hex digits, lower case, of the last hash
# EVIDENCE_LOG.md gives path; undefined when it logs none that long.
logged_digest(path) := lower(substring(h, 0, 16)) if {
	want := lib.clean(path)
	hashes := [e.hash | some i, e in logged_entries; logged_paths[i] == want]
	count(hashes) > 0
	h := trim_prefix(lower(hashes[count(hashes) - 1]), "sha256:")
	count(h) >= 16
}

# logged_entries are the evidence log's entries, and logged_paths their
# paths cleaned, worked out once.
logged_entries := lib.items(input.docs.evidence_log.entries)

logged_paths := [lib.clean(e.path) | some e in logged_entries]

# empty_digest is the SHA-256 of no bytes.
empty_digest := "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"

# METADATA
# title: G1 passed without coverage that increased
# description: >-
#   G1 passed needs the current TDD cycle's coverage to have increased: coverage_delta at
#   least +0.1, or coverage_absolute at least 90 (percent). A cycle that states neither in a
#   form the rule reads is left to h3a.evidence.coverage_decreased. gate_framework.md, G1
#   Exit Criteria: "Coverage increased | Coverage delta ≥ +0.1% OR absolute ≥ 90%".
# custom:
#   id: h3a.evidence.coverage_not_increased
#   category: evidence
#   severity: error
#   remediation: >-
#     add tests until the cycle's coverage rises by at least 0.1 points or reaches 90%,
#     record both numbers in executor_report.json, then pass G1
deny contains f if {
	1 in model.claimed_passed
	i := model.current_cycle
	cycle := model.cycles[i]
	delta := coverage_value(cycle.coverage_delta)
	delta < 0.1
	not covered(cycle.coverage_absolute)
	f := lib.finding(rego.metadata.rule(), element(1, {
		"msg": sprintf("G1_implementation is passed but the TDD cycle for %s raises coverage by %v points (at least +0.1 needed) and states no absolute coverage of 90%% or more (coverage_absolute %s)", [task_name, delta, json.marshal(object.get(cycle, "coverage_absolute", null))]),
		"file": lib.doc_file.executor_report,
		"pointer": sprintf("/tdd_cycles/%d/coverage_delta", [i]),
	}))
}

covered(absolute) if coverage_value(absolute) >= 90

# METADATA
# title: A later TDD cycle listed before the last one
# description: >-
#   executor_report.json lists, before a task's last TDD cycle (the one the rules take as the
#   task's current cycle), a cycle of the same task with a later timestamp that says
#   something else of the gate: another gate_status, or tdd_phases.refactor.test_still_passing
#   otherwise: going by the timestamps, the executor's latest word on the task is not the one
#   the gate counts. The specification gives every cycle a timestamp (h3a-state-specification.md,
#   executor_report.json: "tdd_cycles": [{"task_id", "timestamp", ..., "gate_status"}]) and
#   asks that "Chronological order matters" (gate_framework.md, G1 TDD Non-Negotiables) of
#   the phases, but does not say that cycles are listed in time order, so which one is the
#   latest is a conflicting signal for a human (handoff_contracts.md, H3 Common Handoff
#   Failures: "Conflicting signals ... Human reviews"). So it is a warning that asks for a
#   human.
# custom:
#   id: h3a.evidence.cycle_order
#   category: evidence
#   severity: warning
#   remediation: >-
#     list the TDD cycles in the order they ran, the latest last; a cycle run after the one
#     that passed G1 is the executor's current word on the task
warn contains f if {
	some [j, i] in cycles_out_of_order
	later := model.cycles[j]
	f := lib.finding(rego.metadata.rule(), object.union(
		{
			"msg": sprintf(
				"TDD cycle %d (gate_status %v, %s) is later than TDD cycle %d (gate_status %v, %s), the last listed for task %v, which the gate counts as current",
				[j, object.get(later, "gate_status", null), later.timestamp, i, object.get(model.cycles[i], "gate_status", null), model.cycles[i].timestamp, later.task_id],
			),
			"file": lib.doc_file.executor_report,
			"pointer": sprintf("/tdd_cycles/%d/timestamp", [j]),
			"gate": "G1",
			"needs_human": true,
		},
		task_of(later),
	))
}

# cycles_out_of_order holds [j, i]: cycle j is listed before cycle i, the
# last one of its task, but timed later, and says something else of G1.
cycles_out_of_order contains [j, i] if {
	some i, cycle in model.cycles
	i == model.last_index(model.cycles, cycle.task_id)
	t := lib.time_ns(cycle.timestamp)
	some j, earlier in model.cycles
	j < i
	earlier.task_id == cycle.task_id
	lib.time_ns(earlier.timestamp) > t
	cycle_signal(earlier) != cycle_signal(cycle)
}

cycle_signal(c) := [object.get(c, "gate_status", null), object.get(object.get(object.get(c, "tdd_phases", {}), "refactor", {}), "test_still_passing", null)]
