package policy

import (
	"github.com/open-policy-agent/opa/v1/ast"
)

// ParamUse is what the user rules read of input.params: the names they
// read by a constant key, and whether some rule reads it otherwise (the
// whole object, through input as a whole, or by a key computed at
// evaluation).
type ParamUse struct {
	Names map[string]bool
	Any   bool
}

// Reads reports whether a user rule reads the parameter name by its own
// name. A read of the whole object, or by a computed key, names no
// parameter in particular: counting it as reading every name would let a
// single such rule make a misspelt limit (max_iteration for
// max_iterations) pass unnoticed again, with the default in force.
func (u ParamUse) Reads(name string) bool { return u.Names[name] }

var (
	inputRoot   = ast.Var("input")
	paramsField = ast.String("params")
)

// paramsRead finds what the non-test user modules read of input.params.
// A configuration's parameter that no rule reads is a value the check
// does not understand (a misspelt limit, say), and the configuration
// says so instead of dropping it; where a rule's reading cannot be told
// from its text, Any records it, and no name counts as read by it.
func paramsRead(mods []*module) ParamUse {
	use := ParamUse{Names: map[string]bool{}}
	var visit func(x any) bool
	// A call object.get(input.params, "name", default) reads one name,
	// as input.params.name does: the input's type lets a rule read a
	// parameter of the configuration's own no other way.
	call := func(op *ast.Term, args []*ast.Term) bool {
		if !op.Equal(objectGet) || len(args) != 3 || !args[0].Equal(inputParams) {
			return false
		}
		name, ok := args[1].Value.(ast.String)
		if !ok {
			return false
		}
		use.Names[string(name)] = true
		ast.NewGenericVisitor(visit).Walk(args[2])
		return true
	}
	visit = func(x any) bool {
		switch v := x.(type) {
		case *ast.Expr:
			if terms, ok := v.Terms.([]*ast.Term); ok && len(terms) > 0 {
				return call(terms[0], terms[1:])
			}
		case ast.Call:
			return len(v) > 0 && call(v[0], v[1:])
		case ast.Var:
			if v.Equal(inputRoot) {
				use.Any = true
			}
		case ast.Ref:
			if h, ok := v[0].Value.(ast.Var); !ok || !h.Equal(inputRoot) {
				return false
			}
			readRef(v, &use)
			// The head is input itself, already judged; a key may hold
			// another reference (input.runs[input.params.k]).
			for _, k := range v[1:] {
				ast.NewGenericVisitor(visit).Walk(k)
			}
			return true
		}
		return false
	}
	for _, m := range mods {
		if m.user && !m.test {
			ast.NewGenericVisitor(visit).Walk(m.parsed)
		}
	}
	return use
}

var (
	objectGet   = ast.RefTerm(ast.VarTerm("object"), ast.StringTerm("get"))
	inputParams = ast.RefTerm(ast.VarTerm("input"), ast.StringTerm("params"))
)

// readRef records what one reference rooted at input reads of params.
func readRef(r ast.Ref, use *ParamUse) {
	if len(r) == 1 {
		use.Any = true
		return
	}
	field, ok := r[1].Value.(ast.String)
	if !ok {
		use.Any = true // input[k]: params, perhaps
		return
	}
	if field != paramsField {
		return
	}
	if len(r) == 2 {
		use.Any = true
		return
	}
	if name, ok := r[2].Value.(ast.String); ok {
		use.Names[string(name)] = true
		return
	}
	use.Any = true
}
