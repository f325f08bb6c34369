package runner

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"

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
		opts.Paths, opts.Getenv = []string{c.Dir}, noEnv
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
	got := checked(Options{Changed: true})
	// The deleted run's audit is the folder's, named after the folder.
	if !slices.Contains(got, edited.ID) || !slices.Contains(got, untracked.ID) || slices.Contains(got, untouched.ID) {
		t.Errorf("--changed checked %v; want %s and %s, not %s", got, edited.ID, untracked.ID, untouched.ID)
	}
	if len(got) != 3 {
		t.Errorf("--changed: %d audits %v, want the 2 changed runs and the folder that lost a run", len(got), got)
	}
	if all := checked(Options{Changed: true, Base: "none"}); len(all) != 3 {
		t.Errorf("--changed without a base checks every run present: got %v", all)
	}
}
