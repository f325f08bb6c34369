package history

import (
	"io"
	"strings"
	"testing"

	"github.com/h3a-check/h3a-check/internal/finding"
	"github.com/h3a-check/h3a-check/internal/jsonpos"
	"github.com/h3a-check/h3a-check/internal/layout"
	"github.com/h3a-check/h3a-check/internal/rundir"
)

// contractHead is a contract run holding docs, parsed as the load stage does.
func contractHead(docs map[string]string) Head {
	run := &layout.Run{Dir: "/TASK-1-20260216-130000", Docs: map[string]*rundir.Document{}}
	for p, data := range docs {
		doc := &rundir.Document{Path: p, Present: true, Data: []byte(data)}
		doc.JSON, _ = jsonpos.Parse(doc.Data)
		doc.Parsed = doc.JSON != nil
		run.Docs[p] = doc
	}
	return Head{Layout: "contract", Run: run, Open: func(string) (io.ReadCloser, bool, error) { return nil, false, nil }}
}

// contractFinding compares a contract run holding head with one holding
// base: the one finding of rule, or none when rule is "" (ok false).
func contractFinding(t *testing.T, base, head map[string]string, rule string) (finding.Finding, bool) {
	t.Helper()
	_, b := fakeBase(base)
	res, err := Compare(contractHead(head), b, commit)
	if err != nil {
		t.Fatal(err)
	}
	return soleFinding(t, res.Findings, rule)
}

// contractCase is a head compared with a test's base: the one finding of
// rule it gives (none when rule is ""), at file and ptr, with details.
type contractCase struct {
	name            string
	head            map[string]string
	rule, file, ptr string
	details         string
}

func runContractCases(t *testing.T, base map[string]string, tests []contractCase) {
	t.Helper()
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f, ok := contractFinding(t, base, tc.head, tc.rule)
			if !ok {
				return
			}
			if f.Rule != tc.rule || f.File != tc.file || f.Pointer != tc.ptr || !strings.Contains(f.Details, tc.details) {
				t.Errorf("got %s %q %q\n%s\nwant %s %q %q, details containing\n%s", f.Rule, f.File, f.Pointer, f.Details, tc.rule, tc.file, tc.ptr, tc.details)
			}
		})
	}
}

func TestContractHistory(t *testing.T) {
	const (
		verdict1 = `{"task_id": "TASK-1", "verdict": "reject"}`
		summary  = `{"task_id": "TASK-1", "final_verdict": "reject", "rounds_completed": 1}`
	)
	base := map[string]string{
		"rounds/round-1/verdict.json": verdict1,
		"rounds/round-1/patch.diff":   "diff\n",
		"summary.json":                summary,
	}
	tests := []contractCase{
		{"unchanged, a round added", map[string]string{
			"rounds/round-1/verdict.json": verdict1,
			"rounds/round-2/verdict.json": `{"task_id": "TASK-1", "verdict": "pass"}`,
			"summary.json":                summary,
		}, "", "", "", ""},
		{"respaced", map[string]string{
			"rounds/round-1/verdict.json": strings.ReplaceAll(verdict1, " ", "\n  "),
			"summary.json":                summary,
		}, "", "", "", ""},
		{"verdict rewritten", map[string]string{
			"rounds/round-1/verdict.json": `{"task_id": "TASK-1", "verdict": "pass"}`,
			"summary.json":                summary,
		}, "h3a.append_only.frozen_changed", "rounds/round-1/verdict.json", "/verdict",
			`rounds/round-1/verdict.json changed since base 0123456789ab at /verdict: base "reject", head "pass"; a committed round never changes`},
		{"round removed", map[string]string{"summary.json": summary},
			"h3a.append_only.file_removed", "rounds/round-1/verdict.json", "",
			`rounds/round-1/verdict.json exists at base 0123456789ab but not in head`},
		{"summary field changed", map[string]string{
			"rounds/round-1/verdict.json": verdict1,
			"summary.json":                `{"task_id": "TASK-1", "final_verdict": "pass", "rounds_completed": 1}`,
		}, "h3a.append_only.frozen_changed", "summary.json", "/final_verdict",
			`summary.json changed since base 0123456789ab at /final_verdict: base "reject", head "pass"; summary fields of a finished run never change`},
		{"summary removed", map[string]string{"rounds/round-1/verdict.json": verdict1},
			"h3a.append_only.file_removed", "summary.json", "", `summary.json exists at base`},
	}
	runContractCases(t, base, tests)
}

// TestContractResultsFrozen: the judge's eval-results.json and the
// auditor's audit-results.json in a committed round never change, as its
// role files: a failed eval command rewritten as passed would lift the
// judge's pass over it (h3a.gates.contract_eval_failed_under_pass).
func TestContractResultsFrozen(t *testing.T) {
	const (
		verdict = `{"task_id": "TASK-1", "verdict": "pass"}`
		failed  = `{"results": [{"command": "pytest -q", "status": "fail", "exit_code": 1}]}`
		passed  = `{"results": [{"command": "pytest -q", "status": "pass", "exit_code": 0}]}`
		audited = `{"commands": [{"command": "pip-audit", "status": "fail", "exit_code": 1}]}`
	)
	base := map[string]string{
		"rounds/round-1/verdict.json":       verdict,
		"rounds/round-1/eval-results.json":  failed,
		"rounds/round-1/audit-results.json": audited,
		"rounds/round-1/patch.diff":         "diff\n",
	}
	tests := []contractCase{
		{"unchanged", map[string]string{
			"rounds/round-1/verdict.json":       verdict,
			"rounds/round-1/eval-results.json":  failed,
			"rounds/round-1/audit-results.json": audited,
		}, "", "", "", ""},
		{"eval command rewritten as passed", map[string]string{
			"rounds/round-1/verdict.json":       verdict,
			"rounds/round-1/eval-results.json":  passed,
			"rounds/round-1/audit-results.json": audited,
		}, "h3a.append_only.frozen_changed", "rounds/round-1/eval-results.json", "/results/0/exit_code",
			`rounds/round-1/eval-results.json changed since base 0123456789ab at /results/0/exit_code: base 1, head 0; a committed round's results never change`},
		{"audit results removed", map[string]string{
			"rounds/round-1/verdict.json":      verdict,
			"rounds/round-1/eval-results.json": failed,
		}, "h3a.append_only.file_removed", "rounds/round-1/audit-results.json", "",
			`rounds/round-1/audit-results.json exists at base 0123456789ab but not in head`},
	}
	runContractCases(t, base, tests)
}

// TestContractFlatHistory: a flat run is one round rewritten in place, but
// a needs-human of its judge or auditor stays until a person confirms the
// change.
func TestContractFlatHistory(t *testing.T) {
	const (
		handoff = `{"task_id": "TASK-1", "summary": "s"}`
		waiting = `{"task_id": "TASK-1", "verdict": "needs-human"}`
		passed  = `{"task_id": "TASK-1", "verdict": "pass"}`
	)
	tests := []struct {
		name            string
		base, head      map[string]string
		rule, file, ptr string
		details         string
	}{
		{"still needs-human",
			map[string]string{"handoff.json": handoff, "verdict.json": waiting},
			map[string]string{"handoff.json": handoff, "verdict.json": waiting},
			"", "", "", ""},
		{"judge's needs-human rewritten as pass",
			map[string]string{"handoff.json": handoff, "verdict.json": waiting},
			map[string]string{"handoff.json": handoff, "verdict.json": passed},
			"h3a.append_only.contract_needs_human_lifted", "verdict.json", "/verdict",
			`verdict.json verdict was "needs-human" at base 0123456789ab and is "pass" in head: a person must settle what the round asked, and confirm the change`},
		{"auditor's needs-human rewritten as pass",
			map[string]string{"verdict.json": passed, "audit.json": `{"task_id": "TASK-1", "gate": "needs-human"}`},
			map[string]string{"verdict.json": passed, "audit.json": `{"task_id": "TASK-1", "gate": "pass"}`},
			"h3a.append_only.contract_needs_human_lifted", "audit.json", "/gate",
			`audit.json gate was "needs-human" at base 0123456789ab and is "pass" in head`},
		{"judge's needs-human spelt otherwise, rewritten as pass",
			map[string]string{"handoff.json": handoff, "verdict.json": `{"task_id": "TASK-1", "verdict": "Needs Human"}`},
			map[string]string{"handoff.json": handoff, "verdict.json": passed},
			"h3a.append_only.contract_needs_human_lifted", "verdict.json", "/verdict", `is "pass" in head`},
		{"judge's needs-human removed",
			map[string]string{"handoff.json": handoff, "verdict.json": waiting},
			map[string]string{"handoff.json": handoff, "verdict.json": `{"task_id": "TASK-1"}`},
			"h3a.append_only.contract_needs_human_lifted", "verdict.json", "/verdict", `is (absent) in head`},
		{"a reject retried in place",
			map[string]string{"handoff.json": handoff, "verdict.json": `{"task_id": "TASK-1", "verdict": "reject"}`},
			map[string]string{"handoff.json": handoff, "verdict.json": passed},
			"", "", "", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f, ok := contractFinding(t, tc.base, tc.head, tc.rule)
			if !ok {
				return
			}
			if f.Rule != tc.rule || f.File != tc.file || f.Pointer != tc.ptr || !f.NeedsHuman || !strings.Contains(f.Details, tc.details) {
				t.Errorf("got %s %q %q needs_human %v\n%s\nwant %s %q %q, needs_human, details containing\n%s", f.Rule, f.File, f.Pointer, f.NeedsHuman, f.Details, tc.rule, tc.file, tc.ptr, tc.details)
			}
		})
	}
}

func TestContractRunsAt(t *testing.T) {
	got := runsAtFiles(t,
		"runs/TASK-1-20260216-130000/summary.json",
		"runs/TASK-1-20260216-130000/rounds/round-1/verdict.json",
		"runs/flat/handoff.json", "runs/flat/verdict.json",
		"runs/other/summary.json",             // a summary alone is no run
		"runs/lone/audit.json",                // nor an audit alone
		"runs/doer-only/handoff.json",         // nor a handoff without its verdict
		"runs/unnumbered/rounds/final/a.json", // nor a rounds/ folder without round-<n>
	)
	want := []RunAt{{Dir: "runs/TASK-1-20260216-130000", Layout: "contract"}, {Dir: "runs/flat", Layout: "contract"}}
	if len(got) != len(want) {
		t.Fatalf("RunsAt = %+v, want %+v", got, want)
	}
	for _, w := range want {
		found := false
		for _, g := range got {
			found = found || g == w
		}
		if !found {
			t.Errorf("RunsAt = %+v, missing %+v", got, w)
		}
	}
}
