package history

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/h3a-check/h3a-check/internal/finding"
)

// resolvedIssuesStay: an issue_log entry RESOLVED at the base stays
// RESOLVED in head, unless a history entry added since names the issue
// (the ledger then says why it was reopened). An issue the log lists more
// than once is read from all its entries, not only the last: head must
// still hold one RESOLVED, and no more entries that are not than the base
// held, so a second, open entry for the issue is a reopening too.
func resolvedIssuesStay(p *pair) []finding.Finding {
	base := issueStatuses(p.base.json.Value)
	head := issueStatuses(p.head.json.Value)
	added := addedHistory(p)
	var out []finding.Finding
	for _, id := range sortedIDs(base) {
		b := base[id]
		if b.resolved == 0 {
			continue
		}
		h := head[id]
		if h.resolved > 0 && len(h.open) <= len(b.open) {
			continue
		}
		if namesIssue(added, id) {
			continue
		}
		what := "is gone"
		ptr := "/issue_log"
		if len(h.open) > 0 {
			// The entry the base did not have, or the last one left.
			e := h.open[min(len(b.open), len(h.open)-1)]
			what = fmt.Sprintf("is %s", quoteValue(e.status))
			ptr = fmt.Sprintf("/issue_log/%d/status", e.index)
		}
		f := finding.StigmergyIssueReopened.New(p.path, "issue %q was RESOLVED at base %s and %s in head, with no history entry naming it", id, p.commit, what)
		f.Pointer = ptr
		out = append(out, f)
	}
	return out
}

// haltStays: a ledger whose project_status is EXECUTION_HALTED at the
// base, a critical error the spec calls unrecoverable, is halted in head
// too, or a person confirms it may go on (needs-human). The swarm writes
// the ledger, so a history entry saying it resumed proves nothing of who
// decided; without this the change that lifts a halt passes the gate that
// the halt held.
func haltStays(p *pair) []finding.Finding {
	const halted = "EXECUTION_HALTED"
	return statusLeft(p, finding.StigmergyHaltLifted, "project_status", halted, spelledStatus, func(now string) string {
		return fmt.Sprintf("project_status was %q at base %s and is %s in head: the swarm halted on a critical, unrecoverable error, and a person must confirm it may go on",
			halted, p.commit, now)
	})
}

var statusSpacing = regexp.MustCompile(`[\s-]+`)

// spelledStatus reads a status in another case or with other spacing
// ("execution halted", "Execution-Halted") as the enum value it spells, as
// the policy reads it (policies/stigmergy.rego, spelled); "" for a value
// that is not a string.
func spelledStatus(v any) string {
	s, ok := v.(string)
	if !ok {
		return ""
	}
	return strings.ToUpper(statusSpacing.ReplaceAllString(strings.TrimSpace(s), "_"))
}

// issueEntries is what the issue_log says of one issue: how many of its
// entries are RESOLVED, and the others, in log order.
type issueEntries struct {
	resolved int
	open     []issueState
}

type issueState struct {
	status any
	index  int
}

func issueStatuses(v any) map[string]issueEntries {
	out := map[string]issueEntries{}
	m, _ := v.(map[string]any)
	arr, _ := m["issue_log"].([]any)
	for i, x := range arr {
		e, _ := x.(map[string]any)
		id, _ := e["issue_id"].(string)
		if id == "" {
			id, _ = e["id"].(string) // the drifted shapes name it id
		}
		if id == "" {
			continue
		}
		ie := out[id]
		if e["status"] == "RESOLVED" {
			ie.resolved++
		} else {
			ie.open = append(ie.open, issueState{status: e["status"], index: i})
		}
		out[id] = ie
	}
	return out
}

// addedHistory is the strings of the history entries head has beyond the
// base's count.
func addedHistory(p *pair) []string {
	count := func(v any) []any {
		m, _ := v.(map[string]any)
		arr, _ := m["history"].([]any)
		return arr
	}
	base, head := count(p.base.json.Value), count(p.head.json.Value)
	if len(head) <= len(base) {
		return nil
	}
	var out []string
	var walk func(any)
	walk = func(v any) {
		switch x := v.(type) {
		case string:
			out = append(out, x)
		case []any:
			for _, e := range x {
				walk(e)
			}
		case map[string]any:
			for k, e := range x {
				out = append(out, k)
				walk(e)
			}
		}
	}
	walk(head[len(base):])
	return out
}

// namesIssue reports whether one of texts names the issue id as a word of
// its own: "I-1" is not named by a text about "I-10" or "XI-1".
func namesIssue(texts []string, id string) bool {
	for _, t := range texts {
		for from := 0; from <= len(t)-len(id); {
			i := strings.Index(t[from:], id)
			if i < 0 {
				break
			}
			i += from
			end := i + len(id)
			if !continuesBefore(t[:i]) && !continuesAfter(t[end:]) {
				return true
			}
			from = i + 1
		}
	}
	return false
}

// continuesBefore reports whether the text before a match ends in what
// would make the match part of a longer id.
func continuesBefore(s string) bool {
	r, _ := utf8.DecodeLastRuneInString(s)
	if r == '.' {
		r2, _ := utf8.DecodeLastRuneInString(s[:len(s)-1])
		return isIDRune(r2)
	}
	return isIDRune(r)
}

// continuesAfter: the same for the text after a match; a full stop that
// ends a sentence ends the id.
func continuesAfter(s string) bool {
	r, size := utf8.DecodeRuneInString(s)
	if r == '.' {
		r2, _ := utf8.DecodeRuneInString(s[size:])
		return isIDRune(r2)
	}
	return isIDRune(r)
}

func isIDRune(r rune) bool {
	return r != utf8.RuneError && (unicode.IsLetter(r) || unicode.IsDigit(r) || r == '-' || r == '_')
}

func sortedIDs[V any](m map[string]V) []string {
	ids := make([]string, 0, len(m))
	for id := range m {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	return ids
}
