package history_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/h3a-check/h3a-check/internal/gitrev"
	"github.com/h3a-check/h3a-check/internal/history"
)

// TestGateStateHistory commits the complete gate-state example, changes
// head and checks it against that commit: completedGates only grows and a
// completed gate's output never changes.
func TestGateStateHistory(t *testing.T) {
	const template = "../../testdata/runs/ok/gate_state_complete/app"
	const pipeline = ".state/demoqa_com-student_registration-pipeline.json"
	const gate2 = ".state/demoqa_com-student_registration-gate2-output.json"
	cases := []struct {
		name  string
		file  string
		edits [][2]string
		want  string // a substring of the one finding, "" for none
	}{
		{name: "unchanged"},
		{name: "gate added", file: pipeline, edits: [][2]string{{`"currentGate": 2`, `"currentGate": 3`}, {"2\n  ]", "2,\n    3\n  ]"}},
			want: "gate 3 is completed but"},
		{name: "completed gate dropped", file: pipeline, edits: [][2]string{{"1,\n    2\n  ]", "1\n  ]"}},
			want: "[h3a.append_only.entry_rewritten]"},
		{name: "completed output changed", file: gate2, edits: [][2]string{{`"score": 87`, `"score": 88`}},
			want: "[h3a.append_only.frozen_changed]"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := findingsAfterEdit(t, template, "app", func(run string) {
				for _, e := range tc.edits {
					replace(t, filepath.Join(run, tc.file), e[0], e[1])
				}
			})
			if tc.want == "" {
				if len(got) != 0 {
					t.Fatalf("findings on an unchanged run:\n%s", strings.Join(got, "\n"))
				}
				return
			}
			if len(got) != 1 || !strings.Contains(got[0], tc.want) {
				t.Errorf("findings:\n%s\nwant one containing %s", strings.Join(got, "\n"), tc.want)
			}
		})
	}
}

func TestRunsAtGateState(t *testing.T) {
	got, err := history.RunsAt(gitrev.NewFilesFS([]string{"proj/app/.state/d-f-pipeline.json", "proj/app/.state/d-f-gate1-output.json", "proj/other/.state/notes.json"}, nil), "")
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].Dir != "proj/app" || got[0].Layout != "gate-state" {
		t.Errorf("RunsAt = %+v, want proj/app as gate-state", got)
	}
}

// TestGateStateFailureHistory commits the failed gate-state example and
// passes the failed gate in head: running a failed gate again, or
// reopening a failed pipeline, is a person's call, so the change that does
// asks for one.
func TestGateStateFailureHistory(t *testing.T) {
	const template = "../../testdata/runs/ok/gate_state_failed/app"
	const pipeline = ".state/demoqa_com-student_registration-pipeline.json"
	const gate2 = ".state/demoqa_com-student_registration-gate2-output.json"
	rerun := [][2]string{{`"status": "FAILED"`, `"status": "SUCCESS"`}, {`"score": 40`, `"score": 90`}, {`"passed": false`, `"passed": true`}}
	reopen := [][2]string{{`"status": "FAILED"`, `"status": "IN_PROGRESS"`}, {"1\n  ]", "1,\n    2\n  ]"}}
	cases := []struct {
		name  string
		edits map[string][][2]string
		want  []string // one finding containing each, in order
	}{
		{name: "still failed", want: []string{"[h3a.gates.gate_state_needs_human]"}},
		{name: "failed again", edits: map[string][][2]string{gate2: {{`"score": 40`, `"score": 30`}}},
			want: []string{"[h3a.gates.gate_state_needs_human]"}},
		{name: "gate run again and pipeline reopened", edits: map[string][][2]string{gate2: rerun, pipeline: reopen}, want: []string{
			`.state/demoqa_com-student_registration-gate2-output.json:4:13: warning: the gate output was FAILED at base <base> and is "SUCCESS" in head: a failed gate stops its pipeline, and a person must confirm it was run again or the pipeline reopened [h3a.append_only.gate_state_failure_lifted]`,
			`.state/demoqa_com-student_registration-pipeline.json:2:13: warning: the pipeline was FAILED at base <base> and is "IN_PROGRESS" in head`,
		}},
		{name: "pipeline reopened", edits: map[string][][2]string{pipeline: reopen[:1]}, want: []string{
			"[h3a.gates.gate_state_needs_human]",
			`.state/demoqa_com-student_registration-pipeline.json:2:13: warning: the pipeline was FAILED at base <base> and is "IN_PROGRESS" in head`,
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := findingsAfterEdit(t, template, "app", func(run string) {
				for file, edits := range tc.edits {
					for _, e := range edits {
						replace(t, filepath.Join(run, file), e[0], e[1])
					}
				}
			})
			if len(got) != len(tc.want) {
				t.Fatalf("got %d findings, want %d:\n%s", len(got), len(tc.want), strings.Join(got, "\n"))
			}
			for i, w := range tc.want {
				if !strings.Contains(got[i], w) {
					t.Errorf("finding %d:\n got %s\nwant it to contain %s", i, got[i], w)
				}
			}
		})
	}
}
