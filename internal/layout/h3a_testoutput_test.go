package layout

import (
	"bytes"
	"strings"
	"testing"
	"unicode/utf8"
)

// TestTestFailureLines: only a line in which a test runner says tests
// failed (a summary with a failed count above 0, or a failed test's own
// line) is read as tests failing; a passing test whose name speaks of
// failure, and prose, are not.
func TestTestFailureLines(t *testing.T) {
	for _, c := range []struct {
		name, text string
		want       int // line number, 0 for none
	}{
		{"pytest summary", "collected 8 items\n\n=========== 3 failed, 5 passed in 0.41s ===========\n", 3},
		{"pytest passed then failed", "===== 5 passed, 1 failed in 0.12s =====", 1},
		{"pytest errors", "==== 1 passed, 2 errors in 0.1s ====", 1},
		{"pytest -q", "..F\n1 failed, 2 passed in 0.05s\n", 2},
		{"pytest -q passed first", "2 passed, 1 failed in 0.05s", 1},
		{"pytest short summary", "=== short test summary info ===\nFAILED tests/test_jwt.py::test_expired - AssertionError\n", 2},
		{"go test subtest", "=== RUN   TestX\n    --- FAIL: TestX/a (0.00s)\n", 2},
		{"go test package", "ok  \tgithub.com/a/b\t0.1s\nFAIL\tgithub.com/a/c\t0.2s\n", 2},
		{"go test lone FAIL", "--- PASS: TestY (0.00s)\nFAIL\n", 2},
		{"jest tests", "Test Suites: 1 passed, 1 total\nTests:       2 failed, 5 passed, 7 total\n", 2},
		{"jest suites", "Test Suites: 1 failed, 1 total\r\n", 1},
		{"unittest", "Ran 4 tests in 0.001s\n\nFAILED (failures=1)\n", 3},
		// per-test lines, as a truncated or verbose output holds them alone
		{"pytest verbose FAILED", "tests/test_x.py::test_b PASSED [ 33%]\ntests/test_x.py::test_a FAILED                      [ 34%]\n", 2},
		{"pytest verbose ERROR", "tests/test_x.py::TestX::test_a[p 1] ERROR\n", 1},
		{"pytest short summary no reason", "FAILED tests/test_x.py::test_a\n", 1},
		{"pytest short summary ERROR", "ERROR tests/test_x.py::test_a - fixture 'db' not found\n", 1},
		{"pytest collection ERROR", "ERROR tests/test_x.py - ModuleNotFoundError: No module named 'x'\n", 1},
		{"pytest xdist", "[gw1] [ 50%] FAILED tests/test_x.py::test_a \n", 1},
		{"pytest progress", "tests/test_x.py ..F.                                     [ 40%]\n", 1},
		{"pytest progress -q", "....E..                                                  [100%]\n", 1},
		{"pytest FAILURES header", "================================= FAILURES =================================\n", 1},
		{"pytest coloured", "\x1b[31mFAILED\x1b[0m tests/test_x.py::test_a\n", 1},
		{"go test FAIL test", "=== RUN   TestX\n--- FAIL: TestX (0.00s)\n", 2},
		{"go test FAIL alone", "ok  \tgithub.com/x/z\t0.1s\nFAIL\r\n", 2},
		{"go test FAIL package", "FAIL\tgithub.com/x/y\t0.1s\n", 1},
		{"go test FAIL package spaces", "FAIL    github.com/x/y  0.123s\n", 1},
		{"go test build failed", "FAIL\tgithub.com/x/y [build failed]\n", 1},
		{"jest test", "  x\n    ✓ passes (2 ms)\n    ✕ does the thing (5 ms)\n", 3},
		{"jest test windows", "    × does the thing\n", 1},
		{"jest file", "PASS src/y.test.js\nFAIL src/x.test.js\n", 2},
		{"jest file coloured", "\x1b[1m\x1b[31m FAIL \x1b[39m\x1b[22m src/x.test.ts (5.2 s)\n", 1},
		{"unittest FAIL", "======================================================================\nFAIL: test_a (tests.test_x.TestX)\n", 2},
		{"unittest ERROR", "ERROR: test_a (tests.test_x.TestX.test_a)\n", 1},
		{"unittest verbose", "test_b (tests.test_x.TestX) ... ok\ntest_a (tests.test_x.TestX) ... FAIL\n", 2},
		{"unittest verbose ERROR", "test_a (tests.test_x.TestX.test_a)\nChecks the thing. ... ERROR\n", 2},
		{"pytest passing", "============ 8 passed in 0.41s ============\n", 0},
		{"zero failed", "==== 8 passed, 0 failed in 0.41s ====\nTests:       0 failed, 7 passed, 7 total\n", 0},
		{"go test passing", "--- PASS: TestX (0.00s)\nPASS\nok  \tgithub.com/a/b\t0.1s\n", 0},
		{"jest passing", "Tests:       7 passed, 7 total\n", 0},
		{"prose", "The test for failed logins passes; FAILED attempts are counted.\n3 failed attempts lock the account\n", 0},
		{"test named fail", "tests/test_fail.py::test_failed_login PASSED\n", 0},
		{"pytest names fail and error", "tests/test_x.py::test_fail_gracefully PASSED [ 10%]\ntests/test_error.py::test_error_page PASSED\ntest_fail_gracefully PASSED\n", 0},
		{"pytest xfail", "tests/test_x.py::test_a XFAIL [ 50%]\ntests/test_x.py ..x.s [100%]\n", 0},
		{"pytest captured log", "ERROR    root:app.py:12 connection refused\n", 0},
		{"go test names fail", "=== RUN   TestFailover\n--- PASS: TestFailover (0.00s)\n--- PASS: TestErrorPath (0.00s)\nPASS\nok  \tpkg\t0.1s\nok  pkg\n", 0},
		{"jest names fail", "PASS src/fail.test.js\n  ✓ reports a failure (3 ms)\nTests:       0 failed, 3 passed, 3 total\n", 0},
		{"unittest names fail", "test_fail (tests.test_x.TestX) ... ok\ntest_error (tests.test_x.TestX) ... skipped 'later'\nOK\n", 0},
		{"prose fail and error", "no failures\nFAIL the build on a lint error.\nERROR handling is covered by tests.\nFAIL: see below\nThe run did not FAIL\nERROR tests are flaky\n", 0},
	} {
		got := testFailureLines([]byte(c.text))
		switch {
		case c.want == 0 && len(got) != 0:
			t.Errorf("%s: read %+v as failing, want nothing", c.name, got)
		case c.want != 0 && (len(got) != 1 || got[0].line != c.want):
			t.Errorf("%s: got %+v, want line %d", c.name, got, c.want)
		}
	}
}

// TestTestFailureLineBounded: a failure line is given cut to
// maxFailureText bytes at a character, marked "…".
func TestTestFailureLineBounded(t *testing.T) {
	long := "FAILED tests/test_x.py::test_a - AssertionError: " + strings.Repeat("é", 500)
	got := testFailureLines([]byte(long + "\n"))
	if len(got) != 1 {
		t.Fatalf("got %d lines, want 1", len(got))
	}
	s := got[0].text
	if len(s) > maxFailureText+len("…") || !strings.HasSuffix(s, "…") || !utf8.ValidString(s) || !strings.HasPrefix(long, strings.TrimSuffix(s, "…")) {
		t.Errorf("text %q (%d bytes) is not the line cut to %d bytes", s, len(s), maxFailureText)
	}
}

// TestTestOutputInputBounded: an output of thousands of failure lines
// reaches the policy input as its first lines and their count, not as a
// record each.
func TestTestOutputInputBounded(t *testing.T) {
	for _, n := range []int{0, 1, maxFailureLines, maxFailureLines + 1, 5000} {
		got := testOutputInput(bytes.Repeat([]byte("FAIL\n"), n))
		if c, _ := got["count"].(int); c != n {
			t.Errorf("%d lines: count %v, want %d", n, got["count"], n)
		}
		if l, _ := got["failures"].([]any); len(l) != min(n, maxFailureLines) {
			t.Errorf("%d lines: %d failures listed, want %d", n, len(l), min(n, maxFailureLines))
		}
	}
}
