package history

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/h3a-check/h3a-check/internal/finding"
	"github.com/h3a-check/h3a-check/internal/ledger"
)

// gateEvents: the base events are a prefix of the head events, compared as
// parsed records (so re-spacing a line is not a rewrite).
func gateEvents(p *pair) []finding.Finding {
	base, ok1 := p.base.ledger.(*ledger.GatesLedger)
	head, ok2 := p.head.ledger.(*ledger.GatesLedger)
	if !ok1 || !ok2 {
		return nil
	}
	at := func(line int, format string, args ...any) []finding.Finding {
		f := finding.GateEventRewritten.New(p.path, "%s", fmt.Sprintf(format, args...))
		f.Line = line
		return []finding.Finding{f}
	}
	for i, b := range base.Events {
		if i >= len(head.Events) {
			line := head.EventsLine
			if n := len(head.Events); n > 0 {
				line = head.Events[n-1].Line
			}
			return at(line, "gate event %d of base %s (%s) was removed: the log has %d event%s, base had %d; events are only appended",
				i+1, p.commit, quoteText(eventText(b)), len(head.Events), plural(len(head.Events)), len(base.Events))
		}
		h := head.Events[i]
		if sameEvent(b, h) {
			continue
		}
		if i+1 < len(base.Events) && sameEvent(base.Events[i+1], h) {
			return at(h.Line, "gate event %d of base %s (%s) was removed; the events after it moved up",
				i+1, p.commit, quoteText(eventText(b)))
		}
		return at(h.Line, "gate event %d was rewritten since base %s: %s; events are only appended, a new status is a new event",
			i+1, p.commit, fieldDiff([]field{
				{"time", b.Time, h.Time}, {"gate", b.Gate, h.Gate}, {"status", b.Status, h.Status},
				{"agent", b.Agent, h.Agent}, {"note", b.Note, h.Note},
			}))
	}
	return nil
}

func sameEvent(a, b ledger.Event) bool {
	return a.Time == b.Time && a.Gate == b.Gate && a.Status == b.Status && a.Agent == b.Agent && a.Note == b.Note
}

func eventText(e ledger.Event) string {
	s := fmt.Sprintf("[%s] %s - %s - %s", e.Time, e.Gate, e.Status, e.Agent)
	if e.Note != "" {
		s += " - " + e.Note
	}
	return s
}

type field struct{ name, base, head string }

// fieldDiff shows the first field that differs: `status base "FAILED", head "PASSED"`.
func fieldDiff(fields []field) string {
	for _, f := range fields {
		if f.base != f.head {
			return fmt.Sprintf("%s base %s, head %s", f.name, quoteText(f.base), quoteText(f.head))
		}
	}
	return "no field differs"
}

// evidenceEntries: every base entry is still in head, unchanged and in the
// same order; new entries may sit anywhere among them (each agent logs
// under its own heading).
func evidenceEntries(p *pair) []finding.Finding {
	base, ok1 := p.base.ledger.(*ledger.EvidenceLog)
	head, ok2 := p.head.ledger.(*ledger.EvidenceLog)
	if !ok1 || !ok2 {
		return nil
	}
	at := func(line int, format string, args ...any) []finding.Finding {
		f := finding.EvidenceEntryRewritten.New(p.path, "%s", fmt.Sprintf(format, args...))
		f.Line = line
		return []finding.Finding{f}
	}
	next := 0  // head entries before next are matched or skipped
	prev := "" // path of the last base entry matched
	for _, b := range base.Entries {
		k := indexEntry(head.Entries[next:], func(h ledger.Entry) bool { return sameEntry(b, h) })
		if k >= 0 {
			next += k + 1
			prev = b.Path
			continue
		}
		// A later head entry for the same path is this entry, changed.
		if k := indexEntry(head.Entries[next:], func(h ledger.Entry) bool { return h.Path == b.Path }); k >= 0 {
			h := head.Entries[next+k]
			return at(h.Line, "evidence entry for %s was rewritten since base %s: %s; logged entries never change",
				quoteText(b.Path), p.commit, fieldDiff([]field{
					{"hash", b.Hash, h.Hash}, {"time", b.Time, h.Time}, {"description", b.Description, h.Description},
				}))
		}
		if k := indexEntry(head.Entries[:next], func(h ledger.Entry) bool { return sameEntry(b, h) }); k >= 0 {
			return at(head.Entries[k].Line, "evidence entry for %s moved since base %s: at base it follows the entry for %s, in head it comes before it; entries keep their order",
				quoteText(b.Path), p.commit, quoteText(prev))
		}
		line := 0
		switch {
		case next < len(head.Entries):
			line = head.Entries[next].Line
		case len(head.Entries) > 0:
			line = head.Entries[len(head.Entries)-1].Line
		}
		return at(line, "evidence entry for %s logged at base %s ([hash:%s] %s %s) was removed; logged entries are never deleted",
			quoteText(b.Path), p.commit, b.Hash, b.Time, quoteText(b.Description))
	}
	return nil
}

func indexEntry(es []ledger.Entry, match func(ledger.Entry) bool) int {
	for i, e := range es {
		if match(e) {
			return i
		}
	}
	return -1
}

func sameEntry(a, b ledger.Entry) bool {
	return a.Path == b.Path && a.Hash == b.Hash && a.Time == b.Time && a.Description == b.Description
}

// roadmapTasks: no base task is removed or reworded, a [x] never goes back
// to [ ], and a completion time never changes. Tasks are matched by id (the
// n-th task with an id at base with the n-th in head), so moving a task is
// not a finding.
func roadmapTasks(p *pair) []finding.Finding {
	base, ok1 := p.base.ledger.(*ledger.Roadmap)
	head, ok2 := p.head.ledger.(*ledger.Roadmap)
	if !ok1 || !ok2 {
		return nil
	}
	headByID := map[string][]ledger.Task{}
	for _, t := range head.Tasks {
		headByID[t.ID] = append(headByID[t.ID], t)
	}
	seen := map[string]int{}
	var out []finding.Finding
	add := func(rule finding.Rule, line int, format string, args ...any) {
		f := rule.New(p.path, "%s", fmt.Sprintf(format, args...))
		f.Line = line
		out = append(out, f)
	}
	for _, b := range base.Tasks {
		n := seen[b.ID]
		seen[b.ID]++
		if n >= len(headByID[b.ID]) {
			add(finding.TaskRemoved, taskQueueLine(head), "task %s %s of base %s is no longer in the task queue; tasks are never deleted",
				b.ID, quoteText(b.Text), p.commit)
			continue
		}
		h := headByID[b.ID][n]
		if h.Text != b.Text {
			add(finding.TaskReworded, h.Line, "task %s was reworded: base %s %s, head %s", b.ID, p.commit, quoteText(b.Text), quoteText(h.Text))
		}
		if b.Done && !h.Done {
			add(finding.TaskUnticked, h.Line, "task %s is [x] at base %s and [ ] in head; completion marks are never taken back", b.ID, p.commit)
		}
		if b.CompletedAt != "" && h.CompletedAt != b.CompletedAt {
			headTime := quoteText(h.CompletedAt)
			if h.CompletedAt == "" {
				headTime = "none"
			}
			add(finding.CompletionChanged, h.Line, "task %s completion time changed: base %s %s, head %s",
				b.ID, p.commit, quoteText(b.CompletedAt), headTime)
		}
	}
	return append(out, successCriteria(p, base, head)...)
}

// successCriteria: no success criterion of the base is removed or
// reworded, and a [x] never goes back to [ ]. Criteria have no id, so each
// is matched by its words with one of head's, once: the same words, or
// the same words with text added after them (a note written when the box
// is ticked, "Coverage ≥ 90%: 94.2%"). Deleting an open criterion, or
// weakening its words, would otherwise let the roadmap claim a success it
// had not reached.
func successCriteria(p *pair, base, head *ledger.Roadmap) []finding.Finding {
	var out []finding.Finding
	used := make([]bool, len(head.Criteria))
	find := func(match func(string, string) bool, text string) int {
		for i, h := range head.Criteria {
			if !used[i] && match(h.Text, text) {
				return i
			}
		}
		return -1
	}
	for _, b := range base.Criteria {
		i := find(func(h, b string) bool { return h == b }, b.Text)
		if i < 0 {
			i = find(extends, b.Text)
		}
		if i < 0 {
			f := finding.CriterionChanged.New(p.path, "success criterion %s of base %s is no longer in head as it was (removed or reworded); success criteria are never deleted or rewritten, only ticked",
				quoteText(b.Text), p.commit)
			f.Line = criteriaLine(head)
			out = append(out, f)
			continue
		}
		used[i] = true
		if h := head.Criteria[i]; !h.Done && b.Done {
			f := finding.CriterionChanged.New(p.path, "success criterion %s is [x] at base %s and [ ] in head; completion marks are never taken back",
				quoteText(b.Text), p.commit)
			f.Line = h.Line
			out = append(out, f)
		}
	}
	return out
}

// extends reports whether h is b with text added after it, at a break:
// "Coverage ≥ 90%: 94.2%" extends "Coverage ≥ 90%", but "Coverage ≥ 900"
// does not extend "Coverage ≥ 90".
func extends(h, b string) bool {
	rest, ok := strings.CutPrefix(h, b)
	if !ok || rest == "" || b == "" {
		return false
	}
	r, _ := utf8.DecodeRuneInString(rest)
	return unicode.IsSpace(r) || strings.ContainsRune(":;,(—–", r)
}

// criteriaLine is where a removed criterion is reported: the Success
// Criteria heading, or the top of the file.
func criteriaLine(r *ledger.Roadmap) int {
	for _, s := range r.Sections {
		if strings.Contains(strings.ToLower(s.Title), "success criteria") {
			return s.Line
		}
	}
	return 1
}

// taskQueueLine is where a removed task is reported: the task queue's
// heading, or the top of the file.
func taskQueueLine(r *ledger.Roadmap) int {
	for _, title := range []string{"task queue", "task decomposition"} {
		for _, s := range r.Sections {
			if strings.Contains(strings.ToLower(s.Title), title) {
				return s.Line
			}
		}
	}
	return 1
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}
