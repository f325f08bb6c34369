package e2e

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// goFiles parses every Go file of the module (testdata and hidden folders
// aside) with its comments, and hands each to fn with its path relative
// to the module.
func goFiles(t *testing.T, fn func(rel string, fset *token.FileSet, f *ast.File)) {
	t.Helper()
	err := filepath.WalkDir(moduleRoot, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); p != moduleRoot && (strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") || name == "testdata") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, ".go") {
			return nil
		}
		src, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		// A generated file is read to its imports only: its code is its
		// generator's, which these tests read, and parsing the 5 MB of
		// the shipped plan cost each test seconds under the race detector.
		mode := parser.ParseComments
		if generated.Match(src[:min(len(src), 1024)]) {
			mode |= parser.ImportsOnly
		}
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, p, src, mode)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(moduleRoot, p)
		fn(filepath.ToSlash(rel), fset, f)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// generated is the line that marks a generated Go file
// (https://go.dev/s/generatedcode), looked for at its top.
var generated = regexp.MustCompile(`(?m)^// Code generated .* DO NOT EDIT\.$`)

// testName is how a comment cites a test.
var testName = regexp.MustCompile(`\b(Test|Benchmark|Fuzz)[A-Z][A-Za-z0-9_]*`)

// TestCitedTestsExist: a comment that names a test (to say what holds a
// rule to its promise) names one that exists; a renamed test would leave
// the promise unkept in silence.
func TestCitedTestsExist(t *testing.T) {
	defined := map[string]bool{}
	type citation struct{ name, at string }
	var cited []citation
	goFiles(t, func(rel string, fset *token.FileSet, f *ast.File) {
		for _, decl := range f.Decls {
			switch d := decl.(type) {
			case *ast.FuncDecl:
				defined[d.Name.Name] = true
			case *ast.GenDecl:
				for _, s := range d.Specs {
					if ts, ok := s.(*ast.TypeSpec); ok {
						defined[ts.Name.Name] = true // TestOptions and the like
					}
				}
			}
		}
		for _, g := range f.Comments {
			for _, c := range g.List {
				for _, m := range testName.FindAllStringIndex(c.Text, -1) {
					if m[0] > 0 && c.Text[m[0]-1] == '.' {
						continue // another package's: fstest.TestFS
					}
					cited = append(cited, citation{c.Text[m[0]:m[1]], fmt.Sprintf("%s:%d", rel, fset.Position(c.Pos()).Line)})
				}
			}
		}
	})
	if len(cited) < 10 {
		t.Fatalf("%d citations of tests found, expected the many comments that name one", len(cited))
	}
	for _, c := range cited {
		if !defined[c.name] {
			t.Errorf("%s names %s, which no test defines", c.at, c.name)
		}
	}
}

// predeclared are the built-in functions a name must not hide: code that
// reads max(a, b) a few lines below a parameter called max does not call
// the built-in.
var predeclared = map[string]bool{
	"append": true, "cap": true, "clear": true, "close": true, "complex": true, "copy": true, "delete": true,
	"imag": true, "len": true, "max": true, "min": true, "new": true, "panic": true, "print": true,
	"println": true, "real": true, "recover": true,
}

// TestNoShadowedNames: no parameter or variable of the program hides a
// built-in function, nor io/fs in a file that imports it.
func TestNoShadowedNames(t *testing.T) {
	var problems []string
	goFiles(t, func(rel string, fset *token.FileSet, f *ast.File) {
		if strings.HasSuffix(rel, "_test.go") {
			return
		}
		importsFS := false
		for _, im := range f.Imports {
			if p, _ := strconv.Unquote(im.Path.Value); p == "io/fs" && im.Name == nil {
				importsFS = true
			}
		}
		check := func(id *ast.Ident) {
			if id != nil && (predeclared[id.Name] || importsFS && id.Name == "fs") {
				problems = append(problems, fmt.Sprintf("%s: %q hides the %s", fset.Position(id.Pos()), id.Name, map[bool]string{true: "package io/fs", false: "built-in"}[id.Name == "fs"]))
			}
		}
		ast.Inspect(f, func(n ast.Node) bool {
			switch x := n.(type) {
			case *ast.FuncType:
				for _, fl := range []*ast.FieldList{x.Params, x.Results} {
					if fl != nil {
						for _, field := range fl.List {
							for _, name := range field.Names {
								check(name)
							}
						}
					}
				}
			case *ast.AssignStmt:
				if x.Tok == token.DEFINE {
					for _, l := range x.Lhs {
						id, _ := l.(*ast.Ident)
						check(id)
					}
				}
			case *ast.ValueSpec:
				for _, name := range x.Names {
					check(name)
				}
			case *ast.RangeStmt:
				if x.Tok == token.DEFINE {
					k, _ := x.Key.(*ast.Ident)
					v, _ := x.Value.(*ast.Ident)
					check(k)
					check(v)
				}
			}
			return true
		})
	})
	for _, p := range problems {
		t.Error(p)
	}
}
