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
//
// This file holds the options, the result and Check, which says the order
// of the steps; each other file says at its top what it owns: choosing the
// runs (select.go, staged*.go, changed.go, shard.go), the run ids runs
// share (runids.go), one run's check
// (checker.go) and its stages (load.go and needs.go, schemas.go,
// evidence.go, history*.go, input.go, policies.go), collecting the results
// (collect.go) and filling the audits (audits.go).
package runner

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"runtime"
	"time"

	"github.com/h3a-check/h3a-check/internal/audit"
	"github.com/h3a-check/h3a-check/internal/finding"
	"github.com/h3a-check/h3a-check/internal/gitrev"
	"github.com/h3a-check/h3a-check/internal/policy"
	"github.com/h3a-check/h3a-check/internal/waiver"
)

// DefaultMaxJSONSize bounds every parsed document (JSON and Markdown).
const DefaultMaxJSONSize = 64 << 20

// Options configure one check, grouped by what each part is for: which
// runs are checked (Scope), the rules they are held to (Rules), what every
// audit records besides its findings (Record), and where the results go
// (Output). Each stage is given the groups it uses, not the whole.
type Options struct {
	Scope  Scope
	Rules  Rules
	Record Record
	Output Output
	// MaxJSONSize bounds every file read (0 = DefaultMaxJSONSize); Workers
	// is how many runs are checked at once (0 = GOMAXPROCS).
	MaxJSONSize int64
	Workers     int
}

// Scope is what is checked: the runs under Paths, as Changed, Staged and
// Shard narrow them, and the base revision their history is compared with.
type Scope struct {
	Paths  []string
	Layout string // force a layout ("" = detect)
	// Base is the revision append-only files are compared with: "" for the
	// default (HEAD inside a work tree; on a GitHub Actions pull_request
	// event, the merge base with the pull request's base), "none" to skip,
	// or any revision git understands.
	Base string
	// Getenv reads the environment for the GitHub Actions event; nil means
	// os.Getenv.
	Getenv func(string) string
	// TargetGetenv reads the environment for the revision a pre-commit
	// range's start is held to in CI (gitrev.ConfineRulesBase): with the
	// GitHub Actions event, which Getenv hides from a staged check. nil
	// means Getenv.
	TargetGetenv func(string) string
	// Locator finds repositories; pass the one the caller used for its
	// trust decisions so each repository is opened once. nil: the check
	// makes its own.
	Locator *gitrev.Locator
	// Changed keeps only the runs with a file changed between the base and
	// the working tree (runs without a base are kept).
	Changed bool
	// Staged checks what a commit of the index would record, against
	// HEAD: only the runs holding a staged change (a file added, changed
	// or deleted) under the paths, and the runs the commit deletes. The
	// runs are read from the index, whatever the working tree holds. A
	// commit that touches no run checks nothing and is no error, but the
	// rules it edits (Record.RuleChanges) are reported still. When
	// pre-commit names a range (PRE_COMMIT_FROM_REF, PRE_COMMIT_TO_REF)
	// the runs changed in it are checked as of its end, against its
	// start; when nothing is staged under pre-commit or in CI (pre-commit
	// run --all-files) every run is. The caller leaves Base empty.
	Staged bool
	// Shard keeps only the runs of one part of the discovered runs (the
	// zero Shard keeps all). A shard holding none of them is no error.
	Shard Shard
	// RunsFound, when set, is told the folders (absolute) of every run
	// found, before any is checked; an error from it ends the check.
	RunsFound func(dirs []string) error
}

// Rules are what the runs are held to: the policies and their parameters,
// and the configuration's severities, waivers and trust in humans.
type Rules struct {
	// PolicyDirs are --policy folders of user rules; PolicyTimeout bounds
	// each run's policy evaluation (0 = policy.DefaultTimeout); PolicyDebug
	// receives print() output of the policies when set.
	PolicyDirs []string
	// PolicySources gives, for some PolicyDirs, the file system they are
	// read from instead of the disk (their version at the base revision).
	PolicySources map[string]fs.FS
	PolicyTimeout time.Duration
	PolicyDebug   io.Writer
	// Params are merged over DefaultParams into the policy input.
	Params map[string]any
	// MinHashDigits is the fewest hex digits a logged hash may have (the
	// configuration's evidence: min-hash-digits); 0 leaves the spec's 16.
	MinHashDigits int
	// Severity replaces the severity of every finding of a rule id.
	Severity map[string]finding.Severity
	// Waivers accept findings for a while; nil means none.
	Waivers *waiver.Set
	// FailLevel is the lowest severity that fails a gate (Error by default).
	FailLevel finding.Severity
	// Humans says when a human decision recorded in a run counts (see
	// Humans); nil: none the change under review adds does.
	Humans *Humans
}

// Record is what every audit records besides the run's own findings.
type Record struct {
	ToolName    string
	ToolVersion string
	Timestamp   string // recorded in every audit when not empty
	// TrustWorkingTree reads repository-local policies and configuration
	// from the working tree even when a base is in use; recorded in every
	// audit.
	TrustWorkingTree bool
	// Sources records where configuration and policies were read from, in
	// every audit.
	Sources []audit.Source
	// RuleChanges are findings about the rules and configuration themselves
	// (the change under review edits them), reported in an audit of their
	// own whose run is ".", files relative to the working directory.
	RuleChanges []finding.Finding
}

// Output is where the results go.
type Output struct {
	// KeepInputs keeps each run's policy input document in the result.
	KeepInputs bool
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
	// UserParams is what the rules of the policy folders read of
	// input.params.
	UserParams policy.ParamUse
	// Audits are the audits of every run, in report order, unless
	// Options.Output.Emit took them.
	Audits []*audit.Audit
	Inputs []map[string]any // per audit, when Options.Output.KeepInputs
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

// Check runs the whole pipeline over opts.Scope.Paths. An error means the
// tool could not check (unreadable path, no run, broken embedded schema).
func Check(ctx context.Context, opts Options) (*Result, error) {
	opts = withDefaults(opts)
	sel := &selection{paths: opts.Scope.Paths}
	defer sel.close()
	if opts.Scope.Staged {
		if err := sel.findStaged(&opts.Scope); err != nil {
			return nil, err
		}
		// A change that touches no run may still edit the rules that
		// judge the next one: that is reported, as a full check does.
		if len(sel.staged.runs) == 0 && len(sel.staged.extra) == 0 && len(opts.Record.RuleChanges) == 0 {
			return stagedOutsideRuns(ctx, opts.Rules, sel.staged)
		}
	}
	// The policies load while the runs are found, read and hashed: each
	// run waits for them only when it reaches the policy stage.
	policies := loadPolicies(ctx, opts.Rules)
	if err := sel.discover(&opts.Scope, opts.MaxJSONSize); err != nil {
		return nil, err
	}
	if err := reportsOutsideRuns(opts.Output.Reports, sel.runs); err != nil {
		return nil, err
	}
	if opts.Scope.RunsFound != nil {
		dirs := make([]string, len(sel.runs))
		for i, r := range sel.runs {
			dirs[i] = r.Dir
		}
		if err := opts.Scope.RunsFound(dirs); err != nil {
			return nil, err
		}
	}
	// So do the schemas of the layouts found, and only those.
	if err := prepareSchemas(sel.runs); err != nil {
		return nil, err
	}
	if err := sel.narrow(opts.Scope, opts.MaxJSONSize, opts.Workers, opts.Record.RuleChanges); err != nil {
		return nil, err
	}
	if opts.Output.Discovered != nil {
		opts.Output.Discovered(len(sel.runs))
	}
	c := newChecker(opts, policies, sel)
	defer c.hasher.Close()
	col := newCollector(opts.Output, sel.staged, len(sel.runs))
	if err := c.checkRuns(ctx, sel.runs, col.add); err != nil {
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
	if err := c.reportOnce(sel.once, opts.Scope.Shard.All(), col.add); err != nil {
		return nil, err
	}
	return col.result(engine, sel.hist), nil
}

// withDefaults fills what opts leaves to the check.
func withDefaults(opts Options) Options {
	if opts.MaxJSONSize <= 0 {
		opts.MaxJSONSize = DefaultMaxJSONSize
	}
	if opts.Workers <= 0 {
		opts.Workers = runtime.GOMAXPROCS(0)
	}
	if len(opts.Scope.Paths) == 0 {
		opts.Scope.Paths = []string{"."}
	}
	return opts
}
