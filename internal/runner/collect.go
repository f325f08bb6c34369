// Collecting results: the runs checked on the workers, their audits handed
// on in report order, and the parts those audits share.

package runner

import (
	"context"
	"maps"
	"slices"
	"strconv"
	"sync"

	"github.com/h3a-check/h3a-check/internal/audit"
	"github.com/h3a-check/h3a-check/internal/policy"
	"github.com/h3a-check/h3a-check/internal/rundir"
)

// checkRuns checks the runs on c.workers goroutines and hands each
// audit to emit in the order of runs. A run starts only while fewer than
// window audits wait for emission, so a slow run holds back at most that
// many finished ones. Nothing is emitted before the policies have loaded:
// a policy that does not compile is the check's error, not a report.
func (c *checker) checkRuns(ctx context.Context, runs []rundir.Run, emit func(*audit.Audit, map[string]any) error) error {
	window := 4 * c.workers
	slots := make(chan struct{}, window)
	finished := make(chan checkedRun, window)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go c.startRuns(ctx, runs, slots, finished)
	_, policyErr := c.policyLoad.wait()
	waiting := map[int]checkedRun{}
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

// checkedRun is the audit of the i-th run, and its policy input if kept.
type checkedRun struct {
	i     int
	a     *audit.Audit
	input map[string]any
}

// startRuns checks each run on a worker once it has a slot, and closes
// finished when every run started is done.
func (c *checker) startRuns(ctx context.Context, runs []rundir.Run, slots chan struct{}, finished chan<- checkedRun) {
	var wg sync.WaitGroup
	workers := make(chan struct{}, c.workers)
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
			if !c.keepInputs {
				input = nil
			}
			finished <- checkedRun{i, a, input}
		}()
	}
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

// collector gathers the result as the audits are handed on.
type collector struct {
	out Output
	res *Result
}

func newCollector(out Output, staged *stagedScope, runs int) *collector {
	res := &Result{gate: audit.Pass}
	if staged != nil {
		res.StagedMode, res.StagedWhat = staged.mode, staged.what
	}
	if out.KeepInputs {
		res.Inputs = make([]map[string]any, 0, runs)
	}
	return &collector{out: out, res: res}
}

// add counts the audit into the overall gate, keeps its input when asked,
// and hands it to Emit or keeps it.
func (col *collector) add(a *audit.Audit, input map[string]any) error {
	res := col.res
	res.Runs++
	switch {
	case a.Gate == audit.Fail:
		res.gate = audit.Fail
	case a.Gate == audit.NeedsHuman && res.gate == audit.Pass:
		res.gate = audit.NeedsHuman
	}
	if col.out.KeepInputs {
		res.Inputs = append(res.Inputs, input)
	}
	if col.out.Emit != nil {
		return col.out.Emit(a)
	}
	res.Audits = append(res.Audits, a)
	return nil
}

// result completes the result with what the history and the policies
// know once every run is checked.
func (col *collector) result(engine *policy.Engine, hist *historyPlan) *Result {
	col.res.CatFileProcesses = hist.catFileProcesses()
	for _, r := range engine.Rules() {
		col.res.Rules = append(col.res.Rules, r.Rule)
	}
	col.res.UserParams = engine.UserParams()
	return col.res
}
