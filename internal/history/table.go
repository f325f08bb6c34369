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
// one entry per append-only file (and a run detector in runDetectors).
var Table = []FileRule{
	{Layout: "h3a", Path: "state.json", Check: jsonArray("/steps", true)},
	{Layout: "h3a", Path: "state/SESSION_HANDOFF.json", Check: jsonArray("/history", false)},
	{Layout: "h3a", Path: "planner_report.json", Check: jsonArray("/reports", false)},
	{Layout: "h3a", Path: "executor_report.json", Check: jsonArray("/tdd_cycles", false)},
	{Layout: "h3a", Path: "validator_report.json", Check: jsonArray("/verdicts", false)},
	{Layout: "h3a", Path: "state/GATES_LEDGER.md", Check: gateEvents},
	{Layout: "h3a", Path: "state/EVIDENCE_LOG.md", Check: evidenceEntries, Artifacts: h3aLoggedArtifacts},
	{Layout: "h3a", Path: "state/ROADMAP.md", Check: roadmapTasks},

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

// runDetectors tell, per layout, whether dir is a run given the files of a
// revision, as the layout's Detect does on disk. markers are files whose
// presence makes dir a candidate.
var runDetectors = []struct {
	layout  string
	markers []string
	isRun   func(dir string, has func(string) bool, hasUnder func(string) bool) bool
}{
	{
		layout: "h3a",
		markers: []string{"state.json", "state/ROADMAP.md", "state/CURRENT_TASK.json", "state/GATES_LEDGER.md",
			"state/EVIDENCE_LOG.md", "state/SESSION_HANDOFF.json"},
		// A state/ folder beside state.json, or any of the five state files.
		isRun: func(dir string, has, hasUnder func(string) bool) bool {
			return hasUnder(joinRel(dir, "state"))
		},
	},
	{
		layout:  "hybrid-os",
		markers: []string{"state.json", "state.txt"},
		// As layout.Hybrid.Detect, without reading content: no state/
		// folder, and the v1.4 registries or logs, or vX.2 control files.
		isRun: func(dir string, has, hasUnder func(string) bool) bool {
			if hasUnder(joinRel(dir, "state")) {
				return false
			}
			if has(joinRel(dir, "state.txt")) {
				return true
			}
			for _, p := range []string{"plan_summary.json", "registry_summary.json", "known_issues.json"} {
				if has(joinRel(dir, p)) {
					return true
				}
			}
			return hasUnder(joinRel(dir, "logs")) || hasUnder(joinRel(dir, "plans")) || hasUnder(joinRel(dir, "registry"))
		},
	},
	{
		layout:  "stigmergy",
		markers: []string{".ai/state.json", ".stigmergy/state/current.json"},
		isRun:   func(string, func(string) bool, func(string) bool) bool { return true },
	},
}
