package runner

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/h3a-check/h3a-check/internal/audit"
	"github.com/h3a-check/h3a-check/internal/finding"
	"github.com/h3a-check/h3a-check/internal/gitrev"
	"github.com/h3a-check/h3a-check/internal/history"
	"github.com/h3a-check/h3a-check/internal/jsonpos"
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
	// elsewhere holds, by run directory, the few runs whose history is
	// not their own folder under their own layout: a run moved from
	// another searched folder, a run whose layout changed.
	elsewhere map[string]baseSide
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
func planHistory(opts Options, paths []string, runs []rundir.Run) (*historyPlan, error) {
	hp := &historyPlan{runs: map[string]*repoBase{}, elsewhere: map[string]baseSide{}, locator: opts.Locator, outside: notWorkTreeSkip, layoutForced: opts.Layout != ""}
	if hp.locator == nil {
		hp.locator, hp.ownLocator = &gitrev.Locator{}, true
	}
	if opts.Base == gitrev.None {
		hp.outside = "--base none was given"
		return hp, nil
	}
	if opts.staged != nil {
		// A staged check knows each run's repository and base already,
		// and which runs the commit deletes.
		hp.staged = opts.staged
		for _, at := range opts.staged.at {
			if !slices.Contains(hp.repos, at.repo) {
				at.repo.MaxRead = opts.MaxJSONSize
				hp.repos = append(hp.repos, at.repo)
			}
		}
		hp.deleted = opts.staged.extra
		return hp, nil
	}
	if opts.Base != "" {
		if err := gitrev.CheckRev(opts.Base); err != nil {
			return nil, optionError(OptionBase, "%w", err)
		}
	}
	getenv := opts.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	bases := map[*gitrev.Repo]*repoBase{}
	if opts.changed != nil {
		for repo, rb := range opts.changed.bases {
			bases[repo] = rb
			hp.repos = append(hp.repos, repo)
		}
		hp.changedFiles = opts.changed.files
	}
	baseOf := func(dir string) (*gitrev.Repo, gitrev.Base, string, error) {
		repo, err := hp.locator.Repo(dir)
		if errors.Is(err, gitrev.ErrNotWorkTree) {
			if opts.Base != "" {
				return nil, gitrev.Base{}, "", &OptionError{Option: OptionBase, Value: opts.Base, Err: fmt.Errorf("%s is not inside a git work tree", dir)}
			}
			return nil, gitrev.Base{Skip: notWorkTreeSkip}, "", nil
		}
		if err != nil {
			return nil, gitrev.Base{}, "", err
		}
		rb, ok := bases[repo]
		if !ok {
			repo.MaxRead = opts.MaxJSONSize
			choose := gitrev.ChooseBase
			if opts.Staged {
				// A commit of the index is checked against its parent.
				choose = func(repo *gitrev.Repo, _ string, _ func(string) string) (gitrev.Base, error) {
					return gitrev.HeadBase(repo)
				}
			}
			b, err := choose(repo, opts.Base, getenv)
			if err != nil {
				return nil, gitrev.Base{}, "", err
			}
			rb = &repoBase{repo: repo, base: b}
			bases[repo] = rb
			hp.repos = append(hp.repos, repo)
		}
		rel, err := repo.Rel(dir)
		return repo, rb.base, rel, err
	}
	headRuns := map[*gitrev.Repo]map[string]rundir.Run{}
	for _, r := range runs {
		repo, _, rel, err := baseOf(r.Dir)
		if err != nil {
			hp.close()
			return nil, err
		}
		if repo == nil {
			continue
		}
		hp.runs[r.Dir] = bases[repo]
		if headRuns[repo] == nil {
			headRuns[repo] = map[string]rundir.Run{}
		}
		headRuns[repo][rel] = r
	}
	var listings []baseListing
	for _, p := range holdingFolders(paths) {
		repo, b, rel, err := baseOf(p.abs)
		if err != nil {
			hp.close()
			return nil, err
		}
		if repo == nil || b.Commit == "" {
			continue
		}
		atBase, err := runsAtBaseWithin(repo, b.Commit, rel, opts.changed.atBase(repo))
		if err != nil {
			hp.close()
			return nil, fmt.Errorf("listing the runs of %s at base %s: %w", p.display, gitrev.Short(b.Commit), err)
		}
		listings = append(listings, baseListing{repo: repo, base: b, rel: rel, display: p.display, runs: atBase})
	}
	if err := hp.pairWithBase(headRuns, listings); err != nil {
		hp.close()
		return nil, err
	}
	return hp, nil
}

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
func (hp *historyPlan) pairWithBase(headRuns map[*gitrev.Repo]map[string]rundir.Run, listings []baseListing) error {
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
	for repo, runs := range headRuns {
		rb := hp.runs[firstDir(runs)]
		for rel, r := range runs {
			covered := slices.ContainsFunc(listings, func(l baseListing) bool { return l.repo == repo && l.covers(rel) })
			baseLayout, existed := atBase[repo][rel]
			if !covered && rb.base.Commit != "" {
				found, err := runsAtBase(repo, rb.base.Commit, rel)
				if err != nil {
					return fmt.Errorf("finding the run %s at base %s: %w", r.Display, gitrev.Short(rb.base.Commit), err)
				}
				for _, f := range found {
					if f.Dir == rel {
						baseLayout, existed = f.Layout, true
					}
				}
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
	moved := map[*gitrev.Repo]map[string]bool{} // base folders paired with a run elsewhere
	for _, l := range listings {
		var gone []history.RunAt
		for _, r := range l.runs {
			if _, ok := headRuns[l.repo][r.Dir]; ok || moved[l.repo][r.Dir] {
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
	return nil
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

// historyOutcome is the history stage's part of the policy input.
type historyOutcome struct {
	base       *string
	baseFrom   string // which revision base is and why
	checked    bool
	newRun     bool
	reason     string
	violations []any
	// events gives, by gates ledger, the provenance of each event the
	// base does not hold, by line; every other event is the base's. A
	// ledger it does not name had no history compared.
	events map[string]map[int]string
	// at is where the history was read from, and held the run's
	// append-only files the base holds; at.repo is nil when the history
	// was not compared.
	at   runBase
	held map[string]bool
}

func (h historyOutcome) input() map[string]any {
	var base any
	if h.base != nil {
		base = *h.base
	}
	v := h.violations
	if v == nil {
		v = []any{}
	}
	return map[string]any{"base": base, "checked": h.checked, "new_run": h.newRun, "reason": h.reason, "violations": v}
}

// fatal keeps the first error that stops the whole check.
type fatal struct {
	mu  sync.Mutex
	err error
}

func (f *fatal) set(err error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.err == nil {
		f.err = err
	}
}

func (f *fatal) get() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.err
}

// compareHistory is stage 5: the run's append-only files against the base.
// display is the run's folder as reports name it.
func (c *checker) compareHistory(s *runState, dir, display string) historyOutcome {
	rb, err := c.hist.of(dir)
	if err != nil {
		c.fatal.set(fmt.Errorf("finding the repository path of %s: %w", dir, err))
		return historyOutcome{reason: err.Error()}
	}
	if rb.skip != "" || rb.repo == nil {
		reason := rb.skip
		if reason == "" {
			reason = c.hist.outside
		}
		s.add(finding.HistoryNotCompared.New("", "history not compared: %s", reason))
		return historyOutcome{reason: reason}
	}
	head := history.Head{Layout: s.lay.ID(), Run: s.run, Open: history.OpenIn(s.root), Sums: s.inputs, Dir: display, RepoDir: rb.rel}
	side, elsewhere := c.hist.elsewhere[dir]
	if elsewhere {
		head.RepoDir = side.rel
	}
	docs := s // whose documents the comparison's findings point into
	var found []finding.Finding
	if elsewhere && side.layout != s.lay.ID() {
		// The base's layout decides what is compared: deleting a run's
		// append-only files and adding another layout's must not make a
		// run with history a new one.
		docs = c.loadAs(s, layout.ByID(side.layout))
		head.Layout, head.Run, head.BaseLayout = side.layout, docs.run, true
		f := finding.LayoutChanged.New("", "the run's layout is %s at base %s and %s in head: a run keeps its layout, so its %s files are compared with the base",
			side.layout, gitrev.Short(rb.base.Commit), s.lay.ID(), side.layout)
		restoreDir := display
		if side.from != "" {
			restoreDir = side.from
		}
		f.Remediation = history.FillRestoreCommands(f.Remediation, history.BaseVersion{Commit: gitrev.Short(rb.base.Commit), Dir: restoreDir, RepoDir: side.rel})
		found = append(found, f)
	}
	res, err := history.Compare(head, history.At(rb.repo, rb.base.Commit, head.RepoDir), rb.base.Commit)
	if err != nil {
		c.fatal.set(fmt.Errorf("reading the base %s of %s: %w", gitrev.Short(rb.base.Commit), dir, err))
		return historyOutcome{reason: err.Error()}
	}
	res.Findings = append(found, res.Findings...)
	if elsewhere && side.from != "" {
		baseID, err := baseRunID(rb, side)
		if err != nil {
			c.fatal.set(fmt.Errorf("reading the base %s of %s: %w", gitrev.Short(rb.base.Commit), side.from, err))
			return historyOutcome{reason: err.Error()}
		}
		ids := [2]string{baseID, docs.lay.RunID(docs.run)}
		res.Findings = append(res.Findings, moveFinding(side, display, rb.base.Commit, ids, res.Findings))
	}
	commit := rb.base.Commit
	out := historyOutcome{base: &commit, baseFrom: rb.base.From, checked: !res.New, newRun: res.New}
	out.events = c.humans().eventProvenance(s, rb, res)
	out.at, out.held = rb, res.Held
	if res.New {
		out.reason = "the run is new since the base"
	}
	for i := range res.Findings {
		f := &res.Findings[i]
		c.resolvePosition(docs, f)
		if f.Category == finding.CategoryAppendOnly && f.Severity > finding.Info {
			out.violations = append(out.violations, map[string]any{
				"rule": f.Rule, "file": f.File, "line": f.Line, "pointer": f.Pointer, "details": f.Details,
			})
		}
	}
	s.add(res.Findings...)
	return out
}

// loadAs loads the run's files as lay names them, for a comparison with a
// base where the run had that layout. What the load finds wrong is not
// reported: the run is checked under its own layout.
func (c *checker) loadAs(s *runState, lay layout.Layout) *runState {
	as := &runState{lay: lay, root: s.root, run: &layout.Run{Dir: s.run.Dir, Docs: map[string]*rundir.Document{}}, inputs: map[string]string{}, tree: s.tree}
	as.run.Files = layout.Expand(lay.Files(), s.tree)
	c.load(as)
	for p, sum := range s.inputs {
		if _, ok := as.inputs[p]; !ok {
			as.inputs[p] = sum
		}
	}
	return as
}

// moveFinding is what a run moved from another searched folder gets: a
// move needs a human when the run's history is intact, since only a person
// archives a run and the change cannot show who moved it; a run whose
// history was rewritten on the way is not the same run, so its old place
// lost a run.
// ids are the run's id at the base and in head, as its layout names it.
func moveFinding(side baseSide, display, commit string, ids [2]string, compared []finding.Finding) finding.Finding {
	short := gitrev.Short(commit)
	deleted := func(why string) finding.Finding {
		d := finding.RunDeleted.New("", "run %q exists at base %s and is gone from there; %q holds a run of that name, but %s: runs are immutable: people archive them, agents never delete them",
			side.from, short, display, why)
		d.Remediation = history.FillRestoreCommands(d.Remediation, history.BaseVersion{Commit: short, Dir: side.from, RepoDir: side.rel})
		return d
	}
	if ids[0] != ids[1] {
		return deleted(fmt.Sprintf("its run id is %q where the base's is %q", ids[1], ids[0]))
	}
	for _, f := range compared {
		if (f.Category == finding.CategoryAppendOnly && f.Severity >= finding.Error) || f.Rule == finding.NotEvaluated.ID {
			return deleted("not with its history (see the history findings)")
		}
	}
	f := finding.RunMoved.New("", "run moved since base %s from %q to %q with its history intact: only a person archives a run, and this change cannot show who moved it",
		short, side.from, display)
	f.NeedsHuman = true
	f.Remediation = strings.Replace(f.Remediation, "git mv NEW OLD", "git mv -- "+shellWord(display)+" "+shellWord(side.from), 1)
	return f
}

// baseRunID is the id of the run at the base place of side, as its layout
// names it there: the layout's JSON documents at the base are read, which
// only a moved run costs.
func baseRunID(rb runBase, side baseSide) (string, error) {
	lay := layout.ByID(side.layout)
	base := history.At(rb.repo, rb.base.Commit, side.rel)
	run := &layout.Run{Dir: filepath.FromSlash(side.rel), Docs: map[string]*rundir.Document{}}
	for _, f := range lay.Files() {
		if f.Kind != layout.JSON || f.IsPattern() {
			continue
		}
		data, exists, err := base.Read(f.Path)
		if gitrev.IsFileError(err) || (err == nil && !exists) {
			continue // nothing there to name the run
		}
		if err != nil {
			return "", err
		}
		doc, _ := jsonpos.Parse(data)
		if doc == nil {
			continue
		}
		run.Docs[f.Path] = &rundir.Document{Path: f.Path, Present: true, Data: data, Parsed: true, JSON: doc}
	}
	return lay.RunID(run), nil
}

// shellWord quotes s for a POSIX shell unless it is a plain path.
func shellWord(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._/:@+-") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// changedOnly keeps the runs with a file changed between their base and the
// working tree (untracked files included). A run whose history is not
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
		prefix := rb.rel + "/"
		if slices.ContainsFunc(files, func(f string) bool { return rb.rel == "" || rb.rel == "." || strings.HasPrefix(f, prefix) }) {
			kept = append(kept, r)
		}
	}
	return kept, nil
}
