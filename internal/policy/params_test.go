package policy

import (
	"maps"
	"slices"
	"testing"

	"github.com/open-policy-agent/opa/v1/ast"
)

func TestParamsRead(t *testing.T) {
	tests := []struct {
		body  string
		names []string
		any   bool
	}{
		{`input.params.owner == "bob"`, []string{"owner"}, false},
		{`object.get(input.params, "owner", input.params.fallback) == "bob"`, []string{"fallback", "owner"}, false},
		{`input.run.id == input.params.limit`, []string{"limit"}, false},
		{`input.docs[input.params.doc]`, []string{"doc"}, false},
		{`input.run.id == "x"`, nil, false},
		{`p := input.params; p.owner == "bob"`, nil, true},
		{`object.get(input.params, input.run.id, "") == "bob"`, nil, true},
		{`some k; input.params[k] == "bob"`, nil, true},
		{`some k; input[k].owner == "bob"`, nil, true},
		{`x := input; x.params.owner == "bob"`, nil, true},
		{`walk(input, [_, v]); v == "bob"`, nil, true},
	}
	for _, tc := range tests {
		src := "package h3a.user.team\n\nallow if {\n\t" + tc.body + "\n}\n"
		m, err := ast.ParseModuleWithOpts("team.rego", src, ast.ParserOptions{RegoVersion: ast.RegoV1})
		if err != nil {
			t.Fatalf("%s: %v", tc.body, err)
		}
		// A test module's reads are no rule's: they never count.
		test := &module{parsed: ast.MustParseModuleWithOpts("package h3a.user.team_test\n\nt if input.params.other", ast.ParserOptions{RegoVersion: ast.RegoV1}), user: true, test: true}
		got := paramsRead([]*module{{parsed: m, user: true}, test})
		names := slices.Sorted(maps.Keys(got.Names))
		if got.Any != tc.any || !slices.Equal(names, tc.names) {
			t.Errorf("%s: names %v any %v, want %v any %v", tc.body, names, got.Any, tc.names, tc.any)
		}
	}
}

// TestParamsReadAsAWhole: a read of the whole object names no parameter,
// so it does not make a misspelt one count as read.
func TestParamsReadAsAWhole(t *testing.T) {
	u := ParamUse{Names: map[string]bool{"owner": true}, Any: true}
	if !u.Reads("owner") || u.Reads("max_iteration") {
		t.Errorf("Reads: owner %v, max_iteration %v; want true, false", u.Reads("owner"), u.Reads("max_iteration"))
	}
}
