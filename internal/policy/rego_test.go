package policy

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/h3a-check/h3a-check/internal/longtest"
)

// regoCoverageThreshold is the least share of shipped policy lines the Rego
// unit tests must reach; .ci/run holds h3a-check test to the same bar.
const regoCoverageThreshold = 90.0

// TestRegoPolicies runs every shipped *_test.rego in strict mode and fails
// for each failing Rego test, for coverage under the threshold and for each
// deny or warn rule that fires in no test. It is a long test: under the
// race detector OPA's evaluator is ten times slower, and coverage tracing
// doubles that; the README's test command runs the same Rego tests through
// the built binary (internal/e2e's TestShippedRegoTests).
func TestRegoPolicies(t *testing.T) {
	longtest.Skip(t)
	t.Parallel()
	rep, err := RunTests(context.Background(), TestOptions{Coverage: true, Strict: true, Timeout: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rep.Results {
		if r.Fail || r.Error != nil {
			t.Errorf("%s: %s.%s failed (error: %v)\n%s", at(r.Location), r.Package, r.Name, r.Error, r.Output)
		}
	}
	if len(rep.Results) < 100 {
		t.Fatalf("%d Rego tests found, expected every shipped *_test.rego", len(rep.Results))
	}
	if got := rep.Coverage.Coverage; got < regoCoverageThreshold {
		var lines []string
		for file, fr := range rep.Coverage.Files {
			for _, rng := range fr.NotCovered {
				lines = append(lines, fmt.Sprintf("%s:%d-%d", file, rng.Start.Row, rng.End.Row))
			}
		}
		slices.Sort(lines)
		t.Errorf("Rego coverage %.1f%%, want at least %.0f%%; not covered:\n%s", got, regoCoverageThreshold, strings.Join(lines, "\n"))
	}
	// Every rule must fire in some test: a line count passes a rule whose
	// last line is never reached.
	if len(rep.NeverFired) > 0 {
		t.Errorf("%d deny/warn rules produce a finding in no Rego test; add a test that fires each (in policies/<file>_test.rego):\n%s",
			len(rep.NeverFired), strings.Join(rep.NeverFired, "\n"))
	}
	t.Logf("%d Rego tests, coverage %.1f%%", len(rep.Results), rep.Coverage.Coverage)
}

// TestNeverFiredNamesTheRule: a rule whose body is entered by a test but
// never completes is named with its file:line, though its lines are mostly
// covered; a rule that fires is not.
func TestNeverFiredNamesTheRule(t *testing.T) {
	t.Parallel()
	dir := userDir(t, map[string]string{
		"team.rego": header + rule("deny", "#   id: h3a.user.team.fires", `	input.params.max_iterations == 1
	f := lib.finding(rego.metadata.rule(), {"msg": "x is 1"})`) + rule("warn", "#   id: h3a.user.team.never", `	input.params.max_iterations == 2
	f := lib.finding(rego.metadata.rule(), {"msg": "x is 2"})`),
		"team_test.rego": "package h3a.user.team_test\n\nimport data.h3a.user.team\n\n" +
			"test_fires if {\n\tcount(team.deny) == 1 with input as {\"params\": {\"max_iterations\": 1}}\n\tcount(team.warn) == 0 with input as {\"params\": {\"max_iterations\": 1}}\n}\n",
	})
	rep, err := RunTests(context.Background(), TestOptions{Dirs: []string{dir}, Coverage: true, Timeout: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Failed() > 0 {
		t.Fatalf("%d tests failed", rep.Failed())
	}
	want := []string{filepath.Join(dir, "team.rego") + ":20: rule h3a.user.team.never (warn) fires in no test"}
	if !slices.Equal(rep.NeverFired, want) {
		t.Errorf("NeverFired = %q\nwant %q", rep.NeverFired, want)
	}
}

// TestFolderTestsSeeWhatTheyRead: a folder's tests compile with the shipped
// library alone, unless a module of the folder reads more of data: a test
// of the shipped rules' results must find them compiled.
func TestFolderTestsSeeWhatTheyRead(t *testing.T) {
	t.Parallel()
	team := header + rule("deny", "#   id: h3a.user.team.one", `	input.params.max_iterations == 1
	f := lib.finding(rego.metadata.rule(), {"msg": "x is 1"})`)
	own := "package h3a.user.team_test\n\nimport data.h3a.user.team\n\n" +
		"test_own if count(team.deny) == 1 with input as {\"params\": {\"max_iterations\": 1}}\n"
	shipped := "\ntest_shipped_rules_compiled if data.h3a.rules.gates\n"
	for _, tc := range []struct {
		name, tests string
		want        int
	}{
		{"the library alone", own, 1},
		{"reading the shipped rules", own + shipped, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := userDir(t, map[string]string{"team.rego": team, "team_test.rego": tc.tests})
			rep, err := RunTests(context.Background(), TestOptions{Dirs: []string{dir}, Timeout: time.Minute})
			if err != nil {
				t.Fatal(err)
			}
			if len(rep.Results) != tc.want || rep.Failed() > 0 {
				for _, r := range rep.Results {
					t.Logf("%s fail=%v err=%v", r.Name, r.Fail, r.Error)
				}
				t.Fatalf("%d tests, %d failed; want %d passing", len(rep.Results), rep.Failed(), tc.want)
			}
		})
	}
}
