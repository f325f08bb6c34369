// Package status is the one place where the status values of the H3A
// documents are mapped to what they mean. The state specification, the gate
// framework and the handoff contracts spell some statuses in more than one
// way (the validator's "escalation" is "escalation_required" in the gate
// framework's escalation process; the handoff contracts add
// "needs_remediation"): the schemas accept every spelling listed here, the
// policy input carries each value's meaning (input.meanings), and the rules
// reason over the meaning, never the spelling.
package status

// Outcome is what a status says about the work it describes.
type Outcome string

const (
	// Open: not decided yet (a task waiting for or in work).
	Open Outcome = "open"
	// Pass: the work passed (with or without notes).
	Pass Outcome = "pass"
	// Fail: the work failed and goes back for another attempt.
	Fail Outcome = "fail"
	// Escalation: the attempts are exhausted or blocked; a human decides.
	Escalation Outcome = "escalation"
)

// Meaning is what one spelling of a status says.
type Meaning struct {
	Outcome Outcome
	// Notes: passed with notes that do not block.
	Notes bool
	// RemediationDue: failed, and the validator owes a remediation plan.
	RemediationDue bool
	// Started: a task status at or past in_progress (the executor has begun).
	Started bool
}

// Value is one accepted spelling, its meaning and where the documents
// define it.
type Value struct {
	Spelling string
	Meaning  Meaning
	Source   string
}

// Field is one status field whose values the documents define.
type Field struct {
	Name string
	// Where lists the places the field is written, as docs/status-meanings.md names them.
	Where []string
	// Def is the shared schema definition (defs.schema.json#/$defs/<Def>)
	// whose enum is exactly the spellings of Values.
	Def    string
	Values []Value
}

const (
	stateSpec = "h3a-state-specification.md"
	gateSpec  = "gate_framework.md"
	handoff   = "handoff_contracts.md"
)

// Verdict is the validator's verdict status.
var Verdict = Field{
	Name:  "validator verdict status",
	Where: []string{"validator_report.json verdicts[].status", "state/SESSION_HANDOFF.json payload.verdict"},
	Def:   "verdictStatus",
	Values: []Value{
		{"pass", Meaning{Outcome: Pass},
			gateSpec + ", Validation Status Types: \"PASS: All checks passed\"; " + stateSpec + ", validator_report.json: \"status\": \"pass\""},
		{"pass_with_notes", Meaning{Outcome: Pass, Notes: true},
			gateSpec + ", Validation Status Types: \"PASS_WITH_NOTES: Minor issues noted but not blocking\""},
		{"fail", Meaning{Outcome: Fail, RemediationDue: true},
			gateSpec + ", Validation Status Types: \"FAIL: Blocking issues found, remediation required\""},
		{"needs_remediation", Meaning{Outcome: Fail, RemediationDue: true},
			handoff + ", H3 Validator's Obligations: \"`status` field: pass/fail/needs_remediation\""},
		{"escalation", Meaning{Outcome: Escalation},
			gateSpec + ", Validation Status Types: \"ESCALATION: 2 iterations exhausted, human review needed\""},
		{"escalation_required", Meaning{Outcome: Escalation},
			gateSpec + ", Escalation Process: \"Validator sets `status: \"escalation_required\"` in `validator_report.json`\""},
	},
}

// Task is the status of state/CURRENT_TASK.json.
var Task = Field{
	Name:  "task status",
	Where: []string{"state/CURRENT_TASK.json status"},
	Def:   "taskStatus",
	Values: []Value{
		{"awaiting_planner", Meaning{Outcome: Open}, stateSpec + ", Task Lifecycle"},
		{"ready_for_execution", Meaning{Outcome: Open}, stateSpec + ", Task Lifecycle: \"ready_for_execution (G0_passed)\""},
		{"in_progress", Meaning{Outcome: Open, Started: true}, stateSpec + ", Task Lifecycle: \"in_progress (G1_in_progress)\""},
		{"awaiting_validation", Meaning{Outcome: Open, Started: true}, stateSpec + ", Task Lifecycle: \"awaiting_validation (G1_passed)\""},
		{"validation", Meaning{Outcome: Open, Started: true}, stateSpec + ", Task Lifecycle: \"validation (G2_in_progress)\""},
		{"complete", Meaning{Outcome: Pass, Started: true}, stateSpec + ", Task Lifecycle: \"[PASS] → complete (G2_passed)\""},
		{"failed", Meaning{Outcome: Fail, Started: true}, stateSpec + ", CURRENT_TASK.json State Machine: \"failed (retry if iteration_count < 2)\""},
		{"remediation_needed", Meaning{Outcome: Fail, RemediationDue: true, Started: true}, stateSpec + ", Task Lifecycle: \"[FAIL] → remediation_needed\""},
		{"escalation_required", Meaning{Outcome: Escalation, Started: true}, stateSpec + ", Task Lifecycle: \"NO → escalation_required\""},
	},
}

// Fields lists every mapped status field.
var Fields = []Field{Verdict, Task}

// Lookup returns the meaning of a spelling of the field; ok is false for a
// value the documents do not define (its schema reports it).
func (f Field) Lookup(spelling string) (m Meaning, ok bool) {
	for _, v := range f.Values {
		if v.Spelling == spelling {
			return v.Meaning, true
		}
	}
	return Meaning{}, false
}

// Spellings lists the accepted spellings in the order of Values.
func (f Field) Spellings() []string {
	out := make([]string, len(f.Values))
	for i, v := range f.Values {
		out[i] = v.Spelling
	}
	return out
}

// Input renders the meaning of value (any JSON value) for the policy input:
// the spelling as written and its meaning, or nil when value is not a
// spelling of the field.
func (f Field) Input(value any) any {
	s, ok := value.(string)
	if !ok {
		return nil
	}
	m, ok := f.Lookup(s)
	if !ok {
		return nil
	}
	return map[string]any{
		"status":          s,
		"outcome":         string(m.Outcome),
		"notes":           m.Notes,
		"remediation_due": m.RemediationDue,
		"started":         m.Started,
	}
}
