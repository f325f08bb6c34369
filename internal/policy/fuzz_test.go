package policy_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"testing"

	"github.com/h3a-check/h3a-check/internal/audit/audittest"
	"github.com/h3a-check/h3a-check/internal/jsonpos"
	"github.com/h3a-check/h3a-check/internal/longtest"
	"github.com/h3a-check/h3a-check/internal/policy"
	"github.com/h3a-check/h3a-check/internal/runner"
)

// jsonDocs are the input.docs keys that hold JSON documents as written, and
// so any JSON value at all.
var jsonDocs = []string{"current_task", "executor_report", "handoff", "planner_report", "state", "validator_report"}

// FuzzShippedPolicies puts an arbitrary JSON value in place of one document
// of the complete run and requires the shipped rules to evaluate cleanly:
// no builtin error, no evaluation error, no malformed element. A rule that
// trips over a document breaking its schema would otherwise report
// "could not evaluate" instead of its finding. The plan the checker
// evaluates must give exactly what OPA's evaluator gives on the compiled
// rules.
func FuzzShippedPolicies(f *testing.F) {
	base := completeInput(f)
	runDir := "../../testdata/runs/ok/complete/20250929-134215-8b6f8b9a-7c9f-4c5e-8c6a-2f0f0d2e9c1a"
	// Each document of the complete run, in its own place (jsonDocs order).
	for i, name := range []string{"state/CURRENT_TASK.json", "executor_report.json", "state/SESSION_HANDOFF.json",
		"planner_report.json", "state.json", "validator_report.json"} {
		b, err := os.ReadFile(filepath.Join(runDir, name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(uint8(i), b)
	}
	add := seedSample(f, 5)
	for _, seed := range []string{
		`null`, `[]`, `"x"`, `5`, `{"gates": {"G0_planning": 5, "G1_implementation": "passed"}}`,
		`{"steps": "x", "meta": []}`, `{"steps": [{"artifacts": [1, null, "artifacts/"], "tdd_evidence": "red", "corrects": 5}]}`,
		`{"tdd_cycles": [{"task_id": "T001", "tdd_phases": {"red": {"timestamp": "2025-02-30T10:00:00Z"}, "green": "x"}, "coverage_delta": "-x%", "iteration_count": "3"}]}`,
		`{"verdicts": [{"task_id": "T001", "status": 1, "remediation_plan": 5, "verification_results": {"tests": {"total": "47", "passed": 47}, "dod_checklist": {"status": "pass", "met": null}}}]}`,
		`{"task_id": ["T001"], "iteration_count": 1e300, "max_iterations": "2", "definition_of_done": {"a": 1}, "tdd_plan": [], "dependencies": [5, "T000"], "status": "remediation_needed", "gate_status": "G9_passed"}`,
		`{"payload": {"task_id": 7}, "gate_transition": 5, "history": [{"task_id": {}}], "run_id": ["x"]}`,
		`{"reports": [{"tasks_created": "T001", "artifacts": {"a": "b"}}], "password": 12}`,
	} {
		for i := range jsonDocs {
			add(uint8(i), []byte(seed))
		}
	}
	e, reference := planAndCompiled(f)
	f.Fuzz(func(t *testing.T, which uint8, doc []byte) {
		v := decodeOrSkip(t, doc)
		in := clone(t, base)
		in["docs"].(map[string]any)[jsonDocs[int(which)%len(jsonDocs)]] = v
		evaluatesCleanly(t, e, reference, in)
	})
}

// decodeOrSkip reads a fuzzed document as the checker reads a run's JSON
// file, numbers exact; an input the checker would report instead of
// parsing (not JSON, a number out of range) is skipped.
func decodeOrSkip(t *testing.T, doc []byte) any {
	t.Helper()
	d, _ := jsonpos.Parse(doc)
	if d == nil {
		t.Skip()
	}
	return d.Value
}

// evaluatesCleanly requires the shipped rules to evaluate in, with no
// built-in error, evaluation error or malformed element, and their plan to
// give exactly what OPA's evaluator gives on the input converted whole.
func evaluatesCleanly(t *testing.T, plan, reference *policy.Engine, in map[string]any) {
	t.Helper()
	out := plan.Eval(context.Background(), "fuzz", in)
	// The reference converts the whole input first (Eval converts as the
	// rules read it).
	sameOutcome(t, out, reference.EvalConverted(context.Background(), "fuzz", in))
	if !out.Evaluated {
		t.Fatalf("not evaluated: %+v", out.Findings)
	}
	for _, fd := range out.Findings {
		switch fd.Rule {
		case policy.BuiltinError.ID, policy.BadResult.ID, policy.EvalError.ID:
			t.Fatalf("%s: %s", fd.Rule, fd.Details)
		}
	}
}

// seedSample returns f.Add, or with the README's test command (no long
// tests, not fuzzing) an f.Add that keeps every nth seed only: there each
// seed is a test under the race detector that evaluates every shipped rule
// twice, and the full corpora run in .ci/run. Choose n coprime with the
// length of the inner loop of seeds, so the sample still reaches every
// document.
func seedSample(f *testing.F, n int) func(args ...any) {
	if longtest.Enabled() {
		return f.Add
	}
	i := 0
	return func(args ...any) {
		if i%n == 0 {
			f.Add(args...)
		}
		i++
	}
}

func completeInput(tb testing.TB) map[string]any {
	tb.Helper()
	res, err := runner.Check(context.Background(), runner.Options{Scope: runner.Scope{Paths: []string{"../../testdata/runs/ok/complete"}, Getenv: noCI}, Output: runner.Output{KeepInputs: true}})
	if err != nil || len(res.Inputs) != 1 {
		tb.Fatalf("complete run: %v", err)
	}
	return res.Inputs[0]
}

// clone deep-copies an input through JSON, keeping numbers exact.
func clone(tb testing.TB, in map[string]any) map[string]any {
	tb.Helper()
	b, err := json.Marshal(in)
	if err != nil {
		tb.Fatal(err)
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var out map[string]any
	if err := dec.Decode(&out); err != nil {
		tb.Fatal(err)
	}
	return out
}

// TestShippedPoliciesOnEveryTestdataRun: no testdata run, ok or err, makes a
// shipped rule fail to evaluate. A long test: the README's command sees the
// same through every case's .want file (an evaluation error is a finding).
func TestShippedPoliciesOnEveryTestdataRun(t *testing.T) {
	longtest.Skip(t)
	t.Parallel()
	runs := filepath.Join(t.TempDir(), "runs") // the err cases are patches: write them out
	if err := audittest.WriteCases("../../testdata/runs", runs); err != nil {
		t.Fatal(err)
	}
	dirs, err := filepath.Glob(filepath.Join(runs, "*", "*"))
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(dirs)
	e, err := policy.Load(context.Background(), policy.Options{})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, dir := range dirs {
		if info, err := os.Stat(dir); err != nil || !info.IsDir() {
			continue
		}
		res, err := runner.Check(context.Background(), runner.Options{Scope: runner.Scope{Paths: []string{dir}, Getenv: noCI}, Output: runner.Output{KeepInputs: true}})
		if err != nil {
			t.Fatalf("%s: %v", dir, err)
		}
		for _, in := range res.Inputs {
			if in == nil {
				continue
			}
			n++
			out := e.Eval(context.Background(), dir, in)
			for _, fd := range out.Findings {
				if fd.Category == "policy" {
					t.Errorf("%s: %s: %s", dir, fd.Rule, fd.Details)
				}
			}
		}
	}
	if n < 40 {
		t.Errorf("evaluated %d runs, expected every testdata run", n)
	}
}

// noCI is the environment of a person's machine: the inputs these tests
// build come from the repository's own testdata, whatever CI runs them
// (in CI the history base would be a default branch the clone may not
// name).
func noCI(string) string { return "" }
