package report

import (
	"bytes"
	"testing"

	"github.com/h3a-check/h3a-check/internal/audit"
	"github.com/h3a-check/h3a-check/internal/finding"
)

// TestJSONStreamsTheSameBytes: writing audits one at a time gives exactly
// the bytes of encoding the whole document at once.
func TestJSONStreamsTheSameBytes(t *testing.T) {
	mk := func(run string) *audit.Audit {
		a := &audit.Audit{Run: run, RunID: "ü<&>", Layout: "h3a", Findings: []finding.Finding{
			finding.HashMismatch.New("state/EVIDENCE_LOG.md", "\"quoted\" <tag> & \u2028"),
		}}
		a.Finish(finding.Error, nil)
		return a
	}
	for _, n := range []int{0, 1, 3} {
		in := &Input{Tool: audit.Tool{Name: "h3a-check", Version: "v1"}, Gate: audit.Fail, Audits: []*audit.Audit{}}
		for i := range n {
			in.Audits = append(in.Audits, mk(string(rune('a'+i))))
		}
		var got bytes.Buffer
		if err := JSON(&got, in, Options{}); err != nil {
			t.Fatal(err)
		}
		want, err := MarshalSorted(map[string]any{"tool": in.Tool, "gate": in.Gate, "audits": in.Audits})
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got.Bytes(), want) {
			t.Errorf("%d audits: streamed output differs\n--- want\n%s--- got\n%s", n, want, got.Bytes())
		}
	}
}

// TestJSONNoAudits: an empty selection (a shard or --changed with no run)
// is an empty list, never null.
func TestJSONNoAudits(t *testing.T) {
	var got bytes.Buffer
	if err := JSON(&got, &Input{Gate: audit.Pass}, Options{}); err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(got.Bytes(), []byte(`"audits": [],`)) {
		t.Errorf("no audits: %s", got.Bytes())
	}
}
