package layout

import (
	"io/fs"
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

// TestDetectLinkedDocuments: a run known by what its one document holds
// (an h3a state.json with run_id and gates, a hybrid-os vX.2 state.txt)
// is still a run when that document is a link to such a file, so that the
// check reports the link instead of passing over the folder; a link to
// something else claims nothing.
func TestDetectLinkedDocuments(t *testing.T) {
	tests := []struct {
		name    string
		detect  func(fsys fs.FS, dir string) bool
		file    string
		content string
		want    bool
	}{
		{"h3a state.json", H3A{}.DetectLoose, "state.json", `{"run_id": "r", "gates": {}}`, true},
		{"hybrid-os state.txt", Hybrid{}.Detect, "state.txt", `{"v": 1, "g": 2, "st": "RUN"}`, true},
		{"h3a state.json without gates", H3A{}.DetectLoose, "state.json", `{"run_id": "r"}`, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			run := t.TempDir()
			kept := filepath.Join(t.TempDir(), "kept.json")
			if err := os.WriteFile(kept, []byte(tc.content), 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(kept, filepath.Join(run, tc.file)); err != nil {
				t.Skipf("cannot make symbolic links here: %v", err)
			}
			if got := tc.detect(os.DirFS(run), "."); got != tc.want {
				t.Errorf("a folder whose %s is a link: detected %v, want %v", tc.file, got, tc.want)
			}
		})
	}
}
