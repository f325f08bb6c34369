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
// 8, 8.0 and 8e0 are the same version.
func numberMember(doc *jsonpos.Document, key string) (json.Number, bool) {
	if doc == nil {
		return "", false
	}
	m, ok := doc.Value.(map[string]any)
	if !ok {
		return "", false
	}
	n, ok := m[key].(json.Number)
	return n, ok
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
