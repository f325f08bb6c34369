// The runs at the base: each searched folder's runs listed at its base,
// paired with the runs of the working tree (a layout changed, a run moved)
// and the runs deleted since.

package runner

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/h3a-check/h3a-check/internal/audit"
	"github.com/h3a-check/h3a-check/internal/finding"
	"github.com/h3a-check/h3a-check/internal/gitrev"
	"github.com/h3a-check/h3a-check/internal/history"
	"github.com/h3a-check/h3a-check/internal/layout"
	"github.com/h3a-check/h3a-check/internal/rundir"
)

// baseListing is the runs a searched folder holds at the base.
type baseListing struct {
	repo         *gitrev.Repo
	base         gitrev.Base
	rel, display string
	runs         []history.RunAt
}

// covers reports whether the run at rel is at or below the folder.
func (l baseListing) covers(rel string) bool {
	return l.rel == "" || rel == l.rel || strings.HasPrefix(rel, l.rel+"/")
}

// pairWithBase pairs the runs of head with the runs at the base: a run
// whose layout changed keeps its base layout for the history; a run gone
// from its place whose name (its run id) is in another searched place,
// where the base holds no run, moved there, and its history is read at
// the old place; every other run gone is deleted.
//
// An h3a run new at its place whose name is that of an h3a run the base
// holds where no listing looked (pairBeyondListings) is a copy of it, or
// that run moved.
func (hp *historyPlan) pairWithBase(headRuns map[*gitrev.Repo]map[string]rundir.Run, listings []baseListing, changed *changedScope) error {
	newByName, fresh, err := hp.pairHeadRuns(headRuns, listings)
	if err != nil {
		return err
	}
	hp.pairGoneRuns(headRuns, listings, newByName)
	for repo, runs := range fresh {
		within := changed.atBase(repo)
		covered := func(rel string) bool {
			return slices.ContainsFunc(listings, func(l baseListing) bool { return l.repo == repo && l.covers(rel) }) && (within == nil || within(rel))
		}
		rb := hp.runs[runs[0].run.Dir]
		b := beyondListings{repo: repo, base: rb.base, covered: covered, head: os.DirFS(repo.Root), known: true, maxRead: repo.MaxRead}
		if err := hp.pairBeyondListings(b, runs); err != nil {
			return err
		}
	}
	return nil
}

// pairHeadRuns notes each run of head whose layout changed since the base,
// and returns the runs new at their place that a listing covers, by
// repository and name, and the h3a runs new at their place, by repository.
func (hp *historyPlan) pairHeadRuns(headRuns map[*gitrev.Repo]map[string]rundir.Run, listings []baseListing) (map[*gitrev.Repo]map[string][]string, map[*gitrev.Repo][]newAtPlace, error) {
	atBase := map[*gitrev.Repo]map[string]string{} // layout by folder
	for _, l := range listings {
		if atBase[l.repo] == nil {
			atBase[l.repo] = map[string]string{}
		}
		for _, r := range l.runs {
			atBase[l.repo][r.Dir] = r.Layout
		}
	}
	// A run that no listing covers (a file was named) is looked up alone.
	newByName := map[*gitrev.Repo]map[string][]string{}
	fresh := map[*gitrev.Repo][]newAtPlace{}
	for repo, runs := range headRuns {
		rb := hp.runs[firstDir(runs)]
		for _, rel := range slices.Sorted(maps.Keys(runs)) {
			r := runs[rel]
			covered := slices.ContainsFunc(listings, func(l baseListing) bool { return l.repo == repo && l.covers(rel) })
			baseLayout, existed := atBase[repo][rel]
			if !covered && rb.base.Commit != "" {
				found, err := runsAtBase(repo, rb.base.Commit, rel)
				if err != nil {
					return nil, nil, fmt.Errorf("finding the run %s at base %s: %w", r.Display, gitrev.Short(rb.base.Commit), err)
				}
				for _, f := range found {
					if f.Dir == rel {
						baseLayout, existed = f.Layout, true
					}
				}
			}
			if !existed && rb.base.Commit != "" && r.Layout == (layout.H3A{}).ID() {
				fresh[repo] = append(fresh[repo], newAtPlace{run: r, rel: rel})
			}
			switch {
			case existed && baseLayout != r.Layout && !hp.layoutForced:
				hp.elsewhere[r.Dir] = baseSide{rel: rel, layout: baseLayout}
			case !existed && covered:
				if newByName[repo] == nil {
					newByName[repo] = map[string][]string{}
				}
				name := path.Base(rel)
				newByName[repo][name] = append(newByName[repo][name], rel)
			}
		}
	}
	return newByName, fresh, nil
}

// pairGoneRuns pairs each run gone from its place at the base with the
// one run of its name new elsewhere, if there is one; every other run
// gone is deleted.
func (hp *historyPlan) pairGoneRuns(headRuns map[*gitrev.Repo]map[string]rundir.Run, listings []baseListing, newByName map[*gitrev.Repo]map[string][]string) {
	moved := map[*gitrev.Repo]map[string]bool{} // base folders paired with a run elsewhere
	for _, l := range listings {
		var gone []history.RunAt
		for _, r := range l.runs {
			if _, ok := headRuns[l.repo][r.Dir]; ok {
				hp.noteCopies(l, r, newByName[l.repo][path.Base(r.Dir)], headRuns[l.repo])
				continue
			}
			if moved[l.repo][r.Dir] {
				continue
			}
			// The same run elsewhere: one candidate only, so that two
			// copies cannot both claim one history.
			if to := newByName[l.repo][path.Base(r.Dir)]; len(to) == 1 {
				h := headRuns[l.repo][to[0]]
				if _, taken := hp.elsewhere[h.Dir]; !taken {
					if moved[l.repo] == nil {
						moved[l.repo] = map[string]bool{}
					}
					moved[l.repo][r.Dir] = true
					side := baseSide{rel: r.Dir, layout: r.Layout, from: path.Join(l.display, l.name(r.Dir))}
					if hp.layoutForced {
						side.layout = h.Layout
					}
					hp.elsewhere[h.Dir] = side
					continue
				}
			}
			gone = append(gone, r)
		}
		if a := deletedRuns(l, gone); a != nil {
			hp.deleted = append(hp.deleted, a)
		}
	}
}

// noteCopies notes each h3a run new at its place whose folder has the
// name of the base's run r, which is still in place: an h3a run's folder
// is named by its run id, and a run id is globally unique, so the new
// run is a copy of r, and nothing the change writes shows which of the
// two its id names.
func (hp *historyPlan) noteCopies(l baseListing, r history.RunAt, sameName []string, head map[string]rundir.Run) {
	if r.Layout != (layout.H3A{}).ID() {
		return
	}
	for _, rel := range sameName {
		if h := head[rel]; h.Layout == (layout.H3A{}).ID() {
			if hp.copies == nil {
				hp.copies = map[string]string{}
			}
			hp.copies[h.Dir] = path.Join(l.display, l.name(r.Dir))
		}
	}
}

// name is the run at rel as its folder's reports name it.
func (l baseListing) name(rel string) string {
	if rel == l.rel {
		return "."
	}
	return strings.TrimPrefix(rel[len(l.rel):], "/")
}

func firstDir(runs map[string]rundir.Run) string {
	for _, r := range runs {
		return r.Dir
	}
	return ""
}

type folder struct{ abs, display string }

// maxDetectRead is more than run detection reads of a file at the base.
const maxDetectRead = 1<<20 + 1

// holdingFolders are the folders among the PATHs: only there can a run
// have gone missing. A folder that is a run, or inside one, is one too,
// since a run may hold another and a folder can be made to look like a run.
func holdingFolders(paths []string) []folder {
	var out []folder
	seen := map[string]bool{}
	for _, p := range paths {
		abs, err := filepath.Abs(p)
		if err != nil || seen[abs] {
			continue
		}
		if info, err := os.Stat(abs); err != nil || !info.IsDir() {
			continue
		}
		seen[abs] = true
		out = append(out, folder{abs: abs, display: filepath.ToSlash(p)})
	}
	return out
}

// namedRel is abs relative to the repository's top level as named, with
// no symbolic link below the top level resolved: from the outermost
// folder on the way to abs that is the top level once resolved. It is not
// ok when no folder on the way is.
func namedRel(root, abs string) (string, bool) {
	var top string
	for dir := abs; ; dir = filepath.Dir(dir) {
		if resolved, err := filepath.EvalSymlinks(dir); err == nil && resolved == root {
			top = dir
		}
		if filepath.Dir(dir) == dir {
			break
		}
	}
	if top == "" {
		return "", false
	}
	rel, err := filepath.Rel(top, abs)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", false
	}
	if rel == "." {
		return "", true
	}
	return filepath.ToSlash(rel), true
}

// runsAtBase lists the runs at or below rel at the base commit.
func runsAtBase(repo *gitrev.Repo, commit, rel string) ([]history.RunAt, error) {
	return runsAtBaseWithin(repo, commit, rel, nil)
}

// runsAtBaseWithin is runsAtBase looking only at the folders within
// accepts (relative to the top level): with --changed, those that held a
// changed file, where alone a run can have gone or moved. Nil within
// looks everywhere.
func runsAtBaseWithin(repo *gitrev.Repo, commit, rel string, within func(string) bool) ([]history.RunAt, error) {
	// Detection reads at most the start of a file (a hybrid-os state's keys).
	readStart := func(name string) (data []byte, err error) {
		_, err = repo.Stream(commit, name, func(r io.Reader) error {
			data, err = io.ReadAll(io.LimitReader(r, maxDetectRead))
			return err
		})
		return data, err
	}
	if within == nil {
		files, err := repo.List(commit, rel)
		if err != nil {
			return nil, err
		}
		return history.RunsAt(gitrev.NewFilesFS(files, readStart), rel)
	}
	dir := rel
	if dir == "" {
		dir = "."
	}
	fsys := gitrev.NewTreeFS(repo, commit, readStart)
	if info, err := fsys.Stat(dir); errors.Is(err, fs.ErrNotExist) || (err == nil && !info.IsDir()) {
		return nil, nil // the revision has no such folder: it held no run
	} else if err != nil {
		return nil, err
	}
	found, err := rundir.SearchWithin(fsys, dir, layout.Detectors(), within)
	if err != nil {
		return nil, err
	}
	runs := make([]history.RunAt, 0, len(found))
	for _, f := range found {
		d := f.Dir
		if d == "." {
			d = ""
		}
		runs = append(runs, history.RunAt{Dir: d, Layout: f.Layout})
	}
	return runs, nil
}

// deletedRuns returns an audit of the folder l with one finding per run
// of gone; nil when none is gone.
func deletedRuns(l baseListing, gone []history.RunAt) *audit.Audit {
	repo, b, rel, display := l.repo, l.base, l.rel, l.display
	var found []finding.Finding
	layouts := map[string]bool{}
	for _, r := range gone {
		run := r.Dir
		layouts[r.Layout] = true
		name := l.name(run)
		state := "is gone"
		if info, err := os.Stat(filepath.Join(repo.Root, filepath.FromSlash(run))); err == nil && info.IsDir() {
			state = "no longer holds a run"
		} else if err != nil && !errors.Is(err, fs.ErrNotExist) {
			state = "cannot be read: " + err.Error()
		}
		f := finding.RunDeleted.New("", "run %q exists at base %s and %s; runs are immutable: people archive them, agents never delete them",
			name, gitrev.Short(b.Commit), state)
		f.Remediation = history.FillRestoreCommands(f.Remediation, history.BaseVersion{Commit: gitrev.Short(b.Commit), Dir: display, RepoDir: rel, Target: name})
		found = append(found, f)
	}
	if len(found) == 0 {
		return nil
	}
	base := b.Commit
	layout := ""
	if len(layouts) == 1 {
		for l := range layouts {
			layout = l
		}
	}
	return &audit.Audit{
		Run:      display,
		Layout:   layout,
		Base:     &base,
		Findings: found,
		Inputs:   audit.Inputs{},
		Notes:    fmt.Sprintf("%d run%s deleted since base %s", len(found), plural(len(found)), gitrev.Short(base)),
	}
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}
