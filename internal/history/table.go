package history

import (
	"path"
	"strings"

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

// runDetectors tell, per layout, whether dir is a run given the files of a
// revision, as the layout's Detect does on disk, in layout.All's order. markers are files whose
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
	{
		layout:  "gate-state",
		markers: []string{".state/*-pipeline.json", ".state/*-gate*-output.json"},
		isRun:   func(string, func(string) bool, func(string) bool) bool { return true },
	},
	{
		layout:  "contract",
		markers: []string{"handoff.json", "verdict.json", "audit.json", "summary.json"},
		// Flat artifacts, or summary.json beside rounds/; a round folder is
		// part of its run, never a run of its own. (A run with rounds/ but
		// no summary yet is not recognised at the base.)
		isRun: func(dir string, has, hasUnder func(string) bool) bool {
			if path.Base(path.Dir(dir)) == "rounds" && strings.HasPrefix(path.Base(dir), "round-") {
				return false
			}
			return has(joinRel(dir, "handoff.json")) || has(joinRel(dir, "verdict.json")) || has(joinRel(dir, "audit.json")) ||
				hasUnder(joinRel(dir, "rounds"))
		},
	},
}
