package layout

import (
	"io/fs"
	"path/filepath"
	"strings"

	"github.com/h3a-check/h3a-check/internal/finding"
	"github.com/h3a-check/h3a-check/internal/ledger"
	"github.com/h3a-check/h3a-check/internal/rundir"
	"github.com/h3a-check/h3a-check/internal/status"
)

// H3A is the layout of h3a-state-specification.md: state.json and three
// agent reports at the top, five state files under state/, artifacts/.
type H3A struct{}

const (
	h3aState           = "state.json"
	h3aRoadmap         = "state/ROADMAP.md"
	h3aCurrentTask     = "state/CURRENT_TASK.json"
	h3aGatesLedger     = "state/GATES_LEDGER.md"
	h3aEvidenceLog     = "state/EVIDENCE_LOG.md"
	h3aSessionHandoff  = "state/SESSION_HANDOFF.json"
	h3aPlannerReport   = "planner_report.json"
	h3aExecutorReport  = "executor_report.json"
	h3aValidatorReport = "validator_report.json"
)

var h3aFiles = []File{
	{Path: h3aState, Kind: JSON, Schema: "state", Required: true, DocKey: "state"},
	{Path: h3aCurrentTask, Kind: JSON, Schema: "current_task", Required: true, DocKey: "current_task"},
	{Path: h3aSessionHandoff, Kind: JSON, Schema: "session_handoff", Required: true, DocKey: "handoff"},
	{Path: h3aPlannerReport, Kind: JSON, Schema: "planner_report", Required: true, DocKey: "planner_report"},
	{Path: h3aExecutorReport, Kind: JSON, Schema: "executor_report", Required: true, DocKey: "executor_report"},
	{Path: h3aValidatorReport, Kind: JSON, Schema: "validator_report", Required: true, DocKey: "validator_report"},
	{Path: h3aRoadmap, Kind: Markdown, Required: true, DocKey: "roadmap",
		ParseLedger: func(b []byte) (any, []ledger.Problem) { return ledger.ParseRoadmap(b) }},
	{Path: h3aGatesLedger, Kind: Markdown, Required: true, DocKey: "gates_ledger",
		ParseLedger: func(b []byte) (any, []ledger.Problem) { return ledger.ParseGatesLedger(b) }},
	{Path: h3aEvidenceLog, Kind: Markdown, Required: true, DocKey: "evidence_log",
		ParseLedger: func(b []byte) (any, []ledger.Problem) { return ledger.ParseEvidenceLog(b) }},
}

var h3aAppendOnly = []AppendOnly{
	{h3aState, ArrayPrefix{Pointer: "/steps", Corrections: true}},
	{h3aSessionHandoff, ArrayPrefix{Pointer: "/history"}},
	{h3aPlannerReport, ArrayPrefix{Pointer: "/reports"}},
	{h3aExecutorReport, ArrayPrefix{Pointer: "/tdd_cycles"}},
	{h3aValidatorReport, ArrayPrefix{Pointer: "/verdicts"}},
	{h3aGatesLedger, GateEvents{}},
	{h3aEvidenceLog, EvidenceEntries{}},
	{h3aRoadmap, RoadmapTasks{}},
	// After the gates ledger: a lowered iteration_count is allowed only
	// with a human decision among the events the ledger gained.
	{h3aCurrentTask, IterationCount{Ledger: h3aGatesLedger}},
}

func (H3A) ID() string               { return "h3a" }
func (H3A) Files() []File            { return h3aFiles }
func (H3A) AppendOnly() []AppendOnly { return h3aAppendOnly }

// Detect: a state/ folder holding any of the five state files, or a
// state.json beside a state/ folder. Both are needed loosely so that a run
// with a missing state file is still found and reported, not skipped.
func (H3A) Detect(fsys fs.FS, dir string) bool { return h3aStateFolder(fsys, dir) }

// DetectLoose: a folder that lost its state/ folder is found by what only
// this layout names: an agent's report (planner_report.json,
// executor_report.json, validator_report.json) or a state.json holding a
// run_id and gates, the claims a gate check reads (h3a-state-specification.md,
// Directory Structure; state.json). A run_id alone is common to other
// tools' state files, and without gates the file claims no gate.
// Were it no run, its gate claims and its artifacts would pass unchecked.
func (H3A) DetectLoose(fsys fs.FS, dir string) bool {
	for _, p := range []string{h3aPlannerReport, h3aExecutorReport, h3aValidatorReport} {
		if exists(fsys, dir, p) {
			return true
		}
	}
	return writesKeys(fsys, dir, h3aState, "run_id", "gates")
}

// h3aStateFolder reports whether dir holds the layout's state/ folder
// with a state file in it, or beside a state.json.
func h3aStateFolder(fsys fs.FS, dir string) bool {
	if !isDirOrLink(fsys, dir, "state") {
		return false
	}
	for _, p := range []string{h3aState, h3aRoadmap, h3aCurrentTask, h3aGatesLedger, h3aEvidenceLog, h3aSessionHandoff} {
		if exists(fsys, dir, p) {
			return true
		}
	}
	return false
}

// Forced: with the layout forced, state.json or the state/ folder is
// enough; what else is missing is reported by the check.
func (H3A) Forced(fsys fs.FS, dir string) bool {
	return exists(fsys, dir, h3aState) || isDirOrLink(fsys, dir, "state")
}

func (H3A) Defined() string {
	return "an h3a run holds state.json and a state/ folder (ROADMAP.md, CURRENT_TASK.json, GATES_LEDGER.md, EVIDENCE_LOG.md, SESSION_HANDOFF.json), or, without state/, an agent's report (planner_report.json, executor_report.json, validator_report.json) or a state.json with run_id and gates"
}

func (H3A) Evidence(r *Run) []EvidenceRef {
	log, ok := ledgerOf[*ledger.EvidenceLog](r, h3aEvidenceLog)
	if !ok {
		return nil
	}
	refs := make([]EvidenceRef, 0, len(log.Entries))
	for _, e := range log.Entries {
		refs = append(refs, EvidenceRef{
			Path: e.Path, Hash: e.Hash, Time: e.Time, LogFile: h3aEvidenceLog,
			Line: e.Line, PathColumn: e.PathColumn, HashColumn: e.HashColumn,
		})
	}
	return refs
}

func (l H3A) Check(r *Run) []finding.Finding {
	name := filepath.Base(r.Dir)
	if why := rundir.CheckRunID(name); why != "" {
		if filepath.Base(filepath.Dir(r.Dir)) == "runs" {
			return []finding.Finding{finding.RunDirName.New("", "run directory %s", why)}
		}
		return []finding.Finding{finding.RunDirNameLoose.New("", "run directory %s; its name is not compared with state.json's run_id", why)}
	}
	id, ok := jsonString(r, h3aState, "run_id")
	if !ok || id == name {
		return nil
	}
	f := finding.RunIDMismatch.New(h3aState, "state.json run_id %q differs from the run directory name %q", id, name)
	f.Pointer = "/run_id"
	return []finding.Finding{f}
}

func (H3A) RunID(r *Run) string {
	if id, ok := jsonString(r, h3aState, "run_id"); ok {
		return id
	}
	return filepath.Base(r.Dir)
}

// IDFiles: state.json holds the run id (UniqueIDs).
func (H3A) IDFiles() []string { return []string{h3aState} }

// RunIDs: state.json's run_id, and the folder's name when it is a run id
// with another UUID. h3a-state-specification.md, Run Identifier Format:
// "Globally unique (UUID collision probability < 10⁻³⁶)": what makes a run
// id unique is its UUID, so two run ids that differ in their time alone
// name one run.
func (H3A) RunIDs(r *Run) []RunIDAt {
	var ids []RunIDAt
	if id, ok := jsonString(r, h3aState, "run_id"); ok {
		ids = append(ids, RunIDAt{ID: id, Key: runIDKey(id), File: h3aState, Pointer: "/run_id"})
	}
	if name := filepath.Base(r.Dir); rundir.CheckRunID(name) == "" && (len(ids) == 0 || ids[0].Key != runIDKey(name)) {
		ids = append(ids, RunIDAt{ID: name, Key: runIDKey(name)})
	}
	return ids
}

// IDKey: the run id's UUID (runIDKey).
func (H3A) IDKey(id string) string { return runIDKey(id) }

// runIDKey is the UUID of a run id of the form YYYYMMDD-HHMMSS-<uuid4>,
// in small letters (its hexadecimal digits are one number in either
// case), and any other id as it is.
func runIDKey(id string) string {
	if lower := strings.ToLower(id); rundir.CheckRunID(lower) == "" {
		return lower[len("YYYYMMDD-HHMMSS-"):]
	}
	return id
}

func (H3A) TaskID(r *Run) string {
	if id, ok := jsonString(r, h3aCurrentTask, "task_id"); ok {
		return id
	}
	if id, ok := jsonString(r, h3aSessionHandoff, "payload", "task_id"); ok {
		return id
	}
	return ""
}

func (H3A) Docs(r *Run) map[string]any {
	docs := map[string]any{}
	for _, f := range h3aFiles {
		d := r.Docs[f.Path]
		if d == nil || !d.Parsed {
			docs[f.DocKey] = nil
			continue
		}
		switch v := d.Ledger.(type) {
		case *ledger.Roadmap:
			docs[f.DocKey] = roadmapInput(v)
		case *ledger.GatesLedger:
			docs[f.DocKey] = gatesLedgerInput(v)
		case *ledger.EvidenceLog:
			docs[f.DocKey] = evidenceLogInput(v)
		default:
			docs[f.DocKey] = d.Value()
		}
	}
	docs["test_outputs"] = testOutputsInput(r)
	return docs
}

// Meanings gives the meaning of every status the documents define more
// than one spelling for: each validator verdict's status (in verdict
// order), the H3 handoff's payload.verdict and CURRENT_TASK.json status.
// A value that is no spelling of its field is null; its schema reports it.
func (H3A) Meanings(r *Run) map[string]any {
	verdicts := []any{}
	if vs, ok := jsonValue(r, h3aValidatorReport, "verdicts").([]any); ok {
		for _, v := range vs {
			m, _ := v.(map[string]any)
			verdicts = append(verdicts, status.Verdict.Input(m["status"]))
		}
	}
	return map[string]any{
		"verdicts":        verdicts,
		"handoff_verdict": status.Verdict.Input(jsonValue(r, h3aSessionHandoff, "payload", "verdict")),
		"task":            status.Task.Input(jsonValue(r, h3aCurrentTask, "status")),
	}
}

func roadmapInput(m *ledger.Roadmap) map[string]any {
	sections := make([]any, 0, len(m.Sections))
	for _, s := range m.Sections {
		sections = append(sections, s.Title)
	}
	tasks := make([]any, 0, len(m.Tasks))
	for _, t := range m.Tasks {
		tasks = append(tasks, map[string]any{
			"id": t.ID, "text": t.Text, "done": t.Done, "completed_at": t.CompletedAt, "line": t.Line,
		})
	}
	criteria := make([]any, 0, len(m.Criteria))
	for _, c := range m.Criteria {
		criteria = append(criteria, map[string]any{"text": c.Text, "done": c.Done, "line": c.Line})
	}
	return map[string]any{"status": m.Status, "status_line": m.StatusLine, "sections": sections, "tasks": tasks,
		"criteria": criteria, "brief": m.Brief, "brief_line": m.BriefLine}
}

func gatesLedgerInput(g *ledger.GatesLedger) map[string]any {
	events := make([]any, 0, len(g.Events))
	// A set, not a search of the list per event, which grows with the
	// square of a log folded into one <details> block.
	collapsed := make(map[int]bool, len(g.Collapsed))
	for _, line := range g.Collapsed {
		collapsed[line] = true
	}
	for _, e := range g.Events {
		events = append(events, map[string]any{
			"time": e.Time, "gate": e.Gate, "status": e.Status, "agent": e.Agent, "note": e.Note, "line": e.Line,
			"collapsed": collapsed[e.Line],
		})
	}
	table := make([]any, 0, len(g.Table))
	for _, t := range g.Table {
		table = append(table, map[string]any{
			"gate": t.Gate, "name": t.Name, "owner": t.Owner, "status": t.Status, "raw_status": t.RawStatus, "line": t.Line,
		})
	}
	current := make([]any, 0, len(g.Current))
	for _, c := range g.Current {
		blockers := make([]any, 0, len(c.Blockers))
		for _, b := range c.Blockers {
			blockers = append(blockers, map[string]any{"text": b.Text, "line": b.Line})
		}
		evidence := make([]any, 0, len(c.Evidence))
		for _, e := range c.Evidence {
			evidence = append(evidence, map[string]any{"path": e.Path, "line": e.Line})
		}
		current = append(current, map[string]any{
			"gate": c.Gate, "line": c.Line, "status": c.Status, "raw_status": c.RawStatus,
			"status_line": c.StatusLine, "blockers": blockers, "evidence": evidence,
		})
	}
	return map[string]any{"events": events, "table": table, "events_line": g.EventsLine, "current": current}
}

func evidenceLogInput(e *ledger.EvidenceLog) map[string]any {
	entries := make([]any, 0, len(e.Entries))
	for _, x := range e.Entries {
		entries = append(entries, map[string]any{
			"path": x.Path, "hash": x.Hash, "time": x.Time, "description": x.Description, "line": x.Line,
		})
	}
	return map[string]any{"entries": entries}
}

// ledgerOf returns the parsed ledger of path when it parsed as a T.
func ledgerOf[T any](r *Run, path string) (T, bool) {
	var zero T
	d := r.Docs[path]
	if d == nil || !d.Parsed {
		return zero, false
	}
	v, ok := d.Ledger.(T)
	return v, ok
}

// jsonString walks keys in a parsed JSON document and returns a non-empty string.
func jsonString(r *Run, path string, keys ...string) (string, bool) {
	s, ok := jsonValue(r, path, keys...).(string)
	return s, ok && s != ""
}

// jsonValue walks keys in a parsed JSON document; nil when a key is absent
// or the document is missing or unparsed.
func jsonValue(r *Run, path string, keys ...string) any {
	d := r.Docs[path]
	if d == nil || !d.Parsed || d.JSON == nil {
		return nil
	}
	v := d.JSON.Value
	for _, k := range keys {
		m, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = m[k]
	}
	return v
}
