package gitrev

import (
	"reflect"
	"slices"
	"testing"

	"github.com/h3a-check/h3a-check/internal/gitrev/gittest"
)

// TestChanged: what --changed counts as changed since a revision: a
// tracked file edited or deleted, a file added, and an untracked file,
// ignored or not (a check reads the disk, whatever .gitignore says), a
// folder holding nothing tracked as one entry; an untouched file is not.
// A name that starts with a space keeps it (git's list is split on NUL
// alone).
func TestChanged(t *testing.T) {
	g := gittest.Init(t)
	g.Write(map[string]string{".gitignore": "*.log\n", "runs/a/edited.md": "a\n", "runs/a/deleted.md": "d\n", "runs/b/same.md": "s\n", " spaced/first.md": "f\n"})
	base := g.Commit("base")
	repo, err := Open(g.Dir)
	if err != nil {
		t.Fatal(err)
	}
	defer repo.Close()

	g.Write(map[string]string{"runs/a/edited.md": "edited\n", "runs/c/untracked.md": "u\n", "runs/c/ignored.log": "i\n", "runs/a/ignored.log": "i\n", "runs/d/added.md": "n\n", " spaced/first.md": "edited\n", " untracked.md": "u\n"})
	g.Remove("runs/a/deleted.md")
	g.Git("add", "runs/d/added.md")
	got, err := repo.Changed(base)
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(got)
	want := []string{" spaced/first.md", " untracked.md", "runs/a/deleted.md", "runs/a/edited.md", "runs/a/ignored.log", "runs/c/", "runs/d/added.md"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Changed(base) = %q, want %q", got, want)
	}
}
