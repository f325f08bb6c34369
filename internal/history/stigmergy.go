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
	return eachBaseIssue(p, func(id string, b, h issueEntries, named bool) (finding.Finding, bool) {
		if b.resolved == 0 || h.resolved > 0 && len(h.open) <= len(b.open) || named {
			return finding.Finding{}, false
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
		return f, true
	})
}

// eachBaseIssue gives the findings check makes of each issue the base's
// issue_log holds, in id order, with what the base and head say of it and
// whether a history entry added since names it.
func eachBaseIssue(p *pair, check func(id string, b, h issueEntries, named bool) (finding.Finding, bool)) []finding.Finding {
	added := addedHistory(p)
	return eachBaseID(p, issueStatuses, func(id string, b, h issueEntries, _ bool) (finding.Finding, bool) {
		return check(id, b, h, namesIssue(added, id))
	})
}

// openIssuesStay: an issue_log issue that is not RESOLVED at the base is
// still logged in head, with no fewer entries, and is RESOLVED there only
// if a history entry added since names it. The issue log is where the
// swarm records a failure for a Responder, and resolving it is an action
// the immutable history records; an open issue resolved or dropped without
// a word would pass a gate the issue held (a PROJECT_COMPLETE over an OPEN
// issue asks for a human).
func openIssuesStay(p *pair) []finding.Finding {
	return eachBaseIssue(p, func(id string, b, h issueEntries, named bool) (finding.Finding, bool) {
		if b.resolved > 0 {
			return finding.Finding{}, false // resolvedIssuesStay's
		}
		was := quoteValue(b.open[len(b.open)-1].status)
		switch {
		case h.resolved+len(h.open) < len(b.open):
			f := finding.StigmergyIssueClosed.New(p.path, "issue %q was %s at base %s and %s in head; the issue log only grows",
				id, was, p.commit, entriesLeft(h.resolved+len(h.open), len(b.open)))
			f.Pointer = "/issue_log"
			return f, true
		case h.resolved > 0 && !named:
			f := finding.StigmergyIssueClosed.New(p.path, "issue %q was %s at base %s and is RESOLVED in head, with no history entry naming it", id, was, p.commit)
			f.Pointer = fmt.Sprintf("/issue_log/%d/status", h.firstResolved)
			return f, true
		}
		return finding.Finding{}, false
	})
}

// entriesLeft says what head kept of an issue's base entries.
func entriesLeft(head, base int) string {
	if head == 0 {
		return "is gone"
	}
	return fmt.Sprintf("has %d of its %d entries", head, base)
}

// manifestTasksStay: every task of the base's project_manifest is in
// head's, or a person confirms it was dropped (needs-human). The manifest is
// the master plan, and PROJECT_COMPLETE means every task of it is
// COMPLETED: a FAILED task taken out of the manifest (and the blueprint)
// would let the project read as complete.
func manifestTasksStay(p *pair) []finding.Finding {
	return eachBaseID(p, manifestTasks, func(id string, status, _ any, kept bool) (finding.Finding, bool) {
		if kept {
			return finding.Finding{}, false
		}
		f := finding.StigmergyTaskDropped.New(p.path, "task %q (%s at base %s) is gone from project_manifest in head: the manifest is the project's master plan, and a person must confirm the task was dropped",
			id, quoteValue(status), p.commit)
		f.Pointer = "/project_manifest/tasks"
		f.NeedsHuman = true
		return f, true
	})
}

// manifestTasks maps the id of each task of a ledger's project_manifest
// that has a string id to its status (absent when it has none; the first
// task of an id when several share it).
func manifestTasks(v any) map[string]any {
	m, _ := v.(map[string]any)
	manifest, _ := m["project_manifest"].(map[string]any)
	tasks, _ := manifest["tasks"].([]any)
	out := map[string]any{}
	for _, x := range tasks {
		t, _ := x.(map[string]any)
		id, ok := t["id"].(string)
		if _, seen := out[id]; !ok || seen {
			continue
		}
		st, has := t["status"]
		if !has {
			st = absent{}
		}
		out[id] = st
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
// entries are RESOLVED (its status read in any case or spacing), and the
// others, in log order.
type issueEntries struct {
	resolved      int
	firstResolved int // the index of the first RESOLVED entry in issue_log
	open          []issueState
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
		if spelledStatus(e["status"]) == "RESOLVED" {
			if ie.resolved == 0 {
				ie.firstResolved = i
			}
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
