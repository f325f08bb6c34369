package regoplan_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/fstest"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/compile"
	"github.com/open-policy-agent/opa/v1/ir"
	"github.com/open-policy-agent/opa/v1/test/cases"
	"github.com/open-policy-agent/opa/v1/topdown"
	"github.com/open-policy-agent/opa/v1/types"
	"github.com/open-policy-agent/opa/v1/util"

	"github.com/h3a-check/h3a-check/internal/longtest"
	"github.com/h3a-check/h3a-check/internal/policy"
	"github.com/h3a-check/h3a-check/internal/regoplan"
)

// A query that is not "<data ref> = x" is planned as this rule.
const (
	conformancePackage = "h3a_conformance"
	conformanceRule    = "conformance_result"
)

// planLimits are the cases no plan can pass, whatever runs it: the planner
// compiles data.nested[2] and obj[2] (obj := data.nested) to the same
// statements, while OPA's evaluator reads the first from the data store,
// whose keys are strings. OPA's own WebAssembly suite, the plan's reference,
// excepts them for the same reason. The checker evaluates with no data.
var planLimits = map[string]string{
	"data/toplevel integer": "a plan cannot tell data[2] from obj[2] (open-policy-agent/opa#3711; the checker has no data document)",
	"data/nested integer":   "a plan cannot tell data.nested[2] from obj[2] (open-policy-agent/opa#3711; the checker has no data document)",
}

// testSleep is a built-in OPA's conformance cases call and only OPA's own
// test suites register; it is declared for planning, and the checker's
// capabilities do not have it.
var testSleep = &ast.Builtin{Name: "test.sleep", Decl: types.NewFunction(types.Args(types.S), types.NewNull())}

// TestOPAConformance runs OPA's own evaluation cases (the Rego v1 ones its
// module ships under v1/test/cases/testdata) through the plan interpreter:
// each case's query is planned by OPA's planner, linked with the checker's
// capabilities and evaluated, and must give the case's expected bindings or
// error. A case is skipped only when the linker refuses its plan (a
// built-in outside the capabilities, a statement the interpreter does not
// run), or for one of the planLimits; the skip says why. After an OPA
// upgrade this says at once whether the interpreter still agrees with OPA.
func TestOPAConformance(t *testing.T) {
	longtest.Skip(t)
	dir := opaCasesDir(t)
	set, err := cases.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(set.Cases) < 1000 {
		t.Fatalf("only %d cases under %s; expected OPA's conformance suite", len(set.Cases), dir)
	}
	var (
		mu      sync.Mutex
		passed  int
		reasons = map[string]int{}
	)
	t.Run("cases", func(t *testing.T) {
		for _, tc := range set.Sorted().Cases {
			name := strings.TrimPrefix(tc.Filename, dir+string(filepath.Separator)) + "/" + tc.Note
			t.Run(name, func(t *testing.T) {
				t.Parallel()
				reason := runConformanceCase(t, tc)
				mu.Lock()
				if reason != "" {
					reasons[reason]++
				} else if !t.Failed() {
					passed++
				}
				mu.Unlock()
				if reason != "" {
					t.Skip(reason)
				}
			})
		}
	})
	skipped := 0
	keys := make([]string, 0, len(reasons))
	for r, n := range reasons {
		keys = append(keys, r)
		skipped += n
	}
	slices.Sort(keys)
	t.Logf("%d OPA conformance cases: %d agree with OPA, %d skipped", len(set.Cases), passed, skipped)
	for _, r := range keys {
		t.Logf("  %4d skipped: %s", reasons[r], r)
	}
}

// opaCasesDir finds the Rego v1 conformance cases in the module cache.
func opaCasesDir(t *testing.T) string {
	t.Helper()
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "github.com/open-policy-agent/opa").Output()
	if err != nil {
		t.Fatalf("finding OPA's module: %v", err)
	}
	return filepath.Join(strings.TrimSpace(string(out)), "v1", "test", "cases", "testdata", "v1")
}

// runConformanceCase runs one case and returns why it is skipped, or "".
func runConformanceCase(t *testing.T, tc cases.TestCase) string {
	t.Helper()
	if reason, ok := planLimits[tc.Note]; ok {
		return reason
	}
	for k, v := range tc.Env {
		t.Setenv(k, v)
	}
	caps := ast.CapabilitiesForThisVersion(ast.CapabilitiesExperimentalKeywords(tc.ExperimentalKeywords))
	caps.Builtins = append(caps.Builtins, testSleep)
	plan, single, err := planQuery(tc, caps)
	if err != nil {
		t.Fatalf("planning: %v", err)
	}
	prog, err := regoplan.Link(plan, policy.Capabilities())
	var le *regoplan.LinkError
	if errors.As(err, &le) {
		// The location is left out so that the reasons count across cases.
		return "the linker refuses it: " + le.Msg
	}
	if err != nil {
		t.Fatal(err)
	}
	var input *ast.Term
	switch {
	case tc.InputTerm != nil:
		input = ast.MustParseTerm(*tc.InputTerm)
	case tc.Input != nil:
		input = ast.NewTerm(ast.MustInterfaceToValue(*tc.Input))
	}
	data := ast.NewTerm(ast.NewObject())
	if tc.Data != nil {
		data = ast.NewTerm(ast.MustInterfaceToValue(*tc.Data))
	}
	results, builtinErrs, err := prog.EvalWithData(context.Background(), input, data)
	if tc.WantError != nil || tc.WantErrorCode != nil {
		checkConformanceError(t, tc, err, builtinErrs)
		return ""
	}
	if err != nil {
		t.Fatalf("query %s: unexpected error: %v", tc.Query, err)
	}
	if tc.WantResult == nil {
		t.Fatal("the case has no want_result, want_error_code or want_error")
	}
	got := bindingSets(t, results, single, tc)
	want := ast.NewSet()
	for _, b := range *tc.WantResult {
		obj := ast.NewObject()
		for k, v := range b {
			obj.Insert(ast.StringTerm(k), ast.NewTerm(ast.MustInterfaceToValue(v)))
		}
		want.Add(ast.NewTerm(obj))
	}
	if want.Compare(got) != 0 {
		t.Fatalf("query %s:\nwant %v\ngot  %v", tc.Query, want, got)
	}
	return ""
}

// planQuery plans the case's query. "<data ref> = x" is planned as the
// checker plans its rules, with the document as entrypoint; single then
// names the var its value binds. Any other query is planned as the set of
// its bindings: a rule "conformance_result contains {"x": x, ...} if {
// query }" over the vars OPA's planner reports for a query (neither
// generated nor wildcards).
func planQuery(tc cases.TestCase, caps *ast.Capabilities) (plan *ir.Policy, single string, err error) {
	body, err := ast.ParseBodyWithOpts(tc.Query, ast.ParserOptions{RegoVersion: ast.RegoV1, Capabilities: caps})
	if err != nil {
		return nil, "", fmt.Errorf("parsing the query: %w", err)
	}
	fsys := fstest.MapFS{}
	for i, m := range tc.Modules {
		// Named as OPA's evaluator tests name them: messages quote them.
		fsys[fmt.Sprintf("test-%d.rego", i)] = &fstest.MapFile{Data: []byte(m)}
	}
	if path, v, ok := documentQuery(body); ok {
		plan, err := planEntrypoint(fsys, strings.Join(path, "/"), caps)
		return plan, v, err
	}
	var head strings.Builder
	head.WriteString("{")
	for _, v := range body.Vars(ast.VarVisitorParams{SkipRefCallHead: true, SkipClosures: true}).Diff(ast.ReservedVars).Sorted() {
		if !v.IsGenerated() && !v.IsWildcard() {
			fmt.Fprintf(&head, "%q: %s, ", string(v), v)
		}
	}
	head.WriteString("}")
	fsys["conformance.rego"] = &fstest.MapFile{Data: fmt.Appendf(nil, "package %s\n\n%s contains %s if {\n%s\n}\n", conformancePackage, conformanceRule, head.String(), tc.Query)}
	plan, err = planEntrypoint(fsys, conformancePackage+"/"+conformanceRule, caps)
	return plan, "", err
}

// documentQuery recognises "<data ref> = <var>", either way round, with a
// ref of constant keys, and gives the ref's path below data and the var.
func documentQuery(body ast.Body) (path []string, v string, ok bool) {
	if len(body) != 1 || !body[0].IsEquality() || body[0].Negated || len(body[0].With) > 0 {
		return nil, "", false
	}
	a, b := body[0].Operand(0), body[0].Operand(1)
	if _, isVar := a.Value.(ast.Var); isVar {
		a, b = b, a
	}
	ref, okRef := a.Value.(ast.Ref)
	name, okVar := b.Value.(ast.Var)
	if !okRef || !okVar || name.IsWildcard() || name.IsGenerated() || !ref.HasPrefix(ast.DefaultRootRef) {
		return nil, "", false
	}
	for _, t := range ref[1:] {
		s, isString := t.Value.(ast.String)
		if !isString {
			return nil, "", false
		}
		path = append(path, string(s))
	}
	return path, string(name), true
}

// planEntrypoint plans the modules of fsys for one entrypoint, as
// internal/policy/plangen plans the shipped policies.
func planEntrypoint(fsys fstest.MapFS, entrypoint string, caps *ast.Capabilities) (*ir.Policy, error) {
	var out bytes.Buffer
	c := compile.New().
		WithTarget(compile.TargetPlan).
		WithFS(fsys).
		WithPaths(".").
		WithEntrypoints(entrypoint).
		WithPruneUnused(true).
		WithCapabilities(caps).
		WithRegoVersion(ast.RegoV1).
		WithOutput(&out)
	if err := build(c); err != nil {
		return nil, err
	}
	var p ir.Policy
	if err := json.Unmarshal(c.Bundle().PlanModules[0].Raw, &p); err != nil {
		return nil, err
	}
	return &p, nil
}

// bindingSets reads the bindings the plan gave, as OPA's own tests read a
// result set: sets as sorted arrays when the case says so, generated vars
// left out when it says so.
func bindingSets(t *testing.T, results [][]*ast.Term, single string, tc cases.TestCase) ast.Set {
	t.Helper()
	got := ast.NewSet()
	if len(results) != 1 || len(results[0]) > 1 {
		t.Fatalf("the plan gave %d result sets (%v), expected one with at most one result", len(results), results)
	}
	if len(results[0]) == 0 {
		return got // undefined
	}
	result := results[0][0].Value.(ast.Object).Get(ast.StringTerm("result"))
	var bindings []*ast.Term
	if single != "" {
		bindings = []*ast.Term{ast.ObjectTerm(ast.Item(ast.StringTerm(single), result))}
	} else if set, ok := result.Value.(ast.Set); ok {
		bindings = set.Slice()
	} else {
		t.Fatalf("the query rule gave %v, expected a set", result)
	}
	for _, b := range bindings {
		obj := ast.NewObject()
		b.Value.(ast.Object).Foreach(func(k, term *ast.Term) {
			v, err := ast.JSON(term.Value)
			if err != nil {
				t.Fatal(err)
			}
			if tc.SortBindings {
				slices.SortFunc(v.([]any), util.Compare)
			}
			name := string(k.Value.(ast.String))
			if !tc.IgnoreGeneratedVars || !strings.HasPrefix(name, "__localq") {
				obj.Insert(k, ast.NewTerm(ast.MustInterfaceToValue(v)))
			}
		})
		got.Add(ast.NewTerm(obj))
	}
	return got
}

// checkConformanceError holds an expected error to what the interpreter
// reports: an error that stopped the evaluation, or a built-in error. Like
// OPA without strict built-in errors, the interpreter makes a failing
// built-in call undefined and lists the error (the checker turns each into
// a finding), so a case that expects a built-in error passes when the error
// is listed.
func checkConformanceError(t *testing.T, tc cases.TestCase, err error, builtinErrs []*topdown.Error) {
	t.Helper()
	var reported []*topdown.Error
	var te *topdown.Error
	switch {
	case errors.As(err, &te):
		reported = append(reported, te)
	case err != nil:
		t.Fatalf("error %v is not a *topdown.Error", err)
	}
	reported = append(reported, builtinErrs...)
	for _, e := range reported {
		if tc.WantErrorCode != nil && e.Code != *tc.WantErrorCode {
			continue
		}
		if tc.WantError != nil && !strings.Contains(e.Error(), *tc.WantError) {
			continue
		}
		return
	}
	var want []string
	if tc.WantErrorCode != nil {
		want = append(want, *tc.WantErrorCode)
	}
	if tc.WantError != nil {
		want = append(want, fmt.Sprintf("%q", *tc.WantError))
	}
	t.Fatalf("query %s: want error %s, got %v", tc.Query, strings.Join(want, " "), reported)
}
