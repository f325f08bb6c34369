package policy_test

import (
	"context"
	"reflect"
	"testing"

	"github.com/h3a-check/h3a-check/internal/policy"
	"github.com/h3a-check/h3a-check/internal/runner"
)

// TestShippedPoliciesPassEveryCompilerCheck holds the shipped rules to a
// strict compile with every stage, which a check skips the checking stages
// of; and proves the faster compile evaluates every testdata run to the
// same findings.
func TestShippedPoliciesPassEveryCompilerCheck(t *testing.T) {
	ctx := context.Background()
	full, err := policy.Load(ctx, policy.Options{Strict: true})
	if err != nil {
		t.Fatalf("strict compile with every stage: %v", err)
	}
	fast, err := policy.Load(ctx, policy.Options{})
	if err != nil {
		t.Fatal(err)
	}
	res, err := runner.Check(ctx, runner.Options{Paths: []string{"../../testdata/runs"}, Base: "none", KeepInputs: true})
	if err != nil {
		t.Fatal(err)
	}
	evaluated := 0
	for i, in := range res.Inputs {
		if in == nil {
			continue
		}
		want, got := full.Eval(ctx, "full", in), fast.Eval(ctx, "fast", in)
		if !reflect.DeepEqual(want, got) {
			t.Errorf("%s: the check's compile gives\n%+v\nwhere the full compile gives\n%+v", res.Audits[i].Run, got, want)
		}
		evaluated++
	}
	if evaluated < 50 {
		t.Fatalf("only %d runs evaluated; expected every testdata run", evaluated)
	}
}
