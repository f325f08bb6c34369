package report

import (
	"bytes"
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
		at    = "col=7,file=runs/r/state.json,line=3,"
		text  = "something about the run%0Afix: fix it"
		fails = "warning, fails the gate at fail-level warning: "
	)
	tests := []struct {
		name string
		oneFinding
		want string // the annotation, or "" for none
	}{
		{"error at the default level", oneFinding{finding.HashMismatch, finding.Error, finding.Error, false, false},
			"::error " + at + "title=h3a.integrity.hash_mismatch::" + text},
		{"warning at the default level", oneFinding{finding.BOM, finding.Warning, finding.Error, false, false},
			"::warning " + at + "title=h3a.schema.bom::" + text},
		{"info at the default level", oneFinding{finding.NotEvaluated, finding.Info, finding.Error, false, false}, ""},
		{"warning at fail-level warning", oneFinding{finding.BOM, finding.Warning, finding.Warning, false, false},
			"::error " + at + "title=h3a.schema.bom::" + fails + text},
		{"run-level warning at fail-level warning", oneFinding{finding.RunDirNameLoose, finding.Warning, finding.Warning, false, true},
			"::error title=h3a.structure.run_dir_name_loose::" + fails + "runs/r: " + text},
		{"error at fail-level warning", oneFinding{finding.HashMismatch, finding.Error, finding.Warning, false, false},
			"::error " + at + "title=h3a.integrity.hash_mismatch::" + text},
		{"info at fail-level warning", oneFinding{finding.NotEvaluated, finding.Info, finding.Warning, false, false}, ""},
		{"an error made a warning", oneFinding{finding.HashMismatch, finding.Warning, finding.Error, false, false},
			"::warning " + at + "title=h3a.integrity.hash_mismatch::" + text},
		{"an error made a warning, at fail-level warning", oneFinding{finding.HashMismatch, finding.Warning, finding.Warning, false, false},
			"::error " + at + "title=h3a.integrity.hash_mismatch::" + fails + text},
		{"a warning made an error", oneFinding{finding.BOM, finding.Error, finding.Error, false, false},
			"::error " + at + "title=h3a.schema.bom::" + text},
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
