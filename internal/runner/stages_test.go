package runner

import (
	"reflect"
	"testing"

	"github.com/h3a-check/h3a-check/internal/audit"
)

// TestProgress: the stages of each layout come from its input documents.
func TestProgress(t *testing.T) {
	p, f, n, h := audit.StagePassed, audit.StageFailed, audit.StagePending, audit.StageNeedsHuman
	s := func(name, status string) audit.Stage { return audit.Stage{Name: name, Status: status} }
	tests := []struct {
		name, layout string
		docs         map[string]any
		want         []audit.Stage
		events       int
	}{
		{"h3a gates with an escalated G2", "h3a", map[string]any{
			"state": map[string]any{"gates": map[string]any{"G1_implementation": "failed", "G0_planning": "passed", "G2_validation": "in_progress", "G3_production_ready": "not_started"}},
			"gates_ledger": map[string]any{"events": []any{
				map[string]any{"time": "t1", "gate": "G0_planning", "status": "PASSED", "agent": "planner"},
				map[string]any{"time": "t2", "gate": "G2_validation", "status": "ESCALATED", "agent": "validator"},
			}}},
			[]audit.Stage{s("G0", p), s("G1", f), s("G2", h), s("G3", n)}, 2},
		{"h3a whose state did not parse", "h3a", map[string]any{"state": nil}, nil, 0},
		{"contract rounds", "contract", map[string]any{"rounds": []any{
			map[string]any{"n": 1, "verdict": map[string]any{"verdict": "reject"}},
			map[string]any{"n": 2, "verdict": map[string]any{"verdict": "needs-human"}},
			map[string]any{"n": 3, "verdict": nil},
		}}, []audit.Stage{s("round 1", f), s("round 2", h), s("round 3", n)}, 0},
		{"gate-state gates in number order", "gate-state", map[string]any{"pipelines": []any{
			map[string]any{"prefix": "x", "gates": map[string]any{
				"10": map[string]any{"doc": map[string]any{"status": "FAILED"}},
				"2":  map[string]any{"doc": map[string]any{"status": "SUCCESS"}},
			}}}}, []audit.Stage{s("G2", p), s("G10", f)}, 0},
		{"hybrid-os blocked in construct", "hybrid-os", map[string]any{"state": map[string]any{"ph": "C", "st": "BLK_CON"}},
			[]audit.Stage{s("A", p), s("B", p), s("C", h), s("V", n)}, 0},
		{"stigmergy halted", "stigmergy", map[string]any{"state": map[string]any{"project_status": "EXECUTION_HALTED"}},
			[]audit.Stage{s("briefing", p), s("prd", p), s("architecture", p), s("blueprint", p), s("execution", h)}, 0},
		{"stigmergy complete", "stigmergy", map[string]any{"state": map[string]any{"project_status": "PROJECT_COMPLETE"}},
			[]audit.Stage{s("briefing", p), s("prd", p), s("architecture", p), s("blueprint", p), s("execution", p)}, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			stages, events := progress(tc.layout, tc.docs)
			if !reflect.DeepEqual(stages, tc.want) {
				t.Errorf("stages %v, want %v", stages, tc.want)
			}
			if len(events) != tc.events {
				t.Errorf("%d events, want %d", len(events), tc.events)
			}
		})
	}
}
