package history

import (
	"fmt"
	"slices"
	"strings"

	"github.com/h3a-check/h3a-check/internal/finding"
)

// resolvedIssuesStay: an issue_log entry RESOLVED at the base stays
// RESOLVED in head, unless a history entry added since names the issue
// (the ledger then says why it was reopened).
func resolvedIssuesStay(p *pair) []finding.Finding {
	base := issueStatuses(p.base.json.Value)
	head := issueStatuses(p.head.json.Value)
	added := addedHistory(p)
	var out []finding.Finding
	for _, id := range sortedIDs(base) {
		if base[id].status != "RESOLVED" {
			continue
		}
		h, present := head[id]
		if present && h.status == "RESOLVED" {
			continue
		}
		if strings.Contains(added, id) {
			continue
		}
		what := "is gone"
		ptr := "/issue_log"
		if present {
			what = fmt.Sprintf("is %s", quoteValue(h.status))
			ptr = fmt.Sprintf("/issue_log/%d/status", h.index)
		}
		f := finding.StigmergyIssueReopened.New(p.path, "issue %q was RESOLVED at base %s and %s in head, with no history entry naming it", id, p.commit, what)
		f.Pointer = ptr
		out = append(out, f)
	}
	return out
}

type issueState struct {
	status any
	index  int
}

func issueStatuses(v any) map[string]issueState {
	out := map[string]issueState{}
	m, _ := v.(map[string]any)
	arr, _ := m["issue_log"].([]any)
	for i, x := range arr {
		e, _ := x.(map[string]any)
		id, _ := e["issue_id"].(string)
		if id == "" {
			id, _ = e["id"].(string) // the drifted shapes name it id
		}
		if id != "" {
			out[id] = issueState{status: e["status"], index: i}
		}
	}
	return out
}

// addedHistory is the text of the history entries head has beyond the
// base's count.
func addedHistory(p *pair) string {
	count := func(v any) []any {
		m, _ := v.(map[string]any)
		arr, _ := m["history"].([]any)
		return arr
	}
	base, head := count(p.base.json.Value), count(p.head.json.Value)
	if len(head) <= len(base) {
		return ""
	}
	return compactJSON(head[len(base):])
}

func sortedIDs(m map[string]issueState) []string {
	ids := make([]string, 0, len(m))
	for id := range m {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	return ids
}
