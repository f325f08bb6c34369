package audit

import (
	"testing"

	"github.com/h3a-check/h3a-check/internal/finding"
)

func f(sev finding.Severity, cat finding.Category, needsHuman bool) finding.Finding {
	return finding.Finding{Rule: "r." + string(cat), Category: cat, Severity: sev, NeedsHuman: needsHuman, Details: "d"}
}

func TestDecideGate(t *testing.T) {
	tests := []struct {
		name  string
		fs    []finding.Finding
		level finding.Severity
		want  string
	}{
		{"nothing", nil, finding.Error, Pass},
		{"info only", []finding.Finding{f(finding.Info, finding.CategoryStructure, false)}, finding.Error, Pass},
		{"warning", []finding.Finding{f(finding.Warning, finding.CategorySchema, false)}, finding.Error, Pass},
		{"warning at fail-level warning", []finding.Finding{f(finding.Warning, finding.CategorySchema, false)}, finding.Warning, Fail},
		{"info never fails, even at level info", []finding.Finding{f(finding.Info, finding.CategorySchema, false)}, finding.Info, Pass},
		{"error", []finding.Finding{f(finding.Error, finding.CategorySchema, false)}, finding.Error, Fail},
		{"needs human", []finding.Finding{f(finding.Warning, finding.CategoryRetries, true)}, finding.Error, NeedsHuman},
		{"error beats needs human", []finding.Finding{f(finding.Warning, finding.CategoryRetries, true), f(finding.Error, finding.CategoryGates, false)}, finding.Error, Fail},
		{"waived error", []finding.Finding{waived(f(finding.Error, finding.CategoryIntegrity, false))}, finding.Error, Pass},
		{"waived needs human", []finding.Finding{waived(f(finding.Warning, finding.CategoryRetries, true))}, finding.Error, Pass},
		{"waived warning at fail-level warning", []finding.Finding{waived(f(finding.Warning, finding.CategorySchema, false))}, finding.Warning, Pass},
		{"a waiver covers only its finding", []finding.Finding{waived(f(finding.Error, finding.CategoryIntegrity, false)), f(finding.Error, finding.CategoryGates, false)}, finding.Error, Fail},
	}
	for _, tc := range tests {
		if got := DecideGate(tc.fs, tc.level); got != tc.want {
			t.Errorf("%s: got %s, want %s", tc.name, got, tc.want)
		}
	}
}

func TestFinish(t *testing.T) {
	a := &Audit{Findings: []finding.Finding{
		f(finding.Error, finding.CategoryIntegrity, false),
		f(finding.Error, finding.CategoryIntegrity, false), // duplicate, dropped
		f(finding.Error, finding.CategoryTraceability, false),
		f(finding.Warning, finding.CategorySchema, false),
	}}
	a.Finish(finding.Error, map[string]string{"append_only": "no base"})
	if a.Gate != Fail || a.Counts.Error != 2 || a.Counts.Warning != 1 {
		t.Fatalf("gate %s counts %+v", a.Gate, a.Counts)
	}
	if a.Risk.Level != "high" {
		t.Errorf("integrity errors are high risk, got %s", a.Risk.Level)
	}
	want := map[string]string{"integrity": AreaFail, "schema": AreaWarn, "append_only": AreaNotEvaluated, "gates": AreaPass, "traceability": AreaFail}
	for k, v := range want {
		if a.Policy[k] != v {
			t.Errorf("policy[%s] = %q, want %q", k, a.Policy[k], v)
		}
	}
	if a.Traceability.TaskIDMatch != AreaFail || len(a.Traceability.Issues) != 1 {
		t.Errorf("traceability %+v", a.Traceability)
	}
	if len(a.RequiredActions) != 2 {
		t.Errorf("one required action per failing rule, got %v", a.RequiredActions)
	}
	empty := &Audit{}
	empty.Finish(finding.Error, nil)
	if empty.Gate != Pass || empty.Findings == nil || empty.Risk.Level != "low" || empty.RequiredActions == nil {
		t.Errorf("empty audit: %+v", empty)
	}
}

func waived(fd finding.Finding) finding.Finding {
	fd.Waived = finding.Waiver{Reason: "accepted", Expires: "2099-01-01", Source: ".h3a-check.yaml:3"}
	return fd
}

// TestFinishWaived: a waived finding is kept, counted apart, and leaves no
// trace in the gate, risk, areas, traceability or required actions.
func TestFinishWaived(t *testing.T) {
	a := &Audit{Findings: []finding.Finding{
		waived(f(finding.Error, finding.CategoryIntegrity, false)),
		waived(f(finding.Error, finding.CategoryTraceability, false)),
		f(finding.Warning, finding.CategorySchema, false),
	}}
	a.Finish(finding.Error, nil)
	if len(a.Findings) != 3 {
		t.Fatalf("waived findings must stay in the audit, got %d findings", len(a.Findings))
	}
	want := finding.Counts{Warning: 1, Waived: 2}
	if a.Gate != Pass || a.Counts != want {
		t.Errorf("gate %s counts %+v, want pass and %+v", a.Gate, a.Counts, want)
	}
	if a.Risk.Level != "low" || a.Policy["integrity"] != AreaPass || a.Policy["schema"] != AreaWarn {
		t.Errorf("risk %+v policy %v", a.Risk, a.Policy)
	}
	if len(a.Traceability.Issues) != 0 || a.Traceability.TaskIDMatch != AreaPass || len(a.RequiredActions) != 0 {
		t.Errorf("traceability %+v required actions %v", a.Traceability, a.RequiredActions)
	}
}

// TestFails: a severity fails the gate exactly when a finding of it, not
// waived, makes DecideGate fail at the level Finish was given.
func TestFails(t *testing.T) {
	sevs := []finding.Severity{finding.Info, finding.Warning, finding.Error}
	for _, level := range sevs {
		for _, sev := range sevs {
			a := &Audit{}
			a.Finish(level, nil)
			want := DecideGate([]finding.Finding{f(sev, finding.CategorySchema, false)}, level) == Fail
			if got := a.Fails(sev); got != want {
				t.Errorf("finished at %s: Fails(%s) = %v, want %v", level, sev, got, want)
			}
		}
	}
	unfinished := &Audit{}
	if unfinished.Fails(finding.Warning) || !unfinished.Fails(finding.Error) {
		t.Error("before Finish, only an error fails (the default level)")
	}
}

func TestOverall(t *testing.T) {
	tests := []struct {
		gates []string
		want  string
	}{
		{nil, Pass},
		{[]string{Pass, NeedsHuman}, NeedsHuman},
		{[]string{NeedsHuman, Fail, Pass}, Fail},
	}
	for _, tc := range tests {
		var as []*Audit
		for _, g := range tc.gates {
			as = append(as, &Audit{Gate: g})
		}
		if got := Overall(as); got != tc.want {
			t.Errorf("Overall(%v) = %s, want %s", tc.gates, got, tc.want)
		}
	}
}
