// Command materialise writes err cases (testdata/runs/err/<case>/, a patch
// over an ok case) out as the full case folders the checker is run on:
//
//	go run ./internal/audit/audittest/cmd/materialise -o OUT testdata/runs/err/hash_mismatch ...
//
// makes OUT/hash_mismatch/<run-id>/..., keeping each case's folder name. The
// ok case a patch names is looked up beside err/ (CASE/../../ok). A case
// folder without a patch is copied as it is. Exit 1 with file and line when
// a patch cannot be applied.
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"github.com/h3a-check/h3a-check/internal/audit/audittest"
)

func main() {
	out := flag.String("o", "", "folder to write the cases into (created; each case must not be there yet)")
	flag.Usage = func() {
		fmt.Fprintln(os.Stderr, "usage: materialise -o OUT CASE_DIR...")
		flag.PrintDefaults()
	}
	flag.Parse()
	if *out == "" || flag.NArg() == 0 {
		flag.Usage()
		os.Exit(2)
	}
	code := 0
	for _, dir := range flag.Args() {
		dir = filepath.Clean(dir)
		runs := filepath.Dir(filepath.Dir(dir))
		dst := filepath.Join(*out, filepath.Base(dir))
		if err := audittest.MaterialiseCase(runs, dir, dst); err != nil {
			fmt.Fprintf(os.Stderr, "materialise: %v\n", err)
			code = 1
		}
	}
	os.Exit(code)
}
