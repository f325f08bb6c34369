// The history plan: each run's repository and base, settled before any run
// is checked (one cat-file process per repository, shared by its runs),
// and, for --changed, which runs changed since.

package runner

import (
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/h3a-check/h3a-check/internal/audit"
	"github.com/h3a-check/h3a-check/internal/gitrev"
	"github.com/h3a-check/h3a-check/internal/history"
	"github.com/h3a-check/h3a-check/internal/layout"
	"github.com/h3a-check/h3a-check/internal/rundir"
)

// historyPlan is what the history stage needs, settled before any run is
// checked: the repository and base of every run (one cat-file process per
// repository, shared by all runs), and the runs deleted since the base.
type historyPlan struct {
	locator    *gitrev.Locator
	ownLocator bool // made here, so closed here
	// runs holds the runs inside a work tree, by run directory, each with
	// its repository's base, shared by the runs of the repository; every
	// other run's history is not compared, for outside. A run's path in
	// its repository is worked out again when it is needed (of), so that a
	// check of 100,000 runs keeps a pointer per run, not a path.
	runs    map[string]*repoBase
	outside string
	deleted []*audit.Audit // one per folder that lost runs
	// heldAtBase holds, by absolute path, each searched folder that held
	// a run at its base.
	heldAtBase map[string]bool
	// elsewhere holds, by run directory, the few runs whose history is
	// not their own folder under their own layout: a run moved from
	// another searched folder, a run whose layout changed.
	elsewhere map[string]baseSide
	// copies holds, by run directory, the h3a runs new at their place
	// whose run id names a run the base holds and head still holds, as
	// the display path of that run.
	copies map[string]string
	// layoutForced is --layout: every run is of that layout, at the base too.
	layoutForced bool
	// repos are the repositories opened, one cat-file process each, so
	// that tests and benchmarks can count the processes.
	repos []*gitrev.Repo
	// staged, for a staged check, holds each run's repository and base.
	staged *stagedScope
	// changedFiles holds what --changed already asked git, by repository.
	changedFiles map[*gitrev.Repo][]string
}

// repoBase is a repository and the base its runs are compared with.
type repoBase struct {
	repo *gitrev.Repo
	base gitrev.Base
}

// baseSide is where a run's history is at the base when that is not the
// run's own folder under the run's own layout.
type baseSide struct {
	rel    string // the run's folder at the base, from the repository's top level
	layout string // the run's layout at the base
	from   string // the folder it moved from, as reports name it; "" when it did not move
}

// runBase is where one run's history is read from, or why it is not.
type runBase struct {
	repo *gitrev.Repo
	base gitrev.Base
	rel  string // the run's folder, relative to the repository's top level
	skip string // why the history is not compared ("" when it is)
}

const notWorkTreeSkip = "the run is not inside a git work tree; check it inside the repository that holds it (or pass --base none to say there is no history)"

// planHistory resolves each run's base. The default base is skipped, with
// a reason, where there is no history to compare; an explicit one that
// cannot be used, or a base the clone does not hold, is an error: the tool
// could not check.
func planHistory(scope Scope, maxRead int64, staged *stagedScope, changed *changedScope, paths []string, runs []rundir.Run) (*historyPlan, error) {
	hp := &historyPlan{runs: map[string]*repoBase{}, elsewhere: map[string]baseSide{}, locator: scope.Locator, outside: notWorkTreeSkip, layoutForced: scope.Layout != ""}
	if hp.locator == nil {
		hp.locator, hp.ownLocator = &gitrev.Locator{}, true
	}
	if scope.Base == gitrev.None {
		hp.outside = gitrev.NoneSkip
		return hp, nil
	}
	if staged != nil {
		if err := hp.fromStaged(staged, maxRead); err != nil {
			return nil, err
		}
		return hp, nil
	}
	if scope.Base != "" {
		if err := gitrev.CheckRev(scope.Base); err != nil {
			return nil, optionError(OptionBase, "%w", err)
		}
	}
	bf := newBaseFinder(hp, scope, maxRead, changed)
	headRuns, err := bf.headRuns(runs)
	if err != nil {
		hp.close()
		return nil, err
	}
	listings, err := bf.listings(paths, changed)
	if err != nil {
		hp.close()
		return nil, err
	}
	if err := hp.pairWithBase(headRuns, listings, changed); err != nil {
		hp.close()
		return nil, err
	}
	return hp, nil
}

// fromStaged: a staged check knows each run's repository and base
// already, and which runs the commit deletes. It lists no folder at the
// base, so every h3a run is looked up by name there (pairBeyondListings).
func (hp *historyPlan) fromStaged(staged *stagedScope, maxRead int64) error {
	hp.staged = staged
	for _, at := range staged.at {
		if !slices.Contains(hp.repos, at.repo) {
			at.repo.MaxRead = maxRead
			hp.repos = append(hp.repos, at.repo)
		}
	}
	h3a := map[*gitrev.Repo][]newAtPlace{}
	for _, r := range staged.runs {
		if at, ok := staged.at[r.Dir]; ok && r.Layout == (layout.H3A{}).ID() && at.base.Commit != "" {
			h3a[at.repo] = append(h3a[at.repo], newAtPlace{run: r, rel: at.rel})
		}
	}
	for repo, runs := range h3a {
		at := staged.at[runs[0].run.Dir]
		b := beyondListings{repo: repo, base: at.base, covered: func(string) bool { return false }, head: at.head, staged: staged, maxRead: maxRead}
		if err := hp.pairBeyondListings(b, runs); err != nil {
			return err
		}
	}
	// A run gone from its place that moved to a run of the commit is
	// reported as moved (the run's own audit), not deleted.
	moved := map[*gitrev.Repo]map[string]bool{}
	for _, r := range staged.runs {
		side, ok := hp.elsewhere[r.Dir]
		if !ok {
			continue
		}
		repo := staged.at[r.Dir].repo
		if moved[repo] == nil {
			moved[repo] = map[string]bool{}
		}
		moved[repo][side.rel] = true
	}
	for _, e := range staged.extra {
		if e.audit != nil {
			hp.deleted = append(hp.deleted, e.audit)
			continue
		}
		var gone []history.RunAt
		for _, r := range e.gone.runs {
			if !moved[e.gone.listing.repo][r.Dir] {
				gone = append(gone, r)
			}
		}
		if a := deletedRuns(e.gone.listing, gone); a != nil {
			hp.deleted = append(hp.deleted, a)
		}
	}
	return nil
}

// baseFinder finds the repository and base of a folder, choosing each
// repository's base once.
type baseFinder struct {
	hp      *historyPlan
	asked   string // --base
	staged  bool
	maxRead int64
	getenv  func(string) string
	bases   map[*gitrev.Repo]*repoBase
}

// newBaseFinder starts from the bases --changed already chose, and the
// files it already asked git for.
func newBaseFinder(hp *historyPlan, scope Scope, maxRead int64, changed *changedScope) *baseFinder {
	getenv := scope.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	bf := &baseFinder{hp: hp, asked: scope.Base, staged: scope.Staged, maxRead: maxRead, getenv: getenv, bases: map[*gitrev.Repo]*repoBase{}}
	if changed != nil {
		for repo, rb := range changed.bases {
			bf.bases[repo] = rb
			hp.repos = append(hp.repos, repo)
		}
		hp.changedFiles = changed.files
	}
	return bf
}

// of returns the repository holding dir (nil outside every work tree),
// its base, and dir relative to its top level.
func (bf *baseFinder) of(dir string) (*gitrev.Repo, gitrev.Base, string, error) {
	repo, err := bf.hp.locator.Repo(dir)
	if errors.Is(err, gitrev.ErrNotWorkTree) {
		if bf.asked != "" {
			return nil, gitrev.Base{}, "", &OptionError{Option: OptionBase, Value: bf.asked, Err: fmt.Errorf("%s is not inside a git work tree", dir)}
		}
		return nil, gitrev.Base{Skip: notWorkTreeSkip}, "", nil
	}
	if err != nil {
		return nil, gitrev.Base{}, "", err
	}
	rb, ok := bf.bases[repo]
	if !ok {
		if rb, err = bf.choose(repo); err != nil {
			return nil, gitrev.Base{}, "", err
		}
	}
	rel, err := repo.Rel(dir)
	return repo, rb.base, rel, err
}

// choose chooses the base of a repository met for the first time.
func (bf *baseFinder) choose(repo *gitrev.Repo) (*repoBase, error) {
	repo.MaxRead = bf.maxRead
	choose := gitrev.ChooseBase
	if bf.staged {
		// A commit of the index is checked against its parent.
		choose = func(repo *gitrev.Repo, _ string, _ func(string) string) (gitrev.Base, error) {
			return gitrev.HeadBase(repo)
		}
	}
	b, err := choose(repo, bf.asked, bf.getenv)
	if err != nil {
		return nil, err
	}
	rb := &repoBase{repo: repo, base: b}
	bf.bases[repo] = rb
	bf.hp.repos = append(bf.hp.repos, repo)
	return rb, nil
}

// headRuns gives each run inside a work tree its repository's base, and
// returns those runs by repository and folder.
func (bf *baseFinder) headRuns(runs []rundir.Run) (map[*gitrev.Repo]map[string]rundir.Run, error) {
	headRuns := map[*gitrev.Repo]map[string]rundir.Run{}
	for _, r := range runs {
		repo, _, rel, err := bf.of(r.Dir)
		if err != nil {
			return nil, err
		}
		if repo == nil {
			continue
		}
		bf.hp.runs[r.Dir] = bf.bases[repo]
		if headRuns[repo] == nil {
			headRuns[repo] = map[string]rundir.Run{}
		}
		headRuns[repo][rel] = r
	}
	return headRuns, nil
}

// listings lists the runs each searched folder holds at its base.
func (bf *baseFinder) listings(paths []string, changed *changedScope) ([]baseListing, error) {
	var listings []baseListing
	for _, p := range holdingFolders(paths) {
		repo, b, rel, err := bf.of(p.abs)
		if err != nil {
			return nil, err
		}
		if repo == nil || b.Commit == "" {
			continue
		}
		atBase, err := runsAtBaseWithin(repo, b.Commit, rel, changed.atBase(repo))
		if err != nil {
			return nil, fmt.Errorf("listing the runs of %s at base %s: %w", p.display, gitrev.Short(b.Commit), err)
		}
		listings = append(listings, baseListing{repo: repo, base: b, rel: rel, display: p.display, runs: atBase})
		// A folder reached through a symbolic link inside the work tree
		// (runs -> .hidden, left by a change that moved runs/ away) is
		// listed as named too: what git held there at the base is what
		// the change replaced with the link.
		if named, ok := namedRel(repo.Root, p.abs); ok && named != rel {
			heldThere, err := runsAtBaseWithin(repo, b.Commit, named, changed.atBase(repo))
			if err != nil {
				return nil, fmt.Errorf("listing the runs of %s at base %s: %w", p.display, gitrev.Short(b.Commit), err)
			}
			listings = append(listings, baseListing{repo: repo, base: b, rel: named, display: p.display, runs: heldThere})
			atBase = append(atBase, heldThere...)
		}
		if len(atBase) > 0 {
			if bf.hp.heldAtBase == nil {
				bf.hp.heldAtBase = map[string]bool{}
			}
			bf.hp.heldAtBase[p.abs] = true
		}
	}
	return listings, nil
}

// of says where the history of the run in dir is read from; a run
// outside every work tree has no repository.
func (hp *historyPlan) of(dir string) (runBase, error) {
	if hp.staged != nil {
		at, ok := hp.staged.at[dir]
		if !ok {
			return runBase{}, nil
		}
		return runBase{repo: at.repo, base: at.base, rel: at.rel, skip: at.base.Skip}, nil
	}
	rb := hp.runs[dir]
	if rb == nil {
		return runBase{}, nil
	}
	rel, err := rb.repo.Rel(dir)
	if err != nil {
		return runBase{}, err
	}
	return runBase{repo: rb.repo, base: rb.base, rel: rel, skip: rb.base.Skip}, nil
}

// touches reports whether the changed entry f (a file, or an untracked
// folder as "dir/") is the entry name, lies below it, or holds it.
func touches(f, name string) bool {
	return f == name || strings.HasPrefix(f, name+"/") || strings.HasSuffix(f, "/") && strings.HasPrefix(name+"/", f)
}

// linkEntry is where git records the run folder that is a symbolic link,
// relative to the top level; "" for a real folder.
func linkEntry(repo *gitrev.Repo, r rundir.Run) string {
	if r.Link == "" {
		return ""
	}
	parent, err := repo.Rel(filepath.Dir(r.Dir))
	if err != nil {
		return ""
	}
	return path.Join(parent, filepath.Base(r.Dir))
}

// throughEntries names, in repo, the folders of the runs a link to runs
// out of the paths leads to (through further links, maybe): a change
// there is a change to what the link shows, though nothing below the
// link changed. unplaced: one of them is out of repo, so whether it
// changed is not known.
func throughEntries(repo *gitrev.Repo, r rundir.Run) (names []string, unplaced bool) {
	if r.Link == "" {
		return nil, false
	}
	for _, t := range r.Through {
		rel, err := repo.Rel(filepath.Join(r.Dir, filepath.FromSlash(t)))
		if err != nil {
			return names, true
		}
		names = append(names, rel)
	}
	return names, false
}

func (hp *historyPlan) close() {
	if hp.ownLocator {
		hp.locator.Close()
	}
}

// catFileProcesses is the number of cat-file processes the check started.
func (hp *historyPlan) catFileProcesses() int {
	n := 0
	for _, r := range hp.repos {
		n += r.Processes()
	}
	return n
}

// changedOnly keeps the runs with a file changed between their base and the
// working tree (untracked files included), or a .gitattributes over them
// (attributesOver). A run whose history is not
// compared (no base) is kept: nothing says it is unchanged. Runs deleted
// since the base are reported by the history plan whatever this keeps.
func (hp *historyPlan) changedOnly(runs []rundir.Run) ([]rundir.Run, error) {
	changed := map[*gitrev.Repo][]string{}
	var kept []rundir.Run
	for _, r := range runs {
		rb, err := hp.of(r.Dir)
		if err != nil {
			return nil, err
		}
		if rb.repo == nil || rb.base.Commit == "" {
			kept = append(kept, r)
			continue
		}
		files, ok := changed[rb.repo]
		if !ok && hp.changedFiles != nil {
			files, ok = hp.changedFiles[rb.repo]
			changed[rb.repo] = files
		}
		if !ok {
			var err error
			if files, err = rb.repo.Changed(rb.base.Commit); err != nil {
				return nil, optionError(OptionChanged, "listing the files changed since %s: %w", gitrev.Short(rb.base.Commit), err)
			}
			changed[rb.repo] = files
		}
		// A run folder that is a symbolic link is one entry to git, the
		// link itself, where rb.rel names the folder it leads to.
		names := []string{rb.rel}
		if link := linkEntry(rb.repo, r); link != "" {
			names = append(names, link)
		}
		through, unplaced := throughEntries(rb.repo, r)
		names = append(names, through...)
		if unplaced || rb.rel == "" || rb.rel == "." || slices.ContainsFunc(files, func(f string) bool {
			return attributesOver(f, rb.rel) || slices.ContainsFunc(names, func(n string) bool { return touches(f, n) })
		}) {
			kept = append(kept, r)
		}
	}
	return kept, nil
}
