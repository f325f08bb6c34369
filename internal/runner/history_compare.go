// The history stage of one run: its append-only files compared with the
// base, and what the policies and the audit learn of it.

package runner

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/h3a-check/h3a-check/internal/finding"
	"github.com/h3a-check/h3a-check/internal/gitrev"
	"github.com/h3a-check/h3a-check/internal/history"
	"github.com/h3a-check/h3a-check/internal/jsonpos"
	"github.com/h3a-check/h3a-check/internal/layout"
	"github.com/h3a-check/h3a-check/internal/rundir"
)

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
		found = append(found, layoutChanged(s, side, rb, display))
	}
	res, err := history.Compare(head, history.At(rb.repo, rb.base.Commit, head.RepoDir), rb.base.Commit)
	if err != nil {
		c.fatal.set(fmt.Errorf("reading the base %s of %s: %w", gitrev.Short(rb.base.Commit), dir, err))
		return historyOutcome{reason: err.Error()}
	}
	res.Findings = append(found, res.Findings...)
	if original, ok := c.hist.copies[dir]; ok {
		res.Findings = append(res.Findings, finding.RunCopied.New("", "run is new since base %s and has the run id of the run at %q, which the base holds and which is still there: a run id is globally unique, so this run is a copy of it",
			gitrev.Short(rb.base.Commit), original))
	}
	if elsewhere && side.from != "" {
		baseID, err := baseRunID(rb, side)
		if err != nil {
			c.fatal.set(fmt.Errorf("reading the base %s of %s: %w", gitrev.Short(rb.base.Commit), side.from, err))
			return historyOutcome{reason: err.Error()}
		}
		ids := [2]string{baseID, docs.lay.RunID(docs.run)}
		res.Findings = append(res.Findings, moveFinding(side, display, rb.base.Commit, ids, res.Findings))
	}
	return c.compared(s, docs, rb, res)
}

// layoutChanged is the finding on a run whose layout is not the one it
// had at the base.
func layoutChanged(s *runState, side baseSide, rb runBase, display string) finding.Finding {
	f := finding.LayoutChanged.New("", "the run's layout is %s at base %s and %s in head: a run keeps its layout, so its %s files are compared with the base",
		side.layout, gitrev.Short(rb.base.Commit), s.lay.ID(), side.layout)
	restoreDir := display
	if side.from != "" {
		restoreDir = side.from
	}
	f.Remediation = history.FillRestoreCommands(f.Remediation, history.BaseVersion{Commit: gitrev.Short(rb.base.Commit), Dir: restoreDir, RepoDir: side.rel})
	return f
}

// compared adds the comparison's findings to the run, placed in docs (the
// documents compared), and says what the policies and the audit learn.
func (c *checker) compared(s, docs *runState, rb runBase, res history.Result) historyOutcome {
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
		if (f.Category == finding.CategoryAppendOnly && f.Severity >= finding.Error) || f.Rule == finding.NotEvaluated.ID || f.Rule == finding.BaseUnreadable.ID {
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
