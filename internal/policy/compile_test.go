package policy_test

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/h3a-check/h3a-check/internal/audit/audittest"
	"github.com/h3a-check/h3a-check/internal/finding"
	"github.com/h3a-check/h3a-check/internal/longtest"
	"github.com/h3a-check/h3a-check/internal/policy"
	"github.com/h3a-check/h3a-check/internal/runner"
)

// planAndCompiled returns the engine a check uses for the shipped rules
// (their plan, generated at build time) and the reference it must agree
// with: the rules parsed and compiled with every check and evaluated by
// OPA's evaluator. Both are loaded once for the package's tests (the strict
// compile takes seconds under the race detector); an engine is safe for
// concurrent use and never changes once loaded.
func planAndCompiled(tb testing.TB) (plan, compiled *policy.Engine) {
	tb.Helper()
	shipped.once.Do(func() {
		ctx := context.Background()
		if shipped.compiled, shipped.err = policy.Load(ctx, policy.Options{Strict: true}); shipped.err != nil {
			shipped.err = fmt.Errorf("strict compile with every stage: %w", shipped.err)
			return
		}
		shipped.plan, shipped.err = policy.Load(ctx, policy.Options{})
	})
	if shipped.err != nil {
		tb.Fatal(shipped.err)
	}
	return shipped.plan, shipped.compiled
}

var shipped struct {
	once           sync.Once
	plan, compiled *policy.Engine
	err            error
}

// testdataInputs checks every testdata run, the err cases written out from
// their patches, and keeps each run's policy input.
func testdataInputs(t *testing.T) *runner.Result {
	t.Helper()
	// Checked once for the package's tests, which only read the result:
	// the check of every case is the costly part of each comparison.
	testdata.once.Do(func() {
		runs := filepath.Join(t.TempDir(), "runs")
		if err := audittest.WriteCases("../../testdata/runs", runs); err != nil {
			t.Fatal(err)
		}
		res, err := runner.Check(context.Background(), runner.Options{Scope: runner.Scope{Paths: []string{runs}, Base: "none"}, Output: runner.Output{KeepInputs: true}})
		if err != nil {
			t.Fatal(err)
		}
		testdata.res = res
	})
	if testdata.res == nil {
		t.Fatal("the testdata runs could not be checked in an earlier test")
	}
	return testdata.res
}

var testdata struct {
	once sync.Once
	res  *runner.Result
}

// sampled keeps the i-th testdata input of a comparison over all of them:
// every one in the long tests (.ci/run), every n-th in the README's test
// command, which the growing number of cases would otherwise slow down.
func sampled(i, n int) bool { return longtest.Enabled() || i%n == 0 }

func sameOutcome(tb testing.TB, got, want policy.Outcome) {
	tb.Helper()
	if !reflect.DeepEqual(got, want) {
		tb.Fatalf("the shipped plan gives\n%+v\nwhere OPA's evaluator gives\n%+v", got, want)
	}
}

// TestShippedPlanMatchesCompiledPolicies evaluates every testdata run with
// the three ways the shipped rules are run: their plan (a check without
// user policies), the compile a check with --debug uses (which skips the
// checking stages for the shipped rules) and the strict compile with every
// stage; all three must give the same findings. The strict compile also
// holds the shipped rules to every compiler check. And a shipped rule typed
// for some layouts' input (its package's schemas annotation) finds nothing
// on a run of another layout under the full compile, which evaluates every
// rule: what lets the plan run only the plans of the run's layout.
func TestShippedPlanMatchesCompiledPolicies(t *testing.T) {
	longtest.Skip(t) // every test run, compiled and planned: 17 s under -race
	t.Parallel()
	ctx := context.Background()
	plan, full := planAndCompiled(t)
	typed := 0
	for _, r := range full.Rules() {
		if len(r.Layouts) > 0 {
			typed++
		}
	}
	if typed < 50 {
		t.Fatalf("%d shipped rules name their layouts; expected every rule of a layout's package", typed)
	}
	debug, err := policy.Load(ctx, policy.Options{Debug: io.Discard})
	if err != nil {
		t.Fatal(err)
	}
	res := testdataInputs(t)
	evaluated, found := 0, 0
	for i, in := range res.Inputs {
		if in == nil {
			continue
		}
		want := full.Eval(ctx, "full", in)
		if got := plan.Eval(ctx, "plan", in); !reflect.DeepEqual(want, got) {
			t.Errorf("%s: the plan gives\n%+v\nwhere the full compile gives\n%+v", res.Audits[i].Run, got, want)
		}
		if got := debug.Eval(ctx, "debug", in); !reflect.DeepEqual(want, got) {
			t.Errorf("%s: the --debug compile gives\n%+v\nwhere the full compile gives\n%+v", res.Audits[i].Run, got, want)
		}
		layout := in["run"].(map[string]any)["layout"].(string)
		for _, f := range want.Findings {
			if r, ok := full.Rule(f.Rule); ok && len(r.Layouts) > 0 && !slices.Contains(r.Layouts, layout) {
				t.Errorf("%s (layout %s): rule %s, typed for %v, found %q", res.Audits[i].Run, layout, f.Rule, r.Layouts, f.Details)
			}
		}
		evaluated++
		found += len(want.Findings)
	}
	if evaluated < 50 || found < 50 {
		t.Fatalf("only %d runs evaluated, %d findings; expected every testdata run and its findings", evaluated, found)
	}
}

// TestUserRulesBesideThePlan: with --policy folders the shipped rules run
// from their plan and only the user rules and the library compile. On
// every ok case and a sample of err cases, the findings must be those of
// one compile of everything (what --debug loads). A user rule that reads
// the shipped rules' results must still see them: it makes the check
// compile everything.
func TestUserRulesBesideThePlan(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	team := `package h3a.user.team

import data.h3a.lib
import data.h3a.model

# METADATA
# title: Every gate named
# description: Used by the tests.
# custom:
#   id: h3a.user.team.gates
warn contains f if {
	some g in model.gate_names
	f := lib.finding(rego.metadata.rule(), {"msg": g})
}
`
	reads := `package h3a.user.reads

import data.h3a.lib

# METADATA
# title: Shipped rules fired
# description: Used by the tests.
# custom:
#   id: h3a.user.reads.shipped
warn contains f if {
	n := count([x | some x in data.h3a.rules[_].deny])
	n > 0
	f := lib.finding(rego.metadata.rule(), {"msg": sprintf("%d", [n])})
}
`
	folder := map[string]string{
		"team":  policy.UserDir(t, map[string]string{"team.rego": team}),
		"reads": policy.UserDir(t, map[string]string{"reads.rego": reads}),
	}
	res := testdataInputs(t)
	for _, folders := range [][]string{{"team"}, {"team", "reads"}} {
		var dirs []string
		for _, f := range folders {
			dirs = append(dirs, folder[f])
		}
		split, err := policy.Load(ctx, policy.Options{Dirs: dirs})
		if err != nil {
			t.Fatal(err)
		}
		whole, err := policy.Load(ctx, policy.Options{Dirs: dirs, Debug: io.Discard})
		if err != nil {
			t.Fatal(err)
		}
		// A rule reading the shipped results makes both sides OPA's
		// evaluator over everything, which the race detector slows tenfold:
		// the README's command compares fewer cases there.
		okEvery, errEvery, least := 2, 32, 12
		if len(folders) == 2 {
			okEvery, errEvery, least = 6, 128, 5
		}
		checked, userFound, readsFound := 0, 0, 0
		for i, in := range res.Inputs {
			every := okEvery
			isErr := strings.Contains(res.Audits[i].Run, "/err/")
			if isErr {
				every = errEvery
			}
			// Until a shipped rule has fired, the rule that reads their
			// results is compared on every err case, so that it is
			// compared firing whichever cases the sample falls on.
			seekReads := len(folders) == 2 && readsFound == 0 && isErr
			if in == nil || !(sampled(i, every) || seekReads) {
				continue
			}
			got, want := split.Eval(ctx, "split", in), whole.Eval(ctx, "whole", in)
			for _, o := range []*policy.Outcome{&got, &want} {
				o.Findings = finding.SortDedupe(o.Findings)
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("%v, %s: with the shipped plan\n%+v\nwith one compile of everything\n%+v", folders, res.Audits[i].Run, got, want)
			}
			for _, f := range got.Findings {
				switch f.Rule {
				case "h3a.user.team.gates":
					userFound++
				case "h3a.user.reads.shipped":
					readsFound++
				}
			}
			checked++
		}
		if checked < least || userFound == 0 || (len(folders) == 2) != (readsFound > 0) {
			t.Fatalf("%v: %d runs compared, %d user findings, %d findings of the rule that reads shipped results", folders, checked, userFound, readsFound)
		}
	}
}

// TestLazyInputMatchesConverted: Eval converts the input as the rules read
// it; on every testdata run, with the shipped plan, with a user rule
// beside it and with everything compiled (OPA's evaluator), the findings
// are those of converting the whole input first.
func TestLazyInputMatchesConverted(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	src := `package h3a.user.team

import data.h3a.lib

# METADATA
# title: Every file named
# description: Used by the tests.
# custom:
#   id: h3a.user.team.files
warn contains f if {
	some name, _ in input.files
	startswith(name, "state/")
	f := lib.finding(rego.metadata.rule(), {"msg": name})
}
`
	team := policy.UserDir(t, map[string]string{"team.rego": src})
	res := testdataInputs(t)
	engines := map[string]policy.Options{"plan": {}, "plan and a user rule": {Dirs: []string{team}}, "compiled": {Debug: io.Discard}}
	// OPA's evaluator is the slow one: every third run in the long
	// suite, every twelfth in the README's command.
	compiledEvery := 12
	if longtest.Enabled() {
		compiledEvery = 3
	}
	for name, opts := range engines {
		e, err := policy.Load(ctx, opts)
		if err != nil {
			t.Fatal(err)
		}
		compared, found := 0, 0
		for i, in := range res.Inputs {
			if in == nil || !sampled(i, 3) || (name == "compiled" && i%compiledEvery != 0) {
				continue
			}
			got, want := e.Eval(ctx, name, in), e.EvalConverted(ctx, name, in)
			if !reflect.DeepEqual(got, want) {
				t.Errorf("%s, %s: converted as read\n%+v\nconverted first\n%+v", name, res.Audits[i].Run, got, want)
			}
			compared++
			found += len(got.Findings)
		}
		// Runs that find nothing would prove little: an err case finds one
		// or two things, an ok case nothing.
		if compared < 20 || found < 10 {
			t.Fatalf("%s: %d runs compared, %d findings, want at least 20 and 10", name, compared, found)
		}
	}
}
