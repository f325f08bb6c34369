// Checking one run: its state while the stages run over it, in order.

package runner

import (
	"context"
	"sync"

	"github.com/h3a-check/h3a-check/internal/audit"
	"github.com/h3a-check/h3a-check/internal/evidence"
	"github.com/h3a-check/h3a-check/internal/finding"
	"github.com/h3a-check/h3a-check/internal/layout"
	"github.com/h3a-check/h3a-check/internal/policy"
	"github.com/h3a-check/h3a-check/internal/rundir"
)

// checker holds what every run's check shares: the groups of Options the
// stages use, the policy engine being compiled, the hashing pool and the
// history plan.
type checker struct {
	rules       Rules
	record      Record
	workers     int
	maxJSONSize int64
	keepInputs  bool
	staged      *stagedScope // for a staged check: where each run is read from
	policyLoad  *pendingPolicies
	hasher      *evidence.Hasher
	hist        *historyPlan
	fatal       fatal
	policies    policyMaps
	atBase      baseTrees // the files each base records, for the waivers
	sharedIDs   map[string][]finding.Finding
}

func newChecker(opts Options, policies *pendingPolicies, sel *selection) *checker {
	return &checker{
		rules: opts.Rules, record: opts.Record, workers: opts.Workers, maxJSONSize: opts.MaxJSONSize,
		keepInputs: opts.Output.KeepInputs, staged: sel.staged,
		policyLoad: policies, hasher: evidence.NewHasher(opts.Workers), hist: sel.hist,
		sharedIDs: sel.sharedIDs,
	}
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

func (s *runState) add(found ...finding.Finding) { s.findings = append(s.findings, found...) }

// readFrom is the folder a run's files are read from: the run's own, or
// for a staged check the private copy of what the commit records.
func (c *checker) readFrom(dir string) string {
	if c.staged != nil {
		if src, ok := c.staged.source[dir]; ok {
			return src
		}
	}
	return dir
}

// checkRun runs the stages over one run, in order, and fills its audit.
// Both are nil when the policies did not compile: Check reports that.
func (c *checker) checkRun(ctx context.Context, run rundir.Run) (*audit.Audit, map[string]any) {
	a := c.newAudit(run)
	if run.Link != "" && len(run.Through) > 0 {
		// A folder of runs out of the searched path, reached through
		// the link alone: nothing there is checked.
		return c.notChecked(a, run, finding.Symlink.New("",
			"the folder is a symbolic link to %q, which holds %d run%s (%s); runs reached through a link are not checked: put them where the link is, or remove the link",
			run.Link, len(run.Through), plural(len(run.Through)), finding.QuoteList(run.Through)), "not checked: the folder is a symbolic link to runs"), nil
	}
	if run.Link != "" {
		// The folder is a link: what it leads to is not the run the
		// repository holds, so it is not read at all.
		return c.notChecked(a, run, finding.Symlink.New("",
			"the run folder is a symbolic link to %q; what it leads to is not checked through the link: put the run itself here, or remove the link",
			run.Link), "not checked: the run folder is a symbolic link"), nil
	}
	lay := layout.ByID(run.Layout)
	s := &runState{lay: lay, run: &layout.Run{Dir: run.Dir, Docs: map[string]*rundir.Document{}}, inputs: map[string]string{}}
	root, err := rundir.OpenRoot(c.readFrom(run.Dir))
	if err != nil {
		return c.notChecked(a, run, finding.Unreadable.New("", "cannot open the run directory: %v", err), ""), nil
	}
	defer root.Close()
	s.root = root
	c.placement(s, run)
	out, ok := c.runStages(ctx, s, run)
	if !ok {
		return nil, nil
	}
	c.fillAudit(ctx, a, s, run.Display, out)
	return a, out.input
}

// placement: a run that holds another, or whose folder holds the defining
// files of another layout too, is checked, and says so.
func (c *checker) placement(s *runState, run rundir.Run) {
	for _, inner := range run.Holds {
		s.add(finding.NestedRun.New("", "the run holds another run at %q; each is checked on its own, but a run never holds another", inner))
	}
	for _, other := range run.Also {
		s.add(finding.LayoutAmbiguous.New("", "the folder holds the defining files of the %s layout as well as of the %s layout (%s); it is checked as %s only, so its %s files are not checked",
			other, run.Layout, layout.ByID(other).Defined(), run.Layout, other))
	}
}

// stagesOutcome is what the stages found that the audit records besides
// the findings.
type stagesOutcome struct {
	verified verifiedCount
	hist     historyOutcome
	input    map[string]any
	engine   *policy.Engine
	policy   policy.Outcome
}

// runStages runs load, schema, integrity, history and policy over the
// run; not ok when the policies did not compile.
func (c *checker) runStages(ctx context.Context, s *runState, run rundir.Run) (stagesOutcome, bool) {
	s.tree = c.listRun(s)
	s.run.Files = layout.Expand(s.lay.Files(), s.tree)
	c.load(s)
	pending := c.startEvidence(s)
	c.validateSchemas(s)
	s.add(s.lay.Check(s.run)...)
	s.add(c.sharedIDs[run.Dir]...)
	var out stagesOutcome
	out.verified = c.finishEvidence(s, pending)
	out.hist = c.compareHistory(s, run.Dir, run.Display)
	out.input = c.buildInput(s, pending, out.hist)
	engine, err := c.policyLoad.wait()
	if err != nil {
		return out, false
	}
	out.engine = engine
	out.policy = engine.Eval(ctx, run.Display, out.input)
	s.add(out.policy.Findings...)
	return out, true
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
