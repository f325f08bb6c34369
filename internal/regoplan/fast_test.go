package regoplan_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/topdown"

	"github.com/h3a-check/h3a-check/internal/regoplan"
)

// callBuiltin calls a built-in the way the interpreter does and gives its
// one output, or its error as text.
func callBuiltin(f topdown.BuiltinFunc, operands ...*ast.Term) (string, error) {
	bctx := topdown.BuiltinContext{Context: context.Background()}
	var out *ast.Term
	err := f(bctx, operands, func(t *ast.Term) error {
		if out != nil {
			return fmt.Errorf("a second output: %v", t)
		}
		out = t
		return nil
	})
	if err != nil {
		return "", err
	}
	if out == nil {
		return "", fmt.Errorf("no output")
	}
	return out.String(), nil
}

// sameCall fails the test when the built-in written here and OPA's differ
// for the operands, in value or in error.
func sameCall(t *testing.T, name string, operands ...*ast.Term) {
	t.Helper()
	got, gotErr := callBuiltin(regoplan.FastBuiltin(name), operands...)
	want, wantErr := callBuiltin(topdown.GetBuiltin(name), operands...)
	if got != want || fmt.Sprint(gotErr) != fmt.Sprint(wantErr) {
		t.Errorf("%s%v = %s, %v; OPA gives %s, %v", name, operands, got, gotErr, want, wantErr)
	}
}

func TestFastBuiltinsMatchOPA(t *testing.T) {
	if names := regoplan.FastBuiltinNames(); len(names) != 1 || names[0] != ast.Replace.Name {
		t.Fatalf("fast built-ins %v: each needs its cases here and a fuzz target", names)
	}
	s := ast.StringTerm
	cases := [][]*ast.Term{
		{s("+5.2%"), s("\u2212"), s("-")},
		{s("\u22125.2%"), s("\u2212"), s("-")},
		{s("a b  c"), s(" "), s("")},
		{s("aaaa"), s("aa"), s("b")},
		{s("aaa"), s("aa"), s("aab")},
		{s("abc"), s(""), s("-")},
		{s("héllo wörld"), s(""), s("|")},
		{s(""), s(""), s("x")},
		{s(""), s("a"), s("b")},
		{s("no match"), s("zz"), s("y")},
		{s("same"), s("m"), s("m")},
		{s("x\xffy\xff"), s("\xff"), s("?")},
		{s("é"), s("\xc3"), s("e")},
		{s("~/a~1b"), s("~"), s("~0")},
		{s("tab\there"), s("\t"), s("\\t")},
		{ast.NumberTerm("1"), s("a"), s("b")},
		{s("a"), ast.NullTerm(), s("b")},
		{s("a"), s("a"), ast.BooleanTerm(true)},
		{ast.ArrayTerm(s("a")), ast.NumberTerm("2"), ast.NullTerm()},
	}
	for _, c := range cases {
		sameCall(t, ast.Replace.Name, c...)
	}
}

func FuzzReplaceMatchesOPA(f *testing.F) {
	for _, c := range [][3]string{
		{"+5.2%", "\u2212", "-"}, {"aaaa", "aa", "b"}, {"abc", "", "-"}, {"x\xffy", "\xff", "?"},
		{"é", "\xc3", "e"}, {"", "", ""}, {"a.b.c", ".", "\\."},
	} {
		f.Add(c[0], c[1], c[2])
	}
	f.Fuzz(func(t *testing.T, s, old, n string) {
		if len(s) > 1<<12 || len(n) > 64 {
			return
		}
		sameCall(t, ast.Replace.Name, ast.StringTerm(s), ast.StringTerm(old), ast.StringTerm(n))
	})
}
