// Package runner is the checking pipeline. For every run it performs, in
// order:
//
//  1. discover – map each PATH to runs (rundir.Discover) and detect layouts;
//  2. load     – read every file the layout names, confined to the run;
//     parse JSON once with positions and Markdown ledgers with line numbers;
//  3. schema   – validate each JSON document against its embedded schema;
//  4. integrity – re-hash every logged artifact on the shared hashing pool
//     (started right after loading so hashing overlaps the other stages),
//     and flag leftover *.tmp files;
//  5. history  – compare append-only files with the base revision;
//  6. policy   – evaluate the Rego policies over the run's input document;
//  7. verdict  – apply the configured waivers and severity overrides to the
//     complete findings, then decide the gate and fill the audit.
//
// No stage aborts the run: each one reports findings, and a stage that lacks
// a document it needs says "not evaluated" instead of guessing.
package runner

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unique"

	"github.com/h3a-check/h3a-check/internal/atomicfile"
	"github.com/h3a-check/h3a-check/internal/audit"
	"github.com/h3a-check/h3a-check/internal/evidence"
	"github.com/h3a-check/h3a-check/internal/finding"
	"github.com/h3a-check/h3a-check/internal/gitrev"
	"github.com/h3a-check/h3a-check/internal/jsonpos"
	"github.com/h3a-check/h3a-check/internal/layout"
	"github.com/h3a-check/h3a-check/internal/policy"
	"github.com/h3a-check/h3a-check/internal/rundir"
	"github.com/h3a-check/h3a-check/internal/schema"
	"github.com/h3a-check/h3a-check/internal/waiver"
	"github.com/h3a-check/h3a-check/internal/yamlpos"
)

// DefaultMaxJSONSize bounds every parsed document (JSON and Markdown).
const DefaultMaxJSONSize = 64 << 20

// Options configure one check.
type Options struct {
	Paths       []string
	Layout      string // force a layout ("" = detect)
	MaxJSONSize int64  // 0 = DefaultMaxJSONSize
	Workers     int    // 0 = GOMAXPROCS
	ToolName    string
	ToolVersion string
	Timestamp   string // recorded in every audit when not empty
	// FailLevel is the lowest severity that fails a gate (Error by default).
	FailLevel finding.Severity
	// KeepInputs keeps each run's policy input document in the result.
	KeepInputs bool
	// Params are merged over DefaultParams into the policy input.
	Params map[string]any
	// MinHashDigits is the fewest hex digits a logged hash may have (the
	// configuration's evidence: min-hash-digits); 0 leaves the spec's 16.
	MinHashDigits int
	// Severity replaces the severity of every finding of a rule id.
	Severity map[string]finding.Severity
	// Waivers accept findings for a while; nil means none.
	Waivers *waiver.Set
	// Base is the revision append-only files are compared with: "" for the
	// default (HEAD inside a work tree; on a GitHub Actions pull_request
	// event, the merge base with the pull request's base), "none" to skip,
	// or any revision git understands.
	Base string
	// Getenv reads the environment for the GitHub Actions event; nil means
	// os.Getenv.
	Getenv func(string) string
	// TrustWorkingTree reads repository-local policies and configuration
	// from the working tree even when a base is in use; recorded in every
	// audit.
	TrustWorkingTree bool
	// Humans says when a human decision recorded in a run counts (see
	// Humans); nil: none the change under review adds does.
	Humans *Humans
	// Sources records where configuration and policies were read from, in
	// every audit.
	Sources []audit.Source
	// Locator finds repositories; pass the one the caller used for its
	// trust decisions so each repository is opened once. nil: the check
	// makes its own.
	Locator *gitrev.Locator
	// PolicyDirs are --policy folders of user rules; PolicyTimeout bounds
	// each run's policy evaluation (0 = policy.DefaultTimeout); PolicyDebug
	// receives print() output of the policies when set.
	PolicyDirs []string
	// PolicySources gives, for some PolicyDirs, the file system they are
	// read from instead of the disk (their version at the base revision).
	PolicySources map[string]fs.FS
	PolicyTimeout time.Duration
	PolicyDebug   io.Writer
	// Changed keeps only the runs with a file changed between the base and
	// the working tree (runs without a base are kept).
	Changed bool
	// Staged checks what a commit of the index would record, against
	// HEAD: only the runs holding a staged change (a file added, changed
	// or deleted) under the paths, and the runs the commit deletes. The
	// runs are read from the index, whatever the working tree holds. A
	// commit that touches no run checks nothing and is no error. When
	// pre-commit names a range (PRE_COMMIT_FROM_REF, PRE_COMMIT_TO_REF)
	// the runs changed in it are checked as of its end, against its
	// start; when nothing is staged under pre-commit or in CI (pre-commit
	// run --all-files) every run is. The caller leaves Base empty.
	Staged bool
	// staged is what a staged check reads, found by Check.
	staged *stagedScope
	// changed, for --changed with a base, is what git said changed.
	changed *changedScope
	// Shard keeps only the runs of one part of the discovered runs (the
	// zero Shard keeps all). A shard holding none of them is no error.
	Shard Shard
	// RuleChanges are findings about the rules and configuration themselves
	// (the change under review edits them), reported in an audit of their
	// own whose run is ".", files relative to the working directory.
	RuleChanges []finding.Finding
	// Reports are the files the caller will write reports to (--output):
	// one inside a run would become part of the run, so Check refuses it.
	Reports []string
	// Discovered, when set, is told how many runs will be checked, before
	// the first one is (the CLI sizes the garbage collector by it).
	Discovered func(runs int)
	// Emit, when set, receives every audit as soon as it and every audit
	// before it are done, in report order, and the result keeps none: a
	// check of any number of runs then holds only the audits of the runs
	// being checked. An error from Emit ends the check with that error.
	Emit func(*audit.Audit) error
}

// ErrNoRuns means the paths named no run: the check did not happen.
var ErrNoRuns = errors.New("no run found")

// Result is the outcome of one check. Audits may share parts (equal Policy
// maps are one map): treat them as read-only.
type Result struct {
	// Rules are every rule the policy stage could report (shipped and user).
	Rules []finding.Rule
	// Audits are the audits of every run, in report order, unless
	// Options.Emit took them.
	Audits []*audit.Audit
	Inputs []map[string]any // per audit, when Options.KeepInputs
	// Runs counts the audits, Audits kept or not.
	Runs int
	// StagedMode and StagedWhat say what a staged check read.
	StagedMode StagedMode
	StagedWhat string
	// CatFileProcesses counts the git cat-file processes started to read
	// base revisions: at most one per repository.
	CatFileProcesses int
	gate             string
}

// Gate is the overall gate of all runs.
func (r *Result) Gate() string {
	if r.gate == "" {
		return audit.Pass // no run was checked
	}
	return r.gate
}

// Check runs the whole pipeline over opts.Paths. An error means the tool
// could not check (unreadable path, no run, broken embedded schema).
func Check(ctx context.Context, opts Options) (*Result, error) {
	if opts.MaxJSONSize <= 0 {
		opts.MaxJSONSize = DefaultMaxJSONSize
	}
	if opts.Workers <= 0 {
		opts.Workers = runtime.GOMAXPROCS(0)
	}
	paths := opts.Paths
	if len(paths) == 0 {
		paths = []string{"."}
	}
	var staged *stagedScope
	if opts.Staged {
		if opts.Locator == nil {
			opts.Locator = &gitrev.Locator{}
			defer opts.Locator.Close()
		}
		getenv := opts.Getenv
		if getenv == nil {
			getenv = os.Getenv
		}
		var err error
		if staged, err = findStaged(opts.Locator, paths, getenv, opts.Layout); err != nil {
			return nil, err
		}
		defer staged.close()
		if len(staged.runs) == 0 && len(staged.extra) == 0 {
			// The change lies outside every run; a policy it breaks
			// is still reported.
			if staged.changes > 0 {
				if _, err := loadPolicies(ctx, opts).wait(); err != nil {
					return nil, err
				}
			}
			return &Result{StagedMode: staged.mode, StagedWhat: staged.what}, nil
		}
		opts.staged = staged
	}
	// The policies load while the runs are found, read and hashed: each
	// run waits for them only when it reaches the policy stage.
	policies := loadPolicies(ctx, opts)
	var runs []rundir.Run
	var err error
	if staged != nil {
		runs = staged.runs
	} else if opts.Changed && opts.Base != gitrev.None {
		if opts.Locator == nil {
			opts.Locator = &gitrev.Locator{}
			defer opts.Locator.Close()
		}
		getenv := opts.Getenv
		if getenv == nil {
			getenv = os.Getenv
		}
		if opts.changed, err = findChanged(opts, paths, getenv); err != nil {
			return nil, err
		}
		if runs, err = opts.changed.discover(paths, opts.Layout, layout.Detectors()); err != nil {
			return nil, err
		}
	} else if runs, err = rundir.Discover(paths, layout.Detectors(), opts.Layout); err != nil {
		return nil, err
	}
	if err := reportsOutsideRuns(opts.Reports, runs); err != nil {
		return nil, err
	}
	// So do the schemas of the layouts found, and only those.
	schemas, err := schema.Default()
	if err != nil {
		return nil, fmt.Errorf("embedded schemas: %w", err)
	}
	schemas.Prepare(schemaNames(runs)...)
	hist, err := planHistory(opts, paths, runs)
	if err != nil {
		return nil, err
	}
	defer hist.close()
	if len(runs) == 0 && len(hist.deleted) == 0 {
		// --changed looked only where files changed: whether the paths
		// hold a run at all takes the whole search.
		if opts.changed == nil {
			return nil, fmt.Errorf("%w in %s: %s", ErrNoRuns, strings.Join(paths, ", "), layoutsDefined())
		}
		all, err := rundir.Discover(paths, layout.Detectors(), opts.Layout)
		if err != nil {
			return nil, err
		}
		if len(all) == 0 {
			return nil, fmt.Errorf("%w in %s: %s", ErrNoRuns, strings.Join(paths, ", "), layoutsDefined())
		}
	}
	if opts.Changed {
		if runs, err = hist.changedOnly(runs); err != nil {
			return nil, err
		}
	}
	runs = opts.Shard.Select(runs)
	deleted := hist.deleted
	if len(opts.RuleChanges) > 0 {
		deleted = append(deleted, rulesAudit(opts.RuleChanges))
	}
	if !opts.Shard.All() && opts.Shard.Index != 1 {
		deleted = nil // the first shard reports deleted runs and rule changes, so each is reported once
	}
	if opts.Discovered != nil {
		opts.Discovered(len(runs))
	}
	c := &checker{opts: opts, policyLoad: policies, hasher: evidence.NewHasher(opts.Workers), hist: hist}
	defer c.hasher.Close()

	res := &Result{gate: audit.Pass}
	if staged != nil {
		res.StagedMode, res.StagedWhat = staged.mode, staged.what
	}
	if opts.KeepInputs {
		res.Inputs = make([]map[string]any, 0, len(runs))
	}
	emit := func(a *audit.Audit, input map[string]any) error {
		res.Runs++
		switch {
		case a.Gate == audit.Fail:
			res.gate = audit.Fail
		case a.Gate == audit.NeedsHuman && res.gate == audit.Pass:
			res.gate = audit.NeedsHuman
		}
		if opts.KeepInputs {
			res.Inputs = append(res.Inputs, input)
		}
		if opts.Emit != nil {
			return opts.Emit(a)
		}
		res.Audits = append(res.Audits, a)
		return nil
	}
	if err := c.checkRuns(ctx, runs, emit); err != nil {
		return nil, err
	}
	// A policy that does not compile stops the check even when every run
	// stopped before its policy stage.
	engine, err := policies.wait()
	if err != nil {
		return nil, err
	}
	if err := c.fatal.get(); err != nil {
		return nil, err
	}
	// A shard sees only its runs, so whether a waiver matched anything
	// is known only to a check of them all.
	if opts.Shard.All() {
		deleted = withUnusedWaivers(deleted, opts.Waivers.Unused())
	}
	for _, a := range deleted {
		a.Tool = audit.Tool{Name: opts.ToolName, Version: opts.ToolVersion}
		a.Timestamp = opts.Timestamp
		a.TrustWorkingTree = opts.TrustWorkingTree
		a.Sources = sourcesOrEmpty(opts.Sources)
		a.Finish(c.failLevel(), nil)
		if err := emit(a, nil); err != nil {
			return nil, err
		}
	}
	res.CatFileProcesses = hist.catFileProcesses()
	for _, r := range engine.Rules() {
		res.Rules = append(res.Rules, r.Rule)
	}
	return res, nil
}

// checkRuns checks the runs on opts.Workers goroutines and hands each
// audit to emit in the order of runs. A run starts only while fewer than
// window audits wait for emission, so a slow run holds back at most that
// many finished ones. Nothing is emitted before the policies have loaded:
// a policy that does not compile is the check's error, not a report.
func (c *checker) checkRuns(ctx context.Context, runs []rundir.Run, emit func(*audit.Audit, map[string]any) error) error {
	type done struct {
		i     int
		a     *audit.Audit
		input map[string]any
	}
	window := 4 * c.opts.Workers
	slots := make(chan struct{}, window)
	finished := make(chan done, window)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var wg sync.WaitGroup
	workers := make(chan struct{}, c.opts.Workers)
	go func() {
		defer func() { wg.Wait(); close(finished) }()
		for i, run := range runs {
			runs[i] = rundir.Run{} // what is left to check is all this keeps
			select {
			case slots <- struct{}{}:
			case <-ctx.Done():
				return
			}
			select {
			case workers <- struct{}{}:
			case <-ctx.Done():
				return
			}
			wg.Add(1)
			go func() {
				defer func() { <-workers; wg.Done() }()
				a, input := c.checkRun(ctx, run)
				if !c.opts.KeepInputs {
					input = nil
				}
				finished <- done{i, a, input}
			}()
		}
	}()
	_, policyErr := c.policyLoad.wait()
	waiting := map[int]done{}
	next := 0
	var err error
	for d := range finished {
		waiting[d.i] = d
		for {
			w, ok := waiting[next]
			if !ok {
				break
			}
			delete(waiting, next)
			next++
			<-slots
			if err != nil || policyErr != nil || w.a == nil {
				continue // drain: the check's error is reported instead
			}
			if err = emit(w.a, w.input); err != nil {
				cancel()
			}
		}
	}
	if err != nil {
		return err
	}
	return ctx.Err()
}

// rulesAudit holds the findings about the rules themselves: they concern
// no run, so they get an audit of their own, as deleted runs do.
func rulesAudit(findings []finding.Finding) *audit.Audit {
	findings = finding.SortDedupe(slices.Clone(findings))
	return &audit.Audit{
		Run:      ".",
		Findings: findings,
		Inputs:   audit.Inputs{},
		Notes:    fmt.Sprintf("the change edits %d file%s of the rules and configuration that judge it", len(findings), plural(len(findings))),
	}
}

// withUnusedWaivers adds the unused waivers to the audit of the rules and
// configuration (run "."), made for them when the change edits no rule: a
// waiver is the configuration's, not a run's, so it is reported once.
func withUnusedWaivers(extra []*audit.Audit, unused []finding.Finding) []*audit.Audit {
	if len(unused) == 0 {
		return extra
	}
	note := fmt.Sprintf("%d waiver%s of the configuration match%s no finding", len(unused), plural(len(unused)), map[bool]string{true: "es", false: ""}[len(unused) == 1])
	for _, a := range extra {
		if a.Run == "." {
			a.Findings = finding.SortDedupe(append(a.Findings, unused...))
			a.Notes += "; " + note
			return extra
		}
	}
	return append(extra, &audit.Audit{
		Run:      ".",
		Findings: finding.SortDedupe(slices.Clone(unused)),
		Inputs:   audit.Inputs{},
		Notes:    note,
	})
}

// reportsOutsideRuns refuses a report path inside a run: the report would
// be read as one of the run's files by the next check.
func reportsOutsideRuns(reports []string, runs []rundir.Run) error {
	for _, p := range reports {
		abs, err := filepath.Abs(p)
		if err != nil {
			return err
		}
		for _, r := range runs {
			if rel, err := filepath.Rel(r.Dir, abs); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
				return &OptionError{Option: OptionReports, Value: p, Err: fmt.Errorf("the report is inside the run %s and would become one of the run's files; write it outside the run directories", r.Display)}
			}
		}
	}
	return nil
}

// layoutsDefined says what makes a folder a run, layout by layout, for the
// message that no run was found.
func layoutsDefined() string {
	var defs []string
	for _, l := range layout.All() {
		defs = append(defs, l.Defined())
	}
	return strings.Join(defs, "; ")
}

// schemaNames lists the schemas of the layouts of runs.
func schemaNames(runs []rundir.Run) []string {
	var names []string
	seen := map[string]bool{}
	for _, run := range runs {
		if seen[run.Layout] {
			continue
		}
		seen[run.Layout] = true
		for _, f := range layout.ByID(run.Layout).Files() {
			for _, name := range f.SchemaNames() {
				if !slices.Contains(names, name) {
					names = append(names, name)
				}
			}
		}
	}
	return names
}

type checker struct {
	opts       Options
	policyLoad *pendingPolicies
	hasher     *evidence.Hasher
	hist       *historyPlan
	fatal      fatal
	policies   policyMaps
}

// policyMaps shares one Policy map among the audits whose area results are
// equal, which is most of them: the audits are kept for the report, and a
// map of ten areas is a quarter of what a clean run's audit holds (about
// 850 of 3,500 bytes). Audits are read-only once checked.
type policyMaps struct {
	mu   sync.Mutex
	seen map[string]map[string]string
}

func (p *policyMaps) intern(m map[string]string) map[string]string {
	// The key lists every entry, each string preceded by its length, so
	// that no two different maps can spell the same key.
	var id []byte
	for _, k := range slices.Sorted(maps.Keys(m)) {
		for _, s := range []string{k, m[k]} {
			id = strconv.AppendInt(id, int64(len(s)), 10)
			id = append(id, ':')
			id = append(id, s...)
		}
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if shared, ok := p.seen[string(id)]; ok {
		return shared
	}
	if p.seen == nil {
		p.seen = map[string]map[string]string{}
	}
	p.seen[string(id)] = m
	return m
}

// runState is everything known about one run while it is checked.
type runState struct {
	lay      layout.Layout
	root     *rundir.Root
	run      *layout.Run
	findings []finding.Finding
	inputs   map[string]string
	tree     []string // every non-directory under the run, relative, in walk order
}

func sourcesOrEmpty(s []audit.Source) []audit.Source {
	if s == nil {
		return []audit.Source{}
	}
	return s
}

// readFrom is the folder a run's files are read from: the run's own, or
// for a staged check the private copy of what the commit records.
func (c *checker) readFrom(dir string) string {
	if c.opts.staged != nil {
		if src, ok := c.opts.staged.source[dir]; ok {
			return src
		}
	}
	return dir
}

func (s *runState) add(found ...finding.Finding) { s.findings = append(s.findings, found...) }

func (c *checker) checkRun(ctx context.Context, run rundir.Run) (*audit.Audit, map[string]any) {
	a := &audit.Audit{
		Run:              run.Display,
		Layout:           run.Layout,
		Tool:             audit.Tool{Name: c.opts.ToolName, Version: c.opts.ToolVersion},
		Notes:            "",
		TrustWorkingTree: c.opts.TrustWorkingTree,
		Sources:          sourcesOrEmpty(c.opts.Sources),
	}
	if c.opts.Timestamp != "" {
		a.Timestamp = c.opts.Timestamp
	}
	if run.Link != "" {
		// The folder is a link: what it leads to is not the run the
		// repository holds, so it is not read at all.
		a.RunID = filepath.Base(run.Dir)
		a.Findings = c.configure(run.Dir, []finding.Finding{finding.Symlink.New("",
			"the run folder is a symbolic link to %q; what it leads to is not checked through the link: put the run itself here, or remove the link",
			run.Link)})
		a.Notes = "not checked: the run folder is a symbolic link"
		a.Inputs = audit.Inputs{}
		a.Finish(c.failLevel(), nil)
		return a, nil
	}
	lay := layout.ByID(run.Layout)
	s := &runState{lay: lay, run: &layout.Run{Dir: run.Dir, Docs: map[string]*rundir.Document{}}, inputs: map[string]string{}}
	root, err := rundir.OpenRoot(c.readFrom(run.Dir))
	if err != nil {
		a.RunID = filepath.Base(run.Dir)
		a.Findings = c.configure(run.Dir, []finding.Finding{finding.Unreadable.New("", "cannot open the run directory: %v", err)})
		a.Inputs = audit.Inputs{}
		a.Finish(c.failLevel(), nil)
		return a, nil
	}
	defer root.Close()
	s.root = root

	for _, inner := range run.Holds {
		s.add(finding.NestedRun.New("", "the run holds another run at %q; each is checked on its own, but a run never holds another", inner))
	}
	for _, other := range run.Also {
		s.add(finding.LayoutAmbiguous.New("", "the folder holds the defining files of the %s layout as well as of the %s layout (%s); it is checked as %s only, so its %s files are not checked: give each run a folder of its own, or force one layout with --layout",
			other, run.Layout, layout.ByID(other).Defined(), run.Layout, other))
	}
	s.tree = c.listRun(s)
	s.run.Files = layout.Expand(lay.Files(), s.tree)
	c.load(s)
	pending := c.startEvidence(s)
	c.validateSchemas(s)
	s.add(lay.Check(s.run)...)
	verified := c.finishEvidence(s, pending)
	hist := c.compareHistory(s, run.Dir, run.Display)
	input := c.buildInput(s, pending, hist)
	engine, err := c.policyLoad.wait()
	if err != nil {
		return nil, nil // Check reports the compile error
	}
	outcome := engine.Eval(ctx, run.Display, input)
	s.add(outcome.Findings...)

	c.resolvePositions(s)
	s.findings = c.configure(run.Dir, s.findings)
	// Copies, so the audit, which outlives the run's documents, does not
	// hold them through a substring.
	a.RunID = strings.Clone(lay.RunID(s.run))
	if id := strings.Clone(lay.TaskID(s.run)); id != "" {
		a.TaskID = &id
	}
	a.Findings = capPerRule(s.findings, maxFindingsPerRule)
	if a.Inputs, err = audit.InputsFromHex(s.inputs); err != nil {
		// The digests are this tool's own hashes: a bad one is a defect,
		// never something to write into a report.
		c.fatal.set(fmt.Errorf("run %s: %w", run.Display, err))
	}
	a.Notes = fmt.Sprintf("%d of %d logged artifacts verified", verified.ok, verified.total)
	a.Evidence = &audit.EvidenceCount{Verified: verified.ok, Logged: verified.total}
	if n, ok := lay.(layout.Noter); ok {
		if note := n.Notes(s.run); note != "" {
			a.Notes = note + "; " + a.Notes
		}
	}
	// Runs of the same shape have the same notes: one copy serves them all.
	a.Notes = unique.Make(a.Notes).Value()
	docs, _ := input["docs"].(map[string]any)
	a.Stages, a.Events = progress(run.Layout, docs)
	requirementsKnown := docs["roadmap"] != nil
	if k, ok := lay.(layout.RequirementsKnower); ok {
		requirementsKnown = k.RequirementsKnown(s.run)
	}
	a.Traceability.TaskIDMatch, a.Traceability.RequirementsCoverage =
		engine.Traceability(s.findings, outcome.Evaluated, requirementsKnown)
	a.Base, a.BaseFrom = hist.base, hist.baseFrom
	var notEvaluated map[string]string
	if hist.base == nil {
		notEvaluated = map[string]string{string(finding.CategoryAppendOnly): "no base revision compared: " + hist.reason}
	}
	a.Finish(c.failLevel(), notEvaluated)
	if a.Gate == audit.Pass {
		// Timelines are drawn only for runs that do not pass: a check of
		// many runs keeps no ledger of the passing ones.
		a.Events = nil
	}
	a.Policy = c.policies.intern(a.Policy)
	return a, input
}

// pendingPolicies is the policy engine being compiled in the background.
type pendingPolicies struct {
	done   chan struct{}
	engine *policy.Engine
	err    error
}

// loadPolicies starts compiling the shipped and --policy rules.
func loadPolicies(ctx context.Context, opts Options) *pendingPolicies {
	p := &pendingPolicies{done: make(chan struct{})}
	go func() {
		defer close(p.done)
		p.engine, p.err = policy.Load(ctx, policy.Options{Dirs: opts.PolicyDirs, Sources: opts.PolicySources, Timeout: opts.PolicyTimeout, Debug: opts.PolicyDebug})
	}()
	return p
}

// wait returns the compiled engine, or why the policies cannot be used.
func (p *pendingPolicies) wait() (*policy.Engine, error) {
	<-p.done
	return p.engine, p.err
}

// configure applies the user's configuration to the complete findings of a
// run: waivers first (so their own findings exist), then severity overrides.
func (c *checker) configure(runDir string, findings []finding.Finding) []finding.Finding {
	findings = c.opts.Waivers.Apply(runDir, findings)
	if len(c.opts.Severity) > 0 {
		for i := range findings {
			if sev, ok := c.opts.Severity[findings[i].Rule]; ok {
				findings[i].Severity = sev
			}
		}
	}
	return findings
}

func (c *checker) failLevel() finding.Severity {
	if c.opts.FailLevel == finding.Warning {
		return finding.Warning
	}
	return finding.Error
}

// A parsed document costs memory several times over: its value, the
// positions of its values, the policy input and the policies' own form of
// it. valueCost is about what one JSON or YAML value costs in all, and
// recordCost what one line of a Markdown ledger may (a record becomes an
// object of its fields in the policy input, and an evidence entry is
// checked on disk too); see BENCHMARKS.md. A run's documents may expand to
// budgetPerByte times their size plus budgetFloor, so that checking a run
// takes memory in proportion to its documents, not to what they expand to:
// past the budget a document is a TooLarge finding, and is not parsed.
const (
	valueCost     = 400
	recordCost    = 4 << 10
	budgetPerByte = 3
	budgetFloor   = 32 << 20
)

// budgetRule says the budget in findings.
var budgetRule = fmt.Sprintf("and a run's documents may take %d times their size plus %d MiB", budgetPerByte, budgetFloor>>20)

// load reads every file of the layout, then parses each within what is
// left of the run's memory budget, then reads what the layout's checks
// need besides (loadNeeds) within what is left of it: no stage after
// this one reads a file of the run.
func (c *checker) load(s *runState) {
	for _, pattern := range s.lay.Files() {
		if pattern.IsPattern() && pattern.Required && !slices.ContainsFunc(s.run.Files, func(m layout.Match) bool { return m.Spec.Path == pattern.Path }) {
			s.add(finding.MissingFile.New("", "no file matches %q", pattern.Path))
		}
	}
	total := 0
	for _, m := range s.run.Files {
		f, path := m.Spec, m.Path
		doc := &rundir.Document{Path: path}
		s.run.Docs[path] = doc
		data, p := s.root.ReadFile(path, c.opts.MaxJSONSize)
		if p != nil {
			if p.Kind == rundir.Missing && !f.Required {
				continue
			}
			s.add(problemFinding(p, path, finding.MissingFile))
			continue
		}
		doc.Present, doc.Data = true, data
		sum := sha256.Sum256(data)
		doc.SHA256 = hex.EncodeToString(sum[:])
		s.inputs[path] = doc.SHA256
		total += len(data)
	}
	budget := budgetPerByte*total + budgetFloor
	for _, m := range s.run.Files {
		if doc := s.run.Docs[m.Path]; doc != nil && doc.Present {
			budget -= c.parse(s, m.Spec, doc, budget)
		}
	}
	c.loadNeeds(s, budget)
}

// parse parses one document within budget bytes of memory and returns
// what it took of them.
func (c *checker) parse(s *runState, f layout.File, doc *rundir.Document, budget int) int {
	path, data := doc.Path, doc.Data
	var problems []jsonpos.Problem
	values := 0
	toFinding := jsonProblemFinding
	switch f.Kind {
	case layout.JSON:
		jd, ps := jsonpos.ParseLimit(data, budget/valueCost)
		doc.JSON, doc.Parsed, problems = jd, jd != nil, ps
		if jd != nil {
			values = jd.Values
		}
	case layout.JSONLines:
		// One bad record does not make the rest unusable: the document
		// counts as parsed and the bad line is reported.
		lines, ps := jsonpos.ParseLinesLimit(data, budget/valueCost)
		doc.Lines, doc.Parsed, problems = lines, lines != nil, ps
		if lines != nil {
			values = lines.Values
		}
	case layout.YAML:
		yd, ps := yamlpos.ParseLimit(data, budget/valueCost)
		doc.YAML, doc.Parsed, problems, toFinding = yd, yd != nil, ps, yamlProblemFinding
		if yd != nil {
			values = yd.Values
		}
	case layout.Markdown:
		return c.parseLedger(s, f, doc, budget)
	}
	for _, pr := range problems {
		s.add(toFinding(path, pr))
	}
	return values * valueCost
}

// parseLedger parses a Markdown ledger. Every line may be a record: a
// ledger is parsed only if all of them could be, so that parsing it stays
// within the budget too.
func (c *checker) parseLedger(s *runState, f layout.File, doc *rundir.Document, budget int) int {
	path := doc.Path
	lines := bytes.Count(doc.Data, []byte("\n")) + 1
	if lines > budget/recordCost {
		s.add(finding.TooLarge.New(path, "%s has %d lines, more than the %d the checker reads in this run's ledgers (each line may be a record, about %d KiB in memory once checked, %s): it is not parsed",
			path, lines, max(budget/recordCost, 0), recordCost>>10, budgetRule))
		return 0
	}
	v, problems := f.ParseLedger(doc.Data)
	for _, pr := range problems {
		fd := finding.MalformedRecord.New(path, "%s", pr.Message)
		fd.Line, fd.Column = pr.Line, pr.Column
		s.add(fd)
	}
	doc.Ledger, doc.Parsed = v, v != nil
	return lines * recordCost
}

// problemFinding turns a refused path into a finding about file; missing
// names the rule for "does not exist", which depends on what was expected there.
func problemFinding(p *rundir.Problem, file string, missing finding.Rule) finding.Finding {
	rule := finding.Unreadable
	switch p.Kind {
	case rundir.Absolute:
		rule = finding.AbsolutePath
	case rundir.DotDot, rundir.Escape:
		rule = finding.PathEscape
	case rundir.Loop:
		rule = finding.SymlinkLoop
	case rundir.Missing:
		rule = missing
	case rundir.NotRegular:
		rule = finding.NotRegular
	case rundir.TooLarge:
		rule = finding.TooLarge
	}
	return rule.New(file, "%s", p.Detail)
}

// yamlProblemFinding: a duplicate key is the same fault as in JSON; any
// other problem leaves the YAML document unreadable.
func yamlProblemFinding(file string, p jsonpos.Problem) finding.Finding {
	rule := finding.YAMLSyntax
	switch p.Kind {
	case jsonpos.DuplicateKey:
		rule = finding.DuplicateKey
	case jsonpos.TooManyValues:
		return tooManyValues(file, p)
	}
	f := rule.New(file, "%s", p.Message)
	f.Line, f.Column, f.Pointer = p.Line, p.Column, p.Pointer
	return f
}

func jsonProblemFinding(file string, p jsonpos.Problem) finding.Finding {
	rule := finding.JSONSyntax
	switch p.Kind {
	case jsonpos.DuplicateKey:
		rule = finding.DuplicateKey
	case jsonpos.BOM:
		rule = finding.BOM
	case jsonpos.InvalidUTF8:
		rule = finding.InvalidUTF8
	case jsonpos.TooManyValues:
		return tooManyValues(file, p)
	}
	f := rule.New(file, "%s", p.Message)
	f.Line, f.Column, f.Pointer = p.Line, p.Column, p.Pointer
	return f
}

// tooManyValues: a document past the run's memory budget is not parsed.
func tooManyValues(file string, p jsonpos.Problem) finding.Finding {
	f := finding.TooLarge.New(file, "%s (each takes about %d bytes in memory once checked, %s): it is not parsed", p.Message, valueCost, budgetRule)
	f.Line, f.Column, f.Pointer = p.Line, p.Column, p.Pointer
	return f
}

// validateSchemas holds each parsed document to the schema its file names,
// or to the one the version it declares names (layout.Versioned).
func (c *checker) validateSchemas(s *runState) {
	schemas, err := schema.Default()
	if err != nil {
		return // Check reports it as the tool's failure
	}
	for _, m := range s.run.Files {
		f, path := m.Spec, m.Path
		doc := s.run.Docs[path]
		if (f.Schema == "" && f.Versioned == nil) || doc == nil || !doc.Present {
			continue
		}
		if !doc.Parsed {
			// A versioned document that did not parse declares no
			// version: its syntax finding says all there is to say.
			if f.Schema != "" {
				s.add(finding.NotEvaluated.New(path, "schema check not evaluated: %s is not valid JSON", path))
			}
			continue
		}
		name := f.SchemaFor(doc.Value())
		if name == "" {
			continue
		}
		vs := schemas.Validate(name, doc.Value())
		doc.SchemaValid = len(vs) == 0
		for _, v := range vs {
			fd := finding.SchemaViolation.New(path, "%s", v.Message)
			fd.Pointer = v.Pointer
			if v.Missing {
				// Point at the object that lacks the member.
				fd.Line, fd.Column, _ = doc.Position(v.Pointer)
			}
			s.add(fd)
		}
	}
}

// listRun walks the run once: it returns every entry that is not a
// directory, for the layout's file patterns, and flags *.tmp files, the
// trace of an interrupted atomic write: an agent's, or the checker's own
// (--write-audit), which only asks to be deleted.
func (c *checker) listRun(s *runState) []string {
	var present []string
	_ = s.root.Walk(func(rel string, d os.DirEntry) error {
		if d.IsDir() {
			return nil
		}
		present = append(present, rel)
		if d.Type()&fs.ModeSymlink != 0 && layout.Stands(s.lay.Files(), rel) {
			s.add(finding.Symlink.New(rel, "%q is a symbolic link where the run's %s layout keeps its own files; what it leads to is not checked as part of the run: replace the link with the real content",
				rel, s.lay.ID()))
		}
		if target, ok := atomicfile.IsTemp(d.Name()); ok {
			s.add(finding.CheckerTmpLeftover.New(rel, "leftover temporary file %q of an interrupted h3a-check write of %q: delete it",
				rel, path.Join(path.Dir(rel), target)))
		} else if strings.HasSuffix(d.Name(), ".tmp") {
			s.add(finding.TmpLeftover.New(rel, "leftover temporary file %q: an atomic write (write %s, then rename) was interrupted",
				rel, strings.TrimSuffix(rel, ".tmp")))
		}
		return nil
	})
	return present
}

// maxFindingsPerRule bounds the findings one rule lists for one file; a
// document broken everywhere says so once, not a million times.
const maxFindingsPerRule = 100

// capPerRule keeps the first limit findings of each (file, rule) in report
// order and replaces the rest by one finding that counts them. The result
// goes into the audit, which outlives the run: it has no spare capacity, and
// the file names and details that runs share (the same relative paths, the
// same notes) are one copy for all of them.
func capPerRule(findings []finding.Finding, limit int) []finding.Finding {
	findings = finding.SortDedupe(findings)
	type key struct{ file, rule string }
	seen := map[key]int{}
	out := make([]finding.Finding, 0, len(findings))
	var extra []finding.Finding
	for _, f := range findings {
		k := key{f.File, f.Rule}
		seen[k]++
		switch n := seen[k]; {
		case n <= limit:
			out = append(out, f)
		case n == limit+1:
			more := f
			more.Pointer, more.TaskID, more.Gate = "", "", ""
			extra = append(extra, more)
		}
	}
	for _, more := range extra {
		n := seen[key{more.File, more.Rule}] - limit
		more.Details = fmt.Sprintf("%d more %s findings in this file are not listed", n, more.Rule)
		out = append(out, more)
	}
	if len(out) < cap(out) {
		out = append([]finding.Finding(nil), out...)
	}
	for i := range out {
		out[i].File = unique.Make(out[i].File).Value()
		out[i].Details = unique.Make(out[i].Details).Value()
	}
	return out
}

// resolvePositions gives a line and column to every finding that names a
// JSON pointer in a parsed document but has no position yet.
func (c *checker) resolvePositions(s *runState) {
	for i := range s.findings {
		c.resolvePosition(s, &s.findings[i])
	}
}

func (c *checker) resolvePosition(s *runState, f *finding.Finding) {
	if f.Line != 0 || f.File == "" || f.Pointer == "" {
		return
	}
	// Every structured kind maps pointers: JSON Lines pointers /i/... name
	// a record's line.
	if line, col, ok := s.run.Docs[f.File].Position(f.Pointer); ok {
		f.Line, f.Column = line, col
	}
}
