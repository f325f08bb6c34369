package report_test

import (
	"bytes"
	"context"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/h3a-check/h3a-check/internal/longtest"
	"github.com/h3a-check/h3a-check/internal/report"
	"github.com/h3a-check/h3a-check/internal/runner"
	"github.com/h3a-check/h3a-check/internal/synth/corpus"
)

// TestSummaryOfManyRuns checks 400 generated runs, one of them broken,
// and renders the markdown summary: at most 64 KiB, a gate matrix with
// the failing run's row and one row counting the others, a Mermaid
// timeline for the failing run only, and counts that agree with the runs
// and findings of the check.
func TestSummaryOfManyRuns(t *testing.T) {
	if testing.Short() {
		t.Skip("generates and checks 400 runs")
	}
	// A long test: TestSummaryLimit holds the summary's bound in the
	// README's command; this one proves it on a check of a real corpus.
	longtest.Skip(t)
	const runs = 400
	c, err := corpus.Generate(t.TempDir(), corpus.Options{Runs: runs, Artifacts: corpus.MinArtifacts, Size: 256, Seed: 3, Broken: 1.0 / runs})
	if err != nil {
		t.Fatal(err)
	}
	var broken corpus.Run
	for _, r := range c.Runs {
		if r.Broken.Name != "" {
			broken = r
		}
	}
	if broken.ID == "" {
		t.Fatal("the corpus has no broken run")
	}
	res, err := runner.Check(context.Background(), runner.Options{Scope: runner.Scope{Paths: []string{c.Dir}}})
	if err != nil {
		t.Fatal(err)
	}
	findings := 0
	for _, a := range res.Audits {
		findings += len(a.Findings)
	}
	f, err := report.Lookup("markdown")
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	in := &report.Input{Gate: res.Gate(), Audits: res.Audits, Rules: res.Rules}
	if err := f.Write(&buf, in, report.Options{}); err != nil {
		t.Fatal(err)
	}
	md := buf.String()

	if len(md) > 64<<10 {
		t.Errorf("the summary of %d runs is %d bytes, want at most 64 KiB", runs, len(md))
	}
	if !strings.Contains(md, "| run | gate | G0 | G1 | G2 | G3 |") {
		t.Errorf("no gate matrix of G0-G3:\n%s", md)
	}
	row := regexp.MustCompile(`(?m)^\| [^|]*` + regexp.QuoteMeta(broken.ID) + ` \| ❌ fail \|( [✅❌⏳🧑·] \|){4}$`)
	if !row.MatchString(md) {
		t.Errorf("no matrix row for the failing run %s:\n%s", broken.ID, md)
	}
	if !strings.Contains(md, fmt.Sprintf("| %d passing runs | ✅ pass | ✅ %d |", runs-1, runs-1)) {
		t.Errorf("the passing runs are not folded into one row:\n%s", md)
	}
	if n := strings.Count(md, "```mermaid"); n != 1 {
		t.Errorf("%d Mermaid blocks, want 1 (the failing run's only)", n)
	}
	if i, j := strings.Index(md, "### ❌ fail"), strings.Index(md, "```mermaid"); i < 0 || j < i || !strings.Contains(md[i:j], broken.ID) {
		t.Errorf("the Mermaid block is not the failing run's:\n%s", md)
	}
	if !strings.Contains(md, fmt.Sprintf("%d runs checked: ❌ 1 fail · 🧑 0 needs-human · ✅ %d pass", runs, runs-1)) {
		t.Errorf("the run counts disagree with the check:\n%s", md[:300])
	}
	if !regexp.MustCompile(`Evidence verified \d+/\d+ logged artifacts`).MatchString(md) {
		t.Errorf("no evidence line")
	}
	note := regexp.MustCompile(`Shown: 1 of 1 run that do not pass, in detail; (\d+) of (\d+) passing runs by name; (\d+) of (\d+) findings listed and (\d+) more counted beside their cause`).FindStringSubmatch(md)
	if note == nil {
		t.Fatalf("no closing note saying what is shown:\n%s", md[len(md)-500:])
	}
	atoi := func(s string) int { n, _ := strconv.Atoi(s); return n }
	if atoi(note[2]) != runs-1 || atoi(note[1]) > runs-1 || atoi(note[4]) != findings {
		t.Errorf("the note %q disagrees with %d passing runs and %d findings", note[0], runs-1, findings)
	}
	listedNames := strings.Count(md, "\n- ")
	if listedNames != atoi(note[1]) {
		t.Errorf("the note says %s passing runs are named, the list has %d", note[1], listedNames)
	}
	rows := regexp.MustCompile(`(?m)^\| (error|warning|waived \w+) \|`).FindAllString(md, -1)
	if len(rows) != atoi(note[3]) || len(rows) == 0 {
		t.Errorf("the note says %s findings are listed, the tables have %d rows", note[3], len(rows))
	}
	if strings.Contains(md, "not shown") {
		t.Errorf("the summary says something is not shown without saying what")
	}
}
