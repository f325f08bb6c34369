package policy

import (
	"context"
	"fmt"
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
// for each failing Rego test and, with the long tests (coverage tracing
// doubles the time), for coverage under the threshold.
func TestRegoPolicies(t *testing.T) {
	t.Parallel()
	coverage := longtest.Enabled()
	rep, err := RunTests(context.Background(), TestOptions{Coverage: coverage, Strict: true, Timeout: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rep.Results {
		if r.Fail || r.Error != nil {
			t.Errorf("%s: %s.%s failed (error: %v)\n%s", at(r.Location), r.Package, r.Name, r.Error, r.Output)
		}
	}
	// Without coverage, nothing else would notice the tests not being found.
	if len(rep.Results) < 100 {
		t.Fatalf("%d Rego tests found, expected every shipped *_test.rego", len(rep.Results))
	}
	if !coverage {
		t.Logf("%d Rego tests; coverage is measured with %s=1", len(rep.Results), longtest.Env)
		return
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
	t.Logf("%d Rego tests, coverage %.1f%%", len(rep.Results), rep.Coverage.Coverage)
}
