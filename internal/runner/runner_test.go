package runner

import (
	"fmt"
	"strings"
	"testing"

	"github.com/h3a-check/h3a-check/internal/audit"
	"github.com/h3a-check/h3a-check/internal/finding"
)

func TestCapPerRule(t *testing.T) {
	var fs []finding.Finding
	for i := range 250 {
		fs = append(fs, finding.SchemaViolation.New("state.json", "bad value %d", i))
		fs[len(fs)-1].Line = i + 1
	}
	fs = append(fs, finding.BOM.New("state.json", "bom"))
	got := capPerRule(fs, 100)
	if len(got) != 102 {
		t.Fatalf("%d findings, want 100 listed + 1 count + 1 other rule", len(got))
	}
	var counted int
	for _, f := range got {
		if strings.Contains(f.Details, "more h3a.schema.violation findings") {
			counted++
			if !strings.HasPrefix(f.Details, fmt.Sprint(150)) {
				t.Errorf("count finding says %q, want 150 more", f.Details)
			}
		}
	}
	if counted != 1 {
		t.Errorf("%d count findings, want 1", counted)
	}
}

// TestCapPerRuleKeepsTheGate: the findings a cap leaves out weigh on the
// gate as they would listed. A rule that lists more than the cap of
// warnings before an error in one file (a contract verdict of pass over a
// hundred unknown smoke checks and a required change) still fails; a
// finding no waiver accepts still counts when the ones before it are
// waived; and one that asks for a human still does.
func TestCapPerRuleKeepsTheGate(t *testing.T) {
	const limit = 3
	like := func(n int, sev finding.Severity, human, waived bool) []finding.Finding {
		var fs []finding.Finding
		for range n {
			f := finding.SchemaViolation.New("verdict.json", "item %d", len(fs))
			f.Line, f.Severity, f.NeedsHuman = len(fs)+1, sev, human
			if waived {
				f.Waived = finding.Waiver{Reason: "known", Expires: "2999-01-01", Source: ".h3a-check.yaml:3"}
			}
			fs = append(fs, f)
		}
		return fs
	}
	// later puts findings on the lines after the first ones.
	later := func(fs []finding.Finding, after int) []finding.Finding {
		for i := range fs {
			fs[i].Line += after
			fs[i].Details += " later"
		}
		return fs
	}
	tests := []struct {
		name  string
		found []finding.Finding
		want  string
	}{
		{"warnings before an error", append(like(limit+1, finding.Warning, false, false), later(like(1, finding.Error, false, false), limit+1)...), audit.Fail},
		{"human warnings before an error", append(like(limit+1, finding.Warning, true, false), later(like(1, finding.Error, false, false), limit+1)...), audit.Fail},
		{"waived errors before one not waived", append(like(limit+1, finding.Error, false, true), later(like(1, finding.Error, false, false), limit+1)...), audit.Fail},
		{"warnings before one asking for a human", append(like(limit+1, finding.Warning, false, false), later(like(1, finding.Warning, true, false), limit+1)...), audit.NeedsHuman},
		{"waived errors only", like(limit+5, finding.Error, false, true), audit.Pass},
	}
	for _, tc := range tests {
		got := capPerRule(tc.found, limit)
		if gate := audit.DecideGate(got, finding.Error); gate != tc.want {
			t.Errorf("%s: gate %s after the cap, want %s:\n%v", tc.name, gate, tc.want, got)
		}
	}
}
