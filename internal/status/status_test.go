package status

import (
	"reflect"
	"strings"
	"testing"
)

func TestLookup(t *testing.T) {
	tests := []struct {
		field    Field
		spelling string
		want     Meaning
		ok       bool
	}{
		{Verdict, "pass", Meaning{Outcome: Pass}, true},
		{Verdict, "pass_with_notes", Meaning{Outcome: Pass, Notes: true}, true},
		{Verdict, "fail", Meaning{Outcome: Fail, RemediationDue: true}, true},
		{Verdict, "needs_remediation", Meaning{Outcome: Fail, RemediationDue: true}, true},
		{Verdict, "escalation", Meaning{Outcome: Escalation}, true},
		{Verdict, "escalation_required", Meaning{Outcome: Escalation}, true},
		{Verdict, "PASS", Meaning{}, false},
		{Verdict, "passed", Meaning{}, false},
		{Verdict, "", Meaning{}, false},
		{Task, "escalation_required", Meaning{Outcome: Escalation, Started: true}, true},
		{Task, "remediation_needed", Meaning{Outcome: Fail, RemediationDue: true, Started: true}, true},
		{Task, "failed", Meaning{Outcome: Fail, Started: true}, true},
		{Task, "ready_for_execution", Meaning{Outcome: Open}, true},
		{Task, "complete", Meaning{Outcome: Pass, Started: true}, true},
		{Task, "needs_remediation", Meaning{}, false},
	}
	for _, tt := range tests {
		got, ok := tt.field.Lookup(tt.spelling)
		if got != tt.want || ok != tt.ok {
			t.Errorf("%s.Lookup(%q) = %+v, %v; want %+v, %v", tt.field.Name, tt.spelling, got, ok, tt.want, tt.ok)
		}
	}
}

// TestValues: every spelling is defined once per field, says where the
// documents define it, and has an outcome of the vocabulary.
func TestValues(t *testing.T) {
	outcomes := map[Outcome]bool{Open: true, Pass: true, Fail: true, Escalation: true}
	for _, f := range Fields {
		seen := map[string]bool{}
		for _, v := range f.Values {
			if seen[v.Spelling] {
				t.Errorf("%s: %q listed twice", f.Name, v.Spelling)
			}
			seen[v.Spelling] = true
			if !outcomes[v.Meaning.Outcome] {
				t.Errorf("%s %q: outcome %q is not one of open, pass, fail, escalation", f.Name, v.Spelling, v.Meaning.Outcome)
			}
			if !strings.Contains(v.Source, ".md") {
				t.Errorf("%s %q: source %q names no document", f.Name, v.Spelling, v.Source)
			}
			if v.Meaning.Notes && v.Meaning.Outcome != Pass || v.Meaning.RemediationDue && v.Meaning.Outcome != Fail {
				t.Errorf("%s %q: %+v contradicts itself", f.Name, v.Spelling, v.Meaning)
			}
		}
	}
}

func TestInput(t *testing.T) {
	want := map[string]any{"status": "needs_remediation", "outcome": "fail", "notes": false, "remediation_due": true, "started": false}
	if got := Verdict.Input("needs_remediation"); !reflect.DeepEqual(got, want) {
		t.Errorf("Verdict.Input(needs_remediation) = %v, want %v", got, want)
	}
	for _, v := range []any{nil, 1.0, "done", map[string]any{"status": "pass"}} {
		if got := Verdict.Input(v); got != nil {
			t.Errorf("Verdict.Input(%v) = %v, want nil", v, got)
		}
	}
}
