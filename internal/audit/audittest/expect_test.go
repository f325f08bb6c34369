package audittest

import (
	"testing"

	"github.com/h3a-check/h3a-check/internal/audit"
	"github.com/h3a-check/h3a-check/internal/finding"
)

// TestExpectation: the checks of an expect file each fail on the
// finding they are about, so an expectation cannot hold vacuously.
func TestExpectation(t *testing.T) {
	runFinding := func(sev finding.Severity, rule, file string, line int) finding.Finding {
		return finding.Finding{Rule: rule, Severity: sev, File: file, Line: line}
	}
	audits := []*audit.Audit{{Gate: "fail", Findings: []finding.Finding{
		runFinding(finding.Info, "h3a.append_only.not_compared", "", 0),
		runFinding(finding.Error, "h3a.gates.order", "state.json", 17),
		runFinding(finding.Warning, "h3a.schema.bom", "state/SESSION_HANDOFF.json", 1),
	}}}
	tests := []struct {
		name, expect string
		wantErrs     int
	}{
		{"all hold", "gate: fail\nfires: error h3a.gates.order at state.json:17\nfires: warning h3a.schema.bom\nonly\n", 0},
		{"gate differs", "gate: pass\nfires: error h3a.gates.order\n", 1},
		{"a run too many", "gate: fail\ngate: pass\nfires: error h3a.gates.order\n", 1},
		{"rule does not fire", "gate: fail\nfires: error h3a.gates.sources_disagree\n", 1},
		{"severity differs", "gate: fail\nfires: warning h3a.gates.order\n", 1},
		{"file differs", "gate: fail\nfires: error h3a.gates.order at state/CURRENT_TASK.json\n", 1},
		{"file is a prefix only", "gate: fail\nfires: error h3a.gates.order at state\n", 1},
		{"line differs", "gate: fail\nfires: error h3a.gates.order at state.json:18\n", 1},
		{"only, with an unlisted warning", "gate: fail\nfires: error h3a.gates.order\nonly\n", 1},
		{"only, nothing listed", "gate: fail\nonly\n", 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			exp, err := Parse([]byte(tt.expect))
			if err != nil {
				t.Fatal(err)
			}
			if got := exp.Mismatches(audits); len(got) != tt.wantErrs {
				t.Errorf("%d mismatches, want %d: %q", len(got), tt.wantErrs, got)
			}
		})
	}
	for _, bad := range []string{
		"fires: error h3a.gates.order\n",               // no gate
		"gate: fail\n",                                 // no rule
		"gate: failed\nfires: error h3a.gates.order\n", // not a gate
		"gate: fail\nfires: fatal h3a.gates.order\n",
		"gate: fail\nfires: error gates.order\n",
		"gate: fail\nfires: error h3a.gates.order in state.json\n",
		"gate: fail\nfires: error h3a.gates.order at state.json:x\n",
		"gate: fail\nfires: error h3a.gates.order\nonly all\n",
	} {
		if _, err := Parse([]byte(bad)); err == nil {
			t.Errorf("%q parsed, want an error", bad)
		}
	}
}
