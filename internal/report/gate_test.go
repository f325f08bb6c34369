package report

import (
	"bytes"
	"encoding/xml"
	"strings"
	"testing"

	"github.com/h3a-check/h3a-check/internal/audit"
	"github.com/h3a-check/h3a-check/internal/finding"
)

// oneFinding is one run with one finding, checked at a fail level.
type oneFinding struct {
	rule      finding.Rule
	severity  finding.Severity // the finding's, after overrides
	failLevel finding.Severity
	waived    bool
	runLevel  bool // about the run's directory, with no file
}

// audit finishes the case's run at its fail level.
func (c oneFinding) audit() *audit.Audit {
	file := "state.json"
	if c.runLevel {
		file = ""
	}
	f := c.rule.New(file, "something about the run")
	f.Severity = c.severity
	f.Remediation = "fix it"
	if !c.runLevel {
		f.Line, f.Column = 3, 7
	}
	if c.waived {
		f.Waived = finding.Waiver{Reason: "accepted", Expires: "2099-12-31", Source: ".h3a-check.yaml:3"}
	}
	a := &audit.Audit{Run: "runs/r", Findings: []finding.Finding{f}}
	a.Finish(c.failLevel, nil)
	return a
}

func (c oneFinding) input() *Input {
	a := c.audit()
	return &Input{Tool: audit.Tool{Name: "h3a-check", Version: "v1.2.3"}, Gate: a.Gate, Audits: []*audit.Audit{a}, Rules: finding.GoRules}
}

// TestGitHubAnnotationFollowsTheGate: a finding that fails the gate is an
// ::error annotation whatever its severity, and one that fails it below
// error says its severity and that it fails the gate; a finding that does
// not fail the gate keeps its severity's annotation (none for info), and a
// waived one none at all, at any level. An ::error is annotated exactly
// when the gate fails, as the SARIF gives an unsuppressed error.
func TestGitHubAnnotationFollowsTheGate(t *testing.T) {
	const (
		fails = "warning, fails the gate at fail-level warning: "
		fix   = "%0Afix: fix it"
	)
	// ann is the annotation of the finding at state.json:3:7.
	ann := func(level string, rule finding.Rule, note string) string {
		return "::" + level + " col=7,file=runs/r/state.json,line=3,title=" + rule.ID + "::" + note + "something about the run" + fix
	}
	tests := []struct {
		name string
		oneFinding
		want string // the annotation, or "" for none
	}{
		{"error at the default level", oneFinding{finding.HashMismatch, finding.Error, finding.Error, false, false}, ann("error", finding.HashMismatch, "")},
		{"warning at the default level", oneFinding{finding.BOM, finding.Warning, finding.Error, false, false}, ann("warning", finding.BOM, "")},
		{"info at the default level", oneFinding{finding.NotEvaluated, finding.Info, finding.Error, false, false}, ""},
		{"warning at fail-level warning", oneFinding{finding.BOM, finding.Warning, finding.Warning, false, false}, ann("error", finding.BOM, fails)},
		{"run-level warning at fail-level warning", oneFinding{finding.RunDirNameLoose, finding.Warning, finding.Warning, false, true},
			"::error title=h3a.structure.run_dir_name_loose::" + fails + "runs/r: something about the run" + fix},
		{"error at fail-level warning", oneFinding{finding.HashMismatch, finding.Error, finding.Warning, false, false}, ann("error", finding.HashMismatch, "")},
		{"info at fail-level warning", oneFinding{finding.NotEvaluated, finding.Info, finding.Warning, false, false}, ""},
		{"an error made a warning", oneFinding{finding.HashMismatch, finding.Warning, finding.Error, false, false}, ann("warning", finding.HashMismatch, "")},
		{"an error made a warning, at fail-level warning", oneFinding{finding.HashMismatch, finding.Warning, finding.Warning, false, false}, ann("error", finding.HashMismatch, fails)},
		{"a warning made an error", oneFinding{finding.BOM, finding.Error, finding.Error, false, false}, ann("error", finding.BOM, "")},
		{"waived error", oneFinding{finding.HashMismatch, finding.Error, finding.Error, true, false}, ""},
		{"waived warning at the default level", oneFinding{finding.BOM, finding.Warning, finding.Error, true, false}, ""},
		{"waived warning at fail-level warning", oneFinding{finding.BOM, finding.Warning, finding.Warning, true, false}, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			in := tc.input()
			var buf bytes.Buffer
			if err := GitHub(&buf, in, Options{StopToken: "T"}); err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, line := range strings.Split(buf.String(), "\n") {
				if annotationLine(line) {
					got = append(got, line)
				}
			}
			if tc.want == "" && len(got) != 0 || tc.want != "" && (len(got) != 1 || got[0] != tc.want) {
				t.Errorf("annotations:\n%s\nwant:\n%s", strings.Join(got, "\n"), tc.want)
			}
			errored := len(got) > 0 && strings.HasPrefix(got[0], "::error ")
			if errored != (in.Gate == audit.Fail) {
				t.Errorf("an ::error annotation is %v, but the gate is %s", errored, in.Gate)
			}
		})
	}
}

// annotationLine reports whether a line of the github format is an
// annotation of a finding.
func annotationLine(line string) bool {
	for _, p := range []string{"::error ", "::warning ", "::notice "} {
		if strings.HasPrefix(line, p) {
			return true
		}
	}
	return false
}

// TestJUnitFailureFollowsTheGate: a finding that fails the gate is a
// failure of its rule's test case whatever its severity, its type the
// severity and its message saying, below error, that it fails the gate; a
// finding that does not fail the gate, and a waived one at any level, is a
// line of the case's system-out. A rule's case fails exactly when the gate
// does, as the SARIF gives an unsuppressed error.
func TestJUnitFailureFollowsTheGate(t *testing.T) {
	const (
		at     = "runs/r/state.json:3:7: "
		fails  = "warning, fails the gate at fail-level warning: "
		text   = "something about the run"
		fix    = "\nfix: fix it"
		waived = " (waived until 2099-12-31: accepted)"
	)
	type failure struct{ message, typ, text string }
	var (
		anError   = &failure{text, "error", at + text + fix}
		aWarning  = &failure{fails + text, "warning", at + fails + text + fix}
		aRunLevel = &failure{fails + text, "warning", "runs/r: " + fails + text + fix}
	)
	tests := []struct {
		name string
		oneFinding
		want      *failure // nil: no failure
		systemOut string
	}{
		{"error at the default level", oneFinding{finding.HashMismatch, finding.Error, finding.Error, false, false}, anError, ""},
		{"warning at the default level", oneFinding{finding.BOM, finding.Warning, finding.Error, false, false}, nil, at + "warning: " + text},
		{"info at the default level", oneFinding{finding.NotEvaluated, finding.Info, finding.Error, false, false}, nil, at + "info: " + text},
		{"warning at fail-level warning", oneFinding{finding.BOM, finding.Warning, finding.Warning, false, false}, aWarning, ""},
		{"run-level warning at fail-level warning", oneFinding{finding.RunDirNameLoose, finding.Warning, finding.Warning, false, true}, aRunLevel, ""},
		{"error at fail-level warning", oneFinding{finding.HashMismatch, finding.Error, finding.Warning, false, false}, anError, ""},
		{"info at fail-level warning", oneFinding{finding.NotEvaluated, finding.Info, finding.Warning, false, false}, nil, at + "info: " + text},
		{"an error made a warning", oneFinding{finding.HashMismatch, finding.Warning, finding.Error, false, false}, nil, at + "warning: " + text},
		{"an error made a warning, at fail-level warning", oneFinding{finding.HashMismatch, finding.Warning, finding.Warning, false, false}, aWarning, ""},
		{"a warning made an error", oneFinding{finding.BOM, finding.Error, finding.Error, false, false}, anError, ""},
		{"waived error", oneFinding{finding.HashMismatch, finding.Error, finding.Error, true, false}, nil, at + "error: " + text + waived},
		{"waived warning at the default level", oneFinding{finding.BOM, finding.Warning, finding.Error, true, false}, nil, at + "warning: " + text + waived},
		{"waived warning at fail-level warning", oneFinding{finding.BOM, finding.Warning, finding.Warning, true, false}, nil, at + "warning: " + text + waived},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			in := tc.input()
			var buf bytes.Buffer
			if err := JUnit(&buf, in, Options{}); err != nil {
				t.Fatal(err)
			}
			var doc junitSuites
			if err := xml.Unmarshal(buf.Bytes(), &doc); err != nil {
				t.Fatalf("not XML: %v\n%s", err, buf.String())
			}
			suite := doc.Suites[0]
			var c *junitCase
			for i := range suite.Cases {
				if suite.Cases[i].Name == tc.rule.ID {
					c = &suite.Cases[i]
				}
			}
			if c == nil {
				t.Fatalf("no test case %s", tc.rule.ID)
			}
			var got *failure
			if len(c.Failures) > 0 {
				got = &failure{c.Failures[0].Message, c.Failures[0].Type, c.Failures[0].Text}
			}
			if len(c.Failures) > 1 || (got == nil) != (tc.want == nil) || got != nil && *got != *tc.want {
				t.Errorf("failures %+v, want %+v", c.Failures, tc.want)
			}
			if c.SystemOut != tc.systemOut {
				t.Errorf("system-out %q, want %q", c.SystemOut, tc.systemOut)
			}
			// The rule's case and the gate case fail exactly when the gate does.
			wantFailures := 0
			if in.Gate == audit.Fail {
				wantFailures = 2
			}
			if suite.Failures != wantFailures || doc.Failures != wantFailures || (got != nil) != (in.Gate == audit.Fail) {
				t.Errorf("suite failures %d, in all %d, the rule's case failing %v; the gate is %s",
					suite.Failures, doc.Failures, got != nil, in.Gate)
			}
		})
	}
}

// TestTextGateLineNamesTheFailLevel: a gate that fails at fail-level
// warning says so beside its counts, which may hold no error at all; a
// gate that passes, or is checked at the default level, says nothing more.
func TestTextGateLineNamesTheFailLevel(t *testing.T) {
	for _, tc := range []struct {
		name string
		oneFinding
		want bool
	}{
		{"warning at fail-level warning", oneFinding{finding.BOM, finding.Warning, finding.Warning, false, false}, true},
		{"error at fail-level warning", oneFinding{finding.HashMismatch, finding.Error, finding.Warning, false, false}, true},
		{"warning at the default level", oneFinding{finding.BOM, finding.Warning, finding.Error, false, false}, false},
		{"error at the default level", oneFinding{finding.HashMismatch, finding.Error, finding.Error, false, false}, false},
		{"waived warning at fail-level warning", oneFinding{finding.BOM, finding.Warning, finding.Warning, true, false}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var b bytes.Buffer
			if err := Text(&b, tc.input(), Options{}); err != nil {
				t.Fatal(err)
			}
			var gate string
			for line := range strings.Lines(b.String()) {
				if strings.HasPrefix(line, "  gate: ") {
					gate = line
				}
			}
			if got := strings.Contains(gate, "(fail level warning)"); got != tc.want || gate == "" {
				t.Errorf("gate line %q: names the fail level %v, want %v", gate, got, tc.want)
			}
		})
	}
}
