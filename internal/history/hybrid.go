package history

import (
	"cmp"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/h3a-check/h3a-check/internal/finding"
	"github.com/h3a-check/h3a-check/internal/jsonpos"
)

// versionsRise is the optimistic-lock rule of Hybrid_AI_OS: every write
// raises a file's version, and the global counter only grows, so a value
// lower than at the base is a lost write or an older copy written back.
// severity lets the vX.2 generation, whose v was seen restarting on
// purpose, report a restart as a warning.
func versionsRise(severity finding.Severity, keys ...string) func(*pair) []finding.Finding {
	return func(p *pair) []finding.Finding {
		var out []finding.Finding
		for _, k := range keys {
			b, okB := numberMember(p.base.json, k)
			h, okH := numberMember(p.head.json, k)
			if !okB || !okH {
				continue
			}
			if lower, ok := numberLess(string(h), string(b)); !ok || !lower {
				continue
			}
			f := finding.HybridVersionDecreased.New(p.path, "%s %s went down from %s at base %s to %s; a lower version is a lost write", p.path, k, quoteValue(b), p.commit, quoteValue(h))
			f.Severity = severity
			f.Pointer = "/" + k
			out = append(out, f)
		}
		return out
	}
}

// numberMember reads the number at key of a JSON object, in any spelling:
// 8, 8.0 and 8e0 are the same version, and so is "8" (countOf).
func numberMember(doc *jsonpos.Document, key string) (json.Number, bool) {
	if doc == nil {
		return "", false
	}
	m, ok := doc.Value.(map[string]any)
	if !ok {
		return "", false
	}
	return countOf(m[key])
}

// numberLess reports whether the JSON number a is lower than b by value,
// compared exactly in their canonical forms (see canonicalNumber); ok is
// false when either cannot be read.
func numberLess(a, b string) (less, ok bool) {
	ca, okA := canonicalNumber(a)
	cb, okB := canonicalNumber(b)
	if !okA || !okB {
		return false, false
	}
	return compareCanonical(ca, cb) < 0, true
}

// compareCanonical orders two numbers written by canonicalNumber.
func compareCanonical(a, b string) int {
	sa, sb := signOf(a), signOf(b)
	if sa != sb {
		return cmp.Compare(sa, sb)
	}
	if sa == 0 {
		return 0
	}
	c := compareMagnitude(strings.TrimPrefix(a, "-"), strings.TrimPrefix(b, "-"))
	return sa * c
}

func signOf(c string) int {
	switch {
	case c == "0":
		return 0
	case strings.HasPrefix(c, "-"):
		return -1
	}
	return 1
}

// compareMagnitude orders two positive canonical numbers (digits "e"
// exponent, no leading or trailing zeros in the digits).
func compareMagnitude(a, b string) int {
	da, ea := splitCanonical(a)
	db, eb := splitCanonical(b)
	// The position of the leading digit decides first.
	if c := cmp.Compare(len(da)+ea, len(db)+eb); c != 0 {
		return c
	}
	// Same leading position: the digits, read left to right, decide
	// (a missing digit is a zero).
	for i := 0; i < max(len(da), len(db)); i++ {
		x, y := byte('0'), byte('0')
		if i < len(da) {
			x = da[i]
		}
		if i < len(db) {
			y = db[i]
		}
		if x != y {
			return cmp.Compare(x, y)
		}
	}
	return 0
}

func splitCanonical(c string) (digits string, exp int) {
	d, e, _ := strings.Cut(c, "e")
	exp, _ = strconv.Atoi(e)
	return d, exp
}

// recordsPrefix: a log unit at head starts with every record of its base
// version, unchanged; records are only appended.
func recordsPrefix(p *pair) []finding.Finding {
	if p.base.lines == nil || p.head.lines == nil {
		return nil
	}
	base, head := p.base.lines.Value, p.head.lines.Value
	for i, b := range base {
		if i >= len(head) {
			f := finding.HybridLogShrunk.New(p.path, "%s has %s; base %s had %d: records were removed", p.path, entries(len(head)), p.commit, len(base))
			return []finding.Finding{f}
		}
		if _, _, _, differs := firstDiff(b, head[i], fmt.Sprintf("/%d", i)); differs {
			f := finding.HybridLogShrunk.New(p.path, "record %d of %s differs from base %s (base %s); log records are never rewritten", i+1, p.path, p.commit, quoteValue(b))
			f.Pointer = fmt.Sprintf("/%d", i)
			return []finding.Finding{f}
		}
	}
	return nil
}

// retriesKept: a task's retry count, in state.json rt or in the plan file
// that lists the task, never goes down. The count is what sets st =
// BLK_MAX (hybrid-ai-os-v1.4.md, Retries), so a lower one, or a counted
// task dropped from its plan, lets a task past its limit look fresh, and
// the spec has no step that lowers it: only the recovery a person or a
// program makes (Error States) could. The change cannot show which, so a
// person confirms it (needs-human).
func retriesKept(p *pair) []finding.Finding {
	return eachBaseID(p, retryCounts, func(id string, b, h taskRetries, ok bool) (finding.Finding, bool) {
		var f finding.Finding
		switch {
		case !ok && (!b.listed || compareNumbers(b.max, "0") <= 0):
			// state.json rt may leave out a task: its count is the plan
			// file's, which this rule holds too.
			return f, false
		case !ok:
			f = finding.HybridRetriesLowered.New(p.path, "task %s, with retry count %s at base %s, is gone from %s; a task's retry count only grows (past the limit it sets st = BLK_MAX): a person must confirm the task was dropped",
				quoteValue(id), quoteValue(b.max), p.commit, p.path)
			f.Pointer = b.container
		case h.min == "" || compareNumbers(h.min, b.max) >= 0:
			return f, false
		default:
			f = finding.HybridRetriesLowered.New(p.path, "retry count of task %s went down from %s at base %s to %s; a task's retry count only grows (past the limit it sets st = BLK_MAX): a person must confirm the reset",
				quoteValue(id), quoteValue(b.max), p.commit, quoteValue(h.min))
			f.Pointer = h.pointer
		}
		f.NeedsHuman = true
		return f, true
	})
}

// taskRetries is what one file says of one task's retry count: the
// highest and the lowest it writes (a task listed twice is read both
// ways, so neither copy hides the other), where the lowest sits, and
// whether the file lists the task itself (a plan's tasks) rather than
// only its count (state.json rt).
type taskRetries struct {
	max, min  json.Number // "" when the task has no count (0 by the spec's reading)
	pointer   string
	container string
	listed    bool
}

// retryCounts reads the retry counts of state.json (rt: {task: n}) or of a
// plan file (tasks: [{id, rt}], a task without rt counting 0).
func retryCounts(v any) map[string]taskRetries {
	out := map[string]taskRetries{}
	m, _ := v.(map[string]any)
	add := func(id string, n json.Number, ptr, container string, listed bool) {
		t, seen := out[id]
		if !seen {
			t = taskRetries{max: n, min: n, pointer: ptr, container: container, listed: listed}
		} else {
			if compareNumbers(n, t.max) > 0 {
				t.max = n
			}
			if compareNumbers(n, t.min) < 0 {
				t.min, t.pointer = n, ptr
			}
		}
		out[id] = t
	}
	if rt, ok := m["rt"].(map[string]any); ok {
		for id, x := range rt {
			if n, ok := countOf(x); ok {
				add(id, n, "/rt/"+jsonpos.EscapeToken(id), "/rt", false)
			}
		}
	}
	tasks, _ := m["tasks"].([]any)
	for i, x := range tasks {
		t, _ := x.(map[string]any)
		id, _ := t["id"].(string)
		if id == "" {
			continue
		}
		n, ok := countOf(t["rt"])
		ptr := fmt.Sprintf("/tasks/%d/rt", i)
		if !ok {
			if _, has := t["rt"]; has {
				continue // not a number: the schema's to report
			}
			n, ptr = "0", fmt.Sprintf("/tasks/%d", i)
		}
		add(id, n, ptr, "/tasks", true)
	}
	return out
}

// compareNumbers orders two JSON numbers by value; one that cannot be read
// sorts below every other, so it never hides a lower count.
func compareNumbers(a, b json.Number) int {
	ca, okA := canonicalNumber(string(a))
	cb, okB := canonicalNumber(string(b))
	switch {
	case !okA && !okB:
		return 0
	case !okA:
		return -1
	case !okB:
		return 1
	}
	return compareCanonical(ca, cb)
}
