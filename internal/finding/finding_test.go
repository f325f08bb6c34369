package finding

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestCount(t *testing.T) {
	waived := Waiver{Reason: "accepted until the fix lands", Expires: "2099-12-31", Source: ".h3a-check.yaml:4"}
	fs := []Finding{
		{Severity: Error}, {Severity: Error, Waived: waived},
		{Severity: Warning}, {Severity: Warning, Waived: waived},
		{Severity: Info},
	}
	want := Counts{Error: 1, Warning: 1, Info: 1, Waived: 2}
	if got := Count(fs); got != want {
		t.Errorf("Count = %+v, want %+v", got, want)
	}
}

// TestWaivedJSON: an unwaived finding has no "waived" member at all; a
// waived one carries reason, expiry and source.
func TestWaivedJSON(t *testing.T) {
	tests := []struct {
		name string
		f    Finding
		want string
		not  string
	}{
		{"not waived", Finding{Rule: "r", Details: "d"}, `"details":"d"`, `"waived"`},
		{"waived", Finding{Rule: "r", Details: "d", Waived: Waiver{Reason: "why", Expires: "2099-01-01", Source: "c.yaml:2"}},
			`"waived":{"reason":"why","expires":"2099-01-01","source":"c.yaml:2"}`, ""},
	}
	for _, tc := range tests {
		b, err := json.Marshal(tc.f)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(b), tc.want) || (tc.not != "" && strings.Contains(string(b), tc.not)) {
			t.Errorf("%s: %s", tc.name, b)
		}
	}
}

func TestSortDedupeKeepsWaivedApart(t *testing.T) {
	a := Finding{Rule: "r", Severity: Error, Details: "d"}
	b := a
	b.Waived = Waiver{Reason: "why", Expires: "2099-01-01", Source: "c.yaml:2"}
	got := SortDedupe([]Finding{b, a, a})
	if len(got) != 2 || got[0].IsWaived() || !got[1].IsWaived() {
		t.Errorf("SortDedupe = %+v", got)
	}
}

// TestRootCauseFirst: a record that does not parse is listed before what
// it causes elsewhere (an artifact no entry logs, a gate without its
// evidence), whatever the files' names; the rest keeps file order.
func TestRootCauseFirst(t *testing.T) {
	effect := Finding{Rule: "h3a.evidence.unlogged_file", File: "artifacts/a.txt", Severity: Warning}
	gate := Finding{Rule: "h3a.evidence.required_artifact", File: "state.json", Line: 16, Severity: Error}
	cause := MalformedRecord.New("state/EVIDENCE_LOG.md", "the path must be in backticks")
	cause.Line = 19
	got := SortDedupe([]Finding{effect, gate, cause})
	if got[0].Rule != MalformedRecord.ID || got[1] != effect || got[2] != gate {
		t.Errorf("order %s, %s, %s; want the malformed record first, then by file", got[0].Rule, got[1].Rule, got[2].Rule)
	}
}

// h3aRules are the Go rules that enforce a sentence of the H3A documents
// (the other Go rules guard the checker itself: confinement, parsing,
// schemas, waivers, the history comparison's own notes).
var h3aRules = []Rule{
	HashMismatch, EntryNotSuperseded, MissingArtifact, HashUnverifiable, HashEllipsis, HashMalformed,
	TmpLeftover, RunDirName, RunIDMismatch, DuplicateRunID,
	EntryRewritten, BadCorrection, GateEventRewritten, EvidenceEntryRewritten, BaseUnreadable,
	TaskRemoved, TaskReworded, TaskUnticked, CompletionChanged, CriterionChanged, IterationCountLowered,
}

// gateStateRules are the Go rules that enforce a sentence of the gate-state
// management guide.
var gateStateRules = []Rule{GateStateOutputUnread}

// TestH3ARulesCiteTheirBasis: each of them names the document and section it
// enforces.
func TestH3ARulesCiteTheirBasis(t *testing.T) {
	for _, r := range h3aRules {
		if !strings.Contains(r.Description, "h3a-state-specification.md, ") && !strings.Contains(r.Description, "gate_framework.md, ") &&
			!strings.Contains(r.Description, "handoff_contracts.md, ") {
			t.Errorf("%s: the description names no H3A document and section: %q", r.ID, r.Description)
		}
	}
	for _, r := range gateStateRules {
		if !strings.Contains(r.Description, "gate-state-management.md, ") {
			t.Errorf("%s: the description names no section of gate-state-management.md: %q", r.ID, r.Description)
		}
	}
}

// contractRules are the Go rules that enforce a sentence of the artifact
// contract (artifact-contract.md) or the upstream role documents around it
// (loop-orchestrator, doer-implement, judge-evaluate, auditor-gate SKILL.md).
var contractRules = []Rule{ContractFileMissing, ContractRoundNumber, ContractFlatAndRounds}

// TestContractRulesCiteTheirBasis: each of them names the document and
// section it enforces, as the contract layout's policy rules do.
func TestContractRulesCiteTheirBasis(t *testing.T) {
	for _, r := range contractRules {
		if !strings.Contains(r.Description, "artifact-contract.md, ") && !strings.Contains(r.Description, "SKILL.md, ") {
			t.Errorf("%s: the description names no contract document and section: %q", r.ID, r.Description)
		}
	}
}

func TestInRun(t *testing.T) {
	for file, want := range map[string]bool{
		"state.json": true, "state/GATES_LEDGER.md": true, "a..b/c": true,
		"": false, ".": false, "..": false, "./x": false, "x/": false, "x//y": false,
		"x/..": false, "x/./y": false, "../r2/x": false, "/etc/passwd": false,
	} {
		if got := InRun(file); got != want {
			t.Errorf("InRun(%q) = %v, want %v", file, got, want)
		}
	}
}
