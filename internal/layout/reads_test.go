package layout

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestLayoutsOpenNoFiles: a layout reads a run only through what the
// load stage gives it (Run, and Needs for anything more), and detection
// only through the fs.FS it is handed, so that every read is confined and
// within the memory budget. No source file of the package may import a
// package that reaches the file system, or name a way into it through
// another; and validation is the schema stage's, so schema is not
// imported either.
func TestLayoutsOpenNoFiles(t *testing.T) {
	const fs = "reaches the file system: a layout names what it needs (Files, Needs) and the load stage reads it"
	forbiddenImports := map[string]string{
		"os":        fs,
		"io/ioutil": fs,
		"syscall":   fs,
		"os/exec":   "runs programs",
		"github.com/h3a-check/h3a-check/internal/gitrev": "reads repositories: the history stage does",
		"github.com/h3a-check/h3a-check/internal/schema": "validates documents: a layout names their schemas (File.Schema, File.Versioned) and the schema stage validates them",
	}
	// selectors of allowed packages that still reach the file system
	forbiddenNames := map[string][]string{
		"path/filepath": {"Abs", "EvalSymlinks", "Glob", "Walk", "WalkDir"},
		"github.com/h3a-check/h3a-check/internal/rundir": {"OpenRoot", "Root", "Discover", "DiscoverWithin"},
	}
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		checked++
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, name, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		local := map[string]string{} // name in this file -> import path
		for _, imp := range f.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			if why, bad := forbiddenImports[p]; bad {
				t.Errorf("%s imports %s, which %s", fset.Position(imp.Pos()), p, why)
			}
			n := filepath.Base(p)
			if imp.Name != nil {
				n = imp.Name.Name
			}
			if n == "." {
				t.Errorf("%s: dot import of %s hides what the file uses", fset.Position(imp.Pos()), p)
			}
			local[n] = p
		}
		ast.Inspect(f, func(node ast.Node) bool {
			sel, ok := node.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			pkg, ok := sel.X.(*ast.Ident)
			if !ok {
				return true
			}
			for _, bad := range forbiddenNames[local[pkg.Name]] {
				if sel.Sel.Name == bad {
					t.Errorf("%s uses %s.%s, which %s", fset.Position(sel.Pos()), pkg.Name, bad, fs)
				}
			}
			return true
		})
	}
	if checked < 5 {
		t.Fatalf("checked %d files of the package, expected every layout's", checked)
	}
}
