// Command synth writes a synthetic corpus of H3A runs for benchmarks and
// tests:
//
//	go run ./internal/synth -runs N -artifacts M -size BYTES -out DIR [-broken FRACTION] [-seed S] [-log-entries N]
//
// Runs are written to DIR/runs/<run id>/. Valid runs pass every check;
// broken ones each break one thing (package corpus lists how). The same seed
// always gives the same corpus.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/h3a-check/h3a-check/internal/synth/corpus"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("synth", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var opts corpus.Options
	out := fs.String("out", "", "directory to write runs/ into (required)")
	fs.IntVar(&opts.Runs, "runs", 1, "number of runs")
	fs.IntVar(&opts.Artifacts, "artifacts", 8, fmt.Sprintf("artifact files per run (at least %d)", corpus.MinArtifacts))
	fs.Int64Var(&opts.Size, "size", 4096, "bytes per artifact")
	fs.Float64Var(&opts.Broken, "broken", 0, "fraction of runs that break one thing each (0 to 1)")
	fs.Uint64Var(&opts.Seed, "seed", 1, "random seed: the same seed gives the same corpus")
	fs.IntVar(&opts.Workers, "workers", 0, "parallel writers (0: one per CPU); never changes the output")
	fs.IntVar(&opts.LogEntries, "log-entries", 0, "entries added to each run's EVIDENCE_LOG.md, re-logging its artifacts (for memory benchmarks)")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if *out == "" || fs.NArg() > 0 {
		fmt.Fprintln(stderr, "synth: expected -out DIR and no other arguments")
		fs.Usage()
		return 2
	}
	c, err := corpus.Generate(*out, opts)
	if err != nil {
		fmt.Fprintf(stderr, "synth: %v\n", err)
		return 1
	}
	broken := 0
	for _, r := range c.Runs {
		if r.Broken.Name != "" {
			broken++
		}
	}
	fmt.Fprintf(stdout, "wrote %d runs (%d broken) to %s: %d files, %d bytes\n", len(c.Runs), broken, c.Dir, c.Files, c.Bytes)
	return 0
}
