package policy

import (
	"testing"

	"github.com/open-policy-agent/opa/v1/ast"
)

// TestRefsAsParsed: the package references built at start are the ones
// the parser reads from their text.
func TestRefsAsParsed(t *testing.T) {
	for text, r := range map[string]ast.Ref{
		"data.h3a.rules":     rulesPrefix,
		"data.h3a.lib":       libPackage,
		"data.h3a.model":     modelPackage,
		"data.h3a.user":      userPrefix,
		"rego.metadata.rule": metadataRule,
	} {
		want := ast.MustParseRef(text)
		if !r.Equal(want) || r.String() != want.String() || len(r) != len(want) {
			t.Errorf("%s: built %v, parsed %v", text, r, want)
		}
		for i := range want {
			if r[i].Value.Compare(want[i].Value) != 0 || ast.TypeName(r[i].Value) != ast.TypeName(want[i].Value) {
				t.Errorf("%s: term %d built %v (%s), parsed %v (%s)", text, i, r[i], ast.TypeName(r[i].Value), want[i], ast.TypeName(want[i].Value))
			}
		}
	}
}
