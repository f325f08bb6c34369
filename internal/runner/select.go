// Choosing the runs: which runs the paths hold, as narrowed by a staged
// check, --changed and --shard, and what may not lie inside them.

package runner

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/h3a-check/h3a-check/internal/audit"
	"github.com/h3a-check/h3a-check/internal/finding"
	"github.com/h3a-check/h3a-check/internal/gitrev"
	"github.com/h3a-check/h3a-check/internal/layout"
	"github.com/h3a-check/h3a-check/internal/rundir"
)

// selection is the runs a check covers, and what choosing them settled.
type selection struct {
	paths   []string
	runs    []rundir.Run
	staged  *stagedScope  // for a staged check: what it reads
	changed *changedScope // for --changed with a base: what git said changed
	hist    *historyPlan
	// sharedIDs are the findings of the runs that share a run id with
	// another run of the check, by run folder.
	sharedIDs map[string][]finding.Finding
	// once are the audits of no run checked here (deleted runs, rule
	// changes), which only the first shard reports, so each is reported once.
	once    []*audit.Audit
	closers []func()
}

// close releases what choosing the runs opened, last opened first.
func (sel *selection) close() {
	for i := len(sel.closers) - 1; i >= 0; i-- {
		sel.closers[i]()
	}
}

// locator makes the check's own repository locator when the caller gave
// none, closed with the selection.
func (sel *selection) locator(scope *Scope) {
	if scope.Locator == nil {
		loc := &gitrev.Locator{}
		scope.Locator = loc
		sel.closers = append(sel.closers, func() { loc.Close() })
	}
}

func getenvOf(scope *Scope) func(string) string {
	if scope.Getenv == nil {
		return os.Getenv
	}
	return scope.Getenv
}

// findStaged reads what a commit of the index would record.
func (sel *selection) findStaged(scope *Scope) error {
	sel.locator(scope)
	target := scope.TargetGetenv
	if target == nil {
		target = getenvOf(scope)
	}
	staged, err := findStaged(scope.Locator, sel.paths, getenvOf(scope), target, scope.Layout)
	if err != nil {
		return err
	}
	sel.staged = staged
	sel.closers = append(sel.closers, staged.close)
	return nil
}

// stagedOutsideRuns is the result of a staged check whose change lies
// outside every run; a policy it breaks is still reported.
func stagedOutsideRuns(ctx context.Context, rules Rules, staged *stagedScope) (*Result, error) {
	if staged.changes > 0 {
		if _, err := loadPolicies(ctx, rules).wait(); err != nil {
			return nil, err
		}
	}
	return &Result{StagedMode: staged.mode, StagedWhat: staged.what}, nil
}

// discover finds the runs the paths hold: those a staged check reads,
// those along the changes for --changed with a base, or all of them.
func (sel *selection) discover(scope *Scope, maxRead int64) error {
	var err error
	switch {
	case sel.staged != nil:
		sel.runs = sel.staged.runs
	case scope.Changed && scope.Base != gitrev.None:
		sel.locator(scope)
		if sel.changed, err = findChanged(*scope, maxRead, sel.paths, getenvOf(scope)); err != nil {
			return err
		}
		sel.runs, err = sel.changed.discover(sel.paths, scope.Layout, layout.Detectors())
	default:
		sel.runs, err = rundir.Discover(sel.paths, layout.Detectors(), scope.Layout)
	}
	return err
}

// narrow plans each run's history, then keeps the runs --changed and
// --shard ask for, and settles the audits reported once.
func (sel *selection) narrow(scope Scope, maxRead int64, workers int, ruleChanges []finding.Finding) error {
	hist, err := planHistory(scope, maxRead, sel.staged, sel.changed, sel.paths, sel.runs)
	if err != nil {
		return err
	}
	sel.hist = hist
	sel.closers = append(sel.closers, hist.close)
	if len(sel.runs) == 0 && len(hist.deleted) == 0 {
		if err := sel.noRuns(scope.Layout); err != nil {
			return err
		}
	}
	if sel.staged == nil && !scope.Changed && len(sel.runs) > 0 {
		// Each path of a full check must hold a run, or lie in one, as a
		// lone path must: one that holds nothing beside others that do
		// was not checked, and the check must not pass as though it had
		// been. (A path that held runs at the base is reported by what
		// became of them: deleted, or moved.)
		if empty := emptyPaths(sel.paths, sel.runs, hist.heldAtBase); len(empty) > 0 {
			return fmt.Errorf("%w in %s (every path given must hold a run or lie in one; the other paths do): %s", ErrNoRuns, strings.Join(empty, ", "), layoutsDefined())
		}
	}
	if scope.Changed {
		if sel.runs, err = hist.changedOnly(sel.runs); err != nil {
			return err
		}
	}
	// Runs in different shards may share an id too: each shard reads the
	// ids of all.
	sel.sharedIDs = sharedIDs(sel.runs, sel.staged, maxRead, workers)
	sel.runs = scope.Shard.Select(sel.runs)
	sel.once = hist.deleted
	if len(ruleChanges) > 0 {
		sel.once = append(sel.once, rulesAudit(ruleChanges))
	}
	if !scope.Shard.All() && scope.Shard.Index != 1 {
		sel.once = nil // the first shard reports deleted runs and rule changes, so each is reported once
	}
	return nil
}

// noRuns is ErrNoRuns when the paths hold no run at all. --changed looked
// only where files changed: whether the paths hold a run at all takes the
// whole search.
func (sel *selection) noRuns(forced string) error {
	if sel.staged != nil {
		return nil // it reports the rules the change edits (Check)
	}
	if sel.changed != nil {
		all, err := rundir.Discover(sel.paths, layout.Detectors(), forced)
		if err != nil {
			return err
		}
		if len(all) > 0 {
			return nil
		}
	}
	return fmt.Errorf("%w in %s: %s", ErrNoRuns, strings.Join(sel.paths, ", "), layoutsDefined())
}

// emptyPaths lists the paths that hold no run of runs, lie in none, and
// held none at the base (heldAtBase, by absolute path).
func emptyPaths(paths []string, runs []rundir.Run, heldAtBase map[string]bool) []string {
	var empty []string
	for _, p := range paths {
		if abs, err := filepath.Abs(p); err == nil && heldAtBase[abs] {
			continue
		}
		if !holdsRun(p, runs) {
			empty = append(empty, p)
		}
	}
	return empty
}

// holdsRun reports whether a run of runs is at or below p, or p is inside
// one; p is compared as written and with its links resolved, as the runs'
// folders may be either.
func holdsRun(p string, runs []rundir.Run) bool {
	forms := make([]string, 0, 2)
	if abs, err := filepath.Abs(p); err == nil {
		forms = append(forms, abs)
	}
	if resolved, err := filepath.EvalSymlinks(p); err == nil {
		if abs, err := filepath.Abs(resolved); err == nil {
			forms = append(forms, abs)
		}
	}
	for _, form := range forms {
		for _, r := range runs {
			if isWithin(r.Dir, form) || isWithin(form, r.Dir) {
				return true
			}
		}
	}
	return false
}

// isWithin reports whether path is dir or below it.
func isWithin(path, dir string) bool {
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
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
			if isWithin(abs, r.Dir) {
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
