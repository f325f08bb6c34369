package runner

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/h3a-check/h3a-check/internal/audit"
	"github.com/h3a-check/h3a-check/internal/finding"
	"github.com/h3a-check/h3a-check/internal/gitrev"
	"github.com/h3a-check/h3a-check/internal/history"
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
	// processes counts the cat-file processes of every repository, for
	// tests and benchmarks.
	repos []*gitrev.Repo
}

// repoBase is a repository and the base its runs are compared with.
type repoBase struct {
	repo *gitrev.Repo
	base gitrev.Base
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
	hp := &historyPlan{runs: map[string]*repoBase{}, locator: opts.Locator, outside: notWorkTreeSkip}
	if hp.locator == nil {
		hp.locator, hp.ownLocator = &gitrev.Locator{}, true
	}
	if opts.Base == gitrev.None {
		hp.outside = "--base none was given"
		return hp, nil
	}
	if opts.Base != "" {
		if err := gitrev.CheckRev(opts.Base); err != nil {
			return nil, fmt.Errorf("--base: %w", err)
		}
	}
	getenv := opts.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	bases := map[*gitrev.Repo]*repoBase{}
	baseOf := func(dir string) (*gitrev.Repo, gitrev.Base, string, error) {
		repo, err := hp.locator.Repo(dir)
		if errors.Is(err, gitrev.ErrNotWorkTree) {
			if opts.Base != "" {
				return nil, gitrev.Base{}, "", fmt.Errorf("--base %s: %s is not inside a git work tree", opts.Base, dir)
			}
			return nil, gitrev.Base{Skip: notWorkTreeSkip}, "", nil
		}
		if err != nil {
			return nil, gitrev.Base{}, "", err
		}
		rb, ok := bases[repo]
		if !ok {
			repo.MaxRead = opts.MaxJSONSize
			b, err := gitrev.ChooseBase(repo, opts.Base, getenv)
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
	headRuns := map[*gitrev.Repo]map[string]bool{}
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
			headRuns[repo] = map[string]bool{}
		}
		headRuns[repo][rel] = true
	}
	for _, p := range holdingFolders(paths) {
		repo, b, rel, err := baseOf(p.abs)
		if err != nil {
			hp.close()
			return nil, err
		}
		if repo == nil || b.Commit == "" {
			continue
		}
		a, err := deletedRuns(repo, b, rel, p.display, headRuns[repo])
		if err != nil {
			hp.close()
			return nil, fmt.Errorf("listing the runs of %s at base %s: %w", p.display, gitrev.Short(b.Commit), err)
		}
		if a != nil {
			hp.deleted = append(hp.deleted, a)
		}
	}
	return hp, nil
}

// of says where the history of the run in dir is read from; a run
// outside every work tree has no repository.
func (hp *historyPlan) of(dir string) (runBase, error) {
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

// deletedRuns returns an audit of the folder at rel with one finding per run
// it holds at the base and no longer holds; nil when none is gone.
func deletedRuns(repo *gitrev.Repo, b gitrev.Base, rel, display string, head map[string]bool) (*audit.Audit, error) {
	files, err := repo.List(b.Commit, rel)
	if err != nil {
		return nil, err
	}
	// Detection reads at most the start of a file (a hybrid-os state's keys).
	atBase, err := history.RunsAt(gitrev.NewFilesFS(files, func(name string) (data []byte, err error) {
		_, err = repo.Stream(b.Commit, name, func(r io.Reader) error {
			data, err = io.ReadAll(io.LimitReader(r, maxDetectRead))
			return err
		})
		return data, err
	}), rel)
	if err != nil {
		return nil, err
	}
	var found []finding.Finding
	layouts := map[string]bool{}
	for _, r := range atBase {
		run := r.Dir
		if head[run] {
			continue
		}
		layouts[r.Layout] = true
		name := "."
		if run != rel {
			name = strings.TrimPrefix(run[len(rel):], "/")
		}
		state := "is gone"
		if info, err := os.Stat(filepath.Join(repo.Root, filepath.FromSlash(run))); err == nil && info.IsDir() {
			state = "no longer holds a run"
		} else if err != nil && !errors.Is(err, fs.ErrNotExist) {
			state = "cannot be read: " + err.Error()
		}
		f := finding.RunDeleted.New("", "run %q exists at base %s and %s; runs are immutable: people archive them, agents never delete them",
			name, gitrev.Short(b.Commit), state)
		f.Remediation = history.Restore(f.Remediation, gitrev.Short(b.Commit), display, rel, name)
		found = append(found, f)
	}
	if len(found) == 0 {
		return nil, nil
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
	}, nil
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
	checked    bool
	newRun     bool
	reason     string
	violations []any
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
	res, err := history.Compare(head, history.At(rb.repo, rb.base.Commit, rb.rel), rb.base.Commit)
	if err != nil {
		c.fatal.set(fmt.Errorf("reading the base %s of %s: %w", gitrev.Short(rb.base.Commit), dir, err))
		return historyOutcome{reason: err.Error()}
	}
	commit := rb.base.Commit
	out := historyOutcome{base: &commit, checked: !res.New, newRun: res.New}
	if res.New {
		out.reason = "the run is new since the base"
	}
	for i := range res.Findings {
		f := &res.Findings[i]
		c.resolvePosition(s, f)
		if f.Category == finding.CategoryAppendOnly && f.Severity > finding.Info {
			out.violations = append(out.violations, map[string]any{
				"rule": f.Rule, "file": f.File, "line": f.Line, "pointer": f.Pointer, "details": f.Details,
			})
		}
	}
	s.add(res.Findings...)
	return out
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
		if !ok {
			var err error
			if files, err = rb.repo.Changed(rb.base.Commit); err != nil {
				return nil, fmt.Errorf("--changed: listing the files changed since %s: %w", gitrev.Short(rb.base.Commit), err)
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
