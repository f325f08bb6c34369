package runner

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/h3a-check/h3a-check/internal/audit"
	"github.com/h3a-check/h3a-check/internal/finding"
	"github.com/h3a-check/h3a-check/internal/gitrev"
	"github.com/h3a-check/h3a-check/internal/gitrev/gittest"
	"github.com/h3a-check/h3a-check/internal/synth/corpus"
)

// TestChanged: --changed keeps the runs with a file changed since the base
// (an edited artifact, an untracked new file), drops the others, still
// reports a run deleted since the base, and keeps everything when there is
// no base to compare with.
func TestChanged(t *testing.T) {
	gittest.Isolate(t)
	g := gittest.Init(t)
	c, err := corpus.Generate(g.Dir, corpus.Options{Runs: 4, Artifacts: corpus.MinArtifacts, Size: 100, Seed: 11})
	if err != nil {
		t.Fatal(err)
	}
	g.Commit("four runs")
	edited, untracked, deleted, untouched := c.Runs[0], c.Runs[1], c.Runs[2], c.Runs[3]
	if err := os.WriteFile(filepath.Join(edited.Dir, "README.md"), []byte("edited\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(untracked.Dir, "artifacts", "notes.txt"), []byte("new\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.RemoveAll(deleted.Dir); err != nil {
		t.Fatal(err)
	}

	checked := func(opts Options) []string {
		t.Helper()
		opts.Scope.Paths, opts.Scope.Getenv = []string{c.Dir}, noEnv
		res, err := Check(context.Background(), opts)
		if err != nil {
			t.Fatal(err)
		}
		var ids []string
		for _, a := range res.Audits {
			ids = append(ids, a.RunID)
		}
		slices.Sort(ids)
		return ids
	}
	got := checked(Options{Scope: Scope{Changed: true}})
	// The deleted run's audit is the folder's, named after the folder.
	if !slices.Contains(got, edited.ID) || !slices.Contains(got, untracked.ID) || slices.Contains(got, untouched.ID) {
		t.Errorf("--changed checked %v; want %s and %s, not %s", got, edited.ID, untracked.ID, untouched.ID)
	}
	if len(got) != 3 {
		t.Errorf("--changed: %d audits %v, want the 2 changed runs and the folder that lost a run", len(got), got)
	}
	if all := checked(Options{Scope: Scope{Changed: true, Base: "none"}}); len(all) != 3 {
		t.Errorf("--changed without a base checks every run present: got %v", all)
	}
}

// TestChangedFailsClosed: --changed looks only where files changed, and
// still finds what the whole check would: a run moved, a run deleted, a
// run held by a changed run though the held one is unchanged, and no
// error when nothing changed.
func TestChangedFailsClosed(t *testing.T) {
	tests := []struct {
		name string
		// before runs before the commit, after between the commit and the check.
		before, after func(t *testing.T, c *corpus.Corpus)
		// want maps a run (its index in the corpus, or -1 for the
		// folder's audit) to a rule its audit must carry; runs counts the
		// audits.
		want map[int]string
		runs int
		// layout is forced when set.
		layout string
	}{
		{
			name: "moved within the searched folder",
			after: func(t *testing.T, c *corpus.Corpus) {
				mustMkdir(t, filepath.Join(c.Dir, "archive"))
				mustRename(t, c.Runs[0].Dir, filepath.Join(c.Dir, "archive", c.Runs[0].ID))
			},
			want: map[int]string{0: finding.RunMoved.ID},
			runs: 1,
		},
		{
			name:  "deleted, nothing else changed",
			after: func(t *testing.T, c *corpus.Corpus) { mustRemove(t, c.Runs[2].Dir) },
			want:  map[int]string{-1: finding.RunDeleted.ID},
			runs:  1,
		},
		{
			name: "a changed run holds an unchanged one",
			before: func(t *testing.T, c *corpus.Corpus) {
				if err := os.CopyFS(filepath.Join(c.Runs[0].Dir, "inner", c.Runs[1].ID), os.DirFS(c.Runs[1].Dir)); err != nil {
					t.Fatal(err)
				}
			},
			after: func(t *testing.T, c *corpus.Corpus) {
				mustWrite(t, filepath.Join(c.Runs[0].Dir, "README.md"), "edited\n")
			},
			want: map[int]string{0: finding.NestedRun.ID},
			runs: 1,
		},
		{
			name: "a run in a repository inside, untracked",
			after: func(t *testing.T, c *corpus.Corpus) {
				inner := filepath.Join(c.Dir, "vendored")
				if err := os.CopyFS(filepath.Join(inner, "runs", c.Runs[3].ID+"-copy"), os.DirFS(c.Runs[3].Dir)); err != nil {
					t.Fatal(err)
				}
				gittest.At(t, inner).Git("init", "-q")
			},
			runs: 1, // the run inside, checked without history: its repository has no commit

		},
		{
			// git lists the link as one file, never a folder with
			// files below it, and takes a run folder's place in the
			// repository from where the link leads.
			name: "a run folder added as a symbolic link",
			after: func(t *testing.T, c *corpus.Corpus) {
				mustMkdir(t, filepath.Join(c.Dir, "links"))
				if err := os.Symlink(filepath.Join("..", c.Runs[1].ID), filepath.Join(c.Dir, "links", c.Runs[1].ID)); err != nil {
					t.Fatal(err)
				}
			},
			want: map[int]string{1: finding.Symlink.ID},
			runs: 1,
		},
		{
			// The link is committed and unchanged, and so is the link
			// below where it leads: only the run they lead to, out of
			// the searched folder, changed. A full check reports the
			// link (runs reached through it are not checked).
			name: "a run changed where committed links lead, out of the searched folder",
			before: func(t *testing.T, c *corpus.Corpus) {
				top := filepath.Dir(c.Dir)
				mustMkdir(t, filepath.Join(top, "far"))
				mustMkdir(t, filepath.Join(top, "near"))
				mustRename(t, c.Runs[3].Dir, filepath.Join(top, "far", c.Runs[3].ID))
				for link, to := range map[string]string{filepath.Join(top, "near", "far"): filepath.Join("..", "far"), filepath.Join(c.Dir, c.Runs[3].ID): filepath.Join("..", "near")} {
					if err := os.Symlink(to, link); err != nil {
						t.Fatal(err)
					}
				}
			},
			after: func(t *testing.T, c *corpus.Corpus) {
				mustWrite(t, filepath.Join(filepath.Dir(c.Dir), "far", c.Runs[3].ID, "README.md"), "edited\n")
			},
			want: map[int]string{3: finding.Symlink.ID},
			runs: 1,
		},
		{
			// The full check reads what the disk holds, whatever
			// .gitignore says: the committed run now holds a run.
			name: "an ignored folder in a committed run holds a run",
			before: func(t *testing.T, c *corpus.Corpus) {
				mustWrite(t, filepath.Join(c.Runs[0].Dir, ".gitignore"), "scratch/\n")
			},
			after: func(t *testing.T, c *corpus.Corpus) {
				if err := os.CopyFS(filepath.Join(c.Runs[0].Dir, "scratch", c.Runs[1].ID), os.DirFS(c.Runs[1].Dir)); err != nil {
					t.Fatal(err)
				}
			},
			want: map[int]string{0: finding.NestedRun.ID},
			runs: 2,
		},
		{
			// git writes every file of the runs out again with CRLF line
			// ends, as a checkout of the change does, while no blob and
			// so no file of git's diff changed: the logged artifacts no
			// longer hash as logged.
			name: "a .gitattributes at the top changes how the runs are checked out",
			after: func(t *testing.T, c *corpus.Corpus) {
				mustWrite(t, filepath.Join(filepath.Dir(c.Dir), ".gitattributes"), "* text eol=crlf\n")
				for _, r := range c.Runs {
					mustRemove(t, r.Dir)
				}
				gittest.At(t, c.Dir).Git("checkout", "--", ".")
			},
			want: map[int]string{0: finding.HashMismatch.ID},
			runs: 4,
		},
		{
			name:  "nothing changed",
			after: func(*testing.T, *corpus.Corpus) {},
			runs:  0,
		},
		{
			name:   "nothing changed, the layout forced",
			after:  func(*testing.T, *corpus.Corpus) {},
			runs:   0,
			layout: "h3a",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			gittest.Isolate(t)
			g := gittest.Init(t)
			c, err := corpus.Generate(g.Dir, corpus.Options{Runs: 4, Artifacts: corpus.MinArtifacts, Size: 100, Seed: 11})
			if err != nil {
				t.Fatal(err)
			}
			if tt.before != nil {
				tt.before(t, c)
			}
			g.Commit("four runs")
			tt.after(t, c)
			res, err := Check(context.Background(), Options{Scope: Scope{Paths: []string{c.Dir}, Getenv: noEnv, Changed: true, Layout: tt.layout}})
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Audits) != tt.runs {
				t.Errorf("%d audits, want %d: %v", len(res.Audits), tt.runs, auditRules(res.Audits))
			}
			for who, rule := range tt.want {
				id := ""
				if who >= 0 {
					id = c.Runs[who].ID
				}
				found := false
				for _, a := range res.Audits {
					if a.RunID == id {
						found = found || slices.ContainsFunc(a.Findings, func(f finding.Finding) bool { return f.Rule == rule })
					}
				}
				if !found {
					t.Errorf("no audit of %q carries %s; audits: %v", id, rule, auditRules(res.Audits))
				}
			}
		})
	}
}

func auditRules(audits []*audit.Audit) map[string][]string {
	out := map[string][]string{}
	for _, a := range audits {
		k := a.RunID + " " + filepath.Base(a.Run)
		out[k] = append(out[k], "")
		for _, f := range a.Findings {
			out[k] = append(out[k], f.Rule)
		}
	}
	return out
}

func mustMkdir(t *testing.T, dir string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
}

func mustRename(t *testing.T, from, to string) {
	t.Helper()
	if err := os.Rename(from, to); err != nil {
		t.Fatal(err)
	}
}

func mustRemove(t *testing.T, dir string) {
	t.Helper()
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
}

func mustWrite(t *testing.T, file, content string) {
	t.Helper()
	if err := os.WriteFile(file, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestChangedReadsWhatChanged: with one run of many edited, --changed
// reads from the base only the folders on the way to the changed file,
// not a tree per run.
func TestChangedReadsWhatChanged(t *testing.T) {
	gittest.Isolate(t)
	g := gittest.Init(t)
	c, err := corpus.Generate(g.Dir, corpus.Options{Runs: 40, Artifacts: corpus.MinArtifacts, Size: 100, Seed: 11})
	if err != nil {
		t.Fatal(err)
	}
	g.Commit("forty runs")
	mustWrite(t, filepath.Join(c.Runs[7].Dir, "README.md"), "edited\n")
	loc := &gitrev.Locator{}
	defer loc.Close()
	res, err := Check(context.Background(), Options{Scope: Scope{Paths: []string{c.Dir}, Getenv: noEnv, Changed: true, Locator: loc}})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Audits) != 1 || res.Audits[0].RunID != c.Runs[7].ID {
		t.Fatalf("audits %v, want the edited run's alone", auditRules(res.Audits))
	}
	repo, err := loc.Repo(c.Dir)
	if err != nil {
		t.Fatal(err)
	}
	// The whole listing asks for every run's folders (more than 40); the
	// run's own history and the folders on the way take a few.
	if n := repo.Requests(); n > 20 {
		t.Errorf("%d objects asked of git for one changed run of 40, want at most 20", n)
	}
}
