package layout

import (
	"bytes"
	"path"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"
)

// maxGreenOutputSize is the largest GREEN test output read for its
// failure summary lines; a larger one is a finding at the report that
// names it, never skipped in silence.
const maxGreenOutputSize = 8 << 20

// greenOutputs are the GREEN test outputs the executor report names
// (tdd_cycles[i].tdd_phases.green.test_output), each a clean path inside
// the run, in cycle order, once each.
func greenOutputs(r *Run) []Need {
	cycles, _ := jsonValue(r, h3aExecutorReport, "tdd_cycles").([]any)
	var needs []Need
	seen := map[string]bool{}
	for i, c := range cycles {
		m, _ := c.(map[string]any)
		phases, _ := m["tdd_phases"].(map[string]any)
		green, _ := phases["green"].(map[string]any)
		p, _ := green["test_output"].(string)
		if p == "" || seen[p] || !insideRun(p) || path.Clean(p) != p {
			continue
		}
		seen[p] = true
		needs = append(needs, Need{
			Path: p, Want: Text, Limit: maxGreenOutputSize,
			NamedBy: h3aExecutorReport, Pointer: "/tdd_cycles/" + strconv.Itoa(i) + "/tdd_phases/green/test_output",
		})
	}
	return needs
}

// Needs: the text of each GREEN test output, for its failure summary lines.
func (H3A) Needs(r *Run) []Need { return greenOutputs(r) }

// maxFailureLines is how many failure lines of one output reach the
// policy input, with their count: an 8 MiB output of one-word lines would
// otherwise expand to a million records.
const maxFailureLines = 20

// testOutputsInput is docs.test_outputs: for each GREEN output read, the
// lines in which a test runner's summary says tests failed (the first
// maxFailureLines) and how many there are.
func testOutputsInput(r *Run) map[string]any {
	out := map[string]any{}
	for _, n := range greenOutputs(r) {
		f := r.Text(n.Path)
		if !f.OK {
			continue
		}
		out[n.Path] = testOutputInput(f.Data)
	}
	return out
}

// testOutputInput is one output's entry of docs.test_outputs.
func testOutputInput(data []byte) map[string]any {
	found := testFailureLines(data)
	lines := []any{}
	for _, l := range found[:min(len(found), maxFailureLines)] {
		lines = append(lines, map[string]any{"line": l.line, "text": l.text})
	}
	return map[string]any{"failures": lines, "count": len(found)}
}

type failureLine struct {
	line int
	text string
}

// failureSummary matches the lines in which a test runner says tests
// failed, and only those. Summaries: pytest's ("=== 3 failed, 5 passed in
// 0.1s ===", "3 failed, 5 passed in 0.12s" under -q), jest's "Tests:" and
// "Test Suites:" lines with a failed count, unittest's "FAILED
// (failures=1)". Per-test lines, which a truncated or verbose output may
// hold alone: pytest's short test summary ("FAILED tests/x.py::test_y -
// ...", "ERROR tests/x.py"), its verbose result ("tests/x.py::test_y
// FAILED [ 34%]"), its progress line with an F or E ("tests/x.py ..F
// [ 40%]") and its "=== FAILURES ===" header; go test's "--- FAIL:",
// "FAIL\tpkg\t0.1s" (or "[build failed]") and a lone "FAIL"; jest's "✕
// does the thing (5 ms)" and "FAIL src/x.test.js"; unittest's "FAIL:
// test_y (tests.x.T)", "ERROR: ..." and "test_y (tests.x.T) ... FAIL".
// A count of 0 is no failure; a test whose name speaks of failure and
// that passed is none.
var failureSummary = sync.OnceValue(func() []*regexp.Regexp {
	return []*regexp.Regexp{
		// pytest
		regexp.MustCompile(`^=+ (?:.*[ ,])?([0-9]+) (?:failed|errors?)\b.* in [0-9.]+s.*=+$`),
		regexp.MustCompile(`^([0-9]+) (?:failed|errors?)(?:, [0-9]+ [a-z]+)* in [0-9.]+s\b`),
		regexp.MustCompile(`^[0-9]+ passed, ([0-9]+) (?:failed|errors?)(?:, [0-9]+ [a-z]+)* in [0-9.]+s\b`),
		regexp.MustCompile(`^(?:\[gw[0-9]+\] \[ *[0-9]+%\] )?(?:FAILED|ERROR) (?:[^ ]+::[^ ]+|[^\s:]+\.py(?: - .*)?$)`),
		regexp.MustCompile(`^[^ ]+::[^ ].*? (?:FAILED|ERROR)(?: +\[ *[0-9]+%\])?$`),
		regexp.MustCompile(`^(?:[^ ]+\.py )?[.sSxXFE]*[FE][.sSxXFE]* *\[ *[0-9]+%\]$`),
		regexp.MustCompile(`^=+ (?:FAILURES|ERRORS) =+$`),
		// go test
		regexp.MustCompile(`^\s*--- FAIL: \S+`),
		regexp.MustCompile(`^FAIL(?:\s+\S+\s+(?:[0-9.]+s|\[(?:build|setup) failed\]))?$`),
		// jest
		regexp.MustCompile(`^(?:Tests|Test Suites):\s+([0-9]+) failed\b`),
		regexp.MustCompile(`^\s*[✕✗×] +\S`),
		regexp.MustCompile(`^\s*FAIL +\S+\.[cm]?[jt]sx?(?: +\([0-9.]+ ?m?s\))?$`),
		// unittest
		regexp.MustCompile(`^FAILED \((?:failures|errors)=([0-9]+)`),
		regexp.MustCompile(`^(?:FAIL|ERROR): \S+ \([\w.]+\)`),
		regexp.MustCompile(`^.* \.\.\. (?:FAIL|ERROR)$`),
	}
})

// maxFailureText is how much of a failure line is given (in bytes, cut
// at a character); the rest of a longer line is "…".
const maxFailureText = 200

// ansiEscape is a terminal colour or cursor code, which a reader of the
// output in a terminal does not see.
var ansiEscape = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`\x1b\[[0-9;?]*[ -/]*[@-~]`)
})

// clip cuts s to at most maxFailureText bytes, at a character, marking a
// cut with "…".
func clip(s string) string {
	if len(s) <= maxFailureText {
		return s
	}
	n := maxFailureText
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

// testFailureLines lists the lines of data in which a test runner says
// tests failed (a count above 0), colour codes removed, each cut to
// maxFailureText.
func testFailureLines(data []byte) []failureLine {
	var out []failureLine
	for i, raw := range bytes.Split(data, []byte("\n")) {
		line := string(bytes.TrimRight(raw, "\r"))
		if strings.Contains(line, "\x1b") {
			line = ansiEscape().ReplaceAllString(line, "")
		}
		for _, re := range failureSummary() {
			m := re.FindStringSubmatch(line)
			if m == nil {
				continue
			}
			if len(m) > 1 && m[1] != "" {
				if n, err := strconv.Atoi(m[1]); err != nil || n == 0 {
					continue
				}
			}
			out = append(out, failureLine{i + 1, clip(line)})
			break
		}
	}
	return out
}
