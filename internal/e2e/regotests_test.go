package e2e

import (
	"os/exec"
	"regexp"
	"strconv"
	"testing"
)

// TestShippedRegoTests runs every shipped *_test.rego through the built
// binary's test command, as a person editing a rule runs them. The policy
// package's TestRegoPolicies runs them in process, in strict mode and with
// coverage, among the long tests: under the race detector OPA's evaluator
// takes ten times as long, which the README's test command cannot afford,
// while this binary is built without it.
func TestShippedRegoTests(t *testing.T) {
	t.Parallel()
	out, err := exec.Command(binary, "test").CombinedOutput()
	if err != nil {
		t.Fatalf("h3a-check test: %v\n%s", err, out)
	}
	m := regexp.MustCompile(`(?m)^(\d+) tests, (\d+) passed, 0 failed$`).FindSubmatch(out)
	if m == nil {
		t.Fatalf("h3a-check test exited 0 without its summary line:\n%s", out)
	}
	total, _ := strconv.Atoi(string(m[1]))
	passed, _ := strconv.Atoi(string(m[2]))
	// Fewer would mean the shipped tests were not all found.
	if total < 500 || passed != total {
		t.Fatalf("h3a-check test ran %d tests, %d passed; expected every shipped *_test.rego (over 500 tests)", total, passed)
	}
}
