package runner

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/h3a-check/h3a-check/internal/gitrev"
	"github.com/h3a-check/h3a-check/internal/gitrev/gittest"
	"github.com/h3a-check/h3a-check/internal/rundir"
)

// TestSameAsBase: a run counts as the base's, and its base is not checked
// again for the waivers, only when every file is the one the base records.
// Each change here must be seen, however small: a byte of the same length,
// a file added, a file gone, a link where a file was.
func TestSameAsBase(t *testing.T) {
	repo := gittest.Init(t)
	repo.Write(map[string]string{
		"runs/r/state.json":        `{"a": 1}`,
		"runs/r/artifacts/out.txt": "ok\n",
		"other/x.txt":              "not the run's\n",
	})
	base := repo.Commit("base")
	run := filepath.Join(repo.Dir, "runs", "r")
	for _, tc := range []struct {
		name string
		edit func(t *testing.T)
		same bool
	}{
		{"unchanged", func(*testing.T) {}, true},
		{"a file outside the run changed", func(t *testing.T) { write(t, filepath.Join(repo.Dir, "other", "x.txt"), "changed\n") }, true},
		{"a byte changed, same length", func(t *testing.T) { write(t, filepath.Join(run, "state.json"), `{"a": 2}`) }, false},
		{"a file added", func(t *testing.T) { write(t, filepath.Join(run, "artifacts", "new.txt"), "") }, false},
		{"a file gone", func(t *testing.T) { remove(t, filepath.Join(run, "artifacts", "out.txt")) }, false},
		{"a link where a file was", func(t *testing.T) {
			remove(t, filepath.Join(run, "artifacts", "out.txt"))
			if err := os.Symlink("../state.json", filepath.Join(run, "artifacts", "out.txt")); err != nil {
				t.Fatal(err)
			}
		}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			repo.Git("checkout", "-q", "-f", base)
			repo.Git("clean", "-q", "-fdx")
			tc.edit(t)
			r, err := gitrev.Open(repo.Dir)
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			files, err := r.CommitFiles(base)
			if err != nil {
				t.Fatal(err)
			}
			root, err := rundir.OpenRoot(run)
			if err != nil {
				t.Fatal(err)
			}
			defer root.Close()
			s := &runState{root: root}
			_ = root.Walk(func(rel string, d os.DirEntry) error {
				if !d.IsDir() {
					s.tree = append(s.tree, rel)
				}
				return nil
			})
			if got := sameAsBase(s, files, "runs/r"); got != tc.same {
				t.Errorf("sameAsBase = %v, want %v", got, tc.same)
			}
		})
	}
}

func write(t *testing.T, name, content string) {
	t.Helper()
	if err := os.WriteFile(name, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func remove(t *testing.T, name string) {
	t.Helper()
	if err := os.Remove(name); err != nil {
		t.Fatal(err)
	}
}
