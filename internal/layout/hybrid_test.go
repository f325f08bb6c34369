package layout

import (
	"os"
	"path/filepath"
	"testing"
)

const hybridExample = "../../testdata/runs/ok/hybrid_complete/greeter"

func TestHybridDetect(t *testing.T) {
	for _, tc := range []struct {
		dir  string
		want bool
	}{
		{hybridExample, true},
		{"../../testdata/runs/ok/hybrid_x2/app", true},
		{"../../testdata/runs/ok/complete/20250929-134215-8b6f8b9a-7c9f-4c5e-8c6a-2f0f0d2e9c1a", false},
		{"../../testdata/runs/ok/hybrid_complete/greeter/plans", false},
	} {
		if got := (Hybrid{}).Detect(os.DirFS(tc.dir), "."); got != tc.want {
			t.Errorf("Detect(%s) = %v, want %v", tc.dir, got, tc.want)
		}
	}
}

// TestFileInRun: summaries and stage documents count as present only when
// they are regular files inside the run, as the loader would read them.
func TestFileInRun(t *testing.T) {
	outside := t.TempDir()
	if err := os.WriteFile(filepath.Join(outside, "secret.json"), []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	run := t.TempDir()
	if err := os.MkdirAll(filepath.Join(run, "plans"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(run, "plans", "p.json"), []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(outside, "secret.json"), filepath.Join(run, "plans", "out.json")); err != nil {
		t.Skipf("no symbolic links here: %v", err)
	}
	for p, want := range map[string]bool{
		"plans/p.json":                        true,
		"plans/x.json":                        false,
		"plans":                               false, // a folder
		"../secret.json":                      false,
		filepath.Join(outside, "secret.json"): false,
		"plans/out.json":                      false, // a link leaving the run
	} {
		if got := fileInRun(run, p); got != want {
			t.Errorf("fileInRun(%q) = %v, want %v", p, got, want)
		}
	}
}
