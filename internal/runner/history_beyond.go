// The base runs no listing covers: an h3a run new at its place whose run
// id names an h3a run the base holds in a folder the check did not list at
// the base (not searched, or, with --changed and
// --staged, not on the way to a change).

package runner

import (
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/h3a-check/h3a-check/internal/gitrev"
	"github.com/h3a-check/h3a-check/internal/history"
	"github.com/h3a-check/h3a-check/internal/layout"
	"github.com/h3a-check/h3a-check/internal/rundir"
)

// newAtPlace is an h3a run of head and its folder from the top level.
type newAtPlace struct {
	run rundir.Run
	rel string
}

// beyondListings is what the pass needs of one repository's head.
type beyondListings struct {
	repo *gitrev.Repo
	base gitrev.Base
	// covered reports whether a listing of the base covers the folder
	// rel: its runs were paired already.
	covered func(rel string) bool
	// head is the repository as the change records it (the working tree,
	// or a staged snapshot), for telling a copy from a move.
	head fs.FS
	// known: every run given is new at its place; otherwise the base is
	// asked.
	known bool
	// staged and maxRead say where and how far a run's id files are read
	// (readRunIDs).
	staged  *stagedScope
	maxRead int64
}

// pairBeyondListings finds, for each h3a run of runs, the h3a runs the
// base holds elsewhere in a folder named by one of its run ids (runKey:
// its folder's name, and the ids it gives, as duplicate_run_id compares
// them): a run id is globally unique, so a run new at its place under
// such an id is a copy of that run when head still holds it (copies), and
// that run moved when head does not (elsewhere: its history is compared
// with that run's). git lists the base's folders once per repository, and
// only when there is an h3a run to look up.
func (hp *historyPlan) pairBeyondListings(b beyondListings, runs []newAtPlace) error {
	h3a := (layout.H3A{}).ID()
	keys := map[string]bool{}
	ids := make([][]string, len(runs)) // the keys each run goes by
	for i, r := range runs {
		ids[i] = []string{runKey(path.Base(r.rel))}
		for _, id := range readRunIDs(r.run, b.staged, b.maxRead) {
			if k := runKey(id.ID); !slices.Contains(ids[i], k) {
				ids[i] = append(ids[i], k)
			}
		}
		for _, k := range ids[i] {
			keys[k] = true
		}
	}
	if b.base.Commit == "" {
		return nil
	}
	folders, err := b.repo.FoldersNamed(b.base.Commit, func(name string) bool { return keys[runKey(name)] })
	if err != nil {
		return fmt.Errorf("listing the folders of base %s: %w", gitrev.Short(b.base.Commit), err)
	}
	if len(folders) == 0 {
		return nil
	}
	runAt := map[string]string{} // layout of the run the base holds at a folder found
	for _, f := range folders {
		found, err := runsAtBase(b.repo, b.base.Commit, f)
		if err != nil {
			return fmt.Errorf("finding the run %s at base %s: %w", f, gitrev.Short(b.base.Commit), err)
		}
		for _, r := range found {
			if r.Dir == f {
				runAt[f] = r.Layout
			}
		}
	}
	for i, r := range runs {
		if !b.known && runAt[r.rel] != "" {
			continue // the base holds a run at its place: its own history
		}
		if _, paired := hp.elsewhere[r.run.Dir]; paired {
			continue
		}
		for _, f := range folders {
			if f == r.rel || !slices.Contains(ids[i], runKey(path.Base(f))) || runAt[f] != h3a {
				continue
			}
			if b.covered(f) && path.Base(f) == path.Base(r.rel) {
				continue // paired with the listing's run already
			}
			held, err := holdsH3A(b.head, f)
			if err != nil {
				return fmt.Errorf("reading %s: %w", f, err)
			}
			display := topDisplay(b.repo, f)
			if held {
				if hp.copies == nil {
					hp.copies = map[string]string{}
				}
				hp.copies[r.run.Dir] = display
				continue
			}
			if _, paired := hp.elsewhere[r.run.Dir]; !paired {
				hp.elsewhere[r.run.Dir] = baseSide{rel: f, layout: h3a, from: display}
			}
		}
	}
	return nil
}

// runKey is what an h3a run id is told apart by: its UUID in small
// letters (layout.UniqueIDs.IDKey), and any other name in small letters.
func runKey(id string) string {
	return (layout.H3A{}).IDKey(strings.ToLower(id))
}

// holdsH3A reports whether head holds an h3a run in the folder rel.
func holdsH3A(head fs.FS, rel string) (bool, error) {
	found, err := history.RunsAt(head, rel)
	if err != nil {
		return false, err
	}
	return slices.ContainsFunc(found, func(r history.RunAt) bool {
		return r.Dir == rel && r.Layout == (layout.H3A{}).ID()
	}), nil
}

// topDisplay names the folder rel of repo for reports: from the working
// folder when it lies there, else in full.
func topDisplay(repo *gitrev.Repo, rel string) string {
	abs := filepath.Join(repo.Root, filepath.FromSlash(rel))
	if wd, err := os.Getwd(); err == nil {
		if r, err := filepath.Rel(wd, abs); err == nil && filepath.IsLocal(r) {
			return filepath.ToSlash(r)
		}
	}
	return filepath.ToSlash(abs)
}
