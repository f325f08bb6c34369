package history_test

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestStigmergyHistory commits the complete stigmergy example, changes
// head and checks it against that commit: history[] is append-only and a
// resolved issue does not reopen without a history entry naming it.
func TestStigmergyHistory(t *testing.T) {
	const template = "../../testdata/runs/ok/stigmergy_complete/greeter"
	const state = ".ai/state.json"
	entry := `{"timestamp": "2025-09-01T12:00:00Z", "agent_id": "james", "signal": "ISSUE_REOPENED", "summary": "I-1 came back"}`
	cases := []struct {
		name  string
		edits [][2]string // old, new in .ai/state.json
		want  []string
	}{
		{name: "unchanged"},
		// An entry about another issue: one reopening I-1 under a RESOLVED
		// I-1 is the state behind its history, a finding of its own.
		{name: "appended", edits: [][2]string{{`"summary": "T01 done"
    }`, `"summary": "T01 done"
    }, ` + strings.ReplaceAll(entry, "I-1 came back", "I-10 found")}}},
		{name: "entry rewritten", edits: [][2]string{{`"T01 done"`, `"T01 finished"`}},
			want: []string{`.ai/state.json:`, `[h3a.append_only.entry_rewritten]`}},
		{name: "issue reopened silently", edits: [][2]string{{`"status": "RESOLVED"`, `"status": "OPEN"`}},
			want: []string{`.ai/state.json:57:17: error: issue "I-1" was RESOLVED at base <base> and is "OPEN" in head, with no history entry naming it [h3a.append_only.stigmergy_issue_reopened]`}},
		{name: "schema_version changed", edits: [][2]string{{`"schema_version": "3.0"`, `"schema_version": "3.0.0"`}},
			want: []string{`.ai/state.json:2:21: error: .ai/state.json declares schema_version "3.0" at base <base>, which holds it to schema stigmergy_state, and schema_version "3.0.0" in head, which holds it to none: a file keeps the schema its base version is held to [h3a.append_only.schema_version_changed]`}},
		{name: "schema_version removed", edits: [][2]string{{`"schema_version": "3.0",`, ``}},
			want: []string{`.ai/state.json: warning: no schema_version: lacks schema_version of schema 3.0 [h3a.schema.stigmergy_drift]`,
				`.ai/state.json: error: .ai/state.json declares schema_version "3.0" at base <base>, which holds it to schema stigmergy_state, and no schema_version in head, which holds it to none: a file keeps the schema its base version is held to [h3a.append_only.schema_version_changed]`}},
		{name: "issue reopened by a second entry", edits: [][2]string{{`"issue_log": [`, `"issue_log": [
    {"issue_id": "I-1", "task_id_ref": "T02", "timestamp": "2025-09-01T11:00:00Z", "status": "OPEN", "summary": "flaky test"},`}},
			want: []string{`.ai/state.json:53:94: error: issue "I-1" was RESOLVED at base <base> and is "OPEN" in head, with no history entry naming it [h3a.append_only.stigmergy_issue_reopened]`}},
		{name: "issue reopened with a history entry naming another", edits: [][2]string{
			{`"status": "RESOLVED"`, `"status": "OPEN"`},
			{`"summary": "T01 done"
    }`, `"summary": "T01 done"
    }, ` + strings.ReplaceAll(entry, "I-1 came back", "I-10 found")}},
			want: []string{`.ai/state.json:57:17: error: issue "I-1" was RESOLVED at base <base> and is "OPEN" in head, with no history entry naming it [h3a.append_only.stigmergy_issue_reopened]`}},
		{name: "manifest task dropped", edits: [][2]string{{`"id": "T03"`, `"id": "T04"`}}, want: []string{
			`.ai/state.json:7:14: warning: task "T03" ("PENDING" at base <base>) is gone from project_manifest in head: the manifest is the project's master plan, and a person must confirm the task was dropped [h3a.append_only.stigmergy_task_dropped]`,
			"[h3a.traceability.stigmergy_blueprint_mismatch]",
			"[h3a.traceability.stigmergy_blueprint_mismatch]",
		}},
		{name: "issue reopened with a history entry", edits: [][2]string{
			{`"status": "RESOLVED"`, `"status": "OPEN"`},
			{`"summary": "T01 done"
    }`, `"summary": "T01 done"
    }, ` + entry}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := findingsAfterEdit(t, template, "greeter", func(run string) {
				for _, e := range tc.edits {
					replace(t, filepath.Join(run, state), e[0], e[1])
				}
			})
			n := len(tc.want)
			if n > 1 && tc.want[0] == ".ai/state.json:" {
				n = 1 // prefix and suffix of one finding
			}
			if len(got) != n {
				t.Fatalf("got %d findings, want %d:\n%s", len(got), n, strings.Join(got, "\n"))
			}
			for _, w := range tc.want {
				if !strings.Contains(got[0], w) && !(n > 1 && containsAny(got, w)) {
					t.Errorf("findings:\n%s\nwant one containing %s", strings.Join(got, "\n"), w)
				}
			}
		})
	}
}

func containsAny(ss []string, sub string) bool {
	for _, s := range ss {
		if strings.Contains(s, sub) {
			return true
		}
	}
	return false
}

// TestStigmergyHaltHistory commits the halted stigmergy example and
// lifts the halt in head: only a person lets a halted project go on, so
// the change that does asks for one, whatever it logs.
func TestStigmergyHaltHistory(t *testing.T) {
	const template = "../../testdata/runs/ok/stigmergy_halted/greeter"
	resumed := `"summary": "halted: T02 cannot complete"
    }, {"timestamp": "2025-09-01T13:00:00Z", "agent_id": "saul", "signal": "EXECUTION_RESUMED", "summary": "a person said go on"}`
	cases := []ledgerEdit{
		{name: "still halted", want: []string{"[h3a.gates.stigmergy_halted]"}},
		{name: "resumed, with a history entry", edits: [][2]string{
			{`"project_status": "EXECUTION_HALTED"`, `"project_status": "EXECUTION_IN_PROGRESS"`},
			{`"summary": "halted: T02 cannot complete"
    }`, resumed},
		}, want: []string{`.ai/state.json:5:21: warning: project_status was "EXECUTION_HALTED" at base <base> and is "EXECUTION_IN_PROGRESS" in head: the swarm halted on a critical, unrecoverable error, and a person must confirm it may go on [h3a.append_only.stigmergy_halt_lifted]`,
			// A RESUMED entry does not clear the logged halt either.
			"[h3a.gates.stigmergy_state_behind_history]"}},
		{name: "completed", edits: [][2]string{{`"project_status": "EXECUTION_HALTED"`, `"project_status": "PROJECT_COMPLETE"`}},
			want: []string{"[h3a.append_only.stigmergy_halt_lifted]", "[h3a.gates.stigmergy_project_complete]", "[h3a.gates.stigmergy_complete_with_open_issue]",
				"[h3a.gates.stigmergy_state_behind_history]"}},
		{name: "status removed", edits: [][2]string{{`"project_status": "EXECUTION_HALTED",`, ``}},
			want: []string{`is (absent) in head`, "[h3a.schema.violation]"}},
	}
	runLedgerEdits(t, template, cases)
}

// TestStigmergyOpenIssueHistory commits the halted stigmergy example,
// whose issue I-2 failed to resolve, and closes the issue in head: only a
// history entry naming it may resolve it, and no entry of it is dropped.
func TestStigmergyOpenIssueHistory(t *testing.T) {
	const template = "../../testdata/runs/ok/stigmergy_halted/greeter"
	const halted = "[h3a.gates.stigmergy_halted]"
	// The history's last word on I-2 is ISSUE_UNRESOLVED.
	const behind = "[h3a.gates.stigmergy_state_behind_history]"
	resolved := [2]string{`"status": "FAILED_TO_RESOLVE"`, `"status": "RESOLVED"`}
	logged := [2]string{`"summary": "halted: T02 cannot complete"
    }`, `"summary": "halted: T02 cannot complete"
    }, {"timestamp": "2025-09-01T13:00:00Z", "agent_id": "responder", "signal": "ISSUE_RESOLVED", "summary": "I-2 resolved: the API is back"}`}
	cases := []ledgerEdit{
		{name: "resolved silently", edits: [][2]string{resolved}, want: []string{
			`.ai/state.json:82:17: error: issue "I-2" was "FAILED_TO_RESOLVE" at base <base> and is RESOLVED in head, with no history entry naming it [h3a.append_only.stigmergy_issue_closed]`,
			halted, behind,
		}},
		{name: "resolved, spelt otherwise", edits: [][2]string{{`"status": "FAILED_TO_RESOLVE"`, `"status": "resolved"`}}, want: []string{
			`is RESOLVED in head, with no history entry naming it [h3a.append_only.stigmergy_issue_closed]`,
			"[h3a.schema.violation]",
			halted, behind,
		}},
		{name: "resolved with a history entry", edits: [][2]string{resolved, logged}, want: []string{halted}},
		{name: "removed", edits: [][2]string{{`,
    {
      "issue_id": "I-2",
      "task_id_ref": "T02",
      "timestamp": "2025-09-01T12:11:00Z",
      "status": "FAILED_TO_RESOLVE",
      "summary": "T02 failed twice: the greeting API is gone"
    }`, ``}, logged}, want: []string{
			`.ai/state.json:70:16: error: issue "I-2" was "FAILED_TO_RESOLVE" at base <base> and is gone in head; the issue log only grows [h3a.append_only.stigmergy_issue_closed]`,
			halted,
		}},
	}
	runLedgerEdits(t, template, cases)
}

// ledgerEdit is a change to the ledger of a committed stigmergy example,
// and the findings it must bring: one finding containing each of want.
type ledgerEdit struct {
	name  string
	edits [][2]string // old, new in .ai/state.json
	want  []string
}

func runLedgerEdits(t *testing.T, template string, cases []ledgerEdit) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := findingsAfterEdit(t, template, "greeter", func(run string) {
				for _, e := range tc.edits {
					replace(t, filepath.Join(run, ".ai/state.json"), e[0], e[1])
				}
			})
			if len(got) != len(tc.want) {
				t.Fatalf("got %d findings, want %d:\n%s", len(got), len(tc.want), strings.Join(got, "\n"))
			}
			for _, w := range tc.want {
				if !containsAny(got, w) {
					t.Errorf("findings:\n%s\nwant one containing %s", strings.Join(got, "\n"), w)
				}
			}
		})
	}
}
