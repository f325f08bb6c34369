package layout

import (
	"os"
	"path/filepath"
	"testing"
)

func TestStands(t *testing.T) {
	tests := []struct {
		layout Layout
		rel    string
		want   bool
	}{
		{Contract{}, "rounds", true},
		{Contract{}, "rounds/round-3", true},
		{Contract{}, "rounds/round-3/verdict.json", true},
		{Contract{}, "summary.json", true},
		{Contract{}, "rounds/round-3/patch.diff", false},
		{Contract{}, "notes", false},
		{H3A{}, "state", true},
		{H3A{}, "state/EVIDENCE_LOG.md", true},
		{H3A{}, "artifacts/executor/out.txt", false},
		{Stigmergy{}, ".ai", true},
	}
	for _, tc := range tests {
		if got := Stands(tc.layout.Files(), tc.rel); got != tc.want {
			t.Errorf("%s: Stands(%q) = %v, want %v", tc.layout.ID(), tc.rel, got, tc.want)
		}
	}
}

// TestDetectLinkedFolders: a run whose defining folder is a link is still
// a run, so that the check reports the link instead of passing over it.
func TestDetectLinkedFolders(t *testing.T) {
	tests := []struct {
		layout Layout
		folder string // the defining folder, made a link
		files  []string
	}{
		{H3A{}, "state", []string{"state/ROADMAP.md"}},
		{Contract{}, "rounds/round-3", []string{"rounds/round-3/verdict.json"}},
		{Contract{}, "rounds", []string{"rounds/round-1/verdict.json"}},
		{Stigmergy{}, ".ai", []string{".ai/state.json"}},
		{GateState{}, ".state", []string{".state/auth-login-gate1-output.json"}},
	}
	for _, tc := range tests {
		t.Run(tc.layout.ID()+" "+tc.folder, func(t *testing.T) {
			run := t.TempDir()
			kept := filepath.Join(run, "kept")
			for _, f := range tc.files {
				rest, _ := filepath.Rel(tc.folder, f)
				p := filepath.Join(kept, rest)
				if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(p, []byte("{}"), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			link := filepath.Join(run, filepath.FromSlash(tc.folder))
			if err := os.MkdirAll(filepath.Dir(link), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(kept, link); err != nil {
				t.Skipf("cannot make symbolic links here: %v", err)
			}
			if !tc.layout.Detect(os.DirFS(run), ".") {
				t.Errorf("a run whose %s is a link is not detected", tc.folder)
			}
		})
	}
}
