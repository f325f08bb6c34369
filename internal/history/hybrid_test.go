package history_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/h3a-check/h3a-check/internal/gitrev/gittest"
	"github.com/h3a-check/h3a-check/internal/runner"
)

// TestHybridHistory commits the complete hybrid-os example, changes head
// and checks it against that commit: versions and the event counter never
// go down, log units only grow.
func TestHybridHistory(t *testing.T) {
	const template = "../../testdata/runs/ok/hybrid_complete/greeter"
	cases := []struct {
		name string
		edit func(t *testing.T, run string)
		want []string // substrings of the findings, one per finding; none means clean
	}{
		{name: "unchanged"},
		{name: "appended", edit: func(t *testing.T, run string) {
			appendLine(t, filepath.Join(run, "logs/log_unit_2.jsonl"), `{"id": 9, "L": "I", "ph": "V", "plan": "p_greet", "task": "t2", "msg": "t2 validated"}`)
			replace(t, filepath.Join(run, "state.json"), `"g": 8`, `"g": 9`)
			replace(t, filepath.Join(run, "state.json"), `"ln": 3`, `"ln": 4`)
			replace(t, filepath.Join(run, "state.json"), `"v": 9`, `"v": 10`)
		}},
		{name: "state version lost", edit: func(t *testing.T, run string) {
			replace(t, filepath.Join(run, "state.json"), `"v": 9`, `"v": 8`)
		}, want: []string{"error: state.json v went down from 9 at base <base> to 8; a lower version is a lost write [h3a.append_only.hybrid_version_decreased]"}},
		{name: "state version lost, spelt as a fraction", edit: func(t *testing.T, run string) {
			replace(t, filepath.Join(run, "state.json"), `"v": 9`, `"v": 8.0`)
		}, want: []string{"error: state.json v went down from 9 at base <base> to 8.0; a lower version is a lost write [h3a.append_only.hybrid_version_decreased]"}},
		{name: "counter lost, spelt with an exponent", edit: func(t *testing.T, run string) {
			replace(t, filepath.Join(run, "state.json"), `"g": 8`, `"g": 7e0`)
		}, want: []string{
			"error: state.json g went down from 8 at base <base> to 7e0",
			"error: g is 7 but the last log entry (logs/log_unit_2.jsonl line 3) has id 8",
		}},
		{name: "state version kept, spelt otherwise", edit: func(t *testing.T, run string) {
			replace(t, filepath.Join(run, "state.json"), `"v": 9`, `"v": 0.9e1`)
		}},
		{name: "plan version lost", edit: func(t *testing.T, run string) {
			replace(t, filepath.Join(run, "plans/core/p_greet.json"), `"v": 2`, `"v": 1`)
			replace(t, filepath.Join(run, "plan_summary.json"), `"v": 2`, `"v": 1`)
		}, want: []string{
			"plan_summary.json:2:8: error: plan_summary.json v went down from 2",
			"plans/core/p_greet.json:2:8: error: plans/core/p_greet.json v went down from 2",
			// the plan entry of the summary still records v 2
			"plans/core/p_greet.json:2:8: error: plan \"p_greet\" has v 1 but plan_summary.json last recorded v 2",
		}},
		{name: "retry count reset", edit: func(t *testing.T, run string) {
			replace(t, filepath.Join(run, "state.json"), `"t1": 1`, `"t1": 0`)
			replace(t, filepath.Join(run, "state.json"), `"v": 9`, `"v": 10`)
			replace(t, filepath.Join(run, "plans/core/p_greet.json"), `"rt": 1`, `"rt": 0`)
			replace(t, filepath.Join(run, "plans/core/p_greet.json"), `"v": 2`, `"v": 3`)
			replace(t, filepath.Join(run, "plan_summary.json"), `"path": "plans/core/p_greet.json",
      "v": 2`, `"path": "plans/core/p_greet.json",
      "v": 3`)
		}, want: []string{
			"plans/core/p_greet.json:10:13: warning: retry count of task \"t1\" went down from 1 at base <base> to 0; a task's retry count only grows (past the limit it sets st = BLK_MAX): a person must confirm the reset [h3a.append_only.hybrid_retries_lowered]",
			"state.json:11:11: warning: retry count of task \"t1\" went down from 1 at base <base> to 0",
		}},
		{name: "retry count dropped from a plan task", edit: func(t *testing.T, run string) {
			replace(t, filepath.Join(run, "plans/core/p_greet.json"), `"st": "DONE",
      "rt": 1`, `"st": "DONE"`)
		}, want: []string{
			"plans/core/p_greet.json:7:5: error: task \"t1\" has 1 retries in state.json rt but 0 in plans/core/p_greet.json",
			"plans/core/p_greet.json:7:5: warning: retry count of task \"t1\" went down from 1 at base <base> to 0",
		}},
		{name: "counted task dropped from its plan", edit: func(t *testing.T, run string) {
			replace(t, filepath.Join(run, "plans/core/p_greet.json"), `{
      "id": "t1",
      "st": "DONE",
      "rt": 1
    },
`, ``)
		}, want: []string{"task \"t1\", with retry count 1 at base <base>, is gone from plans/core/p_greet.json"}},
		{name: "retry count spelt otherwise", edit: func(t *testing.T, run string) {
			replace(t, filepath.Join(run, "state.json"), `"t1": 1`, `"t1": 1.0`)
			replace(t, filepath.Join(run, "plans/core/p_greet.json"), `"rt": 1`, `"rt": 1e0`)
		}},
		{name: "retry count raised", edit: func(t *testing.T, run string) {
			replace(t, filepath.Join(run, "state.json"), `"t1": 1`, `"t1": 2`)
			replace(t, filepath.Join(run, "plans/core/p_greet.json"), `"rt": 1`, `"rt": 2`)
		}},
		{name: "log record rewritten", edit: func(t *testing.T, run string) {
			replace(t, filepath.Join(run, "logs/log_unit_1.jsonl"), `"t1 retried"`, `"t1 redone"`)
		}, want: []string{"logs/log_unit_1.jsonl:5:1: error: record 5 of logs/log_unit_1.jsonl differs from base <base>"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := findingsAfterEdit(t, template, "greeter", func(run string) {
				if tc.edit != nil {
					tc.edit(t, run)
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

// findingsAfterEdit commits a copy of template, named name, to a fresh
// repository, lets edit change the copy, checks it against that commit and
// returns each finding as "location: severity: details [rule]", with the
// base commit written <base>.
func findingsAfterEdit(t *testing.T, template, name string, edit func(run string)) []string {
	t.Helper()
	g := gittest.Init(t)
	run := filepath.Join(g.Dir, name)
	if err := os.CopyFS(run, os.DirFS(template)); err != nil {
		t.Fatal(err)
	}
	base := g.Commit("base")
	edit(run)
	res, err := runner.Check(context.Background(), runner.Options{Scope: runner.Scope{Paths: []string{run}, Getenv: func(string) string { return "" }}})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, a := range res.Audits {
		for _, f := range a.Findings {
			got = append(got, strings.ReplaceAll(fmt.Sprintf("%s: %s: %s [%s]", f.Location(), f.Severity, f.Details, f.Rule), base[:12], "<base>"))
		}
	}
	return got
}

func replace(t *testing.T, file, old, new string) {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), old) {
		t.Fatalf("%s does not contain %q", file, old)
	}
	if err := os.WriteFile(file, []byte(strings.Replace(string(data), old, new, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
}

func appendLine(t *testing.T, file, line string) {
	t.Helper()
	f, err := os.OpenFile(file, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(line + "\n"); err != nil {
		t.Fatal(err)
	}
}
