# METADATA
# title: No evidence, no gate
# description: >-
#   A gate that any record claims as passed is held to the exit criteria of
#   gate_framework.md that can be checked mechanically.
# schemas:
#   - input: schema.input.h3a
package h3a.rules.evidence

import data.h3a.lib

task := lib.current_task_id

ct := input.docs.current_task

# element adds what every finding of this package carries: the gate and the task.
element(n, v) := object.union({"gate": sprintf("G%d", [n]), "task_id": task}, v) if task

else := object.union({"gate": sprintf("G%d", [n])}, v)

# METADATA
# title: G0 passed without its exit criteria
# description: >-
#   G0 passed needs: a ROADMAP.md "Overall Strategy" section and a task queue with at least
#   one task; CURRENT_TASK.json with task_id, goal, tdd_plan red, green and refactor and at
#   least three definition-of-done items; a planner_report.json report; a G0 PASSED event in
#   GATES_LEDGER.md. gate_framework.md, G0 Exit Criteria: "Strategic plan documented", "Task
#   decomposed", "Current task defined", "TDD plan created", "Definition of Done specified |
#   CURRENT_TASK.json has ≥3 measurable DoD criteria", "Planner report generated", "Gate
#   logged".
# custom:
#   id: h3a.evidence.g0_exit_criteria
#   category: evidence
#   severity: error
#   remediation: >-
#     the planner completes what is missing and logs it; until then G0 is not passed, so
#     set it back to in_progress in every record
deny contains f if {
	0 in lib.claimed_passed
	some v in g0_gaps
	f := lib.finding(rego.metadata.rule(), element(0, v))
}

g0_gaps contains v if {
	sections := {lower(trim_space(s)) | some s in lib.items(input.docs.roadmap.sections)}
	not "overall strategy" in sections
	v := {
		"msg": "G0_planning is passed but ROADMAP.md has no \"Overall Strategy\" section",
		"file": lib.doc_file.roadmap,
		"remediation": g0_fix("add an \"## Overall Strategy\" section to ROADMAP.md: how the task will be done"),
	}
}

g0_gaps contains v if {
	input.docs.roadmap != null
	count(lib.items(input.docs.roadmap.tasks)) == 0
	v := {
		"msg": "G0_planning is passed but the ROADMAP.md task queue lists no task (expected \"- [ ] T001: <description>\")",
		"file": lib.doc_file.roadmap,
		"remediation": g0_fix("add the task to the ROADMAP.md task queue as \"- [ ] T001: <description>\""),
	}
}

g0_gaps contains v if {
	ct != null
	some field in ["task_id", "goal"]
	not task_field_filled(field)
	v := {
		"msg": sprintf("G0_planning is passed but CURRENT_TASK.json %s is empty", [field]),
		"file": lib.doc_file.current_task,
		"pointer": sprintf("/%s", [field]),
		"remediation": g0_fix(sprintf("write the task's %s into CURRENT_TASK.json", [field])),
	}
}

g0_gaps contains v if {
	ct != null
	some phase in ["red", "green", "refactor"]
	not plan_filled(phase)
	v := {
		"msg": sprintf("G0_planning is passed but CURRENT_TASK.json tdd_plan.%s is empty", [phase]),
		"file": lib.doc_file.current_task,
		"pointer": tdd_plan_pointer(phase),
		"remediation": g0_fix(sprintf("write the %s step of the TDD plan into CURRENT_TASK.json tdd_plan.%s", [phase, phase])),
	}
}

# Negating a function whose argument is an undefined ref is itself undefined
# in Rego, so each "is it there" test below wraps the ref in a function of
# its own with defined arguments.
task_field_filled(field) if lib.filled(ct[field])

plan_filled(phase) if lib.filled(ct.tdd_plan[phase])

tdd_plan_pointer(phase) := sprintf("/tdd_plan/%s", [phase]) if is_object(ct.tdd_plan)

else := "/tdd_plan"

g0_gaps contains v if {
	ct != null
	n := count(lib.items(ct.definition_of_done))
	n < 3
	v := {
		"msg": sprintf("G0_planning is passed but CURRENT_TASK.json lists %d definition-of-done item(s), at least 3 expected", [n]),
		"file": lib.doc_file.current_task,
		"pointer": "/definition_of_done",
		"remediation": g0_fix(sprintf("add %d more definition-of-done item(s) to CURRENT_TASK.json definition_of_done", [3 - n])),
	}
}

g0_gaps contains v if {
	input.docs.planner_report != null
	count(lib.items(input.docs.planner_report.reports)) == 0
	v := {
		"msg": "G0_planning is passed but planner_report.json holds no report",
		"file": lib.doc_file.planner_report,
		"pointer": "/reports",
		"remediation": g0_fix("the planner records its report (tasks_created, artifacts) in planner_report.json reports"),
	}
}

g0_gaps contains v if {
	some v in ledger_gaps(0)
}

# ledger_gaps(n) holds the finding for a gate claimed passed that the ledger never logged passing.
ledger_gaps(n) := {v |
	input.docs.gates_ledger != null
	not lib.ledger_has(n, "PASSED")
	v := {
		"msg": sprintf("%s is passed but GATES_LEDGER.md has no %s PASSED event", [lib.gate_names[n], lib.gate_names[n]]),
		"file": lib.doc_file.gates_ledger,
		"line": input.docs.gates_ledger.events_line,
		"remediation": sprintf("once its exit criteria hold, append \"[<UTC time>] %s - PASSED - <agent> - <evidence>\" to GATES_LEDGER.md; until then the gate is not passed, so set it back to in_progress in every record", [lib.gate_names[n]]),
	}
}

# g0_fix is the remediation of a missing G0 exit criterion: what to add,
# and that G0 is not passed until it is there.
g0_fix(add) := sprintf("%s; until then G0 is not passed, so set it back to in_progress in every record", [add])

# METADATA
# title: G1 passed without its exit criteria
# description: >-
#   G1 passed needs an executor_report.json TDD cycle for the current task that names its
#   RED and GREEN test outputs and addresses every definition-of-done item of
#   CURRENT_TASK.json, and a G1 PASSED event in GATES_LEDGER.md. (The artifacts themselves:
#   h3a.evidence.required_artifact; their times: h3a.evidence.tdd_order.) gate_framework.md,
#   G1 Exit Criteria: "RED phase documented", "GREEN phase documented", "DoD checklist
#   addressed | All DoD items from CURRENT_TASK checked", "Executor report generated", "Gate
#   logged".
# custom:
#   id: h3a.evidence.g1_exit_criteria
#   category: evidence
#   severity: error
#   remediation: >-
#     the executor records the TDD cycle completely (RED failure output, GREEN test output,
#     one entry per definition-of-done item) before G1 is set to passed
deny contains f if {
	1 in lib.claimed_passed
	some v in g1_gaps
	f := lib.finding(rego.metadata.rule(), element(1, v))
}

g1_gaps contains v if {
	input.docs.executor_report != null
	not lib.current_cycle
	v := {"msg": sprintf("G1_implementation is passed but executor_report.json has no TDD cycle for %s", [task_name]), "file": lib.doc_file.executor_report, "pointer": "/tdd_cycles"}
}

cycle_names(i, phase, field) if lib.filled(lib.cycles[i].tdd_phases[phase][field])

current_cycle_names(phase, field) if cycle_names(lib.current_cycle, phase, field)

task_name := sprintf("task %q", [task]) if task

else := "the current task"

g1_gaps contains v if {
	i := lib.current_cycle
	some phase, field in tdd_outputs
	not cycle_names(i, phase, field)
	v := {
		"msg": sprintf("G1_implementation is passed but the TDD cycle for %s names no %s output (tdd_phases.%s.%s)", [task_name, upper(phase), phase, field]),
		"file": lib.doc_file.executor_report,
		"pointer": sprintf("/tdd_cycles/%d", [i]),
	}
}

g1_gaps contains v if {
	i := lib.current_cycle
	addressed := [lower(trim_space(d.criterion)) | some d in lib.items(lib.cycles[i].definition_of_done); is_string(d.criterion)]
	some item in lib.items(ct.definition_of_done)
	is_string(item)
	not is_addressed(lower(trim_space(item)), addressed)
	v := {
		"msg": sprintf("G1_implementation is passed but definition-of-done item %q of CURRENT_TASK.json is not addressed in the TDD cycle for %s", [item, task_name]),
		"file": lib.doc_file.executor_report,
		"pointer": sprintf("/tdd_cycles/%d/definition_of_done", [i]),
	}
}

# is_addressed: the executor's criterion names the item, word for word or as part of
# a longer or shorter wording.
is_addressed(item, addressed) if {
	some a in addressed
	a != ""
	contains(a, item)
}

is_addressed(item, addressed) if {
	some a in addressed
	a != ""
	contains(item, a)
}

g1_gaps contains v if {
	some v in ledger_gaps(1)
}

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
	1 in lib.claimed_passed
	some v in order_gaps
	f := lib.finding(rego.metadata.rule(), element(1, v))
}

phases := lib.cycles[lib.current_cycle].tdd_phases

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

phase_pointer(phase) := sprintf("/tdd_cycles/%d/tdd_phases/%s", [lib.current_cycle, phase]) if is_object(phases[phase])

else := sprintf("/tdd_cycles/%d/tdd_phases", [lib.current_cycle])

# METADATA
# title: Coverage decreased
# description: >-
#   G1 passed needs the current TDD cycle's coverage_delta not to be negative.
#   gate_framework.md, G1 TDD Non-Negotiables: "Coverage MUST NOT decrease - Absolute
#   minimum requirement".
# custom:
#   id: h3a.evidence.coverage_decreased
#   category: evidence
#   severity: error
#   remediation: add tests for the code paths that lost coverage, then re-run the GREEN phase
deny contains f if {
	1 in lib.claimed_passed
	i := lib.current_cycle
	delta := lib.cycles[i].coverage_delta
	coverage_value(delta) < 0
	f := lib.finding(rego.metadata.rule(), element(1, {
		"msg": sprintf("G1_implementation is passed but coverage_delta %v of the TDD cycle for %s is negative", [delta, task_name]),
		"file": lib.doc_file.executor_report,
		"pointer": sprintf("/tdd_cycles/%d/coverage_delta", [i]),
	}))
}

# coverage_value reads "+5.2%", "-1.2%", "0.4" or a number.
coverage_value(x) := x if is_number(x)

coverage_value(x) := to_number(trim_prefix(trim_suffix(s, "%"), "+")) if {
	is_string(x)
	s := replace(trim_space(x), " ", "")
	regex.match(`^[+-]?[0-9]+(\.[0-9]+)?%?$`, s)
}

# METADATA
# title: G2 passed without its exit criteria
# description: >-
#   G2 passed needs a validator_report.json verdict for the current task whose status means
#   a pass (pass or pass_with_notes), and a G2 PASSED event in GATES_LEDGER.md. (The
#   security scan and mutation report: h3a.evidence.required_artifact.) gate_framework.md,
#   G2 Exit Criteria: "Validator report generated", "Gate logged"; G2 Verification Commands:
#   "jq -e '.verdicts[-1].status == "pass"'"; Validation Status Types: "PASS",
#   "PASS_WITH_NOTES".
# custom:
#   id: h3a.evidence.g2_exit_criteria
#   category: evidence
#   severity: error
#   remediation: >-
#     the validator records a passing verdict for the task before G2 is set to passed; a
#     failing verdict sends the task back to the executor
deny contains f if {
	2 in lib.claimed_passed
	some v in g2_gaps
	f := lib.finding(rego.metadata.rule(), element(2, v))
}

g2_gaps contains v if {
	input.docs.validator_report != null
	not lib.current_verdict
	v := {"msg": sprintf("G2_validation is passed but validator_report.json has no verdict for %s", [task_name]), "file": lib.doc_file.validator_report, "pointer": "/verdicts"}
}

g2_gaps contains v if {
	i := lib.current_verdict
	not lib.verdict_passes(i)
	v := {
		"msg": sprintf("G2_validation is passed but the verdict for %s has %s, expected a passing status (pass or pass_with_notes)", [task_name, lib.describe_verdict_status(i)]),
		"file": lib.doc_file.validator_report,
		"pointer": verdict_status_pointer(i),
	}
}

verdict_status_pointer(i) := sprintf("/verdicts/%d/status", [i]) if lib.has_status(lib.verdicts[i])

else := sprintf("/verdicts/%d", [i])

g2_gaps contains v if {
	some v in ledger_gaps(2)
}

# METADATA
# title: Verdict numbers contradict themselves
# description: >-
#   In every validator verdict: tests passed + failed + skipped equals total; tests with
#   status pass have failed 0; a dod_checklist with status pass has met equal to total.
#   Numbers that contradict their own status are conflicting signals for a human to resolve,
#   not a gate the specification fails: handoff_contracts.md, H3 Common Handoff Failures:
#   "Conflicting signals | Verdict "pass" but critical DoD unmet | Human reviews"; the
#   gate framework allows "All DoD criteria met OR exceptions justified" (G2 Exit Criteria).
#   So it is a warning that asks for a human.
# custom:
#   id: h3a.evidence.verdict_numbers
#   category: evidence
#   severity: warning
#   remediation: >-
#     re-run the verification and copy the numbers from the tool output; a verdict whose
#     numbers do not add up cannot be trusted
warn contains f if {
	some v in number_gaps
	f := lib.finding(rego.metadata.rule(), object.union(v, {"needs_human": true}))
}

number_gaps contains v if {
	some i, verdict in lib.verdicts
	tests := verdict.verification_results.tests
	every k in ["total", "passed", "failed", "skipped"] {
		is_number(tests[k])
	}
	(tests.passed + tests.failed) + tests.skipped != tests.total
	v := verdict_finding(i, verdict, "tests", sprintf(
		"tests passed %v + failed %v + skipped %v is %v, but total is %v",
		[tests.passed, tests.failed, tests.skipped, (tests.passed + tests.failed) + tests.skipped, tests.total],
	))
}

number_gaps contains v if {
	some i, verdict in lib.verdicts
	tests := verdict.verification_results.tests
	tests.status == "pass"
	is_number(tests.failed)
	tests.failed != 0
	v := verdict_finding(i, verdict, "tests/failed", sprintf("tests have status \"pass\" but failed is %v", [tests.failed]))
}

number_gaps contains v if {
	some i, verdict in lib.verdicts
	dod := verdict.verification_results.dod_checklist
	dod.status == "pass"
	is_number(dod.met)
	is_number(dod.total)
	dod.met != dod.total
	v := verdict_finding(i, verdict, "dod_checklist", sprintf("dod_checklist has status \"pass\" but met %v of %v", [dod.met, dod.total]))
}

verdict_finding(i, verdict, at, msg) := object.union(
	{
		"msg": sprintf("verdict %d: %s", [i, msg]),
		"file": lib.doc_file.validator_report,
		"pointer": sprintf("/verdicts/%d/verification_results/%s", [i, at]),
	},
	task_of(verdict),
)

task_of(x) := {"task_id": x.task_id} if lib.filled(x.task_id)

else := {}

# METADATA
# title: G3 passed without its exit criteria
# description: >-
#   G3 passed with state.json meta.ci_green not true or meta.dirty not false. (G2 passed:
#   h3a.gates.order; the checklist and rollback plan: h3a.evidence.required_artifact.)
#   gate_framework.md, G3 Exit Criteria: "Git clean | No uncommitted changes (or
#   documented)"; "CI passing | CI pipeline green (if available)". Both allow what the run's
#   documents cannot show (documented changes, no CI), and meta is captured when the run
#   starts, so this is a warning.
# custom:
#   id: h3a.evidence.g3_exit_criteria
#   category: evidence
#   severity: warning
#   remediation: >-
#     commit every change and let CI go green, then record meta.ci_green true and
#     meta.dirty false before G3 is set to passed
warn contains f if {
	3 in lib.claimed_passed
	meta := input.docs.state.meta
	some field, want in {"ci_green": true, "dirty": false}
	meta[field] != want
	f := lib.finding(rego.metadata.rule(), element(3, {
		"msg": sprintf("G3_production_ready is passed but state.json meta.%s is %v, expected %v, or a human's confirmation that %s", [field, meta[field], want, g3_exceptions[field]]),
		"file": lib.doc_file.state,
		"pointer": sprintf("/meta/%s", [field]),
		"needs_human": true,
	}))
}

# g3_exceptions are what the G3 exit criteria accept instead.
g3_exceptions := {"ci_green": "no CI is available", "dirty": "the uncommitted changes are documented"}

# METADATA
# title: Gate evidence missing, unlogged or unverified
# description: >-
#   Every artifact a passed gate requires is present, logged in EVIDENCE_LOG.md and its hash
#   verified: G1 the RED and GREEN test outputs and coverage_delta.json; G2
#   security_scan.json and mutation_report.txt; G3 pre_deploy_checklist.md and
#   rollback_plan.md. The path is the one the reports name, else the specification's.
#   gate_framework.md, Core Principle: "No artifact = No progress"; Evidence Protocol,
#   Artifact Requirements by Gate; G3 Entry Criteria: "All artifacts logged", "Hash
#   verification | All artifact hashes in EVIDENCE_LOG match actual files".
# custom:
#   id: h3a.evidence.required_artifact
#   category: evidence
#   severity: error
#   remediation: >-
#     produce the artifact by running the step, save it under artifacts/ and log it with
#     h3a-check log RUN FILE "description"; no artifact, no gate
deny contains f if {
	some r in required
	problem := lib.evidence_problem(r.path)
	position := object.filter(r, ["file", "pointer", "line"])
	f := lib.finding(rego.metadata.rule(), element(r.gate, object.union(position, {
		"msg": sprintf("%s is passed but its %s %q %s", [lib.gate_names[r.gate], r.what, r.path, problem]),
	})))
}

required contains r if {
	1 in lib.claimed_passed
	some phase, field in tdd_outputs
	p := phases[phase][field]
	lib.filled(p)
	r := {
		"gate": 1, "what": sprintf("%s test output", [upper(phase)]), "path": p,
		"file": lib.doc_file.executor_report,
		"pointer": sprintf("/tdd_cycles/%d/tdd_phases/%s/%s", [lib.current_cycle, phase, field]),
	}
}

required contains r if {
	1 in lib.claimed_passed
	some phase, field in tdd_outputs
	not current_cycle_names(phase, field)
	r := object.union(lib.claim_position(1), {
		"gate": 1, "what": sprintf("%s test output", [upper(phase)]),
		"path": sprintf("artifacts/executor/test_output_%s.txt", [phase]),
	})
}

tdd_outputs := {"red": "failure_output", "green": "test_output"}

required contains r if {
	1 in lib.claimed_passed
	r := object.union({"gate": 1, "what": "coverage report"}, coverage_artifact)
}

coverage_artifact := {"path": p, "file": lib.doc_file.executor_report, "pointer": sprintf("/tdd_cycles/%d/artifacts/%d", [lib.current_cycle, j])} if {
	paths := [[k, x] | some k, x in lib.items(lib.cycles[lib.current_cycle].artifacts); is_string(x); endswith(x, "coverage_delta.json")]
	count(paths) > 0
	[j, p] := paths[0]
} else := object.union(lib.claim_position(1), {"path": "artifacts/executor/coverage_delta.json"})

validator_reports := {
	"security": {"what": "security scan", "path": "artifacts/validator/security_scan.json"},
	"mutation": {"what": "mutation report", "path": "artifacts/validator/mutation_report.txt"},
}

required contains r if {
	2 in lib.claimed_passed
	some check, spec in validator_reports
	p := lib.verdicts[lib.current_verdict].verification_results[check].report
	lib.filled(p)
	r := {
		"gate": 2, "what": spec.what, "path": p,
		"file": lib.doc_file.validator_report,
		"pointer": sprintf("/verdicts/%d/verification_results/%s/report", [lib.current_verdict, check]),
	}
}

required contains r if {
	2 in lib.claimed_passed
	some check, spec in validator_reports
	not verdict_names(check)
	r := object.union(lib.claim_position(2), {"gate": 2, "what": spec.what, "path": spec.path})
}

verdict_names(check) if lib.filled(lib.verdicts[lib.current_verdict].verification_results[check].report)

system_artifacts := {"pre_deploy_checklist.md": "pre-deploy checklist", "rollback_plan.md": "rollback plan"}

required contains r if {
	3 in lib.claimed_passed
	some name, what in system_artifacts
	logged := [e | some e in lib.items(input.docs.evidence_log.entries); endswith(e.path, sprintf("/%s", [name]))]
	count(logged) > 0
	e := logged[count(logged) - 1]
	r := {"gate": 3, "what": what, "path": e.path, "file": lib.doc_file.evidence_log, "line": e.line}
}

required contains r if {
	3 in lib.claimed_passed
	some name, what in system_artifacts
	not name_logged(name)
	r := object.union(lib.claim_position(3), {"gate": 3, "what": what, "path": sprintf("artifacts/system/%s", [name])})
}

name_logged(name) if {
	some e in lib.items(input.docs.evidence_log.entries)
	endswith(e.path, sprintf("/%s", [name]))
}
