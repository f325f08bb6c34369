// Package longtest marks the tests that are too slow for the README's test
// command (GORACE=atexit_sleep_ms=0 go test -race ./...), which a newcomer waits for: OPA's
// conformance suite, the regeneration of the shipped plan, the Rego unit
// tests in process (strict, with coverage) and through the CLI, the full
// fuzz seed corpora, the real pre-commit's CI modes, staged-index
// tricks and golang hook build (each also tested in process or through
// pre-commit's system hook), the fail-closed matrix's every weakening in
// every mode (one of each kind otherwise), the parsers on adversarial
// megabytes and the summary of a 400-run corpus. They run when H3A_LONG
// is set, as .ci/run's "long suites" step sets it, so CI runs every one of
// them on every change.
package longtest

import (
	"flag"
	"os"
	"testing"
)

// Env is the variable that turns the long tests on.
const Env = "H3A_LONG"

// Enabled says whether the long tests run: H3A_LONG is set (to anything
// but "" or "0"), or go test is fuzzing (-fuzz), where a fuzz target's
// whole seed corpus is the starting point.
func Enabled() bool {
	if v := os.Getenv(Env); v != "" && v != "0" {
		return true
	}
	f := flag.Lookup("test.fuzz")
	return f != nil && f.Value.String() != ""
}

// Skip skips t unless the long tests run, saying how to run it.
func Skip(t testing.TB) {
	t.Helper()
	if !Enabled() {
		t.Skipf("a long test: run it with %s=1 (.ci/run does)", Env)
	}
}
