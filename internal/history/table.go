package history

import (
	"github.com/h3a-check/h3a-check/internal/finding"
	"github.com/h3a-check/h3a-check/internal/ledger"
)

// FileRule is how one append-only file of a layout is compared with its
// base version.
type FileRule struct {
	Layout string
	Path   string // relative to the run; a file of the layout
	// Check compares the two parsed versions and returns findings about
	// head, at the first line or element that diverges.
	Check func(p *pair) []finding.Finding
	// Artifacts, for an evidence log, lists the paths its base version
	// logs, as written; each artifact must hash the same in head. nil for
	// other files.
	Artifacts func(baseLedger any) []string
}

// Table is the rule set, one entry per file kind. Another layout joins with
// one entry per append-only file.
var Table = []FileRule{
	{Layout: "h3a", Path: "state.json", Check: jsonArray("/steps", true)},
	{Layout: "h3a", Path: "state/SESSION_HANDOFF.json", Check: jsonArray("/history", false)},
	{Layout: "h3a", Path: "planner_report.json", Check: jsonArray("/reports", false)},
	{Layout: "h3a", Path: "executor_report.json", Check: jsonArray("/tdd_cycles", false)},
	{Layout: "h3a", Path: "validator_report.json", Check: jsonArray("/verdicts", false)},
	{Layout: "h3a", Path: h3aGatesLedger, Check: gateEvents},
	{Layout: "h3a", Path: "state/EVIDENCE_LOG.md", Check: evidenceEntries, Artifacts: h3aLoggedArtifacts},
	{Layout: "h3a", Path: "state/ROADMAP.md", Check: roadmapTasks},
	// After the gates ledger: a lowered iteration_count is allowed only
	// with a human decision among the events the ledger gained.
	{Layout: "h3a", Path: h3aCurrentTask, Check: iterationCount},

	{Layout: "hybrid-os", Path: "state.json", Check: versionsGrow(finding.Error, "v", "g")},
	{Layout: "hybrid-os", Path: "plan_summary.json", Check: versionsGrow(finding.Error, "v")},
	{Layout: "hybrid-os", Path: "registry_summary.json", Check: versionsGrow(finding.Error, "v")},
	{Layout: "hybrid-os", Path: "known_issues.json", Check: versionsGrow(finding.Error, "v")},
	{Layout: "hybrid-os", Path: "plans/*/*.json", Check: versionsGrow(finding.Error, "v")},
	{Layout: "hybrid-os", Path: "registry/*/*.json", Check: versionsGrow(finding.Error, "v")},
	{Layout: "hybrid-os", Path: "logs/log_unit_*.jsonl", Check: logGrows},
	{Layout: "hybrid-os", Path: "state.txt", Check: versionsGrow(finding.Warning, "v", "g")},
	{Layout: "hybrid-os", Path: "registry_map.txt", Check: versionsGrow(finding.Warning, "v")},
	{Layout: "hybrid-os", Path: "issues_summary.txt", Check: versionsGrow(finding.Warning, "v")},

	{Layout: "stigmergy", Path: ".ai/state.json", Check: jsonArray("/history", false)},
	{Layout: "stigmergy", Path: ".ai/state.json", Check: issuesStayResolved},
	{Layout: "stigmergy", Path: ".stigmergy/state/current.json", Check: jsonArray("/history", false)},

	// A pipeline records each gate as it completes; a completed gate's
	// output is what the next gate read, so it never changes (a FAILED
	// gate's output may be rewritten by a re-run).
	{Layout: "gate-state", Path: ".state/*-pipeline.json", Check: jsonArray("/completedGates", false)},
	{Layout: "gate-state", Path: ".state/*-gate*-output.json", Check: completedGateFrozen},

	// A contract round is written once; the summary once the loop ends.
	// Rounds only grow: a round file of the base missing in head is
	// h3a.append_only.file_removed.
	{Layout: "contract", Path: "summary.json", Check: frozenJSON("summary fields of a finished run never change")},
	{Layout: "contract", Path: "rounds/round-*/handoff.json", Check: frozenJSON("a committed round never changes; a new attempt is a new round")},
	{Layout: "contract", Path: "rounds/round-*/verdict.json", Check: frozenJSON("a committed round never changes; a new attempt is a new round")},
	{Layout: "contract", Path: "rounds/round-*/audit.json", Check: frozenJSON("a committed round never changes; a new attempt is a new round")},
}

// completedGateFrozen holds a gate output to its base version once the
// base records the gate as done (status SUCCESS or PARTIAL).
func completedGateFrozen(p *pair) []finding.Finding {
	base, _ := p.base.json.Value.(map[string]any)
	if st, _ := base["status"].(string); st != "SUCCESS" && st != "PARTIAL" {
		return nil
	}
	return frozenJSON("a completed gate's output is what the next gate read; re-run the gate into a new pipeline instead")(p)
}

// frozenJSON reports the first difference between a JSON file and its base
// version: the file never changes once committed.
func frozenJSON(why string) func(*pair) []finding.Finding {
	return func(p *pair) []finding.Finding {
		at, b, h, differs := firstDiff(p.base.json.Value, p.head.json.Value, "")
		if !differs {
			return nil
		}
		where := at
		if where == "" {
			where = "the document"
		}
		f := finding.FrozenChanged.New(p.path, "%s changed since base %s at %s: base %s, head %s; %s",
			p.path, p.commit, where, quoteValue(b), quoteValue(h), why)
		f.Pointer = at
		return []finding.Finding{f}
	}
}

func h3aLoggedArtifacts(v any) []string {
	log, ok := v.(*ledger.EvidenceLog)
	if !ok {
		return nil
	}
	out := make([]string, 0, len(log.Entries))
	for _, e := range log.Entries {
		out = append(out, e.Path)
	}
	return out
}
