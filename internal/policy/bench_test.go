package policy_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/h3a-check/h3a-check/internal/policy"
	"github.com/h3a-check/h3a-check/internal/runner"
)

// generatedInputs returns n policy inputs derived from the complete ok run:
// each has its own run id, task ids, times and iteration counts, and every
// tenth breaks a rule, so the rules do real work and the results differ.
func generatedInputs(b *testing.B, n int) []map[string]any {
	b.Helper()
	res, err := runner.Check(context.Background(), runner.Options{Scope: runner.Scope{Paths: []string{"../../testdata/runs/ok/complete"}, Getenv: noCI}, Output: runner.Output{KeepInputs: true}})
	if err != nil || len(res.Inputs) != 1 {
		b.Fatalf("complete run: %v", err)
	}
	base, err := json.Marshal(res.Inputs[0])
	if err != nil {
		b.Fatal(err)
	}
	inputs := make([]map[string]any, n)
	for i := range inputs {
		var in map[string]any
		if err := json.Unmarshal(base, &in); err != nil {
			b.Fatal(err)
		}
		docs := in["docs"].(map[string]any)
		ct := docs["current_task"].(map[string]any)
		ct["iteration_count"] = json.Number(fmt.Sprint(i % 3))
		state := docs["state"].(map[string]any)
		steps := state["steps"].([]any)
		for k := range i % 20 { // longer histories
			steps = append(steps, map[string]any{"task_id": "T001", "agent": "executor", "timestamp": fmt.Sprintf("2025-09-29T16:%02d:00Z", k%60),
				"summary": fmt.Sprintf("iteration %d", k), "gate": "G1_implementation", "status": "passed", "artifacts": []any{"executor_report.json"}})
		}
		state["steps"] = steps
		in["run"].(map[string]any)["id"] = fmt.Sprintf("run-%04d", i)
		if i%10 == 0 {
			ct["gate_status"] = "G1_passed"
		}
		inputs[i] = in
	}
	return inputs
}

// BenchmarkEval measures policy evaluation per run with the query prepared
// once, over 1,000 generated runs; ns/op is per run.
func BenchmarkEval(b *testing.B) {
	e, err := policy.Load(context.Background(), policy.Options{})
	if err != nil {
		b.Fatal(err)
	}
	inputs := generatedInputs(b, 1000)
	ctx := context.Background()
	errorsSeen := 0
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		out := e.Eval(ctx, "bench", inputs[i%len(inputs)])
		if !out.Evaluated {
			b.Fatalf("not evaluated: %+v", out.Findings)
		}
		errorsSeen += len(out.Findings)
	}
	b.ReportMetric(float64(errorsSeen)/float64(b.N), "findings/run")
}

// BenchmarkEvalParallel is the same with runs evaluated concurrently, as the
// checker does.
func BenchmarkEvalParallel(b *testing.B) {
	e, err := policy.Load(context.Background(), policy.Options{})
	if err != nil {
		b.Fatal(err)
	}
	inputs := generatedInputs(b, 1000)
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		i := 0
		for pb.Next() {
			e.Eval(context.Background(), "bench", inputs[i%len(inputs)])
			i++
		}
	})
}

// BenchmarkLoad is the once-per-process cost: parse, compile and prepare.
func BenchmarkLoad(b *testing.B) {
	for b.Loop() {
		if _, err := policy.Load(context.Background(), policy.Options{Strict: true}); err != nil {
			b.Fatal(err)
		}
	}
}
