package runner

import (
	"errors"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/h3a-check/h3a-check/internal/finding"
	"github.com/h3a-check/h3a-check/internal/gitrev"
	"github.com/h3a-check/h3a-check/internal/gitrev/gittest"
	"github.com/h3a-check/h3a-check/internal/history"
	"github.com/h3a-check/h3a-check/internal/layout"
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

// baseAs is a history.Base whose files are files.
type baseAs map[string]string

func (b baseAs) Read(p string) ([]byte, bool, error) {
	d, ok := b[p]
	return []byte(d), ok, nil
}

func (b baseAs) Stream(p string, fn func(io.Reader) error) (bool, error) {
	d, ok := b[p]
	if !ok {
		return false, nil
	}
	return true, fn(strings.NewReader(d))
}

func (b baseAs) List() ([]string, error) { return slices.Sorted(maps.Keys(b)), nil }

func (b baseAs) Attributes(string) ([]history.AttrFile, string, error) { return nil, "", nil }

// TestNewSinceBase: on a line the change left alone, a finding is the
// base's only when the run as the base holds it has as many like it; when
// that check fails, none is, and the failure is told.
func TestNewSinceBase(t *testing.T) {
	dir := t.TempDir()
	const log = "one\ntwo\n"
	write(t, filepath.Join(dir, "log.md"), log)
	root, err := rundir.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	on := func(rule string, line int) finding.Finding {
		return finding.Finding{Rule: rule, Category: finding.CategoryGates, File: "log.md", Line: line, Details: rule}
	}
	head := []finding.Finding{on("a", 1), on("b", 2), on("b", 2)}
	atBase := []findingKey{{rule: "a", file: "log.md", text: "one"}, {rule: "b", file: "log.md", text: "two"}}
	for _, tc := range []struct {
		name      string
		found     []findingKey
		same      bool
		err       error
		newA      bool
		newB      bool
		wantError bool
	}{
		{name: "as at the base", same: true},
		{name: "one of two at the base", found: atBase, newB: true},
		{name: "none at the base", newA: true, newB: true},
		{name: "the base unread", err: errors.New("boom"), newA: true, newB: true, wantError: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := &runState{root: root, run: &layout.Run{Docs: map[string]*rundir.Document{}}, findings: head}
			calls := 0
			isNew, unread := newSinceBase(s, baseAs{"log.md": log}, func() ([]findingKey, bool, error) {
				calls++
				return tc.found, tc.same, tc.err
			})
			if got := isNew(head[0]); got != tc.newA {
				t.Errorf("finding a new: %v, want %v", got, tc.newA)
			}
			if got := isNew(head[1]); got != tc.newB {
				t.Errorf("finding b new: %v, want %v", got, tc.newB)
			}
			if err := unread(); (err != nil) != tc.wantError {
				t.Errorf("unread: %v, want an error: %v", err, tc.wantError)
			}
			if calls != 1 {
				t.Errorf("the base was checked %d times, want once", calls)
			}
		})
	}
}
