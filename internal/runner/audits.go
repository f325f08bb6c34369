// Filling the audit: the audits that concern no run (rule changes, unused
// waivers), the configuration applied to a run's findings, and what each
// audit keeps of them.

package runner

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"unique"

	"github.com/h3a-check/h3a-check/internal/audit"
	"github.com/h3a-check/h3a-check/internal/finding"
	"github.com/h3a-check/h3a-check/internal/gitrev"
	"github.com/h3a-check/h3a-check/internal/history"
	"github.com/h3a-check/h3a-check/internal/layout"
	"github.com/h3a-check/h3a-check/internal/rundir"
	"github.com/h3a-check/h3a-check/internal/waiver"
)

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

func sourcesOrEmpty(s []audit.Source) []audit.Source {
	if s == nil {
		return []audit.Source{}
	}
	return s
}

// configure applies the user's configuration to the complete findings of a
// run: waivers first (so their own findings exist), then severity overrides.
func (c *checker) configure(runDir string, since waiver.Since, findings []finding.Finding) []finding.Finding {
	findings = c.rules.Waivers.ApplySince(runDir, since, findings)
	if len(c.rules.Severity) > 0 {
		for i := range findings {
			if sev, ok := c.rules.Severity[findings[i].Rule]; ok {
				findings[i].Severity = sev
			}
		}
	}
	return findings
}

func (c *checker) failLevel() finding.Severity {
	if c.rules.FailLevel == finding.Warning {
		return finding.Warning
	}
	return finding.Error
}

// maxFindingsPerRule bounds the findings one rule lists for one file; a
// document broken everywhere says so once, not a million times.
const maxFindingsPerRule = 100

// capPerRule keeps the first limit findings of each (file, rule) in report
// order and replaces the rest by one finding that counts them. Findings
// that weigh differently on the gate (severity, a human asked for, waived
// or not) are never counted together: the count stands for findings like
// it, so a rule that lists a hundred warnings before an error in the same
// file still fails the gate. The result goes into the audit, which outlives
// the run: it has no spare capacity, and the file names and details that
// runs share (the same relative paths, the same notes) are one copy for all
// of them.
func capPerRule(findings []finding.Finding, limit int) []finding.Finding {
	findings = finding.SortDedupe(findings)
	type key struct {
		file, rule string
		severity   finding.Severity
		needsHuman bool
		waived     bool
	}
	keyOf := func(f finding.Finding) key {
		return key{f.File, f.Rule, f.Severity, f.NeedsHuman, f.IsWaived()}
	}
	seen := map[key]int{}
	out := make([]finding.Finding, 0, len(findings))
	var extra []finding.Finding
	for _, f := range findings {
		k := keyOf(f)
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
		n := seen[keyOf(more)] - limit
		more.Details = fmt.Sprintf("%d more %s findings like this one (%s%s%s) in this file are not listed", n, more.Rule, more.Severity,
			map[bool]string{true: ", asking for a human"}[more.NeedsHuman], map[bool]string{true: ", waived"}[more.IsWaived()])
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

// newAudit starts a run's audit with what every audit records.
func (c *checker) newAudit(run rundir.Run) *audit.Audit {
	a := &audit.Audit{
		Run:              run.Display,
		Layout:           run.Layout,
		Tool:             audit.Tool{Name: c.record.ToolName, Version: c.record.ToolVersion},
		Notes:            "",
		TrustWorkingTree: c.record.TrustWorkingTree,
		Sources:          sourcesOrEmpty(c.record.Sources),
	}
	if c.record.Timestamp != "" {
		a.Timestamp = c.record.Timestamp
	}
	return a
}

// scopeOf is what the history of a run says to its waivers (waiver.Since):
// the zero value when no history was compared. unread tells, once the
// waivers are applied, why the run could not be checked as the base holds
// it, if it had to be and could not.
func (c *checker) scopeOf(ctx context.Context, s *runState, display string, hist historyOutcome) (since waiver.Since, unread func() error) {
	unread = func() error { return nil }
	if hist.base == nil {
		return waiver.Since{}, unread
	}
	short := gitrev.Short(*hist.base)
	if hist.newRun || hist.at.repo == nil {
		// New, or compared yet nowhere to read the base from: nothing the
		// run has can be shown to be the base's.
		return waiver.Since{Base: short, NewRun: true}, unread
	}
	sc := waiver.Since{Base: short}
	baseDir := hist.at.rel
	if side, ok := c.hist.elsewhere[s.run.Dir]; ok {
		baseDir = side.rel
		if side.from != "" {
			sc.MovedFrom, sc.MovedName = filepath.Join(hist.at.repo.Root, filepath.FromSlash(side.rel)), side.from
		}
	}
	atBase := func() ([]findingKey, bool, error) {
		return c.findingsAtBase(ctx, s, display, hist.at.repo, *hist.base, baseDir)
	}
	sc.IsNew, unread = newSinceBase(s, history.At(hist.at.repo, *hist.base, baseDir), atBase)
	return sc, unread
}

// newSinceBase tells whether a finding of the run is one it did not have
// at base: a waiver was written about the findings that existed then
// (docs/configuration.md, Waivers). A finding is new when the file it names
// changed where it points: a line the base's file does not hold as often
// as the run's does (so a log that grows keeps its waivers for the records
// it had), a file the change adds, rewrites or deletes, and anything that
// cannot be read. A finding on a line the change left alone is new too
// when the run as the base holds it (atBase) has fewer findings like it: a
// document edited elsewhere can make one there. History findings are
// always new; findings that name a file out of the run stay the base's.
func newSinceBase(s *runState, base history.Base, atBase func() (found []findingKey, same bool, err error)) (isNew func(finding.Finding) bool, unread func() error) {
	type sides struct {
		head, was   []byte
		inHead, old bool
		err         bool
	}
	files := map[string]*sides{}
	read := func(name string) *sides {
		if fs, ok := files[name]; ok {
			return fs
		}
		fs := &sides{}
		files[name] = fs
		var err error
		if fs.was, fs.old, err = base.Read(name); err != nil {
			fs.err = true
		}
		data, err := readRunFile(s, name)
		switch {
		case errors.Is(err, errMissing):
		case err != nil:
			fs.err = true
		default:
			fs.head, fs.inHead = data, true
		}
		return fs
	}
	changedHere := func(f finding.Finding) bool {
		if f.File == "" {
			return false
		}
		fs := read(f.File)
		switch {
		case fs.err:
			return true
		case !fs.inHead && !fs.old:
			return false
		case fs.inHead != fs.old:
			return true
		case bytes.Equal(fs.head, fs.was):
			return false
		case f.Line <= 0:
			return true
		}
		// A line the change copied is as new as any other: a record
		// repeated is a finding (a duplicate, say) the base did not have.
		line, ok := lineAt(fs.head, f.Line)
		return !ok || countLine(fs.head, line) > countLine(fs.was, line)
	}
	// The run's own findings, before the waivers mark any, counted by key
	// against the base's, on first need: most runs under a waiver were
	// left alone, but which were is only known by checking them.
	head := s.findings
	var inHead, inBase map[findingKey]int
	var baseErr error
	compared, same := false, false
	lines := fileLines(s)
	fewerAtBase := func(f finding.Finding) bool {
		if !compared {
			compared = true
			var found []findingKey
			found, same, baseErr = atBase()
			inBase = map[findingKey]int{}
			for _, k := range found {
				inBase[k]++
			}
			inHead = map[findingKey]int{}
			for _, h := range head {
				inHead[keyOf(h, lines)]++
			}
		}
		switch {
		case baseErr != nil:
			return true
		case same:
			return false
		}
		k := keyOf(f, lines)
		return inHead[k] > inBase[k]
	}
	isNew = func(f finding.Finding) bool {
		if f.Category == finding.CategoryAppendOnly {
			// The history stage compares the run with the base: what it
			// finds is what the change did, never something the base had,
			// and it may sit on a line the change left alone (an artifact
			// rewritten under its unchanged log entry).
			return true
		}
		if f.File != "" && !finding.InRun(f.File) {
			return false
		}
		return changedHere(f) || fewerAtBase(f)
	}
	return isNew, func() error { return baseErr }
}

// errMissing: the run has no such file.
var errMissing = errors.New("no such file in the run")

// readBounded reads a file of the run that is not one of its parsed
// documents, through its root; one over maxCompared is an error.
func readBounded(root *rundir.Root, name string) ([]byte, error) {
	f, _, p := root.Open(name)
	switch {
	case p != nil && p.Kind == rundir.Missing:
		return nil, errMissing
	case p != nil:
		return nil, p
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxCompared+1))
	if err == nil && len(data) > maxCompared {
		err = fmt.Errorf("%s: over %d bytes", name, maxCompared)
	}
	return data, err
}

// maxCompared bounds what is read of a file that is not one of the run's
// documents to compare it with the base; a larger one is new.
const maxCompared = 64 << 20

// lineAt is line n (1-based) of data, without its line ending.
func lineAt(data []byte, n int) ([]byte, bool) {
	for i := 1; ; i++ {
		line, rest, more := bytes.Cut(data, []byte("\n"))
		if i == n {
			return bytes.TrimSuffix(line, []byte("\r")), true
		}
		if !more {
			return nil, false
		}
		data = rest
	}
}

// countLine is how many whole lines of data are line.
func countLine(data, line []byte) int {
	n := 0
	for {
		l, rest, more := bytes.Cut(data, []byte("\n"))
		if bytes.Equal(bytes.TrimSuffix(l, []byte("\r")), line) {
			n++
		}
		if !more {
			return n
		}
		data = rest
	}
}

// newSinceUnread is what the history says to the waivers of a run that
// could not be read: its history was never compared, so whether the base
// holds its folder is looked up by path. The run is new when the base holds
// nothing there, or when that cannot be told (fail closed); the zero value
// when no history is compared at all (--base none, outside git).
func (c *checker) newSinceUnread(dir string) waiver.Since {
	rb, err := c.hist.of(dir)
	if err == nil && (rb.skip != "" || rb.repo == nil) {
		return waiver.Since{}
	}
	if err != nil {
		return waiver.Since{Base: "the base", NewRun: true}
	}
	// The folder itself, not what a link there leads to: a link the
	// change adds to a run the base holds is still new.
	parent, err := rb.repo.Rel(filepath.Dir(dir))
	if err != nil {
		return waiver.Since{Base: gitrev.Short(rb.base.Commit), NewRun: true}
	}
	if _, ok, err := rb.repo.Lookup(rb.base.Commit, path.Join(parent, filepath.Base(dir))); err == nil && ok {
		return waiver.Since{}
	}
	return waiver.Since{Base: gitrev.Short(rb.base.Commit), NewRun: true}
}

// notChecked finishes the audit of a run that could not be read at all:
// its one finding says why.
func (c *checker) notChecked(a *audit.Audit, run rundir.Run, why finding.Finding, notes string) *audit.Audit {
	a.RunID = filepath.Base(run.Dir)
	a.Findings = c.configure(run.Dir, c.newSinceUnread(run.Dir), []finding.Finding{why})
	if notes != "" {
		a.Notes = notes
	}
	a.Inputs = audit.Inputs{}
	a.Finish(c.failLevel(), nil)
	return a
}

// fillAudit records in a run's audit its complete findings, configured,
// what the stages found, and the gate.
func (c *checker) fillAudit(ctx context.Context, a *audit.Audit, s *runState, display string, out stagesOutcome) {
	c.resolvePositions(s)
	since, unread := c.scopeOf(ctx, s, display, out.hist)
	s.findings = c.configure(s.run.Dir, since, s.findings)
	if err := unread(); err != nil {
		s.add(finding.WaiverNewRun.New("", "the run could not be checked as base %s holds it (%v), so no waiver accepted a finding on a line the change left alone", since.Base, err))
	}
	// Copies, so the audit, which outlives the run's documents, does not
	// hold them through a substring.
	a.RunID = strings.Clone(s.lay.RunID(s.run))
	if id := strings.Clone(s.lay.TaskID(s.run)); id != "" {
		a.TaskID = &id
	}
	a.Findings = capPerRule(s.findings, maxFindingsPerRule)
	var err error
	if a.Inputs, err = audit.InputsFromHex(s.inputs); err != nil {
		// The digests are this tool's own hashes: a bad one is a defect,
		// never something to write into a report.
		c.fatal.set(fmt.Errorf("run %s: %w", a.Run, err))
	}
	a.Notes = runNotes(s, out.verified)
	a.Evidence = &audit.EvidenceCount{Verified: out.verified.ok, Logged: out.verified.total}
	docs, _ := out.input["docs"].(map[string]any)
	a.Stages, a.Events = progress(a.Layout, docs)
	a.Traceability.TaskIDMatch, a.Traceability.RequirementsCoverage =
		out.engine.Traceability(s.findings, out.policy.Evaluated, requirementsKnown(s, docs))
	a.Base, a.BaseFrom = out.hist.base, out.hist.baseFrom
	var notEvaluated map[string]string
	if out.hist.base == nil {
		notEvaluated = map[string]string{string(finding.CategoryAppendOnly): "no base revision compared: " + out.hist.reason}
	}
	a.Finish(c.failLevel(), notEvaluated)
	if a.Gate == audit.Pass {
		// Timelines are drawn only for runs that do not pass: a check of
		// many runs keeps no ledger of the passing ones.
		a.Events = nil
	}
	a.Policy = c.policies.intern(a.Policy)
}

// runNotes counts the verified artifacts, after the layout's own note.
func runNotes(s *runState, verified verifiedCount) string {
	notes := fmt.Sprintf("%d of %d logged artifacts verified", verified.ok, verified.total)
	if n, ok := s.lay.(layout.Noter); ok {
		if note := n.Notes(s.run); note != "" {
			notes = note + "; " + notes
		}
	}
	// Runs of the same shape have the same notes: one copy serves them all.
	return unique.Make(notes).Value()
}

// requirementsKnown: whether the run says what its requirements are, by
// its layout's word, else by whether it has a roadmap.
func requirementsKnown(s *runState, docs map[string]any) bool {
	if k, ok := s.lay.(layout.RequirementsKnower); ok {
		return k.RequirementsKnown(s.run)
	}
	return docs["roadmap"] != nil
}

// reportOnce fills and hands on the audits of no run checked here (deleted
// runs, rule changes), with the unused waivers when all runs were checked:
// a shard sees only its runs, so whether a waiver matched anything is
// known only to a check of them all.
func (c *checker) reportOnce(once []*audit.Audit, allRuns bool, emit func(*audit.Audit, map[string]any) error) error {
	if allRuns {
		once = withUnusedWaivers(once, c.rules.Waivers.Unused())
	}
	for _, a := range once {
		a.Tool = audit.Tool{Name: c.record.ToolName, Version: c.record.ToolVersion}
		a.Timestamp = c.record.Timestamp
		a.TrustWorkingTree = c.record.TrustWorkingTree
		a.Sources = sourcesOrEmpty(c.record.Sources)
		a.Finish(c.failLevel(), nil)
		if err := emit(a, nil); err != nil {
			return err
		}
	}
	return nil
}
