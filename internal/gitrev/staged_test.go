package gitrev

import (
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"testing"

	"github.com/h3a-check/h3a-check/internal/gitrev/gittest"
)

func TestStaged(t *testing.T) {
	g := gittest.Init(t)
	g.Write(map[string]string{"runs/a/log.md": "a\n", "notes.md": "n\n", "name ending in space ": "s\n"})
	repo, err := Open(g.Dir)
	if err != nil {
		t.Fatal(err)
	}
	defer repo.Close()
	g.Git("add", "-A")
	// Nothing committed yet: the whole index is staged.
	got, err := repo.Staged("")
	if err != nil {
		t.Fatal(err)
	}
	want := []Change{{Path: "name ending in space "}, {Path: "notes.md"}, {Path: "runs/a/log.md"}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("before the first commit: %+v, want %+v", got, want)
	}
	g.Commit("base")

	g.Git("rm", "-q", "runs/a/log.md")
	g.Write(map[string]string{"runs/b/new.md": "b\n", "notes.md": "changed\n"})
	g.Git("add", "runs/b/new.md")
	got, err = repo.Staged("")
	if err != nil {
		t.Fatal(err)
	}
	want = []Change{{Path: "runs/a/log.md", Deleted: true}, {Path: "runs/b/new.md"}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("staged %+v, want %+v (notes.md is changed but not staged)", got, want)
	}

	// Another index, as "git commit -a" hands a hook: notes.md is in it.
	other := filepath.Join(t.TempDir(), "index")
	b, err := os.ReadFile(filepath.Join(g.Dir, ".git", "index"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(other, b, 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := gitCommand(g.Dir, "add", "notes.md")
	cmd.Env = append(cmd.Env, "GIT_INDEX_FILE="+other)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	got, err = repo.Staged(other)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(got, Change{Path: "notes.md"}) || len(got) != 3 {
		t.Errorf("with GIT_INDEX_FILE: %+v, want notes.md staged as well", got)
	}

	// The working tree against the index, under runs/ only.
	g.Write(map[string]string{"runs/b/new.md": "edited after git add\n", "runs/b/untracked.txt": "u\n", "runs/b/.gitignore": "*.log\n", "runs/b/ignored.log": "i\n"})
	not, err := repo.NotStaged("", []string{"runs"})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(not)
	if want := []string{"runs/b/.gitignore", "runs/b/new.md", "runs/b/untracked.txt"}; !slices.Equal(not, want) {
		t.Errorf("not staged: %v, want %v", not, want)
	}
	if not, err := repo.NotStaged("", nil); err != nil || len(not) != 0 {
		t.Errorf("no folder: %v, %v", not, err)
	}
}
