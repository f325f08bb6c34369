package regoplan

import (
	"context"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/topdown"
)

// EvalWithData evaluates with a data document, and with input undefined
// when nil, as OPA's conformance cases need; the checker has no data and
// always an input.
func (p *Program) EvalWithData(ctx context.Context, input, data *ast.Term) ([][]*ast.Term, []*topdown.Error, error) {
	return p.eval(ctx, input, data, nil)
}

// FastBuiltin is the implementation linked in place of OPA's for name, or
// nil.
func FastBuiltin(name string) topdown.BuiltinFunc { return fastBuiltins[name] }

// FastBuiltinNames are the built-ins with an implementation of their own.
func FastBuiltinNames() []string {
	var out []string
	for name := range fastBuiltins {
		out = append(out, name)
	}
	return out
}
