# Progress and outputs: currentGate, and each completed or failed gate's output.
# (The package and its metadata: gate_state.rego.)
package h3a.rules.gate_state

import data.h3a.lib

# METADATA
# title: currentGate disagrees with completedGates
# description: >-
#   completedGates is ascending without repeats, and currentGate is its last gate or
#   the next one (0 or 1 while none is complete). gate-state-management.md, Pattern 5,
#   After Each Gate: "pipelineState.currentGate = <GATE_NUMBER>",
#   "pipelineState.completedGates.push(<GATE_NUMBER>)".
# custom:
#   id: h3a.gates.gate_state_current_gate
#   category: gates
#   severity: error
#   remediation: set currentGate from completedGates as each gate completes
deny contains f if {
	some item in current_gate_problems
	f := lib.finding(rego.metadata.rule(), item)
}

current_gate_problems contains item if {
	some p in pipelines
	is_object(p.pipeline)
	some [i, n] in completed(p)
	last := last_completed(p, i)
	n <= last
	item := {
		"msg": sprintf("completed gate %d follows gate %d, expected ascending gates without repeats", [n, last]),
		"file": p.path,
		"pointer": sprintf("/completedGates/%d", [i]),
	}
}

current_gate_problems contains item if {
	some p in pipelines
	is_object(p.pipeline)
	current := gate_from_number(p.pipeline.currentGate)
	last := last_completed(p, count(lib.items(lib.get(p.pipeline, "completedGates"))))
	[low, high] := expected_current(last)
	not between(current, low, high)
	item := {
		"msg": sprintf("currentGate is %d but the last completed gate is %s, expected %d or %d", [current, gate_text(last), low, high]),
		"file": p.path,
		"pointer": "/currentGate",
	}
}

expected_current(last) := [0, 1] if last < 0

else := [last, last + 1]

between(n, low, high) if {
	n >= low
	n <= high
}

gate_text(n) := "none" if n < 0

else := sprintf("%d", [n])

# METADATA
# title: Gate completed before an earlier gate
# description: >-
#   Gates run in order, each only after the gates before it completed, so completedGates
#   holds every gate from 1 up to its last one: a gap before a later completed gate (the
#   final mark, gate 5, included: [1, 2, 5]) is an error, reported at the first gate
#   completed after it. Gate 0 is optional and is not required. A FAILED pipeline closed
#   with the final mark may lack its first FAILED gate and the gates after it, which
#   never ran. gate-state-management.md, Pattern 2: Pre-Flight Validation, "Previous Gate
#   Status - Read todo list, verify previous gates completed"; Pattern 3: "throw new
#   Error(`Cannot execute GATE ...: Previous gate failed`)"; Pattern 5, After Each Gate:
#   "pipelineState.completedGates.push(<GATE_NUMBER>)"; Pattern 6: Crash Recovery runs
#   the gates missing from completedGates, so a gate missing there never completed.
# custom:
#   id: h3a.gates.gate_state_completed_gap
#   category: gates
#   severity: error
#   remediation: >-
#     run the missing gates (they come before the later one) and add each to completedGates
#     as it completes; if they did complete, add them to completedGates in order
deny contains f if {
	some p in pipelines
	is_object(p.pipeline)
	done := {n | some [_, n] in completed(p)}
	some [i, n] in completed(p)
	low := max({last_completed(p, i) + 1, 1})
	high := min({n, final_gate}) - 1
	low <= high
	missing := [m | some m in numbers.range(low, high); not done[m]; not never_ran(p, n, m)]
	count(missing) > 0
	f := lib.finding(rego.metadata.rule(), {
		"msg": sprintf("completedGates has gate %d but not %s before it%s; gates run in order, so a gate completes only after the ones before it", [n, gate_list(missing), no_failed_gate_text(p, n)]),
		"file": p.path,
		"pointer": sprintf("/completedGates/%d", [i]),
	})
}

# no_failed_gate_text: a FAILED pipeline closed with the final mark, whose
# gap no FAILED gate output explains (the guide writes a failed gate's file).
no_failed_gate_text(p, n) := ", and no FAILED gate output explains the gap" if {
	p.pipeline.status == "FAILED"
	n == final_gate
	not first_failed(p)
} else := ""

# never_ran: in a FAILED pipeline closed with the final mark, gate m is the
# first FAILED gate or comes after it.
never_ran(p, n, m) if {
	p.pipeline.status == "FAILED"
	n == final_gate
	m >= first_failed(p)
}

# METADATA
# title: Completed gate without a usable output
# description: >-
#   Every gate in completedGates (but the final mark, gate 5) needs its output file
#   with status SUCCESS or PARTIAL. gate-state-management.md, Pattern 1: "if
#   (previousGateState.status === 'SUCCESS' || previousGateState.status === 'PARTIAL')";
#   Pattern 6: Crash Recovery runs only the gates not in completedGates, so a gate
#   listed there that did not succeed is never run again.
# custom:
#   id: h3a.evidence.gate_state_completed_output
#   category: evidence
#   severity: error
#   remediation: write the gate's output file, or take the gate out of completedGates
deny contains f if {
	some item in completed_output_problems
	f := lib.finding(rego.metadata.rule(), item)
}

completed_output_problems contains item if {
	some p in pipelines
	is_object(p.pipeline)
	some [i, n] in completed(p)
	n != final_gate
	not gates(p)[n]
	item := {
		"msg": sprintf("gate %d is completed but %s does not exist", [n, output_file(p, n)]),
		"file": p.path,
		"pointer": sprintf("/completedGates/%d", [i]),
	}
}

completed_output_problems contains item if {
	some p in pipelines
	is_object(p.pipeline)
	some [i, n] in completed(p)
	n != final_gate
	g := gates(p)[n]
	is_object(g.doc)
	not lib.get(g.doc, "status") in {"SUCCESS", "PARTIAL"}
	item := {
		"msg": sprintf("gate %d is completed but its output's status is %s, expected SUCCESS or PARTIAL", [n, lib.describe_field(g.doc, "status")]),
		"file": p.path,
		"pointer": sprintf("/completedGates/%d", [i]),
	}
}

# METADATA
# title: Failed gate without its output file
# description: >-
#   The guide writes a gate's state file even when the gate fails: a FAILED pipeline
#   has the output of its currentGate (gate 5, the final mark, aside).
#   gate-state-management.md, Constraints, NEVER: "Skip writing state files (even if
#   gate fails - write FAILED status)".
# custom:
#   id: h3a.evidence.gate_state_failed_output
#   category: evidence
#   severity: error
#   remediation: write the failed gate's output with status FAILED and its validation issues
deny contains f if {
	some p in pipelines
	p.pipeline.status == "FAILED"
	current := gate_from_number(p.pipeline.currentGate)
	current != final_gate
	not gates(p)[current]
	f := lib.finding(rego.metadata.rule(), {
		"msg": sprintf("pipeline FAILED at gate %d but %s does not exist", [current, output_file(p, current)]),
		"file": p.path,
		"pointer": "/currentGate",
	})
}

# METADATA
# title: SUCCESS pipeline with a gate that did not succeed
# description: >-
#   A pipeline whose status is SUCCESS has no FAILED gate output: a failed gate stops the
#   pipeline. gate-state-management.md, Pattern 3: Verify Pipeline State: "if
#   (anyPreviousFailed) { throw new Error(`Cannot execute GATE ...: Previous gate
#   failed`) }". A PARTIAL gate under a SUCCESS pipeline is a warning: the guide leaves
#   overallStatus to the orchestrator.
# custom:
#   id: h3a.gates.gate_state_pipeline_status
#   category: gates
#   severity: error
#   remediation: set the pipeline's status to PARTIAL or FAILED, or re-run the gate
deny contains f if {
	some p in pipelines
	p.pipeline.status == "SUCCESS"
	some n, g in gates(p)
	is_object(g.doc)
	not lib.get(g.doc, "status") == "SUCCESS"
	f := lib.finding(rego.metadata.rule(), {
		"msg": sprintf("pipeline status is SUCCESS but gate %d (%s) has status %s", [n, g.path, lib.describe_field(g.doc, "status")]),
		"file": p.path,
		"pointer": "/status",
		"severity": under_success_severity(lib.get(g.doc, "status")),
	})
}

under_success_severity(status) := "warning" if status == "PARTIAL"

else := "error"

# METADATA
# title: Pipeline finished before its last gate
# description: >-
#   A pipeline whose status is SUCCESS or PARTIAL has been marked complete, and the guide
#   writes that status only in the final step, which also sets currentGate to 5 and
#   pushes 5 onto completedGates: without that mark the gates after the last completed
#   one never ran, yet the pipeline claims their outcome. (Gates 1 to 4 before the mark
#   are the completed-gap rule's.) gate-state-management.md, Pattern 5, FINAL: Mark
#   Pipeline Complete: "pipelineState.status = overallStatus // 'SUCCESS', 'PARTIAL', or
#   'FAILED'", "pipelineState.currentGate = 5", "pipelineState.completedGates.push(5)";
#   Pattern 6: Crash Recovery runs every gate of [0, 1, 2, 3, 4, 5] missing from
#   completedGates.
# custom:
#   id: h3a.gates.gate_state_unfinished
#   category: gates
#   severity: error
#   remediation: >-
#     run the remaining gates and mark the pipeline complete as the guide's final step
#     does (currentGate 5, 5 in completedGates), or set its status back to IN_PROGRESS
deny contains f if {
	some p in pipelines
	status := p.pipeline.status
	status in {"SUCCESS", "PARTIAL"}
	not final_mark(p)
	f := lib.finding(rego.metadata.rule(), {
		"msg": sprintf("pipeline status is %s but completedGates %s lacks the final gate %d (currentGate %s): the pipeline is marked complete before its last gate ran", [status, completed_text(p), final_gate, lib.describe_field(p.pipeline, "currentGate")]),
		"file": p.path,
		"pointer": "/status",
	})
}

# completed_text writes completedGates for a message: [1,2] as written.
completed_text(p) := json.marshal(p.pipeline.completedGates) if is_array(p.pipeline.completedGates)

else := lib.describe_field(p.pipeline, "completedGates")

# final_mark holds for a pipeline whose completedGates holds the final gate.
final_mark(p) if {
	some [_, n] in completed(p)
	n == final_gate
}

# METADATA
# title: Gate output the next gate cannot use
# description: >-
#   The guide's own agents read the previous gate's output: a SUCCESS or PARTIAL gate 1
#   of TestCaseDesigner (its name in any case, with anything but letters and digits between them) has a non-empty output.testCases, each with testId and non-empty
#   testSteps; a gate 2 of DOMAgent has output.elementMappings, each with
#   locators.primary. gate-state-management.md, Pattern 1, Validation Functions:
#   "Array.isArray(data.testCases) && data.testCases.length > 0 &&
#   data.testCases.every(tc => tc.testId && tc.testSteps)",
#   "data.elementMappings.every(em => em.locators?.primary)"; Constraints, ALWAYS:
#   "Validate previous gate output structure before using".
# custom:
#   id: h3a.gates.gate_state_handoff
#   category: gates
#   severity: error
#   remediation: write the output the next gate reads, or mark the gate FAILED
deny contains f if {
	some item in handoff_problems
	f := lib.finding(rego.metadata.rule(), item)
}

# handed_over lists [gate number, gate, output] of each finished gate whose
# output the guide's next agent reads.
handed_over contains [n, g, out] if {
	some p in pipelines
	some n, g in gates(p)
	g.doc.status in {"SUCCESS", "PARTIAL"}
	out := g.doc.output
	is_object(out)
}

# guide_agent holds when gate g's agent is the guide's agent name (given in
# lower case and letters only), whatever its case and whatever stands
# between its letters: an agent spelt testCaseDesigner, "Test Case
# Designer", test_case_designer or with a zero-width space is the guide's
# TestCaseDesigner, and its output must not escape the check the guide's
# next agent relies on.
guide_agent(g, name) if {
	is_string(g.doc.agent)
	regex.replace(lower(g.doc.agent), `[^a-z0-9]`, "") == name
}

handoff_problems contains item if {
	some [1, g, out] in handed_over
	guide_agent(g, "testcasedesigner")
	not nonempty_array(lib.get(out, "testCases"))
	item := {
		"msg": sprintf("gate 1 output has testCases %s, expected a non-empty array for gate 2 to map", [lib.describe_field(out, "testCases")]),
		"file": g.path,
		"pointer": field_pointer(g, "output"),
	}
}

handoff_problems contains item if {
	some [1, g, out] in handed_over
	guide_agent(g, "testcasedesigner")
	nonempty_array(out.testCases)
	some i, test in out.testCases
	not lib.filled(lib.get(test, "testId"))
	item := {
		"msg": sprintf("test case %d has testId %s, expected a non-empty string", [i, lib.describe_field(test, "testId")]),
		"file": g.path,
		"pointer": sprintf("%s/testCases/%d", [field_pointer(g, "output"), i]),
	}
}

handoff_problems contains item if {
	some [1, g, out] in handed_over
	guide_agent(g, "testcasedesigner")
	nonempty_array(out.testCases)
	some i, test in out.testCases
	not nonempty_array(lib.get(test, "testSteps"))
	item := {
		"msg": sprintf("test case %d has testSteps %s, expected a non-empty array", [i, lib.describe_field(test, "testSteps")]),
		"file": g.path,
		"pointer": sprintf("%s/testCases/%d", [field_pointer(g, "output"), i]),
	}
}

handoff_problems contains item if {
	some [2, g, out] in handed_over
	guide_agent(g, "domagent")
	not is_array(lib.get(out, "elementMappings"))
	item := {
		"msg": sprintf("gate 2 output has elementMappings %s, expected an array for gate 3 to use", [lib.describe_field(out, "elementMappings")]),
		"file": g.path,
		"pointer": field_pointer(g, "output"),
	}
}

handoff_problems contains item if {
	some [2, g, out] in handed_over
	guide_agent(g, "domagent")
	some i, mapping in lib.items(out.elementMappings)
	not is_object(lib.get(lib.get(mapping, "locators"), "primary"))
	item := {
		"msg": sprintf("element mapping %d has no locators.primary object", [i]),
		"file": g.path,
		"pointer": sprintf("%s/elementMappings/%d", [field_pointer(g, "output"), i]),
	}
}

nonempty_array(x) if {
	is_array(x)
	count(x) > 0
}
