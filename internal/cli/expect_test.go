package cli

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/h3a-check/h3a-check/internal/audit"
	"github.com/h3a-check/h3a-check/internal/finding"
)

// An err case's expect file is its expectation written by hand from its
// CASE.md, independent of what the checker prints: the .want golden file is a
// snapshot that -update rewrites, so a careless -update after a regression
// would make a wrong answer expected; the expect file is never rewritten and
// holds the case to what it is about. Format, one statement a line, blank
// lines and lines starting with # ignored:
//
//	gate: fail|pass|needs-human|error
//	    the gate of a run, one line per run in report order (sorted by path)
//	fires: error|warning|info RULE [at PATH[:LINE]]
//	    some finding of RULE with that severity, at PATH (relative to its run,
//	    "." for the run itself) and on LINE when given
//	only
//	    every error and warning of every run is matched by a fires line (by
//	    rule and severity): the case breaks one thing and nothing else fires
type caseExpectation struct {
	gates []string
	fires []expectedFinding
	only  bool
}

type expectedFinding struct {
	line     int // of the expect file, for messages
	severity finding.Severity
	rule     string
	path     string // "" when any place will do
	at       int    // line in path; 0 when any line will do
}

func (e expectedFinding) String() string {
	s := e.severity.String() + " " + e.rule
	if e.path != "" {
		s += " at " + e.path
		if e.at != 0 {
			s += ":" + strconv.Itoa(e.at)
		}
	}
	return s
}

func parseExpectation(data []byte) (*caseExpectation, error) {
	exp := &caseExpectation{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		switch {
		case line == "" || strings.HasPrefix(line, "#"):
		case line == "only":
			exp.only = true
		case strings.HasPrefix(line, "gate: "):
			gate := strings.TrimPrefix(line, "gate: ")
			switch gate {
			case "pass", "fail", "needs-human", "error":
			default:
				return nil, fmt.Errorf("line %d: gate %q is not pass, fail, needs-human or error", n, gate)
			}
			exp.gates = append(exp.gates, gate)
		case strings.HasPrefix(line, "fires: "):
			f, err := parseExpectedFinding(n, strings.TrimPrefix(line, "fires: "))
			if err != nil {
				return nil, err
			}
			exp.fires = append(exp.fires, f)
		default:
			return nil, fmt.Errorf("line %d: %q is not \"gate: …\", \"fires: …\" or \"only\"", n, line)
		}
	}
	if len(exp.gates) == 0 {
		return nil, fmt.Errorf("no \"gate: …\" line")
	}
	if len(exp.fires) == 0 {
		return nil, fmt.Errorf("no \"fires: …\" line: say which rule the case is about")
	}
	return exp, nil
}

func parseExpectedFinding(n int, s string) (expectedFinding, error) {
	f := expectedFinding{line: n}
	fields := strings.Fields(s)
	if len(fields) != 2 && (len(fields) != 4 || fields[2] != "at") {
		return f, fmt.Errorf("line %d: want \"fires: SEVERITY RULE [at PATH[:LINE]]\", got %q", n, s)
	}
	sev, err := finding.ParseSeverity(fields[0])
	if err != nil {
		return f, fmt.Errorf("line %d: %v", n, err)
	}
	f.severity = sev
	if !strings.HasPrefix(fields[1], "h3a.") {
		return f, fmt.Errorf("line %d: %q is not a rule id", n, fields[1])
	}
	f.rule = fields[1]
	if len(fields) == 4 {
		f.path = fields[3]
		if i := strings.LastIndexByte(f.path, ':'); i >= 0 {
			at, err := strconv.Atoi(f.path[i+1:])
			if err != nil || at < 1 {
				return f, fmt.Errorf("line %d: %q: the part after the colon is not a line number", n, fields[3])
			}
			f.path, f.at = f.path[:i], at
		}
	}
	return f, nil
}

// matches reports whether a finding is the expected one. Its location is
// "path", "path:line" or "path:line:column", or "" for the run itself.
func (e expectedFinding) matches(f finding.Finding) bool {
	if f.Rule != e.rule || f.Severity != e.severity {
		return false
	}
	if e.path == "" {
		return true
	}
	loc := f.Location()
	if loc == "" {
		loc = "."
	}
	want := e.path
	if e.at != 0 {
		want += ":" + strconv.Itoa(e.at)
	}
	return loc == want || strings.HasPrefix(loc, want+":")
}

// checkExpectation holds a case's result to its expect file. It runs with
// and without -update: a regression must not become the expected answer.
func checkExpectation(t *testing.T, dir string, code int, audits []*audit.Audit) {
	t.Helper()
	path := filepath.Join(dir, "expect")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Errorf("%v: every err case needs an expect file written by hand from its CASE.md (gate and rule; format in internal/cli/expect_test.go)", err)
		return
	}
	exp, err := parseExpectation(data)
	if err != nil {
		t.Errorf("%s: %v", path, err)
		return
	}
	for _, msg := range expectationMismatches(exp, audits) {
		t.Errorf("%s: %s\ngot:\n%s", path, msg, wantText(code, audits))
	}
}

func expectationMismatches(exp *caseExpectation, audits []*audit.Audit) []string {
	var msgs []string
	var gates []string
	for _, a := range audits {
		gates = append(gates, a.Gate)
	}
	if strings.Join(gates, " ") != strings.Join(exp.gates, " ") {
		msgs = append(msgs, fmt.Sprintf("gates %q, want %q", gates, exp.gates))
	}
	for _, e := range exp.fires {
		found := false
		for _, a := range audits {
			for _, f := range a.Findings {
				found = found || e.matches(f)
			}
		}
		if !found {
			msgs = append(msgs, fmt.Sprintf("line %d: no finding %s", e.line, e))
		}
	}
	if exp.only {
		for _, a := range audits {
			for _, f := range a.Findings {
				if f.Severity == finding.Info {
					continue
				}
				listed := false
				for _, e := range exp.fires {
					listed = listed || (e.rule == f.Rule && e.severity == f.Severity)
				}
				if !listed {
					msgs = append(msgs, fmt.Sprintf("%s %s at %s is not listed, and the file says only", f.Severity, f.Rule, f.Location()))
				}
			}
		}
	}
	return msgs
}

// TestExpectationFormat: the checks of an expect file each fail on the
// finding they are about, so an expectation cannot hold vacuously.
func TestExpectationFormat(t *testing.T) {
	runFinding := func(sev finding.Severity, rule, file string, line int) finding.Finding {
		return finding.Finding{Rule: rule, Severity: sev, File: file, Line: line}
	}
	audits := []*audit.Audit{{Gate: "fail", Findings: []finding.Finding{
		runFinding(finding.Info, "h3a.append_only.not_compared", "", 0),
		runFinding(finding.Error, "h3a.gates.order", "state.json", 17),
		runFinding(finding.Warning, "h3a.schema.bom", "state/SESSION_HANDOFF.json", 1),
	}}}
	tests := []struct {
		name, expect string
		wantErrs     int
	}{
		{"all hold", "gate: fail\nfires: error h3a.gates.order at state.json:17\nfires: warning h3a.schema.bom\nonly\n", 0},
		{"gate differs", "gate: pass\nfires: error h3a.gates.order\n", 1},
		{"a run too many", "gate: fail\ngate: pass\nfires: error h3a.gates.order\n", 1},
		{"rule does not fire", "gate: fail\nfires: error h3a.gates.sources_disagree\n", 1},
		{"severity differs", "gate: fail\nfires: warning h3a.gates.order\n", 1},
		{"file differs", "gate: fail\nfires: error h3a.gates.order at state/CURRENT_TASK.json\n", 1},
		{"file is a prefix only", "gate: fail\nfires: error h3a.gates.order at state\n", 1},
		{"line differs", "gate: fail\nfires: error h3a.gates.order at state.json:18\n", 1},
		{"only, with an unlisted warning", "gate: fail\nfires: error h3a.gates.order\nonly\n", 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			exp, err := parseExpectation([]byte(tt.expect))
			if err != nil {
				t.Fatal(err)
			}
			if got := expectationMismatches(exp, audits); len(got) != tt.wantErrs {
				t.Errorf("%d mismatches, want %d: %q", len(got), tt.wantErrs, got)
			}
		})
	}
	for _, bad := range []string{
		"fires: error h3a.gates.order\n",               // no gate
		"gate: fail\n",                                 // no rule
		"gate: failed\nfires: error h3a.gates.order\n", // not a gate
		"gate: fail\nfires: fatal h3a.gates.order\n",
		"gate: fail\nfires: error gates.order\n",
		"gate: fail\nfires: error h3a.gates.order in state.json\n",
		"gate: fail\nfires: error h3a.gates.order at state.json:x\n",
		"gate: fail\nfires: error h3a.gates.order\nonly all\n",
	} {
		if _, err := parseExpectation([]byte(bad)); err == nil {
			t.Errorf("%q parsed, want an error", bad)
		}
	}
}
