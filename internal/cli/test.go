package cli

import (
	"context"
	"flag"
	"fmt"
	"slices"
	"strings"

	"github.com/open-policy-agent/opa/v1/cover"

	"github.com/h3a-check/h3a-check/internal/policy"
)

type testFlags struct {
	dirs      listFlag
	coverage  bool
	threshold float64
	verbose   bool
}

func newTestFlagSet(e *env, tf *testFlags) *flag.FlagSet {
	fs := newFlagSet(e, "test", "usage: h3a-check test [--coverage] [--threshold N] [--verbose] [DIR...]\n\nRuns the test_ rules of each DIR and measures DIR's rules (the shipped rules stay importable);\nwithout DIR, those of the shipped policies.\n\n")
	fs.Var(&tf.dirs, "policy", "a folder of user policies and their *_test.rego files (repeatable; same as a DIR argument)")
	fs.BoolVar(&tf.coverage, "coverage", false, "report which policy lines the tests reach, and the deny/warn rules no test fires")
	fs.Float64Var(&tf.threshold, "threshold", 0, "fail when coverage is below this percentage (implies --coverage)")
	fs.BoolVar(&tf.verbose, "verbose", false, "list every test, not only failures")
	return fs
}

// runTest runs the Rego unit tests of every DIR (and --policy DIR), or of
// the shipped policies when none is given, with OPA's tester. Exit 0:
// every test passed and the coverage threshold, if any, is met; 1: a test
// failed or coverage is short; 2: the tests could not run.
func runTest(ctx context.Context, args []string, e *env) int {
	var tf testFlags
	rest, code, stop := parseFlags("test", newTestFlagSet(e, &tf), args, e)
	if stop {
		return code
	}
	dirs, coverage, threshold, verbose := tf.dirs, tf.coverage, tf.threshold, tf.verbose
	if threshold < 0 || threshold > 100 {
		return fail(e, usageError{fmt.Sprintf("--threshold %g: expected a percentage from 0 to 100", threshold)})
	}
	coverage = coverage || threshold > 0
	rep, err := policy.RunTests(ctx, policy.TestOptions{Dirs: append(dirs, rest...), Coverage: coverage})
	if err != nil {
		return fail(e, err)
	}

	for _, r := range rep.Results {
		where := fmt.Sprintf("%s.%s", strings.TrimPrefix(r.Package, "data."), r.Name)
		if r.Location != nil {
			where = fmt.Sprintf("%s:%d: %s", r.Location.File, r.Location.Row, where)
		}
		switch {
		case r.Error != nil:
			fmt.Fprintf(e.stdout, "ERROR %s: %v\n", where, r.Error)
		case r.Fail:
			fmt.Fprintf(e.stdout, "FAIL  %s\n", where)
			for _, line := range strings.Split(r.Explanation, "\n") {
				if line != "" {
					fmt.Fprintf(e.stdout, "      %s\n", line)
				}
			}
		case r.Skip:
			if verbose {
				fmt.Fprintf(e.stdout, "SKIP  %s\n", where)
			}
			continue
		default:
			if verbose {
				fmt.Fprintf(e.stdout, "PASS  %s (%s)\n", where, r.Duration.Round(1000))
			}
			continue
		}
		for _, line := range strings.Split(strings.TrimRight(string(r.Output), "\n"), "\n") {
			if line != "" {
				fmt.Fprintf(e.stdout, "      %s\n", line)
			}
		}
	}
	failed := rep.Failed()
	fmt.Fprintf(e.stdout, "%d tests, %d passed, %d failed\n", len(rep.Results), len(rep.Results)-failed, failed)
	code = ExitPass
	if failed > 0 {
		code = ExitFail
	}
	if rep.Coverage != nil {
		printCoverage(e, rep.Coverage, threshold, verbose)
		printNeverFired(e, rep.NeverFired)
		if rep.Coverage.Coverage < threshold {
			code = ExitFail
		}
	}
	return code
}

// printCoverage prints the total and, per file below 100% (every file with
// --verbose), its coverage and the lines the tests never reach.
func printCoverage(e *env, rep *cover.Report, threshold float64, verbose bool) {
	files := make([]string, 0, len(rep.Files))
	for f := range rep.Files {
		files = append(files, f)
	}
	slices.Sort(files)
	for _, f := range files {
		fr := rep.Files[f]
		if fr.Coverage >= 100 && !verbose {
			continue
		}
		var lines []string
		for _, r := range fr.NotCovered {
			if r.Start.Row == r.End.Row {
				lines = append(lines, fmt.Sprint(r.Start.Row))
			} else {
				lines = append(lines, fmt.Sprintf("%d-%d", r.Start.Row, r.End.Row))
			}
		}
		lines = slices.Compact(lines)
		fmt.Fprintf(e.stdout, "coverage %5.1f%% %s", fr.Coverage, f)
		if len(lines) > 0 {
			fmt.Fprintf(e.stdout, " (not reached: lines %s)", strings.Join(lines, ", "))
		}
		fmt.Fprintln(e.stdout)
	}
	verdict := ""
	if threshold > 0 {
		verdict = fmt.Sprintf(", threshold %g%%", threshold)
		if rep.Coverage < threshold {
			verdict += ": below the threshold"
		}
	}
	fmt.Fprintf(e.stdout, "coverage %.1f%% of the policy lines%s\n", rep.Coverage, verdict)
}

// printNeverFired lists the deny and warn rules no test made produce a
// finding: line coverage counts a rule whose body is entered as reached,
// though its finding was never built.
func printNeverFired(e *env, rules []string) {
	if len(rules) == 0 {
		return
	}
	fmt.Fprintf(e.stdout, "%d deny/warn rules fire in no test; add a test that makes each produce a finding:\n", len(rules))
	for _, r := range rules {
		fmt.Fprintf(e.stdout, "  %s\n", r)
	}
}
