package report

import (
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/h3a-check/h3a-check/internal/audit"
	"github.com/h3a-check/h3a-check/internal/finding"
)

// TestTimelineEscapes: whatever a ledger event holds, the Mermaid block
// is one block of node and edge lines whose labels hold only letters,
// digits, a few punctuation marks and entity codes: no quote, bracket,
// backtick, percent sign, HTML or line break gets through.
func TestTimelineEscapes(t *testing.T) {
	hostileValues := []string{
		"plain",
		"\"]:::passed\n  click e0 call alert()",
		"```\n## injected\n```mermaid",
		"%%{init: {'theme':'dark'}}%%",
		"<img src=x onerror=alert(1)>",
		"a\\\"b]; e9((x))",
		"\x1b[31mred\x1b[0m\u202e\u2028\r",
		"#quot; &amp; #35; |pipe| `tick`",
		strings.Repeat("long ", 100),
	}
	node := regexp.MustCompile(`^  e\d+\["[A-Za-z0-9 \-_.,:/+()#;…]*"\]:::(passed|failed|pending|human)$`)
	edge := regexp.MustCompile(`^  e\d+ --> e\d+$`)
	class := regexp.MustCompile(`^  classDef (passed|failed|pending|human) fill:#[0-9a-f]{6},stroke:#[0-9a-f]{6}$`)
	for _, v := range hostileValues {
		a := &audit.Audit{Gate: audit.Fail, Events: []audit.Event{
			{Time: v, Stage: "G0_planning", Status: "PASSED", Agent: v},
			{Time: "t", Stage: v, Status: v, Agent: "x"},
		}}
		block := timeline(a)
		lines := strings.Split(strings.TrimRight(block, "\n"), "\n")
		if lines[0] != "```mermaid" || lines[1] != "flowchart LR" || lines[len(lines)-1] != "```" {
			t.Errorf("%q: the block does not open and close as one:\n%s", v, block)
			continue
		}
		for _, l := range lines[2 : len(lines)-1] {
			if !node.MatchString(l) && !edge.MatchString(l) && !class.MatchString(l) {
				t.Errorf("%q: a line of the block is not a node, edge or class of the checker: %q", v, l)
			}
		}
		if strings.Count(block, "```") != 2 {
			t.Errorf("%q: a fence inside the block:\n%s", v, block)
		}
	}
}

// TestTimelineFromStages: a run whose ledger has no events is drawn from
// its stages; a run with neither gets no block.
func TestTimelineFromStages(t *testing.T) {
	a := &audit.Audit{Stages: []audit.Stage{{Name: "round 1", Status: audit.StageFailed}, {Name: "round 2", Status: audit.StageNeedsHuman}}}
	got := timeline(a)
	if !strings.Contains(got, `e0["round 1 failed"]:::failed`) || !strings.Contains(got, `e1["round 2 needs-human"]:::human`) {
		t.Errorf("stages not drawn:\n%s", got)
	}
	if got := timeline(&audit.Audit{}); got != "" {
		t.Errorf("a run with no stages got a block:\n%s", got)
	}
}

// TestSummaryBudgetSaysWhatIsShown: when the runs that do not pass are
// too many to draw in 64 KiB, the summary stays within it, draws whole
// sections only, and its note counts exactly the ones drawn.
func TestSummaryBudgetSaysWhatIsShown(t *testing.T) {
	var audits []*audit.Audit
	for i := range 300 {
		a := &audit.Audit{Run: "runs/r" + strings.Repeat("x", i%5) + string(rune('a'+i%26)), Layout: "h3a",
			Stages: []audit.Stage{{Name: "G0", Status: audit.StagePassed}, {Name: "G1", Status: audit.StageNeedsHuman}}}
		for range 8 {
			a.Events = append(a.Events, audit.Event{Time: "2025-09-29T13:45:00Z", Stage: "G1_implementation", Status: "ESCALATED", Agent: "executor"})
		}
		a.Findings = []finding.Finding{{Rule: "h3a.gates.escalation", Category: finding.CategoryGates, Severity: finding.Warning, NeedsHuman: true, Details: "a human decides"}}
		a.Finish(finding.Error, nil)
		audits = append(audits, a)
	}
	s := summary(&Input{Gate: audit.Overall(audits), Audits: audits}, Options{}, pictureLimit)
	if len(s) > pictureLimit {
		t.Fatalf("summary is %d bytes, over %d", len(s), pictureLimit)
	}
	m := regexp.MustCompile(`Shown: (\d+) of 300 runs that do not pass, in detail`).FindStringSubmatch(s)
	if m == nil {
		t.Fatalf("no note of what is shown: ...%s", s[len(s)-400:])
	}
	drawn := strings.Count(s, "```mermaid")
	if m[1] != strconv.Itoa(drawn) || drawn == 0 || drawn == 300 {
		t.Errorf("the note says %s runs are drawn, the summary draws %d of 300", m[1], drawn)
	}
	if strings.Count(s, "### 🧑 needs-human") != drawn {
		t.Errorf("a section is drawn in part")
	}
}

// TestSummaryMentionsAndLinksNoOne: a run whose folder, stages, findings
// and waiver mention users and teams and write URLs, www addresses, email
// addresses, issue references and emoji codes gets a summary in which
// GitHub would link none of them: each is broken by an HTML comment,
// which shows nothing. The Mermaid block is code, which GitHub leaves as
// it is.
func TestSummaryMentionsAndLinksNoOne(t *testing.T) {
	const bait = "@octocat @org/team https://evil.example www.evil.example a@evil.example #1 GH-2 :100:"
	f := finding.Finding{Rule: "h3a.user." + bait, Category: finding.CategoryPolicy, Severity: finding.Error,
		File: bait + ".json", Line: 100, Column: 5, Details: "quoted: " + bait}
	w := f
	w.Waived = finding.Waiver{Reason: bait, Expires: "2099-12-31"}
	a := &audit.Audit{Run: "runs/" + bait, Layout: "h3a " + bait, Gate: audit.Fail,
		Stages:   []audit.Stage{{Name: bait, Status: audit.StageFailed}},
		Findings: []finding.Finding{f, w}}
	p := &audit.Audit{Run: "runs/ok " + bait, Layout: "h3a " + bait, Gate: audit.Pass}
	md := summary(&Input{Gate: audit.Fail, Audits: []*audit.Audit{a, p}}, Options{}, pictureLimit)
	if strings.Count(md, "octocat") < 6 {
		t.Fatalf("the bait is not in the summary, so this tests nothing:\n%s", md)
	}
	outside := regexp.MustCompile("(?s)```mermaid\n.*?```\n").ReplaceAllString(md, "")
	for line := range strings.SplitSeq(outside, "\n") {
		if strings.HasPrefix(line, "| --- |") {
			continue // a table's delimiter row, not text
		}
		for seg := range strings.SplitSeq(line, mdBreak) {
			for _, c := range githubConstructs {
				if m := c.re.FindString(seg); m != "" {
					t.Errorf("GitHub reads %q as %s in %q", m, c.name, line)
				}
			}
		}
	}
}
