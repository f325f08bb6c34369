package audit

import (
	"testing"

	"github.com/h3a-check/h3a-check/internal/finding"
)

// TestFinishLinksCauses: each effect of Follows points at its cause, by
// index in the sorted findings, only in the cause's scope.
func TestFinishLinksCauses(t *testing.T) {
	syntax := finding.JSONSyntax.New("state.json", "unexpected end of input")
	notEval := finding.NotEvaluated.New("state.json", "schema check not evaluated")
	notEvalOther := finding.NotEvaluated.New("plan.json", "schema check not evaluated")
	order := finding.Finding{Rule: "h3a.gates.order", Category: finding.CategoryGates, Severity: finding.Error, File: "state.json", Gate: "G2", Details: "G2 passed before G1"}
	exit := finding.Finding{Rule: "h3a.evidence.g2_exit_criteria", Category: finding.CategoryEvidence, Severity: finding.Error, File: "state.json", Gate: "G2", Details: "G2 passed without"}
	exitG3 := finding.Finding{Rule: "h3a.evidence.g3_exit_criteria", Category: finding.CategoryEvidence, Severity: finding.Error, File: "state.json", Gate: "G3", Details: "G3 passed without"}
	disagree := finding.Finding{Rule: "h3a.gates.sources_disagree", Category: finding.CategoryGates, Severity: finding.Error, File: "state/GATES_LEDGER.md", Details: "last passed gate disagrees"}
	waivedOrder := order
	waivedOrder.Waived = finding.Waiver{Reason: "accepted", Expires: "2099-01-01", Source: "x:1"}
	missing := finding.MissingFile.New("ROADMAP.md", "missing")
	violation := finding.SchemaViolation.New("state.json", "bad")

	tests := []struct {
		name string
		in   []finding.Finding
		// want maps a rule and file to the rule of its cause ("" for none).
		want map[[2]string]string
	}{
		{"not evaluated after a syntax error in the same file",
			[]finding.Finding{notEval, syntax, notEvalOther},
			map[[2]string]string{{finding.NotEvaluated.ID, "state.json"}: finding.JSONSyntax.ID, {finding.NotEvaluated.ID, "plan.json"}: "", {finding.JSONSyntax.ID, "state.json"}: ""}},
		{"exit criteria after gates order of the same gate, disagreeing records anywhere in the run",
			[]finding.Finding{exit, disagree, order},
			map[[2]string]string{{"h3a.evidence.g2_exit_criteria", "state.json"}: "h3a.gates.order", {"h3a.gates.order", "state.json"}: "",
				{"h3a.gates.sources_disagree", "state/GATES_LEDGER.md"}: "h3a.gates.order"}},
		{"exit criteria of another gate stand alone",
			[]finding.Finding{exitG3, order},
			map[[2]string]string{{"h3a.evidence.g3_exit_criteria", "state.json"}: ""}},
		{"a waived cause causes nothing",
			[]finding.Finding{exit, waivedOrder},
			map[[2]string]string{{"h3a.evidence.g2_exit_criteria", "state.json"}: ""}},
		{"a missing file does not cause a schema violation elsewhere",
			[]finding.Finding{missing, violation},
			map[[2]string]string{{finding.SchemaViolation.ID, "state.json"}: ""}},
		{"a schema violation of a broken file follows from its syntax error",
			[]finding.Finding{violation, syntax},
			map[[2]string]string{{finding.SchemaViolation.ID, "state.json"}: finding.JSONSyntax.ID}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			a := &Audit{Findings: tc.in}
			a.Finish(finding.Error, nil)
			for _, f := range a.Findings {
				want, ok := tc.want[[2]string{f.Rule, f.File}]
				if !ok {
					continue
				}
				got := ""
				if f.Cause != nil {
					got = a.Findings[*f.Cause].Rule
				}
				if got != want {
					t.Errorf("%s at %s: cause %q, want %q", f.Rule, f.File, got, want)
				}
			}
		})
	}
}

// TestFinishRelinksCauses: finishing again (the findings re-sorted with
// more of them) recomputes the indexes instead of keeping stale ones.
func TestFinishRelinksCauses(t *testing.T) {
	a := &Audit{Findings: []finding.Finding{finding.NotEvaluated.New("b.json", "x"), finding.JSONSyntax.New("b.json", "y")}}
	a.Finish(finding.Error, nil)
	a.Findings = append(a.Findings, finding.JSONSyntax.New("a.json", "z"))
	a.Finish(finding.Error, nil)
	for _, f := range a.Findings {
		if f.Rule == finding.NotEvaluated.ID && (f.Cause == nil || a.Findings[*f.Cause].File != "b.json") {
			t.Fatalf("stale cause: %+v", a.Findings)
		}
	}
}
