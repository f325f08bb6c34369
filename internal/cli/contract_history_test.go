package cli

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/h3a-check/h3a-check/internal/gitrev/gittest"
)

// TestContractHistory commits a contract run to a real repository and
// edits it: adding a round is fine; rewriting a committed verdict,
// deleting a round's file or changing the finished summary is not.
func TestContractHistory(t *testing.T) {
	src, err := filepath.Glob(filepath.Join(casesDir, "ok", "contract_rounds", "TASK-*"))
	if err != nil || len(src) != 1 {
		t.Fatalf("contract run not found: %v", err)
	}
	rel := filepath.Join(".orchestrator", "runs", filepath.Base(src[0]))
	tests := []struct {
		name string
		edit func(run string)
		want []string // rule file pointer
	}{
		{"unchanged", func(string) {}, nil},
		{"round added", func(run string) {
			os.MkdirAll(filepath.Join(run, "rounds", "round-3"), 0o755)
			data, _ := os.ReadFile(filepath.Join(run, "rounds", "round-2", "handoff.json"))
			os.WriteFile(filepath.Join(run, "rounds", "round-3", "handoff.json"), data, 0o644)
		}, []string{
			// The run is no longer what its summary says, and the new round lacks what a
			// finished round holds; history has nothing against a new round.
			"h3a.gates.contract_stale_audit_gate summary.json /audit_gate",
			"h3a.structure.contract_round_artifact_missing rounds/round-3/patch.diff ",
			"h3a.structure.contract_round_artifact_missing rounds/round-3/verdict.json ",
			"h3a.structure.contract_rounds_completed summary.json /rounds_completed",
		}},
		{"verdict rewritten", func(run string) {
			p := filepath.Join(run, "rounds", "round-1", "verdict.json")
			data, _ := os.ReadFile(p)
			os.WriteFile(p, []byte(strings.Replace(string(data), "Handle invalid token error path", "Handle the error path", 1)), 0o644)
		}, []string{"h3a.append_only.frozen_changed rounds/round-1/verdict.json /required_changes/0"}},
		{"round file deleted", func(run string) {
			os.Remove(filepath.Join(run, "rounds", "round-1", "handoff.json"))
		}, []string{"h3a.append_only.file_removed rounds/round-1/handoff.json ", "h3a.structure.contract_round_artifact_missing rounds/round-1/handoff.json "}},
		{"summary changed", func(run string) {
			p := filepath.Join(run, "summary.json")
			data, _ := os.ReadFile(p)
			os.WriteFile(p, []byte(strings.Replace(string(data), `"run_dir": "`, `"run_dir": "/moved`, 1)), 0o644)
		}, []string{"h3a.append_only.frozen_changed summary.json /run_dir"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			repo := gittest.Init(t)
			run := filepath.Join(repo.Dir, rel)
			if err := os.CopyFS(run, os.DirFS(src[0])); err != nil {
				t.Fatal(err)
			}
			repo.Write(map[string]string{"src/reset.py": "def reset(token): ...\n", "tests/test_reset.py": "def test_reset(): ...\n"})
			base := repo.Commit("run")
			tc.edit(run)
			t.Chdir(repo.Dir) // --base names a commit of this repository: its configuration is read there
			_, audits, stderr := checkJSON(t, "--base="+base, run)
			if len(audits) != 1 {
				t.Fatalf("%d audits: %s", len(audits), stderr)
			}
			var got []string
			for _, f := range audits[0].Findings {
				if f.Severity.String() != "info" {
					got = append(got, f.Rule+" "+f.File+" "+f.Pointer)
				}
			}
			slices.Sort(got)
			if !slices.Equal(got, tc.want) {
				t.Errorf("findings %q, want %q", got, tc.want)
			}
		})
	}
}
