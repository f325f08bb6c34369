package policy

import (
	"bytes"
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/cover"
	"github.com/open-policy-agent/opa/v1/tester"
	"github.com/open-policy-agent/opa/v1/topdown"
)

// TestOptions configure RunTests.
type TestOptions struct {
	// Dirs are --policy folders whose *_test.rego files run, and whose
	// rules are measured, instead of the shipped ones; the shipped rules
	// stay there for them to import.
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
	Results []*TestResult // sorted by file, line and name
	// Coverage is nil unless TestOptions.Coverage; it covers the policy
	// modules under test (those of Dirs, else the shipped ones), not the
	// tests.
	Coverage *cover.Report
	// NeverFired lists, with TestOptions.Coverage, each deny or warn rule
	// of the modules under test that no test made produce a finding, as
	// "file:line: rule ID (deny)", sorted: line coverage alone passes a
	// rule whose body is entered but never completes.
	NeverFired []string
}

// TestResult is one test's result and, for a test that failed, why.
type TestResult struct {
	*tester.Result
	// Explanation is, for a failed test, the expression that failed with
	// the values of its variables, as OPA's evaluator traced it.
	Explanation string
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

// RunTests runs the test_ rules of opts.Dirs, or of the shipped policies
// when there are none, with OPA's tester, under the same capabilities,
// package rules and input types as a check. An error means the tests could
// not run (a *CompileError names the problems).
func RunTests(ctx context.Context, opts TestOptions) (*TestReport, error) {
	caps := Capabilities()
	// A folder's tests compile with the shipped library alone, as its
	// rules do in a check (compile), unless a module of the folder reads
	// more of data than the library and user packages: the shipped rules'
	// results, say. The shipped rules are neither run nor measured here.
	libraryOnly := len(opts.Dirs) > 0 && !opts.Strict
	mods, problems := parseAll(opts.Dirs, nil, true, libraryOnly, caps)
	if libraryOnly && len(problems) == 0 && !readsOnlyLibrary(mods) {
		mods, problems = parseAll(opts.Dirs, nil, true, false, caps)
	}
	problems = append(problems, checkPackages(mods)...)
	if len(problems) > 0 {
		return nil, &CompileError{Problems: problems}
	}
	rules, problems := collectRules(mods, nil)
	if len(problems) > 0 {
		return nil, &CompileError{Problems: problems}
	}
	timeout := opts.Timeout
	if timeout <= 0 {
		timeout = 5 * time.Second
	}
	// Under test: the folders given, else the shipped policies. The other
	// rules are compiled with them, so tests can import them, but their
	// tests do not run and their lines are not measured.
	underTest := func(m *module) bool { return m.user == (len(opts.Dirs) > 0) }
	all := map[string]*ast.Module{}
	measured := map[string]*ast.Module{}
	for _, m := range mods {
		if m.test && !underTest(m) {
			continue
		}
		all[m.file] = m.parsed
		if !m.test && underTest(m) {
			measured[m.file] = m.parsed
		}
	}
	runner, err := newTestRunner(caps, opts.Strict, timeout, all)
	if err != nil {
		return nil, err
	}
	var cov *cover.Cover
	if opts.Coverage {
		cov = cover.New()
		runner = runner.SetCoverageQueryTracer(cov)
	}
	results, err := collectResults(ctx, runner)
	if err != nil {
		return nil, err
	}
	if len(results) == 0 {
		where := "the shipped policies"
		if len(opts.Dirs) > 0 {
			where = strings.Join(opts.Dirs, ", ")
		}
		return nil, &CompileError{Problems: []string{fmt.Sprintf("no test found in %s: a test is a rule named test_... in a *_test.rego file", where)}}
	}
	rep := &TestReport{}
	for _, r := range results {
		rep.Results = append(rep.Results, &TestResult{Result: r})
	}
	if err := explainFailures(ctx, caps, opts.Strict, timeout, all, rep.Results); err != nil {
		return nil, err
	}
	if cov != nil {
		rep.Coverage = coverageOf(cov.Report(measured), measured)
		rep.NeverFired = neverFired(rep.Coverage, measured, rules)
	}
	return rep, nil
}

// neverFired lists the deny and warn rules of modules whose head r does
// not cover. OPA's tracer covers a rule's head when the rule exits with a
// value, that is when its body held: for a deny or warn rule, when it
// produced a finding.
func neverFired(r *cover.Report, modules map[string]*ast.Module, rules map[string]*RuleInfo) []string {
	ids := map[string]string{} // file:line → rule id
	for id, info := range rules {
		ids[info.Location] = id
	}
	var out []string
	for file, m := range modules {
		fr := r.Files[file]
		for _, rule := range m.Rules {
			name, ok := rule.Head.Ref()[0].Value.(ast.Var)
			if _, kind := ruleKinds[string(name)]; !ok || !kind || rule.Head.Location == nil {
				continue
			}
			if !headNotCovered(fr, rule.Head.Location) {
				continue
			}
			loc := at(rule.Location)
			out = append(out, fmt.Sprintf("%s: rule %s (%s) fires in no test", loc, ids[loc], name))
		}
	}
	slices.Sort(out)
	return out
}

// headNotCovered says whether fr lists the range of a rule head as not
// covered; OPA's report names each head and expression by its exact range.
func headNotCovered(fr *cover.FileReport, loc *ast.Location) bool {
	if fr == nil {
		return true
	}
	endRow, endCol := loc.End()
	for _, rng := range fr.NotCovered {
		if rng.Start.Row == loc.Row && rng.Start.Col == loc.Col && rng.End.Row == endRow && rng.End.Col == endCol {
			return true
		}
	}
	return false
}

// coverageOf keeps the files of modules in a coverage report, and the
// total of those: OPA's report also counts every other file the tests ran
// through, the tests themselves included.
func coverageOf(r cover.Report, modules map[string]*ast.Module) *cover.Report {
	out := &cover.Report{Files: map[string]*cover.FileReport{}}
	for file, fr := range r.Files {
		if _, ok := modules[file]; !ok {
			continue
		}
		out.Files[file] = fr
		out.CoveredLines += fr.CoveredLines
		out.NotCoveredLines += fr.NotCoveredLines
	}
	if total := out.CoveredLines + out.NotCoveredLines; total > 0 {
		out.Coverage = 100 * float64(out.CoveredLines) / float64(total)
	}
	return out
}

// newTestRunner makes OPA's test runner over modules, with a fresh
// compiler: the runner adds its own stages to it.
func newTestRunner(caps *ast.Capabilities, strict bool, timeout time.Duration, modules map[string]*ast.Module) (*tester.Runner, error) {
	compiler, err := newCompiler(caps, true, strict, true)
	if err != nil {
		return nil, err
	}
	return tester.NewRunner().
		SetCompiler(compiler).
		SetModules(modules).
		CapturePrintOutput(true).
		SetTimeout(timeout).
		SetDefaultRegoVersion(ast.RegoV1), nil
}

// collectResults runs the tests and returns their results, sorted.
func collectResults(ctx context.Context, runner *tester.Runner) ([]*tester.Result, error) {
	ch, err := runner.RunTests(ctx, nil)
	if err != nil {
		return nil, &CompileError{Problems: astProblems(err)}
	}
	var results []*tester.Result
	for res := range ch {
		results = append(results, res)
	}
	slices.SortFunc(results, func(a, b *tester.Result) int {
		return strings.Compare(resultKey(a), resultKey(b))
	})
	return results, nil
}

// explainFailures runs the failed tests again with OPA's tracer (which
// coverage excludes) and keeps, for each, the last expression that failed
// with the values of its variables: what opa test --var-values prints.
func explainFailures(ctx context.Context, caps *ast.Capabilities, strict bool, timeout time.Duration, modules map[string]*ast.Module, results []*TestResult) error {
	var names []string
	failed := map[string]*TestResult{}
	for _, r := range results {
		if r.Fail && r.Error == nil {
			name := r.Package + "." + r.Name
			names = append(names, regexp.QuoteMeta(name))
			failed[name] = r
		}
	}
	if len(names) == 0 {
		return nil
	}
	runner, err := newTestRunner(caps, strict, timeout, modules)
	if err != nil {
		return err
	}
	traced, err := collectResults(ctx, runner.EnableTracing(true).Filter("^("+strings.Join(names, "|")+")$"))
	if err != nil {
		return err
	}
	for _, t := range traced {
		if r, ok := failed[t.Package+"."+t.Name]; ok {
			r.Explanation = explainFailure(t.Trace)
		}
	}
	return nil
}

// explainFailure renders the last expression of a test that failed, with
// the values of its variables. Inside every, the failing expression of the
// body is the one that explains.
func explainFailure(trace []*topdown.Event) string {
	for _, e := range slices.Backward(trace) {
		if e.Op != topdown.FailOp || e.Location == nil || e.QueryID == 0 {
			continue
		}
		if expr, ok := e.Node.(*ast.Expr); ok {
			if _, every := expr.Terms.(*ast.Every); every {
				continue
			}
		}
		var b bytes.Buffer
		fmt.Fprintf(&b, "%s:%d: failed here:\n", e.Location.File, e.Location.Row)
		if err := topdown.PrettyEvent(&b, e, topdown.PrettyEventOpts{PrettyVars: true}); err != nil {
			return ""
		}
		return strings.TrimRight(b.String(), "\n")
	}
	return ""
}

func resultKey(r *tester.Result) string {
	file, row := "", 0
	if r.Location != nil {
		file, row = r.Location.File, r.Location.Row
	}
	return fmt.Sprintf("%s\x00%09d\x00%s", file, row, r.Name)
}
