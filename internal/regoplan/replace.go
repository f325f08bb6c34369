package regoplan

import (
	"strings"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/topdown"
)

// fastBuiltins are built-ins linked in place of OPA's implementation: each
// gives the same value and the same error for every operand
// (TestFastBuiltinsMatchOPA, FuzzReplaceMatchesOPA), for less work.
var fastBuiltins = map[string]topdown.BuiltinFunc{
	ast.Replace.Name: replace,
}

// replace is OPA's replace(x, old, new). OPA's builds a strings.Replacer
// for every call, which for a pattern of more than one byte is a 2 KiB
// table; a rule that normalises a string with a few replace calls then
// allocates more than the rest of its evaluation. strings.ReplaceAll gives
// the same leftmost, non-overlapping replacement for a non-empty pattern;
// an empty one, whose matches OPA's generic replacer places itself, and
// an operand that is not a string are left to OPA.
func replace(bctx topdown.BuiltinContext, operands []*ast.Term, iter func(*ast.Term) error) error {
	s, ok1 := operands[0].Value.(ast.String)
	old, ok2 := operands[1].Value.(ast.String)
	n, ok3 := operands[2].Value.(ast.String)
	if !ok1 || !ok2 || !ok3 || old == "" {
		// OPA's own words for an operand of another type.
		return opaReplace(bctx, operands, iter)
	}
	// With no match ReplaceAll returns s itself, unallocated.
	replaced := strings.ReplaceAll(string(s), string(old), string(n))
	if replaced == string(s) {
		return iter(operands[0])
	}
	return iter(ast.InternedTerm(replaced))
}

var opaReplace = topdown.GetBuiltin(ast.Replace.Name)
