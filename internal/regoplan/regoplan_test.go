package regoplan_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"reflect"
	"strings"
	"sync"
	"testing"
	"testing/fstest"
	"time"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/compile"
	"github.com/open-policy-agent/opa/v1/ir"
	"github.com/open-policy-agent/opa/v1/rego"
	"github.com/open-policy-agent/opa/v1/topdown"

	"github.com/h3a-check/h3a-check/internal/policy"
	"github.com/h3a-check/h3a-check/internal/regoplan"
)

// build runs OPA's compile.Build, one at a time: the formatter it runs
// sets the location of a rule's else value in place (format.writeElse),
// and that value may be a term OPA interns and shares, such as true, so
// two builds at once race on it (seen in TestOPAConformance's parallel
// else-keyword cases).
func build(c *compile.Compiler) error {
	buildMu.Lock()
	defer buildMu.Unlock()
	return c.Build(context.Background())
}

var buildMu sync.Mutex

// planModule plans one Rego module (package test) for the entrypoints
// test/<rule>, as the checker's generator plans the shipped policies.
func planModule(t testing.TB, src string, rules ...string) *ir.Policy {
	t.Helper()
	eps := make([]string, len(rules))
	for i, r := range rules {
		eps[i] = "test/" + r
	}
	var out bytes.Buffer
	c := compile.New().
		WithTarget(compile.TargetPlan).
		WithFS(fstest.MapFS{"test.rego": {Data: []byte(src)}}).
		WithPaths(".").
		WithEntrypoints(eps...).
		WithRegoVersion(ast.RegoV1).
		WithFilter(func(string, fs.FileInfo, int) bool { return false }).
		WithOutput(&out)
	if err := build(c); err != nil {
		t.Fatalf("planning: %v", err)
	}
	var p ir.Policy
	if err := json.Unmarshal(c.Bundle().PlanModules[0].Raw, &p); err != nil {
		t.Fatal(err)
	}
	return &p
}

// link plans and links a module with the checker's capabilities.
func link(t testing.TB, src string, rules ...string) *regoplan.Program {
	t.Helper()
	prog, err := regoplan.Link(planModule(t, src, rules...), policy.Capabilities())
	if err != nil {
		t.Fatal(err)
	}
	return prog
}

// topdownValue evaluates data.test.<rule> with OPA's evaluator: the
// reference every plan result is held to, as the Go value a caller of
// OPA receives (a set is a list). ok is false when undefined.
func topdownValue(t *testing.T, src, rule string, input ast.Value) (v any, ok bool, builtinErrs []topdown.Error, err error) {
	t.Helper()
	r := rego.New(rego.Module("test.rego", src), rego.Query("x = data.test."+rule), rego.ParsedInput(input), rego.SetRegoVersion(ast.RegoV1),
		rego.BuiltinErrorList(&builtinErrs))
	rs, err := r.Eval(context.Background())
	if err != nil || len(rs) == 0 {
		return nil, false, builtinErrs, err
	}
	return rs[0].Bindings["x"], true, builtinErrs, nil
}

// sameJSON compares a plan value with a topdown one as the policy engine
// reads both: converted to Go values, then to JSON.
func sameJSON(t *testing.T, plan ast.Value, td any) (string, string, bool) {
	t.Helper()
	pv, err := ast.JSON(plan)
	if err != nil {
		t.Fatal(err)
	}
	a, errA := json.Marshal(pv)
	b, errB := json.Marshal(td)
	if errA != nil || errB != nil {
		t.Fatal(errA, errB)
	}
	return string(a), string(b), bytes.Equal(a, b)
}

// planValue is the value of one entrypoint's result, ok false when its
// result set is empty.
func planValue(t *testing.T, prog *regoplan.Program, input ast.Value) ([]ast.Value, []bool, []*topdown.Error, error) {
	t.Helper()
	results, builtinErrs, err := prog.Eval(context.Background(), ast.NewTerm(input))
	if err != nil {
		return nil, nil, builtinErrs, err
	}
	values := make([]ast.Value, len(results))
	defined := make([]bool, len(results))
	for i, rs := range results {
		switch len(rs) {
		case 0:
		case 1:
			values[i] = rs[0].Value.(ast.Object).Get(ast.StringTerm("result")).Value
			defined[i] = true
		default:
			t.Fatalf("%d results for one entrypoint", len(rs))
		}
	}
	return values, defined, builtinErrs, nil
}

// TestPlanMatchesTopdown evaluates small policies, each reaching a part of
// the plan language (loops, negation, every, comprehensions, functions,
// else chains, array and object patterns, partial objects, built-ins,
// numbers), with the plan interpreter and with OPA's evaluator, over
// several inputs, and requires the same value or the same undefinedness.
func TestPlanMatchesTopdown(t *testing.T) {
	inputs := []string{
		`{}`,
		`{"xs": [1, 2, 3], "name": "abc", "obj": {"a": 1, "b": [true, null]}, "n": 2.5}`,
		`{"xs": [], "name": "", "obj": {}, "n": 0, "tasks": [{"id": "T1", "deps": ["T2"]}, {"id": "T2", "deps": []}]}`,
		`{"xs": ["a", "b", "a"], "name": "x/y/z", "obj": {"k": {"deep": [1, {"z": 2}]}}, "n": 12345678901234567890}`,
		`{"tasks": [{"id": "T1", "deps": ["T9"]}, {"id": 7}], "xs": [3, 1, 2], "pairs": [[1, 2], [3], [4, 5]]}`,
		`{"n": 1.0, "xs": [1.0, 1, 1e0, 10E-1, 100e-2, -0.0, 2.50]}`,
	}
	cases := []struct {
		name  string
		rules []string
		src   string
	}{
		{"complete rules and defaults", []string{"a", "b", "c"}, `
a := input.n * 2
default b := "none"
b := input.name if input.name != ""
c if input.xs[_] == 2`},
		{"partial set over a loop", []string{"s"}, `
s contains x if { some x in input.xs; x != "b" }`},
		{"partial object", []string{"o"}, `
o[k] := v if { some k, v in input.obj }`},
		{"negation and every", []string{"none_big", "all_small", "empty_ok"}, `
none_big if not big
big if { some x in input.xs; is_number(x); x > 2 }
all_small if every x in input.xs { is_number(x); x < 3 }
empty_ok if every x in [] { x == 1 }`},
		{"comprehensions", []string{"arr", "set", "obj", "count_xs"}, `
arr := [y | some x in input.xs; y := sprintf("%v", [x])]
set := {y | some x in input.xs; y := x}
obj := {k: count(v) | some k, v in input.obj; is_array(v)}
count_xs := count(input.xs)`},
		{"functions with arguments and else", []string{"kinds", "first"}, `
kind(x) := "number" if is_number(x)
else := "string" if is_string(x)
else := "other"
kinds := [kind(x) | some x in input.xs]
first := f if { f := input.xs[0] } else := "empty"`},
		{"patterns", []string{"heads", "singles", "deep"}, `
heads := {a | some p in input.pairs; [a, _] := p}
singles := {a | some p in input.pairs; [a] := p}
deep := z if { {"deep": [_, {"z": z}]} := input.obj.k }`},
		{"references across tasks", []string{"missing"}, `
ids := {t.id | some t in input.tasks}
missing contains sprintf("%v needs %v", [t.id, d]) if {
	some t in input.tasks
	some d in t.deps
	not d in ids
}`},
		{"strings and sets", []string{"parts", "joined", "diff", "union"}, `
parts := split(input.name, "/")
joined := concat(",", {x | some x in input.xs; is_string(x)})
diff := {1, 2, 3} - {x | some x in input.xs}
union := {"a"} | {x | some x in input.xs; is_string(x)}`},
		{"numbers", []string{"big", "frac", "total"}, `
big := 12345678901234567890123 + 1
frac := 0.1 + 0.2
total := sum([x | some x in input.xs; is_number(x)])`},
		{"numbers written with a fraction or an exponent", []string{"marshalled", "whole", "ones", "as_text"}, `
marshalled := [json.marshal(x) | some x in input.xs]
whole := [x | some x in input.xs; regex.match("^-?[0-9]+$", json.marshal(x))]
ones := [b | some x in input.xs; b := x == 1]
as_text := [sprintf("%v %d", [x, x]) | some x in input.xs; is_number(x)]`},
		{"object building", []string{"merged", "keys"}, `
merged := object.union({"a": 1, "b": {"c": 1}}, {"b": {"d": 2}})
keys := {k | some k, _ in input.obj}`},
		{"relations yield every output", []string{"paths", "numbers", "walks", "flat"}, `
paths := {p | walk(input.obj, [p, _])}
numbers := {[p, v] | walk(input, [p, v]); is_number(v)}
walks if walk(input.obj)
flat := count([1 | walk(input.xs, _)])`},
		{"break out of nested blocks", []string{"any_a", "first_a"}, `
any_a if "a" in input.xs
first_a := i if { some i, x in input.xs; x == "a"; not earlier(i) }
earlier(i) if { some j, x in input.xs; x == "a"; j < i }`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			src := "package test\n" + tc.src
			prog := link(t, src, tc.rules...)
			for _, in := range inputs {
				input := ast.MustParseTerm(in).Value
				got, defined, _, err := planValue(t, prog, input)
				if err != nil {
					t.Fatalf("input %s: plan: %v", in, err)
				}
				for i, rule := range tc.rules {
					want, ok, _, err := topdownValue(t, src, rule, input)
					if err != nil {
						t.Fatalf("input %s: topdown %s: %v", in, rule, err)
					}
					if ok != defined[i] {
						t.Errorf("input %s: %s defined: plan %v, topdown %v (plan value %v, topdown %v)", in, rule, defined[i], ok, got[i], want)
						continue
					}
					if !ok {
						continue
					}
					if a, b, same := sameJSON(t, got[i], want); !same {
						t.Errorf("input %s: %s = %s, topdown gives %s", in, rule, a, b)
					}
				}
			}
		})
	}
}

// TestPlanErrors: what OPA reports as an error, the plan reports as one,
// and a failing built-in makes its call undefined and is listed.
func TestPlanErrors(t *testing.T) {
	t.Run("conflicting complete rule", func(t *testing.T) {
		prog := link(t, "package test\np := x if { some x in input.xs }", "p")
		_, _, err := prog.Eval(context.Background(), ast.MustParseTerm(`{"xs": [1, 2]}`))
		var te *topdown.Error
		if !errors.As(err, &te) || te.Code != topdown.ConflictErr || te.Location == nil || te.Location.Row == 0 ||
			te.Message != "rule data.test.p produced conflicting values" {
			t.Fatalf("err = %#v, want a conflict error naming the rule, with a location", err)
		}
		if _, _, err := prog.Eval(context.Background(), ast.MustParseTerm(`{"xs": [1, 1]}`)); err != nil {
			t.Fatalf("one value twice is no conflict: %v", err)
		}
	})
	t.Run("built-in error", func(t *testing.T) {
		src := "package test\nn := to_number(input.s)\nok := true"
		prog := link(t, src, "n", "ok")
		input := ast.MustParseTerm(`{"s": "not a number"}`)
		got, defined, berrs, err := planValue(t, prog, input.Value)
		if err != nil {
			t.Fatal(err)
		}
		if defined[0] || !defined[1] || ast.Compare(got[1], ast.Boolean(true)) != 0 {
			t.Errorf("n defined %v, ok %v = %v; want n undefined, ok true", defined[0], defined[1], got[1])
		}
		_, _, want, _ := topdownValue(t, src, "n", input.Value)
		if len(berrs) != 1 || len(want) != 1 {
			t.Fatalf("built-in errors: plan %v, topdown %v", berrs, want)
		}
		if berrs[0].Message != want[0].Message || berrs[0].Code != want[0].Code || berrs[0].Location.Row != want[0].Location.Row {
			t.Errorf("plan error %q (%s, row %d), topdown %q (%s, row %d)", berrs[0].Message, berrs[0].Code, berrs[0].Location.Row,
				want[0].Message, want[0].Code, want[0].Location.Row)
		}
		if !strings.HasSuffix(berrs[0].Location.File, "test.rego") {
			t.Errorf("error file %q, want the module's", berrs[0].Location.File)
		}
	})
	t.Run("cancelled", func(t *testing.T) {
		prog := link(t, "package test\nn := count([1 | some x in numbers.range(1, 100000); some y in numbers.range(1, 100); x > y])", "n")
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
		defer cancel()
		_, _, err := prog.Eval(ctx, ast.MustParseTerm(`{}`))
		if !topdown.IsCancel(err) {
			t.Fatalf("err = %v, want a cancellation", err)
		}
	})
}

// TestLinkRefuses: a plan with a statement the interpreter does not run is
// refused when linked, not evaluated wrongly.
func TestLinkRefuses(t *testing.T) {
	p := planModule(t, "package test\nf := input.x\np if { f == 1 with input.x as 1 }", "p")
	_, err := regoplan.Link(p, policy.Capabilities())
	var le *regoplan.LinkError
	if !errors.As(err, &le) || !strings.Contains(err.Error(), "WithStmt") {
		t.Fatalf("err = %v, want a LinkError naming WithStmt", err)
	}
	p = planModule(t, "package test\np := 1", "p")
	if _, err := regoplan.Link(p, nil); err == nil {
		t.Fatal("a plan was linked without capabilities")
	}
	p.Funcs.Funcs[0].Blocks[0].Stmts = append(p.Funcs.Funcs[0].Blocks[0].Stmts, &ir.CallStmt{Func: "no.such.builtin"})
	if _, err := regoplan.Link(p, policy.Capabilities()); !errors.As(err, &le) || !strings.Contains(err.Error(), "no.such.builtin") {
		t.Fatalf("err = %v, want a LinkError naming the call", err)
	}
	if _, err := regoplan.Link(&ir.Policy{}, policy.Capabilities()); err == nil {
		t.Fatal("an empty plan was linked")
	}
}

// TestLinkRefusesBuiltinsOutsideTheCapabilities: a plan may declare any
// built-in OPA has; only those of the capabilities given are linked, and a
// call to another is refused at the rule that makes it.
func TestLinkRefusesBuiltinsOutsideTheCapabilities(t *testing.T) {
	for _, call := range []string{"time.now_ns()", `io.jwt.decode_verify("x", {"secret": "s"})`, "rand.intn(\"seed\", 10)", `opa.runtime()`} {
		name := call[:strings.IndexByte(call, '(')]
		src := "package test\n\nok := 1\n\np := " + call + "\n"
		p := planModule(t, src, "ok", "p")
		if _, err := regoplan.Link(p, ast.CapabilitiesForThisVersion()); err != nil {
			t.Fatalf("%s: OPA's own capabilities refused: %v", name, err)
		}
		_, err := regoplan.Link(p, policy.Capabilities())
		var le *regoplan.LinkError
		if !errors.As(err, &le) || le.Location == nil || le.Location.Row != 5 || !strings.HasSuffix(le.Location.File, "test.rego") ||
			!strings.Contains(le.Msg, name+" is not allowed") {
			t.Errorf("%s: err = %v, want a LinkError at test.rego:5 saying it is not allowed", name, err)
		}
	}
}

// TestEvalRefusesNoInput: without an input document every rule reading it
// would be undefined, which a caller would read as "nothing found".
func TestEvalRefusesNoInput(t *testing.T) {
	prog := link(t, "package test\np contains 1 if not input.ok", "p")
	results, _, err := prog.Eval(context.Background(), nil)
	var te *topdown.Error
	if !errors.As(err, &te) || results != nil {
		t.Fatalf("Eval(nil) = %v, %v; want no results and an error", results, err)
	}
	if _, _, err := prog.Eval(context.Background(), ast.MustParseTerm(`{}`)); err != nil {
		t.Fatal(err)
	}
}

// TestEvalPlansRunsOnlyTheSelected: a plan not selected gives no result,
// as an undefined rule does; the others give what Eval gives.
func TestEvalPlansRunsOnlyTheSelected(t *testing.T) {
	prog := link(t, "package test\np contains 1 if input.ok\nq contains 2 if input.ok", "p", "q")
	input := ast.MustParseTerm(`{"ok": true}`)
	all, _, err := prog.Eval(context.Background(), input)
	if err != nil {
		t.Fatal(err)
	}
	some, _, err := prog.EvalPlans(context.Background(), input, []bool{false, true})
	if err != nil {
		t.Fatal(err)
	}
	if len(some) != 2 || len(some[0]) != 0 || len(all[0]) != 1 || !reflect.DeepEqual(some[1], all[1]) {
		t.Fatalf("EvalPlans = %v, Eval = %v; want the second plan's result only", some, all)
	}
	if _, _, err := prog.EvalPlans(context.Background(), input, []bool{true}); err == nil {
		t.Fatal("EvalPlans with one selection for two plans: no error")
	}
	if _, _, err := prog.EvalPlans(context.Background(), nil, []bool{true, true}); err == nil {
		t.Fatal("EvalPlans without input: no error")
	}
}

// TestLoad: a plan linked as data (what a generator writes out) loads into
// a program that gives the results of one linked directly; Load refuses
// built-ins outside the capabilities, and Verify linked data that would
// call outside the plan or read a local outside a frame.
func TestLoad(t *testing.T) {
	ctx := context.Background()
	src := "package test\nimport rego.v1\nq := input.x + 1\np contains upper(sprintf(\"%d\", [v])) if { some v in input.ys; v > q }\nr := \"unused\""
	input := ast.MustParseTerm(`{"x": 1, "ys": [1, 2, 3, 4]}`)
	want, _, err := link(t, src, "p", "r").Eval(ctx, input)
	if err != nil {
		t.Fatal(err)
	}
	linked := func() *regoplan.Linked {
		l, err := regoplan.LinkData(planModule(t, src, "p", "r"), policy.Capabilities())
		if err != nil {
			t.Fatal(err)
		}
		return l
	}
	prog, err := regoplan.Load(linked(), policy.Capabilities())
	if err != nil {
		t.Fatal(err)
	}
	if got, _, err := prog.Eval(ctx, input); err != nil || fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("loaded: %v, %v; linked: %v", got, err, want)
	}
	// firstStmt finds the first statement of op in l's functions.
	firstStmt := func(l *regoplan.Linked, op regoplan.Opcode) *regoplan.Stmt {
		var find func(bs []*regoplan.Block) *regoplan.Stmt
		find = func(bs []*regoplan.Block) *regoplan.Stmt {
			for _, b := range bs {
				for i := range b.Stmts {
					if b.Stmts[i].Op == op {
						return &b.Stmts[i]
					}
					if st := find(b.Stmts[i].Blocks); st != nil {
						return st
					}
				}
			}
			return nil
		}
		for _, fn := range l.Funcs {
			if st := find(fn.Blocks); st != nil {
				return st
			}
		}
		for _, pl := range l.Plans {
			if st := find(pl.Blocks); st != nil {
				return st
			}
		}
		t.Fatalf("no statement %d in the plan", op)
		return nil
	}
	if err := linked().Verify(); err != nil {
		t.Fatalf("Verify refused what LinkData made: %v", err)
	}
	for _, tc := range []struct {
		name   string
		breaks func(l *regoplan.Linked)
		want   string
	}{
		{"a built-in outside the capabilities", func(l *regoplan.Linked) { l.Builtins[0] = "http.send" }, "http.send is not allowed"},
		{"a built-in OPA does not have", func(l *regoplan.Linked) { l.Builtins[0] = "no.such.builtin" }, "no.such.builtin"},
		{"a built-in index past the list", func(l *regoplan.Linked) { firstStmt(l, regoplan.OpCallBuiltin).Builtin = len(l.Builtins) }, "built-in the plan does not name"},
		{"a function of another plan", func(l *regoplan.Linked) {
			st := firstStmt(l, regoplan.OpCallFunc)
			copied := *st.Func
			st.Func = &copied
		}, "function outside the plan"},
		{"a function out of place", func(l *regoplan.Linked) { l.Funcs[0].ID = 1 }, "out of place"},
		{"a local outside the frame", func(l *regoplan.Linked) { firstStmt(l, regoplan.OpDot).Target = 1 << 20 }, "outside its frame"},
		{"an unknown opcode", func(l *regoplan.Linked) { firstStmt(l, regoplan.OpDot).Op = 200 }, "unknown opcode"},
		{"a scan without its block", func(l *regoplan.Linked) { firstStmt(l, regoplan.OpScan).Blocks = nil }, "malformed block"},
	} {
		l := linked()
		tc.breaks(l)
		_, err := regoplan.Load(l, policy.Capabilities())
		if err == nil {
			err = l.Verify()
		}
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: Load and Verify gave %v, want an error saying %q", tc.name, err, tc.want)
		}
	}
	if _, err := regoplan.Load(linked(), nil); err == nil {
		t.Error("a plan was loaded without capabilities")
	}
}

// TestEvalConcurrent: evaluations on several goroutines share a program
// (run it with -race).
func TestEvalConcurrent(t *testing.T) {
	ctx := context.Background()
	src := "package test\nimport rego.v1\nq := input.x + 1\nf(v) := v * 2\np contains f(v) if { some v in input.ys; v > q }"
	input := ast.MustParseTerm(`{"x": 1, "ys": [1, 2, 3, 4]}`)
	want, _, err := link(t, src, "p").Eval(ctx, input)
	if err != nil {
		t.Fatal(err)
	}
	prog := link(t, src, "p")
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for range 8 {
		wg.Go(func() {
			got, _, err := prog.Eval(ctx, input)
			if err == nil && fmt.Sprint(got) != fmt.Sprint(want) {
				err = fmt.Errorf("got %v, want %v", got, want)
			}
			errs <- err
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
}

// TestOpcodeNames: every opcode has its own name, the one it is declared
// under (generated sources spell opcodes by it).
func TestOpcodeNames(t *testing.T) {
	seen := map[string]bool{}
	for op := regoplan.OpAssignVar; op <= regoplan.OpNop; op++ {
		name := op.String()
		if !strings.HasPrefix(name, "Op") || seen[name] {
			t.Errorf("opcode %d is named %q", op, name)
		}
		seen[name] = true
	}
	if regoplan.OpDot.String() != "OpDot" || regoplan.OpNop.String() != "OpNop" || regoplan.Opcode(0).String() != "Opcode(0)" {
		t.Errorf("names: %v %v %v", regoplan.OpDot, regoplan.OpNop, regoplan.Opcode(0))
	}
}
