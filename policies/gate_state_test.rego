package h3a.tests.gate_state

import data.h3a.rules.gate_state
import data.h3a.test
import data.h3a.test.fixture

pipeline := "/docs/pipelines/0/pipeline"

g1 := "/docs/pipelines/0/gates/1"

g2 := "/docs/pipelines/0/gates/2"

file1 := ".state/demoqa_com-student_registration-gate1-output.json"

file2 := ".state/demoqa_com-student_registration-gate2-output.json"

pipeline_file := ".state/demoqa_com-student_registration-pipeline.json"

# findings lists what ops break, but the warning that the pipeline failed
# and needs a human, which stops(ops) lists.
findings(ops) := {f | some f in all_of(ops); not f.needs_human}

stops(ops) := {f | some f in all_of(ops); f.needs_human}

all_of(ops) := fs if {
	inp := json.patch(fixture.gate_state_complete, ops)
	deny := gate_state.deny with input as inp
	warn := gate_state.warn with input as inp
	fs := deny | warn
}

# located lists [rule, file, pointer] of the findings of ops.
located(ops) := {[f.rule, f.file, object.get(f, "pointer", "")] | some f in findings(ops)}

msgs(ops) := {f.msg | some f in findings(ops)}

set(path, value) := {"op": "replace", "path": path, "value": value}

put(path, value) := {"op": "add", "path": path, "value": value}

cut(path) := {"op": "remove", "path": path}

test_gate_state_run_is_clean if {
	count(test.all_findings) == 0 with input as fixture.gate_state_complete
}

test_quiet_on_other_layouts if {
	count(gate_state.deny) == 0 with input as fixture.complete
	count(gate_state.warn) == 0 with input as fixture.complete
	count(gate_state.deny) == 0 with input as fixture.contract_rounds
}

# Rules of other layouts stay quiet on a gate-state run even when it is broken.
test_other_rules_quiet_on_gate_state if {
	fs := test.all_findings with input as json.patch(fixture.gate_state_complete, [
		set(sprintf("%s/currentGate", [pipeline]), 9),
		set(sprintf("%s/doc/status", [g2]), "FAILED"),
	])
	count(fs) > 0
	every f in fs {
		contains(f.rule, ".gate_state_")
	}
}

test_variant if {
	located([set(sprintf("%s/variants", [g1]), ["agentName", "validationResult"])]) == {["h3a.schema.gate_state_variant", file1, ""]}
	msgs([set(sprintf("%s/variants", [g1]), ["agentName", "validationResult"])]) == {"uses agentName, validationResult of the guide's sibling documents, read as the guide's fields"}
}

test_variant_of_unreadable_file_is_quiet if {
	count(findings([
		set(sprintf("%s/variants", [g1]), ["agentName"]),
		set(sprintf("%s/doc", [g1]), null),
	])) == 0
}

test_file_named_for_another_gate if {
	located([set(sprintf("%s/doc/gate", [g2]), 3)]) == {["h3a.traceability.gate_state_file_name", file2, "/gate"]}
	msgs([set(sprintf("%s/doc/gate", [g2]), 3)]) == {"file is named for gate 2 but gate is 3"}
}

test_gate_written_as_a_float_is_its_number if {
	count(findings([set(sprintf("%s/doc/gate", [g2]), 2.0)])) == 0
}

test_file_named_for_another_feature if {
	inp := [set("/docs/pipelines/0/prefix", "demoqa_com-login")]
	located(inp) == {
		["h3a.traceability.gate_state_file_name", file1, "/metadata"],
		["h3a.traceability.gate_state_file_name", file2, "/metadata"],
		["h3a.traceability.gate_state_file_name", pipeline_file, "/metadata"],
	}
	msgs(inp) == {`file is named "demoqa_com-login" but metadata says domain-feature "demoqa_com-student_registration"`}
}

test_close_is_not_equal if {
	count(findings([set("/docs/pipelines/0/prefix", "demoqa_com-student_registration-v2")])) == 3
}

# The older naming puts a request id where domain-feature stands.
test_request_id_naming if {
	count(findings([set("/docs/pipelines/0/prefix", "req-7f3a")])) == 0
	count(findings([
		set("/docs/pipelines/0/prefix", "demoqa_com-req42"),
		put(sprintf("%s/requestId", [pipeline]), "demoqa_com-req42"),
		put(sprintf("%s/doc/metadata/requestId", [g1]), "demoqa_com-req42"),
		put(sprintf("%s/doc/requestId", [g2]), "demoqa_com-req42"),
	])) == 0
}

# No domain and feature: a shape problem, the schema's to report.
test_no_metadata_is_no_name_problem if {
	count(findings([
		set("/docs/pipelines/0/prefix", "x"),
		set(sprintf("%s/metadata", [pipeline]), "demoqa_com-student_registration"),
		cut(sprintf("%s/doc/metadata/feature", [g1])),
		set(sprintf("%s/doc/metadata", [g2]), 3),
	])) == 0
}

test_success_below_the_pass_score if {
	ops := [set(sprintf("%s/doc/validation/score", [g1]), 65)]
	located(ops) == {["h3a.gates.gate_state_score", file1, "/validation/score"]}
	msgs(ops) == {"status is SUCCESS but validation score is 65, expected at least 70"}
}

test_score_found_where_the_file_holds_it if {
	located([
		set(sprintf("%s/doc/validation/score", [g1]), 65.5),
		set(sprintf("%s/read_from", [g1]), {"validation": "validationResult"}),
	]) == {["h3a.gates.gate_state_score", file1, "/validationResult/score"]}
}

test_success_at_the_pass_score_is_fine if {
	count(findings([set(sprintf("%s/doc/validation/score", [g1]), 70)])) == 0
}

test_success_not_passed if {
	ops := [set(sprintf("%s/doc/validation/passed", [g1]), false)]
	{[f.rule, f.file, f.pointer] | some f in stops(ops)} == {["h3a.gates.gate_state_score", file1, "/validation/passed"]}
	count(findings(ops)) == 0
}

test_partial_at_the_pass_score if {
	ops := [set(sprintf("%s/doc/status", [g2]), "PARTIAL")]
	located(ops) == {["h3a.gates.gate_state_score", file2, "/validation/score"]}
	msgs(ops) == {"status is PARTIAL but validation score is 87, expected below 70 (or status SUCCESS)"}
}

test_partial_below_the_pass_score_is_fine if {
	count(findings([
		set(sprintf("%s/doc/status", [g2]), "PARTIAL"),
		set(sprintf("%s/doc/validation/score", [g2]), 69.5),
	])) == 0
}

test_failed_but_passed if {
	located([
		set(sprintf("%s/doc/status", [g2]), "FAILED"),
		set(sprintf("%s/completedGates", [pipeline]), [1]),
	]) == {["h3a.gates.gate_state_score", file2, "/validation/passed"]}
}

# A number no 64-bit float holds is not a score.
test_score_beyond_floats_is_no_score if {
	count(findings([
		set(sprintf("%s/doc/status", [g2]), "PARTIAL"),
		set(sprintf("%s/doc/validation/score", [g2]), 1e400),
	])) == 0
}

test_gate_without_the_previous_gate if {
	ops := [cut(g1), set(sprintf("%s/completedGates", [pipeline]), [])]
	located(ops) == {
		["h3a.gates.gate_state_gate_order", file2, ""],
		["h3a.gates.gate_state_current_gate", pipeline_file, "/currentGate"],
	}
	"gate 2's output exists but gate 1's does not (expected demoqa_com-student_registration-gate1-output.json)" in msgs(ops)
}

# Gate 1 may follow no gate 0.
test_first_gate_needs_no_gate_zero if {
	count(findings([cut(g2), set(sprintf("%s/completedGates", [pipeline]), [1]), set(sprintf("%s/currentGate", [pipeline]), 1)])) == 0
}

current_gate_fires(current, done) if {
	some f in findings([set(sprintf("%s/currentGate", [pipeline]), current), set(sprintf("%s/completedGates", [pipeline]), done)])
	f.rule == "h3a.gates.gate_state_current_gate"
}

test_current_gate if {
	not current_gate_fires(0, [])
	not current_gate_fires(1, [])
	current_gate_fires(2, [])
	not current_gate_fires(2, [1, 2])
	not current_gate_fires(3, [1, 2])
	current_gate_fires(1, [1, 2])
	current_gate_fires(4, [1, 2])
	current_gate_fires(2, [1, 1, 2])
}

test_current_gate_messages if {
	msgs([set(sprintf("%s/currentGate", [pipeline]), 2), set(sprintf("%s/completedGates", [pipeline]), [])]) == {"currentGate is 2 but the last completed gate is none, expected 0 or 1"}
	msgs([set(sprintf("%s/completedGates", [pipeline]), [1, 1, 2])]) == {"completed gate 1 follows gate 1, expected ascending gates without repeats"}
	located([set(sprintf("%s/completedGates", [pipeline]), [1, 1, 2])]) == {["h3a.gates.gate_state_current_gate", pipeline_file, "/completedGates/1"]}
}

test_completed_gate_without_output if {
	ops := [set(sprintf("%s/completedGates", [pipeline]), [1, 2, 3]), set(sprintf("%s/currentGate", [pipeline]), 3)]
	located(ops) == {["h3a.evidence.gate_state_completed_output", pipeline_file, "/completedGates/2"]}
	msgs(ops) == {"gate 3 is completed but .state/demoqa_com-student_registration-gate3-output.json does not exist"}
}

# gates_3_and_4 adds SUCCESS outputs for gates 3 and 4.
gates_3_and_4 := [put(sprintf("/docs/pipelines/0/gates/%d", [n]), object.union(fixture.gate_state_complete.docs.pipelines[0].gates["2"], {
	"path": sprintf(".state/demoqa_com-student_registration-gate%d-output.json", [n]),
	"doc": object.union(fixture.gate_state_complete.docs.pipelines[0].gates["2"].doc, {"gate": n, "agent": "ScriptGenerator"}),
})) |
	some n in [3, 4]
]

# Gate 5 is the orchestrator's mark: no output is written for it.
test_final_mark_needs_no_output if {
	count(findings(array.concat(gates_3_and_4, [set(sprintf("%s/completedGates", [pipeline]), [1, 2, 3, 4, 5]), set(sprintf("%s/currentGate", [pipeline]), 5)]))) == 0
}

test_completed_gate_that_failed if {
	msgs([set(sprintf("%s/doc/status", [g2]), "FAILED"), set(sprintf("%s/doc/validation/passed", [g2]), false)]) == {`gate 2 is completed but its output's status is "FAILED", expected SUCCESS or PARTIAL`}
	msgs([cut(sprintf("%s/doc/status", [g2]))]) == {"gate 2 is completed but its output's status is missing, expected SUCCESS or PARTIAL"}
}

test_failed_pipeline_without_the_failed_gate if {
	ops := [set(sprintf("%s/status", [pipeline]), "FAILED"), set(sprintf("%s/currentGate", [pipeline]), 3)]
	located(ops) == {["h3a.evidence.gate_state_failed_output", pipeline_file, "/currentGate"]}
	msgs(ops) == {"pipeline FAILED at gate 3 but .state/demoqa_com-student_registration-gate3-output.json does not exist"}
}

test_failed_pipeline_with_its_output_is_fine if {
	count(findings([set(sprintf("%s/status", [pipeline]), "FAILED")])) == 0
	count(findings(array.concat(gates_3_and_4, [
		set(sprintf("%s/status", [pipeline]), "FAILED"),
		set(sprintf("%s/completedGates", [pipeline]), [1, 2, 3, 4, 5]),
		set(sprintf("%s/currentGate", [pipeline]), 5),
	]))) == 0
}

test_success_pipeline_over_a_partial_gate if {
	ops := array.concat(marked_complete, [
		set(sprintf("%s/status", [pipeline]), "SUCCESS"),
		set(sprintf("%s/doc/status", [g2]), "PARTIAL"),
		set(sprintf("%s/doc/validation/score", [g2]), 60),
	])
	located(ops) == {["h3a.gates.gate_state_pipeline_status", pipeline_file, "/status"]}
	msgs(ops) == {`pipeline status is SUCCESS but gate 2 (.state/demoqa_com-student_registration-gate2-output.json) has status "PARTIAL"`}
}

# marked_complete runs gates 3 and 4 and marks the pipeline complete as the
# guide's final step does: currentGate 5, 5 pushed onto completedGates.
marked_complete := array.concat(gates_3_and_4, [
	set(sprintf("%s/completedGates", [pipeline]), [1, 2, 3, 4, 5]),
	set(sprintf("%s/currentGate", [pipeline]), 5),
])

test_success_pipeline_of_successes_is_fine if {
	count(findings(array.concat(marked_complete, [set(sprintf("%s/status", [pipeline]), "SUCCESS")]))) == 0
	count(findings(array.concat(marked_complete, [set(sprintf("%s/status", [pipeline]), "PARTIAL")]))) == 0
}

# SUCCESS and PARTIAL are written only by the final step, with the final
# mark: a pipeline so marked before its last gate claims gates that never ran.
test_pipeline_finished_before_its_last_gate if {
	some status in ["SUCCESS", "PARTIAL"]
	ops := [set(sprintf("%s/status", [pipeline]), status)]
	located(ops) == {["h3a.gates.gate_state_unfinished", pipeline_file, "/status"]}
	msgs(ops) == {sprintf("pipeline status is %s but completedGates [1,2] lacks the final gate 5 (currentGate 2): the pipeline is marked complete before its last gate ran", [status])}
}

# Gates 3 and 4 done and recorded, but no final mark.
test_pipeline_finished_without_the_final_mark if {
	ops := array.concat(gates_3_and_4, [
		set(sprintf("%s/status", [pipeline]), "SUCCESS"),
		set(sprintf("%s/completedGates", [pipeline]), [1, 2, 3, 4]),
		set(sprintf("%s/currentGate", [pipeline]), 4),
	])
	located(ops) == {["h3a.gates.gate_state_unfinished", pipeline_file, "/status"]}
}

# In progress or failed part-way, no final mark is due.
test_unfinished_pipeline_in_progress_or_failed_is_fine if {
	count({f | some f in all_of([]); f.rule == "h3a.gates.gate_state_unfinished"}) == 0
	count({f | some f in all_of([set(sprintf("%s/status", [pipeline]), "FAILED")]); f.rule == "h3a.gates.gate_state_unfinished"}) == 0
}

test_gate_one_without_test_cases if {
	located([set(sprintf("%s/doc/output/testCases", [g1]), [])]) == {["h3a.gates.gate_state_handoff", file1, "/output"]}
	msgs([cut(sprintf("%s/doc/output/testCases", [g1]))]) == {"gate 1 output has testCases missing, expected a non-empty array for gate 2 to map"}
	located([
		cut(sprintf("%s/doc/output/testCases", [g1])),
		set(sprintf("%s/read_from", [g1]), {"output": "outputData"}),
	]) == {["h3a.gates.gate_state_handoff", file1, "/outputData"]}
}

test_test_case_without_id_or_steps if {
	ops := [
		cut(sprintf("%s/doc/output/testCases/0/testId", [g1])),
		set(sprintf("%s/doc/output/testCases/0/testSteps", [g1]), []),
		put(sprintf("%s/doc/output/testCases/-", [g1]), "TC_002"),
	]
	located(ops) == {
		["h3a.gates.gate_state_handoff", file1, "/output/testCases/0"],
		["h3a.gates.gate_state_handoff", file1, "/output/testCases/1"],
	}
	msgs(ops) == {
		"test case 0 has testId missing, expected a non-empty string",
		"test case 0 has testSteps an array, expected a non-empty array",
		"test case 1 has testId missing, expected a non-empty string",
		"test case 1 has testSteps missing, expected a non-empty array",
	}
}

test_handoff_of_the_guides_agent_spelt_otherwise if {
	every agent in ["testCaseDesigner", "TESTCASEDESIGNER", " TestCaseDesigner ", "Test Case Designer", "test_case-designer", "TestCaseDesigner\u200b"] {
		msgs([
			set(sprintf("%s/doc/output/testCases", [g1]), []),
			set(sprintf("%s/doc/agent", [g1]), agent),
		]) == {"gate 1 output has testCases an array, expected a non-empty array for gate 2 to map"}
	}
	every agent in ["domagent", "DOMAgent\n", "DOM Agent", "dom_agent"] {
		count(findings([
			set(sprintf("%s/doc/output/elementMappings", [g2]), {}),
			set(sprintf("%s/doc/agent", [g2]), agent),
		])) > 0
	}
}

test_handoff_of_other_agents_and_failed_gates_is_theirs if {
	count(findings([
		set(sprintf("%s/doc/output/testCases", [g1]), []),
		set(sprintf("%s/doc/agent", [g1]), "MyDesigner"),
	])) == 0
	located([
		set(sprintf("%s/doc/output/testCases", [g1]), []),
		set(sprintf("%s/doc/status", [g1]), "FAILED"),
		set(sprintf("%s/doc/validation/passed", [g1]), false),
	]) == {
		["h3a.evidence.gate_state_completed_output", pipeline_file, "/completedGates/0"],
		["h3a.gates.gate_state_after_failed", file2, ""],
		["h3a.gates.gate_state_after_failed", pipeline_file, "/completedGates/1"],
	}
}

test_gate_two_without_element_mappings if {
	msgs([set(sprintf("%s/doc/output/elementMappings", [g2]), {})]) == {"gate 2 output has elementMappings an object, expected an array for gate 3 to use"}
	ops := [
		cut(sprintf("%s/doc/output/elementMappings/0/locators/primary", [g2])),
		put(sprintf("%s/doc/output/elementMappings/-", [g2]), 7),
	]
	located(ops) == {
		["h3a.gates.gate_state_handoff", file2, "/output/elementMappings/0"],
		["h3a.gates.gate_state_handoff", file2, "/output/elementMappings/1"],
	}
}

# The shapes are the schema's to check; the rules read what they can of a
# document that breaks them, and still fire on the parts they understand.
test_rules_read_past_shape_errors if {
	fs := findings([
		set(sprintf("%s/status", [pipeline]), 7),
		set(sprintf("%s/currentGate", [pipeline]), 4),
		set(sprintf("%s/completedGates", [pipeline]), [1, "2", 2]),
		set(sprintf("%s/doc/gate", [g1]), "1"),
		set(sprintf("%s/doc/validation", [g1]), "x"),
		set(sprintf("%s/doc/status", [g2]), "PARTIAL"),
		set(sprintf("%s/doc/agent", [g2]), 5),
		set(sprintf("%s/doc/validation", [g2]), {"score": 90, "passed": "no"}),
	])
	test.rules(fs) == {"h3a.gates.gate_state_current_gate", "h3a.gates.gate_state_score"}
}

# --- severities set per element ------------------------------------------------

# A gate output that says it passed and that it did not asks a human: a
# warning alone would leave the run green.
test_passed_against_status_is_a_warning if {
	fs := stops([set(sprintf("%s/doc/validation/passed", [g1]), false)])
	{[f.rule, f.severity] | some f in fs} == {["h3a.gates.gate_state_score", "warning"]}
}

test_partial_gate_under_success_is_a_warning if {
	fs := findings([
		set(sprintf("%s/status", [pipeline]), "SUCCESS"),
		set(sprintf("%s/doc/status", [g2]), "PARTIAL"),
		set(sprintf("%s/doc/validation/score", [g2]), 60),
	])
	{[f.rule, f.severity] | some f in fs} == {["h3a.gates.gate_state_pipeline_status", "warning"]}
}

test_failed_gate_under_success_is_an_error if {
	fs := findings([
		set(sprintf("%s/status", [pipeline]), "SUCCESS"),
		set(sprintf("%s/completedGates", [pipeline]), [1]),
		set(sprintf("%s/doc/status", [g2]), "FAILED"),
		set(sprintf("%s/doc/validation/passed", [g2]), false),
	])
	{[f.rule, f.severity] | some f in fs} == {["h3a.gates.gate_state_pipeline_status", "error"]}
}

# --- no gate after a failed one --------------------------------------------------

failed_at_one := [
	set(sprintf("%s/doc/status", [g1]), "FAILED"),
	set(sprintf("%s/doc/validation/passed", [g1]), false),
	set(sprintf("%s/completedGates", [pipeline]), []),
	set(sprintf("%s/currentGate", [pipeline]), 1),
	set(sprintf("%s/status", [pipeline]), "FAILED"),
]

test_gate_output_after_a_failed_gate if {
	located(failed_at_one) == {["h3a.gates.gate_state_after_failed", file2, ""]}
	msgs(failed_at_one) == {"gate 2's output exists but gate 1 before it FAILED (.state/demoqa_com-student_registration-gate1-output.json); no gate runs after a failed one"}
}

test_completed_gate_after_a_failed_gate if {
	ops := array.concat(failed_at_one, [
		cut(g2),
		set(sprintf("%s/completedGates", [pipeline]), [0, 2]),
		set(sprintf("%s/currentGate", [pipeline]), 2),
		put("/docs/pipelines/0/gates/0", object.union(fixture.gate_state_complete.docs.pipelines[0].gates["1"], {"path": ".state/demoqa_com-student_registration-gate0-output.json", "doc": object.union(fixture.gate_state_complete.docs.pipelines[0].gates["1"].doc, {"gate": 0, "agent": "Intake"})})),
	])
	{[r, p] | some [r, _, p] in located(ops); r == "h3a.gates.gate_state_after_failed"} == {["h3a.gates.gate_state_after_failed", "/completedGates/1"]}
}

# The final mark follows a failure: the orchestrator closes the pipeline.
test_final_mark_after_a_failed_gate_is_fine if {
	count(findings(array.concat(failed_at_one, [
		cut(g2),
		set(sprintf("%s/completedGates", [pipeline]), [5]),
		set(sprintf("%s/currentGate", [pipeline]), 5),
	]))) == 0
}

# --- a failed pipeline needs a human ------------------------------------------

test_running_and_finished_pipelines_do_not_stop if {
	count(stops([])) == 0
	count(stops([set(sprintf("%s/status", [pipeline]), "PARTIAL")])) == 0
	count(stops([set(sprintf("%s/status", [pipeline]), "SUCCESS")])) == 0
}

test_failed_pipeline_needs_a_human if {
	ops := array.concat(failed_at_one, [cut(g2)])
	count(findings(ops)) == 0
	[f] := [f | some f in stops(ops)]
	[f.rule, f.file, f.pointer, f.needs_human] == ["h3a.gates.gate_state_needs_human", pipeline_file, "/status", true]
	f.msg == "pipeline demoqa_com-student_registration FAILED at gate 1: a person must decide how to go on"
	[g] := [g | some g in stops([set(sprintf("%s/status", [pipeline]), "FAILED"), set(sprintf("%s/currentGate", [pipeline]), 5)])]
	g.msg == "pipeline demoqa_com-student_registration FAILED: a person must decide how to go on"
}

# A pipeline still IN_PROGRESS over a FAILED gate output stops too: the
# finding is at the failed gate's output.
test_failed_gate_under_a_running_pipeline_needs_a_human if {
	ops := [
		set(sprintf("%s/completedGates", [pipeline]), [1]),
		set(sprintf("%s/doc/status", [g2]), "FAILED"),
		set(sprintf("%s/doc/validation/score", [g2]), 40),
		set(sprintf("%s/doc/validation/passed", [g2]), false),
	]
	count(findings(ops)) == 0
	[f] := [f | some f in stops(ops)]
	[f.rule, f.file, f.pointer, f.needs_human] == ["h3a.gates.gate_state_needs_human", file2, "/status", true]
	f.msg == "gate 2 FAILED but pipeline demoqa_com-student_registration is IN_PROGRESS (.state/demoqa_com-student_registration-pipeline.json): no gate runs after a failed one, so a person must decide whether to re-run the gate or close the pipeline FAILED"
}

# A pipeline closed PARTIAL over a FAILED gate output stops too: the final
# mark needs no output, so a FAILED gate 5 output is read by no other rule.
test_failed_gate_under_a_partial_pipeline_needs_a_human if {
	ops := array.concat(closed("PARTIAL", [1, 2, 3, 4, 5]), [
		put("/docs/pipelines/0/gates/3", gate_output(3, "SUCCESS", 90)),
		put("/docs/pipelines/0/gates/4", gate_output(4, "PARTIAL", 60)),
		put("/docs/pipelines/0/gates/5", gate_output(5, "FAILED", 20)),
	])
	count(findings(ops)) == 0
	[f] := [f | some f in stops(ops)]
	[f.rule, f.file, f.pointer, f.needs_human] == ["h3a.gates.gate_state_needs_human", gate_file(5), "/status", true]
	f.msg == "gate 5 FAILED but pipeline demoqa_com-student_registration is PARTIAL (.state/demoqa_com-student_registration-pipeline.json): a failed gate stops the pipeline, so a person must decide whether it ended PARTIAL or FAILED"
	count(stops(array.concat(closed("PARTIAL", [1, 2, 3, 4, 5]), [
		put("/docs/pipelines/0/gates/3", gate_output(3, "SUCCESS", 90)),
		put("/docs/pipelines/0/gates/4", gate_output(4, "PARTIAL", 60)),
	]))) == 0
}

gate_file(n) := sprintf(".state/demoqa_com-student_registration-gate%d-output.json", [n])

gate_output(n, status, score) := {
	"path": gate_file(n),
	"doc": {
		"gate": n,
		"agent": sprintf("Agent%d", [n]),
		"status": status,
		"metadata": {"domain": "demoqa_com", "feature": "student_registration"},
		"output": {},
		"validation": {"score": score, "issues": [], "passed": status != "FAILED"},
	},
	"variants": [],
	"read_from": {},
	"conflicts": [],
}

# The same FAILED gate under a FAILED pipeline is one finding, at the pipeline.
test_failed_gate_under_a_failed_pipeline_is_one_stop if {
	[f] := [f | some f in stops(failed_at_one)]
	f.file == pipeline_file
}

# --- gate outputs without their pipeline file ----------------------------------

no_pipeline_file := [set("/docs/pipelines/0/path", ""), set(pipeline, null)]

test_gate_outputs_without_pipeline_file_need_a_human if {
	count(findings(no_pipeline_file)) == 0
	[f] := [f | some f in stops(no_pipeline_file)]
	[f.rule, f.file, f.needs_human] == ["h3a.evidence.gate_state_pipeline_missing", file1, true]
	f.msg == "outputs of gates 1, 2 for demoqa_com-student_registration but no pipeline file .state/demoqa_com-student_registration-pipeline.json: nothing records which gates completed or how the pipeline ended; a person must check the run"
}

# A FAILED gate output without a pipeline is never a pass: the finding is at it.
test_failed_gate_output_without_pipeline_file_needs_a_human if {
	ops := array.concat(no_pipeline_file, [
		set(sprintf("%s/doc/status", [g2]), "FAILED"),
		set(sprintf("%s/doc/validation/score", [g2]), 40),
		set(sprintf("%s/doc/validation/passed", [g2]), false),
	])
	[f] := [f | some f in stops(ops)]
	[f.rule, f.file, f.needs_human] == ["h3a.evidence.gate_state_pipeline_missing", file2, true]
	f.msg == "outputs of gates 1, 2 for demoqa_com-student_registration but no pipeline file .state/demoqa_com-student_registration-pipeline.json: nothing records which gates completed or how the pipeline ended, and gate 2 FAILED; a person must check the run"
}

test_one_gate_output_without_pipeline_file if {
	[f] := [f | some f in stops(array.concat(no_pipeline_file, [cut(g2)]))]
	startswith(f.msg, "outputs of gate 1 for demoqa_com-student_registration but no pipeline file")
}

# With its pipeline file present, no gate output asks for that file (a FAILED
# gate under an IN_PROGRESS pipeline asks for a human for its own reason).
test_pipeline_file_present_asks_no_human if {
	count(stops([])) == 0
	rules := {f.rule | some f in stops([set(sprintf("%s/doc/status", [g2]), "FAILED"), set(sprintf("%s/completedGates", [pipeline]), [1]), set(sprintf("%s/currentGate", [pipeline]), 2)])}
	not "h3a.evidence.gate_state_pipeline_missing" in rules
}

# --- gaps in completedGates ---------------------------------------------------

closed(status, done) := [
	set(sprintf("%s/status", [pipeline]), status),
	set(sprintf("%s/currentGate", [pipeline]), 5),
	set(sprintf("%s/completedGates", [pipeline]), done),
]

test_final_mark_over_gates_that_never_completed if {
	located(closed("SUCCESS", [1, 2, 5])) == {["h3a.gates.gate_state_completed_gap", pipeline_file, "/completedGates/2"]}
	msgs(closed("SUCCESS", [1, 2, 5])) == {"completedGates has gate 5 but not gates 3, 4 before it; gates run in order, so a gate completes only after the ones before it"}
	located(closed("PARTIAL", [1, 2, 5])) == {["h3a.gates.gate_state_completed_gap", pipeline_file, "/completedGates/2"]}
}

test_gate_completed_over_a_gap if {
	ops := [set(sprintf("%s/completedGates", [pipeline]), [2])]
	{[r, f, p] | some [r, f, p] in located(ops); r == "h3a.gates.gate_state_completed_gap"} == {["h3a.gates.gate_state_completed_gap", pipeline_file, "/completedGates/0"]}
	msgs(ops) & {"completedGates has gate 2 but not gate 1 before it; gates run in order, so a gate completes only after the ones before it"} != set()
}

# Each gap is reported once, at the first gate completed after it.
test_gap_reported_once if {
	ops := closed("SUCCESS", [1, 3, 4, 5])
	gaps := {[p, m] | some f in findings(ops); f.rule == "h3a.gates.gate_state_completed_gap"; p := f.pointer; m := f.msg}
	gaps == {["/completedGates/1", "completedGates has gate 3 but not gate 2 before it; gates run in order, so a gate completes only after the ones before it"]}
}

test_no_gap if {
	count({f | some f in findings(closed("SUCCESS", [1, 2, 3, 4, 5])); f.rule == "h3a.gates.gate_state_completed_gap"}) == 0
	count({f | some f in findings(closed("SUCCESS", [0, 1, 2, 3, 4, 5])); f.rule == "h3a.gates.gate_state_completed_gap"}) == 0
	count({f | some f in findings([])}) == 0
}

# A FAILED pipeline closed with the final mark lacks the failed gate and the
# ones after it, which never ran; a gap before the failed gate is still one.
test_failed_pipeline_closed_after_its_failed_gate if {
	failed_at_two := [
		set(sprintf("%s/doc/status", [g2]), "FAILED"),
		set(sprintf("%s/doc/validation/score", [g2]), 40),
		set(sprintf("%s/doc/validation/passed", [g2]), false),
	]
	count(findings(array.concat(failed_at_two, closed("FAILED", [1, 5])))) == 0
	located(array.concat(failed_at_two, closed("FAILED", [5]))) == {["h3a.gates.gate_state_completed_gap", pipeline_file, "/completedGates/0"]}
	msgs(array.concat(failed_at_two, closed("FAILED", [5]))) == {"completedGates has gate 5 but not gate 1 before it; gates run in order, so a gate completes only after the ones before it"}
	located(array.concat(failed_at_two, closed("PARTIAL", [1, 5]))) == {["h3a.gates.gate_state_completed_gap", pipeline_file, "/completedGates/1"]}
	msgs(array.concat(failed_at_two, closed("PARTIAL", [1, 5]))) == {"completedGates has gate 5 but not gates 2, 3, 4 before it; gates run in order, so a gate completes only after the ones before it"}
}

# A FAILED pipeline closed over a gap with no FAILED gate output: the failed
# gate wrote no file, or gates were skipped.
test_failed_pipeline_closed_over_a_gap_no_output_explains if {
	ops := closed("FAILED", [1, 2, 5])
	located(ops) == {["h3a.gates.gate_state_completed_gap", pipeline_file, "/completedGates/2"]}
	msgs(ops) == {"completedGates has gate 5 but not gates 3, 4 before it, and no FAILED gate output explains the gap; gates run in order, so a gate completes only after the ones before it"}
}

# --- the guide's short names: no prefix ---------------------------------------

# unprefixed renames the fixture's files to the guide's short names.
unprefixed := [
	set("/docs/pipelines/0/prefix", ""),
	set("/docs/pipelines/0/path", ".state/pipeline.json"),
	set(sprintf("%s/path", [g1]), ".state/gate1-output.json"),
	set(sprintf("%s/path", [g2]), ".state/gate2-output.json"),
]

test_short_names_are_a_clean_run if {
	count(findings(unprefixed)) == 0
	count(stops(unprefixed)) == 0
}

test_short_names_are_checked if {
	ops := array.concat(unprefixed, [cut(g1), set(sprintf("%s/completedGates", [pipeline]), [2])])
	msgs(ops) == {
		"gate 2's output exists but gate 1's does not (expected gate1-output.json)",
		"completedGates has gate 2 but not gate 1 before it; gates run in order, so a gate completes only after the ones before it",
	}
	failed := array.concat(unprefixed, [set(sprintf("%s/status", [pipeline]), "FAILED"), set(sprintf("%s/currentGate", [pipeline]), 3)])
	msgs(failed) == {"pipeline FAILED at gate 3 but .state/gate3-output.json does not exist"}
	[f] := [f | some f in stops(failed)]
	[f.file, f.msg] == [".state/pipeline.json", "pipeline (no name prefix) FAILED at gate 3: a person must decide how to go on"]
}

test_short_names_without_pipeline_file if {
	[f] := [f | some f in stops(array.concat(unprefixed, no_pipeline_file))]
	f.msg == "outputs of gates 1, 2 for (no name prefix) but no pipeline file .state/pipeline.json: nothing records which gates completed or how the pipeline ended; a person must check the run"
}

# A file that writes validation and validationResult with different results
# asks for a human: the rules read validation, the failing one would be lost.
test_conflicting_synonym_needs_human if {
	ops := [put(sprintf("%s/conflicts", [g2]), [{"field": "validation", "variant": "validationResult"}])]
	{[f.rule, f.file, f.pointer] | some f in stops(ops)} == {["h3a.schema.gate_state_conflict", file2, "/validationResult"]}
	{f.msg | some f in stops(ops)} == {"has both validation and validationResult with different values; validation is read and validationResult would go unread: a person must decide which holds"}
}

test_no_conflict_is_quiet if {
	count(stops([put(sprintf("%s/conflicts", [g2]), [])])) == 0
}

# A gate output that ran on another page than its pipeline's is an error at
# its url; the same page written with a trailing "/" or an upper-case host is
# no other page, and an output or pipeline naming none is the schema's to judge.
test_gate_on_another_page if {
	ops := [set(sprintf("%s/doc/metadata/url", [g2]), "https://evil.example/other-form")]
	located(ops) == {["h3a.traceability.gate_state_url", file2, "/metadata/url"]}
	msgs(ops) == {`metadata.url is "https://evil.example/other-form", but the pipeline .state/demoqa_com-student_registration-pipeline.json works on "https://demoqa.com/automation-practice-form": the gate ran on another page`}

	path := [set(sprintf("%s/doc/metadata/url", [g1]), "https://demoqa.com/login")]
	located(path) == {["h3a.traceability.gate_state_url", file1, "/metadata/url"]}
}

test_gate_on_the_same_page if {
	count(findings([set(sprintf("%s/doc/metadata/url", [g2]), " HTTPS://DemoQA.com/automation-practice-form/ ")])) == 0
	count(findings([set(sprintf("%s/doc/metadata/url", [g2]), null)])) == 0
	count(findings([set("/docs/pipelines/0/pipeline/metadata/url", null)])) == 0
}
