# After a failure: gates run after it, and the person it needs.
# (The package and its metadata: gate_state.rego.)
package h3a.rules.gate_state

import data.h3a.lib

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
#   failed one, so a person must decide how to go on. So has a pipeline still
#   IN_PROGRESS that holds a FAILED gate output: the gate's own file says it failed, no
#   later gate may run, and the guide's crash recovery would run it again, so a person
#   decides whether to re-run it or close the pipeline FAILED (the finding is at the
#   first FAILED gate's output). So has a pipeline closed PARTIAL over a FAILED gate
#   output (the final mark 5 needs no output, so a FAILED one there is read by no other
#   rule): the guide leaves overallStatus to the orchestrator, but a failed gate stops the
#   pipeline, so whether PARTIAL stands is a person's call. The gate is needs-human (exit 3); a pipeline that
#   contradicts itself fails on the rules above. gate-state-management.md, Pattern 5,
#   FINAL: "pipelineState.status = overallStatus // 'SUCCESS', 'PARTIAL', or 'FAILED'";
#   Pattern 3: "throw new Error(`Cannot execute GATE ...: Previous gate failed`)";
#   Constraints, NEVER: "Skip writing state files (even if gate fails - write FAILED
#   status)".
# custom:
#   id: h3a.gates.gate_state_needs_human
#   category: gates
#   severity: warning
#   remediation: >-
#     a person reads the failed gate's validation issues, fixes the cause and re-runs the
#     gate (or starts a new pipeline)
warn contains f if {
	some item in stopped
	f := lib.finding(rego.metadata.rule(), object.union(item, {"needs_human": true}))
}

stopped contains item if {
	some p in pipelines
	p.pipeline.status == "FAILED"
	item := {
		"msg": sprintf("pipeline %s FAILED%s: a person must decide how to go on", [prefix_text(p), failed_gate_text(p)]),
		"file": p.path,
		"pointer": "/status",
	}
}

stopped contains item if {
	some p in pipelines
	p.pipeline.status == "IN_PROGRESS"
	failed := first_failed(p)
	item := {
		"msg": sprintf("gate %d FAILED but pipeline %s is IN_PROGRESS (%s): no gate runs after a failed one, so a person must decide whether to re-run the gate or close the pipeline FAILED", [failed, prefix_text(p), pipeline_file(p)]),
		"file": gates(p)[failed].path,
		"pointer": "/status",
	}
}

stopped contains item if {
	some p in pipelines
	p.pipeline.status == "PARTIAL"
	failed := first_failed(p)
	item := {
		"msg": sprintf("gate %d FAILED but pipeline %s is PARTIAL (%s): a failed gate stops the pipeline, so a person must decide whether it ended PARTIAL or FAILED", [failed, prefix_text(p), pipeline_file(p)]),
		"file": gates(p)[failed].path,
		"pointer": "/status",
	}
}

failed_gate_text(p) := sprintf(" at gate %d", [n]) if {
	n := gate_from_number(p.pipeline.currentGate)
	n != final_gate
} else := ""

# METADATA
# title: Gate outputs without their pipeline file
# description: >-
#   Gate outputs whose prefix has no pipeline file: nothing records which gates completed
#   or how the pipeline ended, so the outcome cannot be read from the run and a person
#   must judge it (needs-human, exit 3; never a pass, whatever the gates' status). The
#   guide has the orchestrator write the pipeline file before any gate runs, yet also
#   lets agents run on their own, so a missing pipeline file asks for a human rather than
#   failing. gate-state-management.md, Pattern 5: Orchestration Pipeline State,
#   "PRE-PROCESSING: Create Pipeline State", "create_file(
#   `.state/${metadata.domain}-${metadata.feature}-pipeline.json`, ...)"; Integration
#   Points: "Orchestration: PRE-PROCESSING (create pipeline state), after each gate
#   (update state), FINAL (mark complete)".
# custom:
#   id: h3a.evidence.gate_state_pipeline_missing
#   category: evidence
#   severity: warning
#   remediation: >-
#     restore the pipeline file the orchestrator wrote ({domain}-{feature}-pipeline.json
#     beside the gate outputs), or rename the gate outputs to the prefix of their pipeline
#     file
warn contains f if {
	some p in pipelines
	p.path == ""
	by_number := gates(p)
	count(by_number) > 0
	numbers := sort([n | some n, _ in by_number])
	failed := [n | some n in numbers; by_number[n].doc.status == "FAILED"]
	at := orphan_file(by_number, numbers, failed)
	f := lib.finding(rego.metadata.rule(), {
		"msg": sprintf("outputs of %s for %s but no pipeline file %s: nothing records which gates completed or how the pipeline ended%s; a person must check the run", [
			gate_list(numbers), prefix_text(p), pipeline_file(p), failed_text(failed),
		]),
		"file": at,
		"needs_human": true,
	})
}

# orphan_file is where the missing pipeline is reported: the first FAILED
# gate's output, or the lowest gate's.
orphan_file(by_number, numbers, failed) := by_number[failed[0]].path if count(failed) > 0

else := by_number[numbers[0]].path

failed_text(failed) := "" if count(failed) == 0

else := sprintf(", and %s FAILED", [gate_list(failed)])
