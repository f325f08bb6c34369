package finding

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestEveryRuleIsInGoRules: each Rule variable of this package is in
// GoRules, and once. A rule left out still raises findings, but rules,
// explain and docs/rules.md do not know it, and no test asks for a case
// that fires it (TestEveryGoRuleIsCataloguedAndFired reads GoRules).
func TestEveryRuleIsInGoRules(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	var declared []string
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			gd, ok := d.(*ast.GenDecl)
			if !ok || gd.Tok != token.VAR {
				continue
			}
			for _, spec := range gd.Specs {
				vs := spec.(*ast.ValueSpec)
				for i, n := range vs.Names {
					if i >= len(vs.Values) {
						continue
					}
					lit, ok := vs.Values[i].(*ast.CompositeLit)
					if !ok {
						continue
					}
					if id, ok := lit.Type.(*ast.Ident); ok && id.Name == "Rule" {
						declared = append(declared, n.Name)
						if !slices.ContainsFunc(GoRules, func(r Rule) bool { return r.ID == ruleID(lit) }) {
							t.Errorf("%s:%d: %s is not in GoRules (internal/finding/rules.go): add it to the list, grouped by its stage", name, fset.Position(n.Pos()).Line, n.Name)
						}
					}
				}
			}
		}
	}
	if len(declared) < 10 {
		t.Fatalf("found %d Rule variables; the parse no longer finds them", len(declared))
	}
	seen := map[string]bool{}
	for _, r := range GoRules {
		if seen[r.ID] {
			t.Errorf("GoRules lists %s twice", r.ID)
		}
		seen[r.ID] = true
	}
}

// ruleID is the ID field of a keyed Rule literal, "" when it has none.
func ruleID(lit *ast.CompositeLit) string {
	for _, e := range lit.Elts {
		kv, ok := e.(*ast.KeyValueExpr)
		if !ok {
			continue
		}
		if k, ok := kv.Key.(*ast.Ident); ok && k.Name == "ID" {
			if s, ok := kv.Value.(*ast.BasicLit); ok && len(s.Value) >= 2 {
				return s.Value[1 : len(s.Value)-1]
			}
		}
	}
	return ""
}
