package runner

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/h3a-check/h3a-check/internal/finding"
)

// TestLinksAndTwoLayoutsFail: a link standing where a round, a state
// folder or a run would be, and a folder two layouts claim, each fail the
// run with an error finding naming the place; nothing is left out in
// silence.
func TestLinksAndTwoLayoutsFail(t *testing.T) {
	contract := filepath.Join(testRuns, "ok", "contract_rounds", "TASK-0042-20260216-130000")
	h3a := filepath.Join(testRuns, "ok", "complete", "20250929-134215-8b6f8b9a-7c9f-4c5e-8c6a-2f0f0d2e9c1a")
	tests := []struct {
		name, src string
		change    func(t *testing.T, run string) string // returns the path to check
		rule      finding.Rule
		file      string
	}{
		{"a round a link", contract, func(t *testing.T, run string) string {
			mkdirs(t, filepath.Join(run, "elsewhere"))
			link(t, "../elsewhere", filepath.Join(run, "rounds", "round-3"))
			return run
		}, finding.Symlink, "rounds/round-3"},
		{"the state folder a link", h3a, func(t *testing.T, run string) string {
			if err := os.Rename(filepath.Join(run, "state"), filepath.Join(run, "kept")); err != nil {
				t.Fatal(err)
			}
			link(t, "kept", filepath.Join(run, "state"))
			return run
		}, finding.Symlink, "state"},
		{"the run named through a link", contract, func(t *testing.T, run string) string {
			named := filepath.Join(filepath.Dir(run), "TASK-0043-20260216-140000")
			link(t, run, named)
			return named
		}, finding.Symlink, ""},
		{"a folder of runs out of the searched one reached through a link", h3a, func(t *testing.T, run string) string {
			// The run breaks where only the link leads; the folder
			// searched holds a good run beside the link.
			batch := filepath.Join(t.TempDir(), "batch")
			mkdirs(t, batch)
			if err := os.Rename(run, filepath.Join(batch, filepath.Base(run))); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(batch, filepath.Base(run), "artifacts", "executor", "test_output_green.txt"), []byte("tampered\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			searched := filepath.Join(filepath.Dir(run), "runs")
			if err := os.CopyFS(filepath.Join(searched, filepath.Base(run)), os.DirFS(h3a)); err != nil {
				t.Fatal(err)
			}
			link(t, batch, filepath.Join(searched, "batch"))
			return searched
		}, finding.Symlink, ""},
		{"a folder whose only state.json is a link, beside a good run", h3a, func(t *testing.T, run string) string {
			// Known as an h3a run by its state.json alone (run_id and
			// gates), as a run that lost its state folder is.
			lost := filepath.Join(filepath.Dir(run), "20251001-000000-cccccccc-7c9f-4c5e-8c6a-2f0f0d2e9c1a")
			mkdirs(t, lost)
			link(t, filepath.Join(run, "state.json"), filepath.Join(lost, "state.json"))
			return filepath.Dir(run)
		}, finding.Symlink, "state.json"},
		{"a contract round in an h3a run", h3a, func(t *testing.T, run string) string {
			mkdirs(t, filepath.Join(run, "rounds", "round-1"))
			if err := os.WriteFile(filepath.Join(run, "rounds", "round-1", "verdict.json"), []byte(`{"task_id": 5}`), 0o644); err != nil {
				t.Fatal(err)
			}
			return run
		}, finding.LayoutAmbiguous, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			run := filepath.Join(t.TempDir(), filepath.Base(tc.src))
			if err := os.CopyFS(run, os.DirFS(tc.src)); err != nil {
				t.Fatal(err)
			}
			res, err := Check(context.Background(), Options{Scope: Scope{Paths: []string{tc.change(t, run)}, Base: "none"}})
			if err != nil {
				t.Fatal(err)
			}
			found := false
			for _, a := range res.Audits {
				for _, f := range a.Findings {
					if f.Rule == tc.rule.ID && f.File == tc.file && f.Severity == finding.Error {
						found = true
					}
				}
			}
			if !found || res.Gate() != "fail" {
				t.Errorf("gate %s, findings %+v; want a failed gate and an error %s at %q", res.Gate(), res.Audits, tc.rule.ID, tc.file)
			}
		})
	}
}

func mkdirs(t *testing.T, dir string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
}

func link(t *testing.T, target, name string) {
	t.Helper()
	if err := os.Symlink(target, name); err != nil {
		t.Skipf("cannot make symbolic links here: %v", err)
	}
}
