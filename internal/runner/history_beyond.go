// The base runs no listing covers: an h3a run new at its place whose
// folder name, its run id, names an h3a run the base holds in a folder the
// check did not list at the base (not searched, or, with --changed and
// --staged, not on the way to a change).

package runner

import (
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/h3a-check/h3a-check/internal/gitrev"
	"github.com/h3a-check/h3a-check/internal/history"
	"github.com/h3a-check/h3a-check/internal/layout"
)

// newAtPlace is an h3a run of head and its folder from the top level.
type newAtPlace struct {
	dir string // the run's folder, as the checker names it (rundir.Run.Dir)
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
}

// pairBeyondListings finds, for each h3a run of runs, the h3a runs of its
// name (runName) the base holds elsewhere: a run id is globally unique, so a run new
// at its place under such a name is a copy of that run when head still
// holds it (copies), and that run moved when head does not (elsewhere:
// its history is compared with that run's). git lists the base's folders
// once per repository, and only when there is an h3a run to look up.
func (hp *historyPlan) pairBeyondListings(b beyondListings, runs []newAtPlace) error {
	h3a := (layout.H3A{}).ID()
	names := map[string]bool{}
	ids := make([][]string, len(runs)) // the names each run goes by
	for i, r := range runs {
		ids[i] = []string{runName(r.rel)}
		if id := stateRunID(b.head, r.rel); id != "" && id != ids[i][0] {
			ids[i] = append(ids[i], id)
		}
		for _, id := range ids[i] {
			names[id] = true
		}
	}
	if len(names) == 0 || b.base.Commit == "" {
		return nil
	}
	folders, err := b.repo.FoldersNamed(b.base.Commit, func(name string) bool { return names[strings.ToLower(name)] })
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
		if _, paired := hp.elsewhere[r.dir]; paired {
			continue
		}
		for _, f := range folders {
			if f == r.rel || !slices.Contains(ids[i], runName(f)) || runAt[f] != h3a {
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
				hp.copies[r.dir] = display
				continue
			}
			if _, paired := hp.elsewhere[r.dir]; !paired {
				hp.elsewhere[r.dir] = baseSide{rel: f, layout: h3a, from: display}
			}
		}
	}
	return nil
}

// runName is the run id an h3a run's folder names, ignoring case: the
// id ends in a uuid, whose hexadecimal digits are one number in either
// case, so two folders whose names differ only in case name one run.
func runName(rel string) string {
	return strings.ToLower(path.Base(rel))
}

// maxStateRead bounds the read of a new run's state.json for its run id.
const maxStateRead = 1 << 20

// stateRunID is the run id a new h3a run's state.json gives, ignoring
// case, or "" when it gives none: a run in a folder not named by its id
// (archive/old-copy/, which is only a warning) still goes by that id.
// Only a regular file is read, never one reached through a link.
func stateRunID(head fs.FS, rel string) string {
	dir := fsName(rel)
	entries, err := fs.ReadDir(head, dir)
	if err != nil {
		return ""
	}
	for _, e := range entries {
		if e.Name() != "state.json" || !e.Type().IsRegular() {
			continue
		}
		f, err := head.Open(path.Join(dir, e.Name()))
		if err != nil {
			return ""
		}
		defer f.Close()
		var state struct {
			RunID string `json:"run_id"`
		}
		if json.NewDecoder(io.LimitReader(f, maxStateRead)).Decode(&state) != nil {
			return ""
		}
		return strings.ToLower(state.RunID)
	}
	return ""
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
