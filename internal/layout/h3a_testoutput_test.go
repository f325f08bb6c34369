package layout

import "testing"

// TestTestFailureLines: only a test runner's summary line with a failed
// count above 0 is read as tests failing.
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
		{"pytest passing", "============ 8 passed in 0.41s ============\n", 0},
		{"zero failed", "==== 8 passed, 0 failed in 0.41s ====\nTests:       0 failed, 7 passed, 7 total\n", 0},
		{"go test passing", "--- PASS: TestX (0.00s)\nPASS\nok  \tgithub.com/a/b\t0.1s\n", 0},
		{"jest passing", "Tests:       7 passed, 7 total\n", 0},
		{"prose", "The test for failed logins passes; FAILED attempts are counted.\n3 failed attempts lock the account\n", 0},
		{"test named fail", "tests/test_fail.py::test_failed_login PASSED\n", 0},
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
