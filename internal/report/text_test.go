package report

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/h3a-check/h3a-check/internal/audit"
	"github.com/h3a-check/h3a-check/internal/finding"
)

// corpusAudits makes n audits of runs that pass with the two notes every
// run of a check gets in the same words, and failing ones at the given
// indexes (a syntax error and the check it left not evaluated).
func corpusAudits(n int, failing ...int) []*audit.Audit {
	audits := make([]*audit.Audit, n)
	for i := range audits {
		a := &audit.Audit{Run: fmt.Sprintf("runs/run-%04d", i), RunID: fmt.Sprintf("run-%04d", i), Layout: "h3a", Notes: "2 of 2 logged artifacts verified",
			Findings: []finding.Finding{finding.HistoryNotCompared.New("", "history not compared: --base none was given")}}
		for _, f := range failing {
			if f == i {
				a.Findings = append(a.Findings,
					finding.NotEvaluated.New("state.json", "schema check not evaluated: state.json is not valid JSON"),
					finding.JSONSyntax.New("state.json", "unexpected end of input"))
			}
		}
		a.Finish(finding.Error, nil)
		audits[i] = a
	}
	return audits
}

func renderText(t *testing.T, audits []*audit.Audit, opts Options) string {
	t.Helper()
	var buf bytes.Buffer
	if err := Text(&buf, &Input{Gate: audit.Overall(audits), Audits: audits}, opts); err != nil {
		t.Fatal(err)
	}
	return buf.String()
}

// TestTextFoldsEffects: a finding that follows from another is printed
// beneath its cause, after it, without a fix of its own.
func TestTextFoldsEffects(t *testing.T) {
	out := renderText(t, corpusAudits(1, 0), Options{})
	cause := strings.Index(out, "[h3a.schema.json_syntax]")
	effect := strings.Index(out, "      follows: runs/run-0000/state.json: info: schema check not evaluated")
	if cause < 0 || effect < 0 || effect < cause {
		t.Fatalf("the not-evaluated note is not folded beneath its syntax error:\n%s", out)
	}
	if strings.Count(out, "schema check not evaluated") != 1 {
		t.Errorf("the effect is printed more than once:\n%s", out)
	}
}

// TestTextQuiet: --quiet lists only the runs that do not pass; the notes
// every run gets are said once with a count, quiet or not.
func TestTextQuiet(t *testing.T) {
	audits := corpusAudits(50, 7)
	for _, quiet := range []bool{false, true} {
		out := renderText(t, audits, Options{Quiet: quiet})
		if n := strings.Count(out, "history not compared"); n != 1 {
			t.Errorf("quiet=%v: the note common to every run is printed %d times:\n%s", quiet, n, out)
		}
		if !strings.Contains(out, "info: history not compared: --base none was given [h3a.append_only.not_compared] (50 of 50 runs)") {
			t.Errorf("quiet=%v: the common note has no count:\n%s", quiet, out)
		}
		if !strings.Contains(out, "runs/run-0007 (layout h3a") || !strings.Contains(out, "overall: fail — 50 runs checked") {
			t.Errorf("quiet=%v: the failing run or the totals are missing:\n%s", quiet, out)
		}
		listed := strings.Contains(out, "runs/run-0001 (layout h3a")
		if listed == quiet {
			t.Errorf("quiet=%v: a passing run listed=%v:\n%s", quiet, listed, out)
		}
		if quiet && !strings.Contains(out, "49 passing runs not listed (--quiet)") {
			t.Errorf("quiet output does not say what it left out:\n%s", out)
		}
	}
}
