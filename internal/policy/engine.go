// Package policy is the Rego stage of the checker. It compiles the shipped
// rules (package policies) and the rules of every --policy folder once per
// process, with a capability set that has no network, no clock and no
// randomness, prepares one query over every rule, and evaluates it once per
// run with a time limit. Each result element becomes a finding.
//
// The rule contract, checked when the policies are loaded:
//
//   - shipped rules live in packages h3a.rules.<area>, user rules only in
//     packages under h3a.user (Rego merges packages across files, so a user
//     module elsewhere could change a shipped rule);
//   - a rule is "deny contains f if {...}" (an error by default) or
//     "warn contains f if {...}" (a warning by default), with a # METADATA
//     block right above it: title, description and custom.id (unique),
//     custom.category, custom.severity, custom.remediation;
//   - f is built with lib.finding(rego.metadata.rule(), {...}) from package
//     h3a.lib, which copies the rule id from the metadata: an element always
//     names its rule. f carries "msg" and may carry "file" (relative to the
//     run), "pointer" (a JSON pointer, resolved to line:column), "line",
//     "column", "gate", "task_id", "needs_human", "remediation" (what to
//     do about this finding, in place of the rule's custom.remediation) and
//     "severity" (how bad this finding is, in place of custom.severity).
//
// A result that breaks the contract, a builtin error, an evaluation error and
// a timeout are findings in category policy: a rule that could not run is
// never silently a rule that did not fire.
package policy

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/rego"
	"github.com/open-policy-agent/opa/v1/topdown"
	"github.com/open-policy-agent/opa/v1/topdown/print"

	"github.com/h3a-check/h3a-check/internal/finding"
	"github.com/h3a-check/h3a-check/internal/regoplan"
)

// DefaultTimeout bounds the policy evaluation of one run.
const DefaultTimeout = 5 * time.Second

// Options configure Load.
type Options struct {
	// Dirs are --policy folders of user rules (packages under h3a.user).
	Dirs []string
	// Sources gives, for some of Dirs, the file system to read instead of
	// the disk (a folder as it is at the base revision).
	Sources map[string]fs.FS
	// Timeout bounds each run's evaluation; 0 means DefaultTimeout.
	Timeout time.Duration
	// Debug, when set, receives the output of print() calls in the
	// policies, one line each, prefixed by the run and the file:line.
	// Without it print() calls are removed at compile time.
	Debug io.Writer
	// Strict compiles in OPA's strict mode (unused variables, imports and
	// arguments are errors); the shipped rules are held to it in tests.
	Strict bool
}

// Engine evaluates the compiled policies. It is immutable and safe for
// concurrent use: runs share one prepared query.
type Engine struct {
	*compiled
	timeout time.Duration
}

// compiled is the part of an engine that depends only on the policy files.
type compiled struct {
	query    rego.PreparedEvalQuery
	program  *regoplan.Program // the shipped rules' plan, used instead of query when set
	bindings []binding         // query variable (or plan) → rule set it reads
	rules    map[string]*RuleInfo
	// shipped, beside a query of user rules, evaluates the shipped rules
	// from their plan; rules then holds both.
	shipped *compiled
	// params is what the user rules read of input.params.
	params ParamUse
}

// binding is one query variable: the deny or warn set of one package.
type binding struct {
	name        string
	pkg         string
	kind        string
	defSeverity finding.Severity
	// layouts are the layouts the binding's rules are typed for (see
	// RuleInfo.Layouts); none when some rule reads any layout's input.
	layouts []string
}

var (
	defaultOnce     sync.Once
	defaultCompiled *compiled
	defaultErr      error
)

// Load compiles the shipped policies and those of opts.Dirs and prepares the
// query. An error is a *CompileError naming file:line of every problem.
// Without user folders, debug output or strict mode nothing is compiled:
// the shipped policies come planned at build time (shipped_plan.go), are
// linked once and shared by every caller of the process.
func Load(ctx context.Context, opts Options) (*Engine, error) {
	timeout := opts.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	if len(opts.Dirs) == 0 && opts.Debug == nil && !opts.Strict {
		defaultOnce.Do(func() { defaultCompiled, defaultErr = linkShipped() })
		if defaultErr != nil {
			return nil, defaultErr
		}
		return &Engine{compiled: defaultCompiled, timeout: timeout}, nil
	}
	c, err := compile(ctx, opts)
	if err != nil {
		return nil, err
	}
	return &Engine{compiled: c, timeout: timeout}, nil
}

func compile(ctx context.Context, opts Options) (*compiled, error) {
	caps := Capabilities()
	// User rules compile with the shipped library alone, and the shipped
	// rules run from their plan beside them: packages cannot be shared
	// (checkPackages), so the findings are those of one compile of
	// everything. --debug and --strict compile everything, as does a user
	// module that reads more of data than the library and user packages.
	split := len(opts.Dirs) > 0 && opts.Debug == nil && !opts.Strict
	mods, problems := parseAll(opts.Dirs, opts.Sources, false, split, caps)
	if split && len(problems) == 0 && !readsOnlyLibrary(mods) {
		split = false
		mods, problems = parseAll(opts.Dirs, opts.Sources, false, false, caps)
	}
	var shipped *compiled
	if split && len(problems) == 0 {
		defaultOnce.Do(func() { defaultCompiled, defaultErr = linkShipped() })
		if defaultErr != nil {
			return nil, defaultErr
		}
		shipped = defaultCompiled
	}
	problems = append(problems, checkPackages(mods)...)
	if len(problems) > 0 {
		return nil, &CompileError{Problems: problems}
	}
	var known []*RuleInfo
	if shipped != nil {
		known = shippedRules
	}
	rules, problems := collectRules(mods, known)
	if len(problems) == 0 {
		problems = userDirsWithoutRules(opts.Dirs, rules)
	}
	if len(problems) > 0 {
		return nil, &CompileError{Problems: problems}
	}
	bindings := queryBindings(rules)
	if shipped != nil {
		for id, r := range shipped.rules {
			rules[id] = r
		}
	}
	// The shipped rules alone: the plan's generator (plangen) and the tests
	// (TestShippedRulesHaveMetadata, TestShippedPoliciesAreTypeChecked)
	// hold them to every check of a strict, typed compile, so a check need
	// not repeat them.
	shippedOnly := len(opts.Dirs) == 0 && !opts.Strict
	c, err := newCompiler(caps, opts.Debug != nil, opts.Strict, !shippedOnly)
	if err != nil {
		return nil, err
	}
	if shippedOnly {
		c = c.WithSkipStages(shippedChecksDone...)
	}
	c.Compile(sortedModules(mods, false))
	if c.Failed() {
		return nil, &CompileError{Problems: astProblems(c.Errors)}
	}

	exprs := make([]string, len(bindings))
	for i, b := range bindings {
		exprs[i] = fmt.Sprintf("%s := data.%s.%s", b.name, b.pkg, b.kind)
	}
	ropts := []func(*rego.Rego){rego.Query(strings.Join(exprs, "; ")), rego.Compiler(c)}
	if opts.Debug != nil {
		ropts = append(ropts, rego.PrintHook(&printHook{w: opts.Debug}))
	}
	pq, err := rego.New(ropts...).PrepareForEval(ctx)
	if err != nil {
		return nil, &CompileError{Problems: []string{fmt.Sprintf("preparing the policy query: %v", err)}}
	}
	return &compiled{query: pq, bindings: bindings, rules: rules, shipped: shipped, params: paramsRead(mods)}, nil
}

// readsOnlyLibrary reports whether every user module reads, of data, only
// the shipped library (h3a.lib, h3a.model) and user packages: then the
// shipped rules need not be compiled with it.
func readsOnlyLibrary(mods []*module) bool {
	ok := true
	for _, m := range mods {
		if !m.user {
			continue
		}
		ast.WalkRefs(m.parsed, func(r ast.Ref) bool {
			if !r[0].Equal(ast.DefaultRootDocument) {
				return false
			}
			if !r.HasPrefix(libPackage) && !r.HasPrefix(modelPackage) && !r.HasPrefix(userPrefix) {
				ok = false
			}
			return false
		})
	}
	return ok
}

// shippedChecksDone are the compiler stages that only look for mistakes in
// the policies, without rewriting them or building what evaluation uses.
// They are a quarter of the compile time of the shipped rules.
var shippedChecksDone = []ast.StageID{
	ast.StageCheckKeywordOverrides,
	ast.StageCheckDuplicateImports,
	ast.StageCheckVoidCalls,
	ast.StageCheckRuleConflicts,
	ast.StageCheckUndefinedFuncs,
	ast.StageCheckSafetyRuleHeads,
	ast.StageCheckRecursion,
	ast.StageCheckTypes,
	ast.StageCheckUnsafeBuiltins,
	ast.StageCheckDeprecatedBuiltins,
	ast.StageBuildRequiredCapabilities,
	ast.StageRewriteTestRulesForTracing,
}

// newCompiler makes the compiler of a policy compile. When typed, the
// policies are type-checked against the input schemas (see inputtypes.go):
// a field that no layout's input has does not compile.
func newCompiler(caps *ast.Capabilities, printing, strict, typed bool) (*ast.Compiler, error) {
	c := ast.NewCompiler().
		WithCapabilities(caps).
		WithDefaultRegoVersion(ast.RegoV1).
		WithEnablePrintStatements(printing).
		WithStrict(strict)
	if typed {
		types, err := loadInputTypes()
		if err != nil {
			return nil, &CompileError{Problems: []string{err.Error()}}
		}
		c = c.WithSchemas(types.set).WithUseTypeCheckAnnotations(true)
	}
	c.SetErrorLimit(0)
	return c, nil
}

// queryBindings gives one query variable to every package's deny and warn
// set, in a stable order.
func queryBindings(rules map[string]*RuleInfo) []binding {
	index := map[[2]string]int{}
	anyLayout := map[int]bool{}
	var bs []binding
	for _, id := range slices.Sorted(maps.Keys(rules)) {
		r := rules[id]
		k := [2]string{r.Package, r.Kind}
		i, seen := index[k]
		if !seen {
			i = len(bs)
			index[k] = i
			bs = append(bs, binding{pkg: r.Package, kind: r.Kind, defSeverity: ruleKinds[r.Kind]})
		}
		if len(r.Layouts) == 0 {
			anyLayout[i] = true
		}
		for _, l := range r.Layouts {
			if !slices.Contains(bs[i].layouts, l) {
				bs[i].layouts = append(bs[i].layouts, l)
			}
		}
	}
	for i := range bs {
		if anyLayout[i] {
			bs[i].layouts = nil
		}
		slices.Sort(bs[i].layouts)
	}
	slices.SortFunc(bs, func(a, b binding) int {
		if c := strings.Compare(a.pkg, b.pkg); c != 0 {
			return c
		}
		return strings.Compare(a.kind, b.kind)
	})
	for i := range bs {
		bs[i].name = fmt.Sprintf("r%d", i)
	}
	return bs
}

// Rules returns every policy rule, sorted by id.
func (e *Engine) Rules() []*RuleInfo {
	out := make([]*RuleInfo, 0, len(e.rules))
	for _, r := range e.rules {
		out = append(out, r)
	}
	slices.SortFunc(out, func(a, b *RuleInfo) int { return strings.Compare(a.ID, b.ID) })
	return out
}

// UserParams is what the rules of the policy folders read of
// input.params; the shipped rules read only the parameters the runner
// defaults.
func (e *Engine) UserParams() ParamUse { return e.params }

// Rule returns the rule with this id, if the policies define it.
func (e *Engine) Rule(id string) (*RuleInfo, bool) {
	r, ok := e.rules[id]
	return r, ok
}

// Outcome is the policy stage's result for one run.
type Outcome struct {
	Findings []finding.Finding
	// Evaluated is false when no rule result is known: the evaluation failed
	// or ran out of time (the findings say which).
	Evaluated bool
}

type runKey struct{}

// Eval evaluates every rule over one run's input document. run names the
// run in debug output.
//
// The input becomes OPA values as the rules read it (ast.LazyObject): an
// object is converted member by member when a rule looks a member up, and
// whole when a rule iterates, compares or hashes it, so the parts of a run
// no rule of its layout reads are never converted. That was a third of the
// evaluation of a run. The value belongs to this call alone (looking a
// member up fills a cache), and TestLazyInputMatchesConverted holds the
// findings to those of converting the whole input first. An input holding
// a value of a type the conversion does not take as it is, or a number it
// refuses, is converted whole first, as before: one that cannot be
// converted is an evaluation error even where no rule would read it.
func (e *Engine) Eval(ctx context.Context, run string, input map[string]any) Outcome {
	if !convertsAsIs(input) {
		value, err := ast.InterfaceToValue(input)
		if err != nil {
			return Outcome{Findings: []finding.Finding{EvalError.New("", "policy input could not be converted, no rule was evaluated: %v", err)}}
		}
		return e.evalValue(ctx, run, value)
	}
	return e.evalValue(ctx, run, ast.LazyObject(input))
}

// convertsAsIs reports whether ast.InterfaceToValue takes every value in v
// by its type, without a round trip through encoding/json, and without an
// error: the values a run's documents decode to, and those the checker
// adds.
func convertsAsIs(v any) bool {
	switch v := v.(type) {
	case nil, bool, string, int, int64, uint64, float64, []string, map[string]string:
		return true
	case json.Number:
		_, err := ast.NumberChecked(string(v))
		return err == nil
	case []any:
		for _, x := range v {
			if !convertsAsIs(x) {
				return false
			}
		}
		return true
	case map[string]any:
		for _, x := range v {
			if !convertsAsIs(x) {
				return false
			}
		}
		return true
	default:
		return false
	}
}

// abandonAfter is how long past its timeout an evaluation may still take
// before it is left to itself: the rules' own loops and most built-ins
// stop at the deadline, but a built-in that never looks at it would hold
// the check for as long as it runs.
const abandonAfter = time.Second

func (e *Engine) evalValue(ctx context.Context, run string, value ast.Value) Outcome {
	if ctx.Err() != nil {
		return Outcome{Findings: []finding.Finding{EvalError.New("", "policy evaluation was cancelled, so no rule result is known for this run")}}
	}
	ctx, cancel := context.WithTimeout(context.WithValue(ctx, runKey{}, run), e.timeout)
	defer cancel()
	done := make(chan Outcome, 1)
	eval := evaluate // read here: a left-behind evaluation must not read it later
	go func() { done <- eval(e, ctx, value) }()
	select {
	case out := <-done:
		return out
	case <-time.After(e.timeout + abandonAfter):
		// The evaluation goes on in the background until its built-in
		// returns; its result is never read.
		return Outcome{Findings: []finding.Finding{Timeout.New("", "policy evaluation did not finish within %s (a built-in did not stop at the limit, so the evaluation was left running and its result is not used); no rule result is known for this run", e.timeout)}}
	}
}

// evaluate is (*Engine).evalBounded; tests make it ignore the deadline.
var evaluate = (*Engine).evalBounded

// evalBounded is evalValue's evaluation, within ctx's deadline.
func (e *Engine) evalBounded(ctx context.Context, value ast.Value) Outcome {
	if e.program != nil {
		return e.evalPlan(ctx, e.compiled, value)
	}
	if e.shipped == nil {
		return e.evalQuery(ctx, value)
	}
	out := e.evalPlan(ctx, e.shipped, value)
	user := e.evalQuery(ctx, value)
	out.Findings = append(out.Findings, user.Findings...)
	out.Evaluated = out.Evaluated && user.Evaluated
	return out
}

// evalQuery evaluates the prepared query of compiled rules.
func (e *Engine) evalQuery(ctx context.Context, value ast.Value) (out Outcome) {
	defer func() {
		// A member of the input that cannot be converted when a rule reads
		// it panics (ast.LazyObject); the plan's interpreter recovers the
		// same way.
		if r := recover(); r != nil {
			out = Outcome{Findings: []finding.Finding{EvalError.New("", "policy evaluation failed unexpectedly: %v; no rule result is known for this run", r)}}
		}
	}()
	var builtinErrs []topdown.Error
	rs, err := e.query.Eval(ctx, rego.EvalParsedInput(value), rego.EvalBuiltinErrorList(&builtinErrs))
	if err != nil {
		return Outcome{Findings: []finding.Finding{e.evalFailure(ctx, err)}}
	}
	var found []finding.Finding
	for _, be := range builtinErrs {
		found = append(found, builtinFinding(be))
	}
	if len(rs) != 1 {
		found = append(found, EvalError.New("", "the policy query gave %d results, expected 1; no rule result is known", len(rs)))
		return Outcome{Findings: found}
	}
	for _, b := range e.bindings {
		found = append(found, e.elements(b, rs[0].Bindings[b.name])...)
	}
	return Outcome{Findings: found, Evaluated: true}
}

// evalFailure explains a failed evaluation: out of time, cancelled, or an
// error such as a conflict between two rule values.
func (e *Engine) evalFailure(ctx context.Context, err error) finding.Finding {
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return Timeout.New("", "policy evaluation did not finish within %s, so no rule result is known for this run", e.timeout)
	}
	if topdown.IsCancel(err) || ctx.Err() != nil {
		return EvalError.New("", "policy evaluation was cancelled, so no rule result is known for this run")
	}
	var te *topdown.Error
	if errors.As(err, &te) {
		return EvalError.New("", "policy evaluation failed at %s: %s: %s; no rule result is known for this run", at(te.Location), te.Code, te.Message)
	}
	return EvalError.New("", "policy evaluation failed: %v; no rule result is known for this run", err)
}

// builtinFinding reports a builtin that failed inside a rule: the rule's
// result for this run is unknown, which must not pass as "did not fire".
// The policy file goes in the details: a finding's file is a run file.
func builtinFinding(be topdown.Error) finding.Finding {
	return BuiltinError.New("", "a builtin failed at %s (%s), so the rule there may have missed a finding: %s", at(be.Location), be.Code, be.Message)
}

// printHook writes print() output for --debug; one hook serves every run,
// so writes are serialised.
type printHook struct {
	mu sync.Mutex
	w  io.Writer
}

func (h *printHook) Print(pctx print.Context, msg string) error {
	run := ""
	if pctx.Context != nil {
		run, _ = pctx.Context.Value(runKey{}).(string)
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	_, err := fmt.Fprintf(h.w, "%s: %s: %s\n", run, at(pctx.Location), msg)
	return err
}
