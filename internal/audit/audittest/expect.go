// Package audittest reads the hand-written expectation of a test case (an
// err run's expect file, a history case's expect section) and holds a
// check's audits to it. Golden files are snapshots that -update rewrites, so
// a careless -update after a regression would make the wrong answer
// expected; an expectation is written from the case's prose, never
// rewritten, and says what the case is about. Format, one statement a line,
// blank lines and lines starting with # ignored:
//
//	gate: fail|pass|needs-human|error
//	    the gate of a run, one line per run in report order (sorted by path)
//	fires: error|warning|info RULE [at PATH[:LINE]]
//	    some finding of RULE with that severity, at PATH (relative to its run,
//	    "." for the run itself) and on LINE when given
//	only
//	    every error and warning of every run is matched by a fires line (by
//	    rule and severity): the case breaks one thing and nothing else fires
package audittest

import (
	"bufio"
	"bytes"
	"fmt"
	"strconv"
	"strings"

	"github.com/h3a-check/h3a-check/internal/audit"
	"github.com/h3a-check/h3a-check/internal/finding"
)

// Expectation is a parsed expect file.
type Expectation struct {
	Gates []string
	Fires []ExpectedFinding
	Only  bool
}

// ExpectedFinding is one fires line.
type ExpectedFinding struct {
	line     int // of the expect file, for messages
	severity finding.Severity
	rule     string
	path     string // "" when any place will do
	at       int    // line in path; 0 when any line will do
}

func (e ExpectedFinding) String() string {
	s := e.severity.String() + " " + e.rule
	if e.path != "" {
		s += " at " + e.path
		if e.at != 0 {
			s += ":" + strconv.Itoa(e.at)
		}
	}
	return s
}

// Parse reads an expect file: at least one gate, and at least one fires
// line or only (a case where nothing may fire).
func Parse(data []byte) (*Expectation, error) {
	exp := &Expectation{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		switch {
		case line == "" || strings.HasPrefix(line, "#"):
		case line == "only":
			exp.Only = true
		case strings.HasPrefix(line, "gate: "):
			gate := strings.TrimPrefix(line, "gate: ")
			switch gate {
			case "pass", "fail", "needs-human", "error":
			default:
				return nil, fmt.Errorf("line %d: gate %q is not pass, fail, needs-human or error", n, gate)
			}
			exp.Gates = append(exp.Gates, gate)
		case strings.HasPrefix(line, "fires: "):
			f, err := parseExpectedFinding(n, strings.TrimPrefix(line, "fires: "))
			if err != nil {
				return nil, err
			}
			exp.Fires = append(exp.Fires, f)
		default:
			return nil, fmt.Errorf("line %d: %q is not \"gate: …\", \"fires: …\" or \"only\"", n, line)
		}
	}
	if len(exp.Gates) == 0 {
		return nil, fmt.Errorf("no \"gate: …\" line")
	}
	if len(exp.Fires) == 0 && !exp.Only {
		return nil, fmt.Errorf("no \"fires: …\" line: say which rule the case is about (or \"only\" alone: nothing fires)")
	}
	return exp, nil
}

func parseExpectedFinding(n int, s string) (ExpectedFinding, error) {
	f := ExpectedFinding{line: n}
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
func (e ExpectedFinding) matches(f finding.Finding) bool {
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

// Mismatches lists how the audits differ from the expectation; none when
// they hold to it.
func (exp *Expectation) Mismatches(audits []*audit.Audit) []string {
	var msgs []string
	var gates []string
	for _, a := range audits {
		gates = append(gates, a.Gate)
	}
	if strings.Join(gates, " ") != strings.Join(exp.Gates, " ") {
		msgs = append(msgs, fmt.Sprintf("gates %q, want %q", gates, exp.Gates))
	}
	for _, e := range exp.Fires {
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
	if exp.Only {
		for _, a := range audits {
			for _, f := range a.Findings {
				if f.Severity == finding.Info {
					continue
				}
				listed := false
				for _, e := range exp.Fires {
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
