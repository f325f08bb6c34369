package policy

import (
	"context"

	"github.com/open-policy-agent/opa/v1/ast"
)

// EvalConverted is Eval with the whole input converted to OPA values
// before evaluation, the reference for Eval's conversion as rules read.
func (e *Engine) EvalConverted(ctx context.Context, run string, input map[string]any) Outcome {
	value, err := ast.InterfaceToValue(input)
	if err != nil {
		panic(err)
	}
	return e.evalValue(ctx, run, value)
}

// UserDir writes files into a fresh --policy folder (userDir).
var UserDir = userDir
