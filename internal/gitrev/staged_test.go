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
	got, err := pathsOnly(repo.Staged(""))
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
	got, err = pathsOnly(repo.Staged(""))
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
	got, err = pathsOnly(repo.Staged(other))
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(got, Change{Path: "notes.md"}) || len(got) != 3 {
		t.Errorf("with GIT_INDEX_FILE: %+v, want notes.md staged as well", got)
	}

}

// pathsOnly keeps what a test of Staged compares: path and deletion.
func pathsOnly(changes []Change, err error) ([]Change, error) {
	out := make([]Change, len(changes))
	for i, c := range changes {
		out[i] = Change{Path: c.Path, Deleted: c.Deleted}
	}
	return out, err
}

// TestIndexFiles: what a commit of the index records is read from the
// index, whatever the working tree holds and whatever bits the index
// carries; a file added with "git add -N" is not recorded.
func TestIndexFiles(t *testing.T) {
	g := gittest.Init(t)
	g.Write(map[string]string{"runs/a/log.md": "committed\n", "runs/a/other.md": "o\n"})
	g.Commit("base")
	repo, err := Open(g.Dir)
	if err != nil {
		t.Fatal(err)
	}
	defer repo.Close()
	g.Write(map[string]string{"runs/a/log.md": "staged\n", "runs/a/other.md": "staged other\n", "runs/a/new.md": "new\n", "runs/a/intent.md": "i\n"})
	g.Git("add", "runs/a/log.md", "runs/a/other.md", "runs/a/new.md")
	g.Git("add", "-N", "runs/a/intent.md")
	// The working tree goes back, and git is told not to look.
	g.Write(map[string]string{"runs/a/log.md": "committed\n", "runs/a/other.md": "o\n"})
	g.Git("update-index", "--assume-unchanged", "runs/a/log.md")
	g.Git("update-index", "--skip-worktree", "runs/a/other.md")
	g.Remove("runs/a/new.md")
	files, err := repo.IndexFiles("")
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, f := range files {
		data, err := repo.ReadObject(f.Object, 1<<10)
		if err != nil {
			t.Fatal(err)
		}
		got[f.Path] = string(data)
	}
	want := map[string]string{"runs/a/log.md": "staged\n", "runs/a/other.md": "staged other\n", "runs/a/new.md": "new\n"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("index files %q, want %q", got, want)
	}
	changes, err := repo.Staged("")
	if err != nil {
		t.Fatal(err)
	}
	var paths []string
	for _, c := range changes {
		paths = append(paths, c.Path)
	}
	if want := []string{"runs/a/log.md", "runs/a/new.md", "runs/a/other.md"}; !slices.Equal(paths, want) {
		t.Errorf("staged %v, want %v", paths, want)
	}
}

// TestMaterialize: a run written from the objects holds their content,
// and a link stays a link, pointing where it pointed, never followed.
func TestMaterialize(t *testing.T) {
	g := gittest.Init(t)
	g.Write(map[string]string{"runs/a/log.md": "log\n", "runs/a/sub/x.txt": "x\n", "runs/b/other.md": "b\n"})
	if err := os.Symlink("../../../outside", filepath.Join(g.Dir, "runs/a/link")); err != nil {
		t.Fatal(err)
	}
	head := g.Commit("base")
	repo, err := Open(g.Dir)
	if err != nil {
		t.Fatal(err)
	}
	defer repo.Close()
	files, err := repo.CommitFiles(head)
	if err != nil {
		t.Fatal(err)
	}
	dest := t.TempDir()
	if err := repo.Materialize(files, "runs/a", dest); err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]string{"log.md": "log\n", "sub/x.txt": "x\n"} {
		if data, err := os.ReadFile(filepath.Join(dest, name)); err != nil || string(data) != want {
			t.Errorf("%s: %q, %v; want %q", name, data, err, want)
		}
	}
	if target, err := os.Readlink(filepath.Join(dest, "link")); err != nil || target != "../../../outside" {
		t.Errorf("link: %q, %v", target, err)
	}
	if _, err := os.Lstat(filepath.Join(dest, "other.md")); err == nil {
		t.Error("a file of another run was written")
	}
	changes, err := repo.Between(head, head)
	if err != nil || len(changes) != 0 {
		t.Errorf("no change between a commit and itself: %v, %v", changes, err)
	}
	if _, err := repo.Between("--output=x", head); err == nil {
		t.Error("an option was taken for a commit")
	}
}

// TestMaterializeNeverGoesThroughALink: a listing that holds a link and a
// file below it (git refuses such an index, a crafted one need not) is an
// error, and nothing is written where the link points.
func TestMaterializeNeverGoesThroughALink(t *testing.T) {
	g := gittest.Init(t)
	g.Write(map[string]string{"x": "x\n"})
	g.Commit("base")
	repo, err := Open(g.Dir)
	if err != nil {
		t.Fatal(err)
	}
	defer repo.Close()
	target := g.Git("hash-object", "-w", "--stdin", "--path", "x")
	g.Write(map[string]string{"target": "sub"})
	link := g.Git("hash-object", "-w", "target")
	files := []SnapshotFile{
		{Mode: "120000", Object: link, Path: "run/a"},
		{Mode: "100644", Object: target, Path: "run/a/b"},
	}
	dest := t.TempDir()
	if err := os.Mkdir(filepath.Join(dest, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := repo.Materialize(files, "run", dest); err == nil {
		t.Error("a file below a link was written")
	}
	if _, err := os.Lstat(filepath.Join(dest, "sub", "b")); err == nil {
		t.Error("the link was gone through")
	}
}
