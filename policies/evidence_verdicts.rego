# The verdicts: their numbers and the G3 exit criteria.
# (The package and its metadata: evidence.rego.)
package h3a.rules.evidence

import data.h3a.lib
import data.h3a.model

# METADATA
# title: Verdict contradicts its own numbers or results
# description: >-
#   In every validator verdict: tests passed + failed + skipped equals total; tests with
#   status pass have failed 0; a dod_checklist with status pass has met equal to total; a
#   verdict whose status means pass has no verification result with status fail; a
#   verification result with status pass meets its own bar: mutation score and absolute
#   coverage at least their threshold (mutation 85% when none is given), each of those
#   figures written so that it can be read (91.3%, 91.3 or 0.4; not "91,3%" nor
#   "91.3 percent", which a reader reads and the rule could not compare), no security
#   vulnerabilities, lint or type-check errors counted; a verdict whose status means pass
#   has approval_for_next_task not false, and no gate_status of G2 other than G2_passed
#   (G2_failed, G2_in_progress); a verdict whose status means a failure or an escalation
#   has no gate_status G2_passed (unless it is the current verdict while G2 is claimed passed,
#   which h3a.evidence.g2_exit_criteria fails); the current task's passing verdict lists an
#   unmet definition-of-done item (dod_checklist unmet, or a status other than pass) when
#   the executor's current TDD cycle reports one with met false.
#   Numbers that contradict their own status are conflicting signals for a human to resolve,
#   not a gate the specification fails: handoff_contracts.md, H3 Common Handoff Failures:
#   "Conflicting signals | Verdict "pass" but critical DoD unmet | Human reviews"; H3
#   Validator's Obligations: "Approval decision | validator_report.json →
#   approval_for_next_task | Boolean: ready for next task?"; h3a-state-specification.md,
#   validator_report.json: "status": "pass" with "gate_status": "G2_passed";
#   gate_framework.md, Validation Status Types: "FAIL: Blocking issues found, remediation
#   required", "ESCALATION: 2 iterations exhausted, human review needed";
#   gate_framework.md, G2 Exit Criteria: "Mutation score ≥ threshold (default 85%)",
#   "OWASP scan clean OR vulnerabilities documented/accepted", and G2 Failure Handling:
#   "Low mutation score | <85% mutants killed | PARTIAL PASS, note in validator_report"; the
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
	some i, verdict in model.verdicts
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
	some i, verdict in model.verdicts
	tests := verdict.verification_results.tests
	tests.status == "pass"
	is_number(tests.failed)
	tests.failed != 0
	v := verdict_finding(i, verdict, "tests/failed", sprintf("tests have status \"pass\" but failed is %v", [tests.failed]))
}

number_gaps contains v if {
	some i, verdict in model.verdicts
	dod := verdict.verification_results.dod_checklist
	dod.status == "pass"
	is_number(dod.met)
	is_number(dod.total)
	dod.met != dod.total
	v := verdict_finding(i, verdict, "dod_checklist", sprintf("dod_checklist has status \"pass\" but met %v of %v", [dod.met, dod.total]))
}

number_gaps contains v if {
	some i, verdict in model.verdicts
	model.verdict_passes(i)
	some check, result in verdict.verification_results
	result.status == "fail"
	v := verdict_finding(i, verdict, lib.escape_token(check), sprintf("%s, but verification result %s has status \"fail\"", [model.describe_verdict_status(i), check]))
}

# A passing verdict that does not approve the next task says two things.
number_gaps contains v if {
	some i, verdict in model.verdicts
	model.verdict_passes(i)
	verdict.approval_for_next_task == false
	v := verdict_gap(i, verdict, sprintf("/verdicts/%d/approval_for_next_task", [i]), sprintf("%s, but approval_for_next_task is false", [model.describe_verdict_status(i)]))
}

# A verdict whose own gate_status contradicts it says two things: a
# passing verdict with a gate_status that says G2 has not passed, or a
# verdict whose status means a failure or an escalation with one that says
# G2 passed. (A gate_status of another gate says nothing of G2.)
number_gaps contains v if {
	some i, verdict in model.verdicts
	gate_status_contradicts(i, model.parse_gate_status(verdict.gate_status))
	v := verdict_gap(i, verdict, sprintf("/verdicts/%d/gate_status", [i]), sprintf("%s, but its gate_status is %q", [model.describe_verdict_status(i), verdict.gate_status]))
}

gate_status_contradicts(i, st) if {
	st.gate == 2
	st.status != "passed"
	model.verdict_passes(i)
}

# When the failing verdict is the current one and a record claims G2
# passed, h3a.evidence.g2_exit_criteria already fails the gate over it.
gate_status_contradicts(i, st) if {
	st.gate == 2
	st.status == "passed"
	model.verdict_meaning(i).outcome in {"fail", "escalation"}
	not failed_g2_claim(i)
}

# failed_g2_claim(i): verdict i is the current one and G2 is claimed passed.
failed_g2_claim(i) if {
	i == model.current_verdict
	2 in model.claimed_passed
}

# The executor reports a definition-of-done item not met, and the task's
# passing verdict neither lists an unmet item nor gives its checklist a
# status other than pass.
number_gaps contains v if {
	i := model.current_verdict
	model.verdict_passes(i)
	verdict := model.verdicts[i]
	not dod_shortfall_noted(object.get(object.get(verdict, "verification_results", {}), "dod_checklist", null))
	c := model.current_cycle
	some d in lib.items(model.cycles[c].definition_of_done)
	d.met == false
	v := verdict_gap(i, verdict, dod_pointer(i), sprintf("%s with no unmet definition-of-done item, but the executor's TDD cycle %d reports %s not met", [model.describe_verdict_status(i), c, lib.describe(object.get(d, "criterion", null))]))
}

# dod_shortfall_noted: the verdict's DoD checklist admits a shortfall.
dod_shortfall_noted(dod) if count(lib.items(dod.unmet)) > 0

dod_shortfall_noted(dod) if {
	is_string(dod.status)
	dod.status != "pass"
}

dod_pointer(i) := sprintf("/verdicts/%d/verification_results/dod_checklist", [i]) if {
	is_object(model.verdicts[i].verification_results.dod_checklist)
} else := sprintf("/verdicts/%d", [i])

# A verification result with status pass whose own figures miss its bar:
# a score or an absolute coverage under its threshold, errors or
# vulnerabilities counted. The mutation threshold defaults to the gate
# framework's 85%; a coverage without a threshold has no bar to miss here.
number_gaps contains v if {
	some i, verdict in model.verdicts
	some [check, figure, msg] in below_bar(verdict.verification_results)
	v := verdict_finding(i, verdict, sprintf("%s/%s", [check, figure]), sprintf("%s has status \"pass\" but %s", [check, msg]))
}

below_bar(results) := {[check, figure, msg] |
	some [check, figure, default_bar] in [["mutation", "score", 85], ["coverage", "absolute", null]]
	results[check].status == "pass"
	value := coverage_value(results[check][figure])
	bar := threshold_of(results[check], default_bar)
	value < bar
	msg := sprintf("%s %v is below its threshold %v", [figure, json.marshal(results[check][figure]), bar])
} | {[check, figure, msg] |
	some [check, figure] in [["security", "vulnerabilities"], ["lint", "errors"], ["type_check", "errors"]]
	results[check].status == "pass"
	n := results[check][figure]
	is_number(n)
	n > 0
	msg := sprintf("%s is %v", [figure, n])
}

# A verification result with status pass whose score, absolute coverage or
# threshold is written so that it cannot be read ("71,3%", "71.3 percent",
# fullwidth digits): a reader sees the figure, and whether it meets its bar,
# while the bar above would go unchecked.
number_gaps contains v if {
	some i, verdict in model.verdicts
	some [check, figure] in unread_figures(verdict.verification_results)
	value := verdict.verification_results[check][figure]
	v := verdict_finding(i, verdict, sprintf("%s/%s", [check, figure]), sprintf(
		"%s has status \"pass\" but its %s %s is not a figure the rule can read (like 91.3%%, 91.3 or 0.4), so whether it meets its bar is not checked",
		[check, figure, json.marshal(value)],
	))
}

unread_figures(results) := {[check, figure] |
	some [check, figure] in [["mutation", "score"], ["mutation", "threshold"], ["coverage", "absolute"], ["coverage", "threshold"]]
	results[check].status == "pass"
	value := results[check][figure]
	value != null
	not coverage_value(value)
}

threshold_of(result, _) := coverage_value(result.threshold)

threshold_of(result, default_bar) := default_bar if {
	not readable_threshold(result)
	default_bar != null
}

readable_threshold(result) if coverage_value(result.threshold)

# verdict_finding is a gap at verification result at of verdict i.
verdict_finding(i, verdict, at, msg) := verdict_gap(i, verdict, sprintf("/verdicts/%d/verification_results/%s", [i, at]), msg)

# verdict_gap is a gap of verdict i at pointer, its message led by the
# verdict's index.
verdict_gap(i, verdict, pointer, msg) := object.union(
	{
		"msg": sprintf("verdict %d: %s", [i, msg]),
		"file": lib.doc_file.validator_report,
		"pointer": pointer,
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
	3 in model.claimed_passed
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
# title: A later verdict listed before the last one
# description: >-
#   validator_report.json lists, before a task's last verdict (the one the rules take as the
#   task's current verdict), a verdict for the same task with a later timestamp whose status
#   means another outcome (or that no document defines): going by the timestamps, the
#   validator's latest word on the task is not the one the gate counts. The specification
#   gives every verdict a timestamp (h3a-state-specification.md, validator_report.json:
#   "verdicts": [{"task_id", "timestamp", "status", ...}]) but does not say that verdicts are
#   listed in time order, so which one is the latest is a conflicting signal for a human:
#   handoff_contracts.md, H3 Common Handoff Failures: "Conflicting signals | Verdict "pass"
#   but critical DoD unmet | Human reviews". So it is a warning that asks for a human.
# custom:
#   id: h3a.evidence.verdict_order
#   category: evidence
#   severity: warning
#   remediation: >-
#     list the verdicts in the order they were given, the latest last; a verdict given after
#     the one that passed the task is the validator's current word on it
warn contains f if {
	some [j, i] in verdicts_out_of_order
	later := model.verdicts[j]
	f := lib.finding(rego.metadata.rule(), object.union(
		{
			"msg": sprintf(
				"verdict %d (%s, %s) is later than verdict %d (%s, %s), the last listed for task %v, which the gate counts as current",
				[j, model.describe_verdict_status(j), later.timestamp, i, model.describe_verdict_status(i), model.verdicts[i].timestamp, later.task_id],
			),
			"file": lib.doc_file.validator_report,
			"pointer": sprintf("/verdicts/%d/timestamp", [j]),
			"gate": "G2",
			"needs_human": true,
		},
		task_of(later),
	))
}

# verdicts_out_of_order holds [j, i]: verdict j is listed before verdict i,
# the last one of its task, but timed later, with another outcome.
verdicts_out_of_order contains [j, i] if {
	some i, verdict in model.verdicts
	i == model.last_index(model.verdicts, verdict.task_id)
	t := lib.time_ns(verdict.timestamp)
	some j, earlier in model.verdicts
	j < i
	earlier.task_id == verdict.task_id
	lib.time_ns(earlier.timestamp) > t
	not same_outcome(i, j)
}

same_outcome(i, j) if model.verdict_meaning(i).outcome == model.verdict_meaning(j).outcome

# METADATA
# title: Passing verdict older than the cycle it passes
# description: >-
#   A task's last verdict in validator_report.json, whose status means a pass, is timestamped
#   before the task's last TDD cycle in executor_report.json: going by the timestamps, the
#   validator passed the task before the implementation it validates was done.
#   gate_framework.md, G2 Entry Criteria: "G1 passed | GATES_LEDGER.md shows
#   G1_implementation PASSED", "Executor report exists | executor_report.json is present";
#   h3a-state-specification.md, Task Lifecycle: "in_progress → validation → complete". A
#   timestamp can be wrong where the order is not, so it is a warning that asks for a human.
# custom:
#   id: h3a.evidence.verdict_before_cycle
#   category: evidence
#   severity: warning
#   remediation: >-
#     validate the task again after its last TDD cycle and record that verdict, or correct
#     the timestamp that is wrong
warn contains f if {
	some i, verdict in model.verdicts
	lib.filled(verdict.task_id)
	i == model.last_index(model.verdicts, verdict.task_id)
	model.verdict_passes(i)
	c := model.last_index(model.cycles, verdict.task_id)
	cycle := model.cycles[c]
	lib.time_ns(verdict.timestamp) < lib.time_ns(cycle.timestamp)
	f := lib.finding(rego.metadata.rule(), {
		"msg": sprintf(
			"verdict %d (%s, %s) passes task %v before its TDD cycle %d (%s) in executor_report.json was done",
			[i, model.describe_verdict_status(i), verdict.timestamp, verdict.task_id, c, cycle.timestamp],
		),
		"file": lib.doc_file.validator_report,
		"pointer": sprintf("/verdicts/%d/timestamp", [i]),
		"task_id": verdict.task_id,
		"gate": "G2",
		"needs_human": true,
	})
}
