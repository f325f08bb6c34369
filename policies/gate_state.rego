# METADATA
# title: Gate-state pipelines
# description: >-
#   Runs of the gate-state layout (gate-state-management.md): a .state/ folder of
#   pipeline files and gate outputs, grouped by their name prefix. The shapes are the
#   schemas' to check (h3a.schema.violation); these rules hold the documents to one
#   another and to their file names. A gate output is read under the guide's field
#   names (input.docs.pipelines[_].gates[_].doc); a finding about a field the file
#   names otherwise points at the name it uses (read_from). Every rule is guarded
#   by the layout, so it never fires on another layout's runs. Each rule quotes the
#   section of gate-state-management.md it enforces.
# schemas:
#   - input: schema.input["gate-state"]
package h3a.rules.gate_state

import data.h3a.lib

gate_state if input.run.layout == "gate-state"

pipelines := lib.items(input.docs.pipelines) if gate_state

# pass_score is the validation score at which a gate counts as SUCCESS.
pass_score := 70

# final_gate is the orchestrator's completion mark: the guide pushes it onto
# completedGates without writing an output for it.
final_gate := 5

# gate_number reads a gate number: a whole number from 0 to a million.
gate_number(v) := floor(v) if {
	is_number(v)
	v >= 0
	v <= 1000000
	floor(v) == v
}

# gates(p) maps each gate number of pipeline p (from its output's file
# name) to the gate output.
gates(p) := {to_number(key): g | some key, g in p.gates; regex.match(`^[0-9]+$`, key)}

# output_file names the output file gate n of pipeline p would have.
output_file(p, n) := sprintf(".state/%s-gate%d-output.json", [p.prefix, n])

# field_pointer is where the file holds one of the guide's fields: under the
# sibling documents' name when it used that one instead.
field_pointer(g, field) := concat("", ["/", object.get(g.read_from, field, field)])

# misnamed gives the domain-feature a document's metadata names when its
# file's prefix is neither that nor a request id (the older naming puts a
# request id, which the document need not repeat, where domain-feature
# stands: a prefix that does not start with the document's domain is taken
# for one). Undefined when the name fits or the metadata has no domain and
# feature (a shape problem, the schema's to report).
misnamed(prefix, doc) := want if {
	md := doc.metadata
	is_string(md.domain)
	is_string(md.feature)
	want := concat("-", [md.domain, md.feature])
	prefix != want
	object.get(doc, "requestId", null) != prefix
	object.get(md, "requestId", null) != prefix
	startswith(prefix, concat("", [md.domain, "-"]))
}

# completed(p) lists [index, gate] of each gate number in completedGates.
completed(p) := [[i, n] | some i, v in lib.items(lib.get(p.pipeline, "completedGates")); n := gate_number(v)]

# last_completed(p, i) is the highest gate completed before index i of
# completedGates, -1 for none.
last_completed(p, i) := max({n | some [j, n] in completed(p); j < i} | {-1})

# METADATA
# title: Gate output uses a sibling document's field names
# description: >-
#   The file uses agentName, outputData, validationResult (0–1 score) or executionTrace,
#   the names of the guide's sibling documents; they are read as agent, output and
#   validation. gate-state-management.md, Standardized Schema: "agent", "output",
#   "validation: { score: <0_TO_100>, ... }". Information only: the guide's siblings
#   spell them so.
# custom:
#   id: h3a.schema.gate_state_variant
#   category: schema
#   severity: info
#   remediation: nothing to do, or rename the fields to the guide's names
warn contains f if {
	some p in pipelines
	some g in p.gates
	is_object(g.doc)
	count(g.variants) > 0
	f := lib.finding(rego.metadata.rule(), {
		"msg": sprintf("uses %s of the guide's sibling documents, read as the guide's fields", [concat(", ", g.variants)]),
		"file": g.path,
	})
}

# METADATA
# title: File name disagrees with the document
# description: >-
#   A gate output's file name {domain}-{feature}-gate{N}-output.json must carry the
#   document's gate number, and its domain and feature; a pipeline file's name its
#   domain and feature. gate-state-management.md, File Naming Convention: "**Format:**
#   `{domain}-{feature}-gate{N}-output.json`"; Constraints, ALWAYS: "Use consistent
#   domain-feature naming pattern".
# custom:
#   id: h3a.traceability.gate_state_file_name
#   category: traceability
#   severity: error
#   remediation: rename the file, or correct gate/metadata in the document
deny contains f if {
	some item in misnamed_files
	f := lib.finding(rego.metadata.rule(), item)
}

misnamed_files contains item if {
	some p in pipelines
	some n, g in gates(p)
	is_object(g.doc)
	written := gate_number(g.doc.gate)
	written != n
	item := {
		"msg": sprintf("file is named for gate %d but gate is %d", [n, written]),
		"file": g.path,
		"pointer": field_pointer(g, "gate"),
	}
}

misnamed_files contains item if {
	some p in pipelines
	some g in p.gates
	is_object(g.doc)
	want := misnamed(p.prefix, g.doc)
	item := {"msg": sprintf("file is named %q but metadata says domain-feature %q", [p.prefix, want]), "file": g.path, "pointer": "/metadata"}
}

misnamed_files contains item if {
	some p in pipelines
	is_object(p.pipeline)
	want := misnamed(p.prefix, p.pipeline)
	item := {"msg": sprintf("file is named %q but metadata says domain-feature %q", [p.prefix, want]), "file": p.path, "pointer": "/metadata"}
}

# METADATA
# title: Gate status disagrees with its score
# description: >-
#   A SUCCESS gate has a validation score of at least 70; a PARTIAL gate scores below
#   70. gate-state-management.md, Pattern 4: Write State File: "status: validationScore
#   >= 70 ? \"SUCCESS\" : \"PARTIAL\"". A SUCCESS gate with passed false, or a FAILED
#   gate with passed true, is a warning: the guide does not tie passed to the status.
# custom:
#   id: h3a.gates.gate_state_score
#   category: gates
#   severity: error
#   remediation: set the status from the validation score, or correct the score
deny contains f if {
	some item in score_problems
	f := lib.finding(rego.metadata.rule(), item)
}

score_problems contains item if {
	some [g, score] in scored
	g.doc.status == "SUCCESS"
	score < pass_score
	item := {
		"msg": sprintf("status is SUCCESS but validation score is %v, expected at least %d", [score, pass_score]),
		"file": g.path,
		"pointer": concat("", [field_pointer(g, "validation"), "/score"]),
	}
}

score_problems contains item if {
	some [g, score] in scored
	g.doc.status == "PARTIAL"
	score >= pass_score
	item := {
		"msg": sprintf("status is PARTIAL but validation score is %v, expected below %d (or status SUCCESS)", [score, pass_score]),
		"file": g.path,
		"pointer": concat("", [field_pointer(g, "validation"), "/score"]),
	}
}

score_problems contains item if {
	some [status, passed] in [["SUCCESS", false], ["FAILED", true]]
	some p in pipelines
	some g in p.gates
	g.doc.status == status
	g.doc.validation.passed == passed
	item := {
		"msg": sprintf("status is %s but validation passed is %v", [status, passed]),
		"file": g.path,
		"pointer": concat("", [field_pointer(g, "validation"), "/passed"]),
		"severity": "warning",
	}
}

# scored lists [gate, score] of every gate output with a finite score.
scored contains [g, score] if {
	some p in pipelines
	some g in p.gates
	score := g.doc.validation.score
	lib.finite(score)
}

# METADATA
# title: Gate output without the previous gate's
# description: >-
#   Gate N reads gate N−1's output, so gate N's file exists only if gate N−1's does
#   (gate 0 is optional). gate-state-management.md, Pattern 2: Pre-Flight Validation:
#   "✗ GATE 1 output file missing: .state/gate1-output.json → Remediation: Ensure GATE 1
#   completed successfully"; Constraints, NEVER: "Skip writing state files".
# custom:
#   id: h3a.gates.gate_state_gate_order
#   category: gates
#   severity: error
#   remediation: run the previous gate first, or remove the out-of-order output
deny contains f if {
	some p in pipelines
	by_number := gates(p)
	some n, g in by_number
	n > 1
	not by_number[n - 1]
	f := lib.finding(rego.metadata.rule(), {
		"msg": sprintf("gate %d's output exists but gate %d's does not (expected %s-gate%d-output.json)", [n, n - 1, p.prefix, n - 1]),
		"file": g.path,
	})
}

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
	current := gate_number(p.pipeline.currentGate)
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
	current := gate_number(p.pipeline.currentGate)
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
# title: Gate output the next gate cannot use
# description: >-
#   The guide's own agents read the previous gate's output: a SUCCESS or PARTIAL gate 1
#   of TestCaseDesigner has a non-empty output.testCases, each with testId and non-empty
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

handoff_problems contains item if {
	some [1, g, out] in handed_over
	g.doc.agent == "TestCaseDesigner"
	not nonempty_array(lib.get(out, "testCases"))
	item := {
		"msg": sprintf("gate 1 output has testCases %s, expected a non-empty array for gate 2 to map", [lib.describe_field(out, "testCases")]),
		"file": g.path,
		"pointer": field_pointer(g, "output"),
	}
}

handoff_problems contains item if {
	some [1, g, out] in handed_over
	g.doc.agent == "TestCaseDesigner"
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
	g.doc.agent == "TestCaseDesigner"
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
	g.doc.agent == "DOMAgent"
	not is_array(lib.get(out, "elementMappings"))
	item := {
		"msg": sprintf("gate 2 output has elementMappings %s, expected an array for gate 3 to use", [lib.describe_field(out, "elementMappings")]),
		"file": g.path,
		"pointer": field_pointer(g, "output"),
	}
}

handoff_problems contains item if {
	some [2, g, out] in handed_over
	g.doc.agent == "DOMAgent"
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

# METADATA
# title: Gate run after a failed gate
# description: >-
#   A gate runs only after every earlier gate ended SUCCESS or PARTIAL: a gate output,
#   or a completedGates entry (but the final mark, gate 5), after a FAILED gate is an
#   error. gate-state-management.md, Pattern 3: Verify Pipeline State: "const
#   anyPreviousFailed = previousGateTodos.some(todo => todo.status === 'failed')", "throw
#   new Error(`Cannot execute GATE ...: Previous gate failed`)"; Pattern 1: the previous
#   output is used only "if (previousGateState.status === 'SUCCESS' ||
#   previousGateState.status === 'PARTIAL')".
# custom:
#   id: h3a.gates.gate_state_after_failed
#   category: gates
#   severity: error
#   remediation: >-
#     re-run the failed gate until it succeeds before the gates after it, or start a new
#     pipeline; remove outputs written past the failure
deny contains f if {
	some item in after_failed
	f := lib.finding(rego.metadata.rule(), item)
}

# first_failed(p) is the lowest gate of pipeline p whose output is FAILED.
first_failed(p) := min({n | some n, g in gates(p); g.doc.status == "FAILED"})

after_failed contains item if {
	some p in pipelines
	failed := first_failed(p)
	some n, g in gates(p)
	n > failed
	item := {
		"msg": sprintf("gate %d's output exists but gate %d before it FAILED (%s); no gate runs after a failed one", [n, failed, output_file(p, failed)]),
		"file": g.path,
	}
}

after_failed contains item if {
	some p in pipelines
	is_object(p.pipeline)
	failed := first_failed(p)
	some [i, n] in completed(p)
	n > failed
	n != final_gate
	item := {
		"msg": sprintf("gate %d is completed but gate %d before it FAILED (%s); no gate runs after a failed one", [n, failed, output_file(p, failed)]),
		"file": p.path,
		"pointer": sprintf("/completedGates/%d", [i]),
	}
}

# METADATA
# title: The pipeline failed and needs a human
# description: >-
#   A pipeline whose status is FAILED stopped without success: no gate runs after a
#   failed one, so a person must decide how to go on. The gate is needs-human (exit 3);
#   a FAILED pipeline that contradicts itself fails on the rules above.
#   gate-state-management.md, Pattern 5, FINAL: "pipelineState.status = overallStatus
#   // 'SUCCESS', 'PARTIAL', or 'FAILED'"; Pattern 3: "throw new Error(`Cannot execute
#   GATE ...: Previous gate failed`)".
# custom:
#   id: h3a.gates.gate_state_needs_human
#   category: gates
#   severity: warning
#   remediation: >-
#     a person reads the failed gate's validation issues, fixes the cause and re-runs the
#     gate (or starts a new pipeline)
warn contains f if {
	some p in pipelines
	p.pipeline.status == "FAILED"
	f := lib.finding(rego.metadata.rule(), {
		"msg": sprintf("pipeline %s FAILED%s: a person must decide how to go on", [p.prefix, failed_gate_text(p)]),
		"file": p.path,
		"pointer": "/status",
		"needs_human": true,
	})
}

failed_gate_text(p) := sprintf(" at gate %d", [n]) if {
	n := gate_number(p.pipeline.currentGate)
	n != final_gate
} else := ""
