package policy

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/open-policy-agent/opa/v1/ast"

	"github.com/h3a-check/h3a-check/internal/finding"
	"github.com/h3a-check/h3a-check/internal/regoplan"
)

//go:generate go run ./plangen

// Entrypoints names the plan entrypoints that evaluate these rules: one per
// package and kind, such as "h3a/rules/gates/deny", in the order of the
// query's bindings.
func Entrypoints(rules []*RuleInfo) []string {
	byID := make(map[string]*RuleInfo, len(rules))
	for _, r := range rules {
		byID[r.ID] = r
	}
	bindings := queryBindings(byID)
	out := make([]string, len(bindings))
	for i, b := range bindings {
		out[i] = strings.ReplaceAll(b.pkg, ".", "/") + "/" + b.kind
	}
	return out
}

// linkShipped makes the engine of the shipped rules from their plan, linked
// when it was generated: nothing is parsed, compiled or linked at run time
// but the built-ins (TestShippedLinkedIsThePlanLinked holds the generated
// data to what linking the plan gives).
func linkShipped() (*compiled, error) {
	prog, err := regoplan.Load(shippedLinked, Capabilities())
	if err != nil {
		return nil, &CompileError{Problems: []string{err.Error()}}
	}
	rules := make(map[string]*RuleInfo, len(shippedRules))
	for _, r := range shippedRules {
		rules[r.ID] = r
	}
	if got, want := prog.Plans(), Entrypoints(shippedRules); !slices.Equal(got, want) {
		return nil, &CompileError{Problems: []string{fmt.Sprintf("the shipped plan has entrypoints %v, its rules need %v: run go generate ./internal/policy", got, want)}}
	}
	return &compiled{program: prog, bindings: queryBindings(rules), rules: rules}, nil
}

// evalPlan evaluates the linked plan of p (the engine's own, or its
// shipped rules beside user rules): each entrypoint's single result is
// {"result": the rule set}, an empty result set an empty rule set.
func (e *Engine) evalPlan(ctx context.Context, p *compiled, input ast.Value) Outcome {
	results, builtinErrs, err := p.program.EvalPlans(ctx, ast.NewTerm(input), plansFor(p.bindings, runLayout(input)))
	if err != nil {
		return Outcome{Findings: []finding.Finding{e.evalFailure(ctx, err)}}
	}
	var out []finding.Finding
	for _, be := range builtinErrs {
		out = append(out, builtinFinding(*be))
	}
	for i, b := range p.bindings {
		var set any = []any{}
		switch rs := results[i]; len(rs) {
		case 0:
		case 1:
			var v *ast.Term
			if obj, ok := rs[0].Value.(ast.Object); ok {
				v = obj.Get(ast.InternedTerm("result"))
			}
			if v == nil {
				out = append(out, EvalError.New("", "the plan of data.%s.%s gave %v, expected {\"result\": ...}; no rule result is known", b.pkg, b.kind, rs[0]))
				return Outcome{Findings: out}
			}
			if set, err = ast.JSON(v.Value); err != nil {
				out = append(out, EvalError.New("", "the value of data.%s.%s could not be read: %v", b.pkg, b.kind, err))
				return Outcome{Findings: out}
			}
		default:
			out = append(out, EvalError.New("", "the plan of data.%s.%s gave %d results, expected 1; no rule result is known", b.pkg, b.kind, len(rs)))
			return Outcome{Findings: out}
		}
		out = append(out, e.elements(b, set)...)
	}
	return Outcome{Findings: out, Evaluated: true}
}

// plansFor selects the plans to run for a run of layout: those whose rules
// are typed for that layout's input, or for any. A shipped package names
// the layouts it is written for in its schemas annotation and guards every
// rule on input.run.layout, so the others could only find nothing; not
// running them saves most of the evaluation of a run. The compiled
// policies (--policy, --debug) still evaluate every rule, and the tests
// hold the two to the same findings on every testdata run.
func plansFor(bindings []binding, layout string) []bool {
	run := make([]bool, len(bindings))
	for i, b := range bindings {
		run[i] = layout == "" || len(b.layouts) == 0 || slices.Contains(b.layouts, layout)
	}
	return run
}

// runLayout reads input.run.layout; "" when the input does not say.
func runLayout(input ast.Value) string {
	v := input
	for _, key := range []string{"run", "layout"} {
		obj, ok := v.(ast.Object)
		if !ok {
			return ""
		}
		t := obj.Get(ast.InternedTerm(key))
		if t == nil {
			return ""
		}
		v = t.Value
	}
	s, _ := v.(ast.String)
	return string(s)
}
