// Command regofmt rewrites .rego files in opa fmt form, with the formatter
// of the OPA module h3a-check is built with, so that no separate opa binary
// (of another version, formatting differently) is needed:
//
//	go run ./internal/policy/regofmt            # the shipped .rego files
//	go run ./internal/policy/regofmt FILE|DIR... # those files, or every .rego under DIR
//
// With -l it only lists the files that are not formatted, and exits 1 if
// there are any. TestRegoFormatted fails while a shipped file is not in this
// form.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/format"
)

// Shipped are the folders, relative to the repository root, whose .rego
// files h3a-check ships or tests with and keeps in opa fmt form.
var Shipped = []string{"policies", "internal/cli/testdata/policies"}

func main() {
	list := flag.Bool("l", false, "list the files not in opa fmt form and exit 1 if any, rewrite nothing")
	flag.Parse()
	paths := flag.Args()
	if len(paths) == 0 {
		paths = Shipped
	}
	unformatted, err := run(paths, !*list)
	for _, f := range unformatted {
		fmt.Println(f)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "regofmt:", err)
		os.Exit(2)
	}
	if *list && len(unformatted) > 0 {
		os.Exit(1)
	}
}

// run formats every .rego file under paths, rewriting them when write is
// set, and returns the files whose text changed.
func run(paths []string, write bool) ([]string, error) {
	var changed []string
	for _, root := range paths {
		err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(p, ".rego") {
				return err
			}
			src, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			out, err := Source(p, src)
			if err != nil {
				return err
			}
			if bytes.Equal(src, out) {
				return nil
			}
			changed = append(changed, p)
			if write {
				return os.WriteFile(p, out, 0o644)
			}
			return nil
		})
		if err != nil {
			return changed, err
		}
	}
	return changed, nil
}

// Source is src in opa fmt form, parsed as Rego v1 as the checker parses it.
func Source(name string, src []byte) ([]byte, error) {
	return format.SourceWithOpts(name, src, format.Opts{RegoVersion: ast.RegoV1})
}
