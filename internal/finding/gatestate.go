package finding

// The rules of the gate-state layout (a .state/ folder of gate outputs and
// pipeline files), implemented in Go by the layout. The documents' shapes
// are checked by their schemas (h3a.schema.violation).
var (
	GateStateVariant = Rule{"h3a.schema.gate_state_variant", CategorySchema, Info,
		"Gate output uses a sibling document's field names",
		"The file uses agentName, outputData, validationResult (0–1 score) or executionTrace, the names of the guide's sibling documents; they are read as agent, output and validation.",
		"nothing to do, or rename the fields to the guide's names"}
	GateStateFileName = Rule{"h3a.traceability.gate_state_file_name", CategoryTraceability, Error,
		"File name disagrees with the document",
		"A gate output's file name {domain}-{feature}-gate{N}-output.json must carry the document's gate number, and its domain and feature; a pipeline file's name its domain and feature.",
		"rename the file, or correct gate/metadata in the document"}
	GateStateCompletedOutput = Rule{"h3a.evidence.gate_state_completed_output", CategoryEvidence, Error,
		"Completed gate without a usable output",
		"Every gate in completedGates (but the final mark, gate 5) needs its output file with status SUCCESS or PARTIAL.",
		"write the gate's output file, or take the gate out of completedGates"}
	GateStateGateOrder = Rule{"h3a.gates.gate_state_gate_order", CategoryGates, Error,
		"Gate output without the previous gate's",
		"Gate N reads gate N−1's output, so gate N's file exists only if gate N−1's does (gate 0 is optional).",
		"run the previous gate first, or remove the out-of-order output"}
	GateStateCurrentGate = Rule{"h3a.gates.gate_state_current_gate", CategoryGates, Error,
		"currentGate disagrees with completedGates",
		"completedGates is ascending without repeats, and currentGate is its last gate or the next one (0 or 1 while none is complete).",
		"set currentGate from completedGates as each gate completes"}
	GateStatePipelineStatus = Rule{"h3a.gates.gate_state_pipeline_status", CategoryGates, Error,
		"SUCCESS pipeline with a gate that did not succeed",
		"A pipeline whose status is SUCCESS has every gate output SUCCESS.",
		"set the pipeline's status to PARTIAL or FAILED, or re-run the gate"}
	GateStateHandoff = Rule{"h3a.gates.gate_state_handoff", CategoryGates, Error,
		"Gate output the next gate cannot use",
		"The guide's own agents read the previous gate's output: a SUCCESS or PARTIAL gate 1 of TestCaseDesigner has a non-empty output.testCases, each with testId and non-empty testSteps; a gate 2 of DOMAgent has output.elementMappings, each with locators.primary.",
		"write the output the next gate reads, or mark the gate FAILED"}
	GateStateFailedOutput = Rule{"h3a.evidence.gate_state_failed_output", CategoryEvidence, Error,
		"Failed gate without its output file",
		"The guide writes a gate's state file even when the gate fails: a FAILED pipeline has the output of its currentGate (gate 5, the final mark, aside).",
		"write the failed gate's output with status FAILED and its validation issues"}
	GateStateScore = Rule{"h3a.gates.gate_state_score", CategoryGates, Error,
		"Gate status disagrees with its score",
		"A SUCCESS gate has a validation score of at least 70 and passed true; a PARTIAL gate scores below 70; a FAILED gate has passed false.",
		"set the status from the validation score, or correct the score"}
)

// GateStateRules lists the gate-state rules for GoRules.
var GateStateRules = []Rule{
	GateStateVariant, GateStateFileName, GateStateCompletedOutput,
	GateStateGateOrder, GateStateCurrentGate, GateStatePipelineStatus, GateStateScore,
	GateStateHandoff, GateStateFailedOutput,
}
