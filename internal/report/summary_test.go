package report

import (
	"regexp"
	"strings"
	"testing"

	"github.com/h3a-check/h3a-check/internal/audit"
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
