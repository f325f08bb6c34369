package policy

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/cover"
	"github.com/open-policy-agent/opa/v1/tester"
)

// TestOptions configure RunTests.
type TestOptions struct {
	// Dirs are --policy folders whose rules and *_test.rego files run with
	// the shipped ones.
	Dirs []string
	// Coverage measures which policy lines the tests reach.
	Coverage bool
	// Strict compiles in OPA's strict mode.
	Strict bool
	// Timeout bounds each test; 0 means 5 seconds.
	Timeout time.Duration
}

// TestReport is the outcome of RunTests.
type TestReport struct {
	Results []*tester.Result // sorted by file, line and name
	// Coverage is nil unless TestOptions.Coverage; it covers the policy
	// modules, not the tests.
	Coverage *cover.Report
}

// Failed counts the tests that failed or could not run.
func (r *TestReport) Failed() int {
	n := 0
	for _, res := range r.Results {
		if res.Fail || res.Error != nil {
			n++
		}
	}
	return n
}

// RunTests runs the test_ rules of the shipped policies and of opts.Dirs
// with OPA's tester, under the same capabilities and package rules as a
// check. An error means the tests could not run (a *CompileError names the
// problems).
func RunTests(ctx context.Context, opts TestOptions) (*TestReport, error) {
	caps := Capabilities()
	mods, problems := parseAll(opts.Dirs, nil, true, caps)
	problems = append(problems, checkPackages(mods)...)
	if len(problems) > 0 {
		return nil, &CompileError{Problems: problems}
	}
	if _, problems := collectRules(mods); len(problems) > 0 {
		return nil, &CompileError{Problems: problems}
	}
	timeout := opts.Timeout
	if timeout <= 0 {
		timeout = 5 * time.Second
	}
	all := sortedModules(mods, true)
	compiler, err := newCompiler(caps, true, opts.Strict, true)
	if err != nil {
		return nil, err
	}
	runner := tester.NewRunner().
		SetCompiler(compiler).
		SetModules(all).
		CapturePrintOutput(true).
		SetTimeout(timeout).
		SetDefaultRegoVersion(ast.RegoV1)
	var cov *cover.Cover
	if opts.Coverage {
		cov = cover.New()
		runner = runner.SetCoverageQueryTracer(cov)
	}
	ch, err := runner.RunTests(ctx, nil)
	if err != nil {
		return nil, &CompileError{Problems: astProblems(err)}
	}
	rep := &TestReport{}
	for res := range ch {
		rep.Results = append(rep.Results, res)
	}
	slices.SortFunc(rep.Results, func(a, b *tester.Result) int {
		return strings.Compare(resultKey(a), resultKey(b))
	})
	if len(rep.Results) == 0 {
		return nil, &CompileError{Problems: []string{"no test found: a test is a rule named test_... in a *_test.rego file"}}
	}
	if cov != nil {
		r := cov.Report(sortedModules(mods, false))
		rep.Coverage = &r
	}
	return rep, nil
}

func resultKey(r *tester.Result) string {
	file, row := "", 0
	if r.Location != nil {
		file, row = r.Location.File, r.Location.Row
	}
	return fmt.Sprintf("%s\x00%09d\x00%s", file, row, r.Name)
}
