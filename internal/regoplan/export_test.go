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
