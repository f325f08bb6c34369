package history

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/h3a-check/h3a-check/internal/finding"
	"github.com/h3a-check/h3a-check/internal/jsonpos"
)

// arrayPrefix is the prefix rule for the array at ptr: the base array is a
// prefix of the head array, element by element (deep equality, numbers by
// value). With corrections, an appended entry with "corrects" must name
// the task_id of an earlier entry.
func arrayPrefix(ptr string, corrections bool) func(*pair) []finding.Finding {
	label := strings.ReplaceAll(strings.TrimPrefix(ptr, "/"), "/", ".")
	return func(p *pair) []finding.Finding {
		baseArr, ok := lookup(p.base.json.Value, ptr).([]any)
		if !ok {
			return nil // no array at the base: nothing was promised
		}
		name := fmt.Sprintf("%s %s", p.path, label)
		rewritten := func(at, format string, args ...any) []finding.Finding {
			f := finding.EntryRewritten.New(p.path, "%s", fmt.Sprintf(format, args...))
			f.Pointer = at
			return []finding.Finding{f}
		}
		headVal := lookup(p.head.json.Value, ptr)
		headArr, ok := headVal.([]any)
		if !ok {
			if len(baseArr) == 0 {
				return nil
			}
			what := "is gone"
			if headVal != nil {
				what = "is no longer an array (it is " + describe(headVal) + ")"
			}
			return rewritten(parentPointer(ptr), "%s %s; base %s has %s", name, what, p.commit, entries(len(baseArr)))
		}
		for i, b := range baseArr {
			at := ptr + "/" + strconv.Itoa(i)
			if i >= len(headArr) {
				return rewritten(ptr, "%s[%d] of base %s was removed (base %s): %s has %s, base has %d",
					name, i, p.commit, quoteValue(b), label, entries(len(headArr)), len(baseArr))
			}
			h := headArr[i]
			diffAt, bv, hv, differs := firstDiff(b, h, at)
			if !differs {
				continue
			}
			if j := indexValue(headArr[i+1:], b); j >= 0 {
				return rewritten(at, "%s[%d] of base %s moved to %s[%d]; entries keep their order and new ones are appended",
					name, i, p.commit, label, i+1+j)
			}
			if i+1 < len(baseArr) && deepEqual(baseArr[i+1], h) {
				return rewritten(at, "%s[%d] of base %s was removed (base %s); the entries after it moved up",
					name, i, p.commit, quoteValue(b))
			}
			field := ""
			if diffAt != at {
				field = strings.TrimPrefix(diffAt, at) + " "
			}
			return rewritten(diffAt, "%s[%d] was rewritten since base %s: %sbase %s, head %s; entries never change, new ones are appended",
				name, i, p.commit, field, quoteValue(bv), quoteValue(hv))
		}
		if corrections {
			return checkCorrections(p, ptr, label, len(baseArr), headArr)
		}
		return nil
	}
}

// checkCorrections: an appended entry with "corrects" must name the
// task_id of an earlier entry.
func checkCorrections(p *pair, ptr, label string, from int, arr []any) []finding.Finding {
	var out []finding.Finding
	for i := from; i < len(arr); i++ {
		entry, ok := arr[i].(map[string]any)
		if !ok {
			continue
		}
		target, has := entry["corrects"]
		if !has {
			continue
		}
		var known []string
		for _, earlier := range arr[:i] {
			if m, ok := earlier.(map[string]any); ok {
				if id, ok := m["task_id"].(string); ok && !slices.Contains(known, id) {
					known = append(known, id)
				}
			}
		}
		id, isString := target.(string)
		if isString && slices.Contains(known, id) {
			continue
		}
		expected := "no earlier entry has a task_id"
		if len(known) > 0 {
			expected = "expected the task_id of an earlier entry: " + finding.QuoteList(known)
		}
		f := finding.BadCorrection.New(p.path, "%s %s[%d] corrects %s, which names no earlier entry; %s",
			p.path, label, i, quoteValue(target), expected)
		f.Pointer = ptr + "/" + strconv.Itoa(i) + "/corrects"
		out = append(out, f)
	}
	return out
}

// lookup follows a JSON pointer through decoded JSON; nil when it does not
// resolve.
func lookup(v any, ptr string) any {
	toks, err := jsonpos.SplitPointer(ptr)
	if err != nil {
		return nil
	}
	for _, t := range toks {
		switch x := v.(type) {
		case map[string]any:
			v = x[t]
		case []any:
			i, err := strconv.Atoi(t)
			if err != nil || i < 0 || i >= len(x) {
				return nil
			}
			v = x[i]
		default:
			return nil
		}
	}
	return v
}

func parentPointer(ptr string) string {
	if i := strings.LastIndexByte(ptr, '/'); i > 0 {
		return ptr[:i]
	}
	return ""
}

// absent stands for a member or element one side does not have.
type absent struct{}

// firstDiff returns the pointer of the first difference between base and
// head (members in name order, elements in index order) and the values
// there; differs is false when they are equal.
func firstDiff(base, head any, ptr string) (at string, b, h any, differs bool) {
	switch bx := base.(type) {
	case map[string]any:
		hx, ok := head.(map[string]any)
		if !ok {
			break
		}
		keys := make([]string, 0, len(bx)+len(hx))
		for k := range bx {
			keys = append(keys, k)
		}
		for k := range hx {
			if _, ok := bx[k]; !ok {
				keys = append(keys, k)
			}
		}
		slices.Sort(keys)
		for _, k := range keys {
			child := ptr + "/" + jsonpos.EscapeToken(k)
			bv, inBase := bx[k]
			hv, inHead := hx[k]
			switch {
			case !inBase:
				return child, absent{}, hv, true
			case !inHead:
				return child, bv, absent{}, true
			}
			if at, b, h, d := firstDiff(bv, hv, child); d {
				return at, b, h, d
			}
		}
		return "", nil, nil, false
	case []any:
		hx, ok := head.([]any)
		if !ok {
			break
		}
		for i := range max(len(bx), len(hx)) {
			child := ptr + "/" + strconv.Itoa(i)
			switch {
			case i >= len(bx):
				return child, absent{}, hx[i], true
			case i >= len(hx):
				return child, bx[i], absent{}, true
			}
			if at, b, h, d := firstDiff(bx[i], hx[i], child); d {
				return at, b, h, d
			}
		}
		return "", nil, nil, false
	}
	if scalarEqual(base, head) {
		return "", nil, nil, false
	}
	return ptr, base, head, true
}

func indexValue(vs []any, v any) int {
	for i, x := range vs {
		if deepEqual(x, v) {
			return i
		}
	}
	return -1
}

func deepEqual(a, b any) bool {
	_, _, _, d := firstDiff(a, b, "")
	return !d
}

func scalarEqual(a, b any) bool {
	switch x := a.(type) {
	case json.Number:
		y, ok := b.(json.Number)
		return ok && numbersEqual(string(x), string(y))
	case string, bool, nil:
		return a == b
	}
	return false // containers of different kinds
}

// numbersEqual compares two JSON numbers by value (1.0 == 1 == 10e-1)
// without converting to floating point, which would merge distinct large
// integers, or to big numbers, which a huge exponent would make costly.
func numbersEqual(a, b string) bool {
	if a == b {
		return true
	}
	ca, okA := canonicalNumber(a)
	cb, okB := canonicalNumber(b)
	return okA && okB && ca == cb
}

// canonicalNumber writes a JSON number as sign, significant digits and a
// decimal exponent: "-1.50e2" → "-15e1"; zero of any sign → "0".
func canonicalNumber(s string) (string, bool) {
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	mant, expPart, hasExp := strings.Cut(strings.ToLower(s), "e")
	exp := 0
	if hasExp {
		e, err := strconv.Atoi(strings.TrimPrefix(expPart, "+"))
		if err != nil || e > 1<<30 || e < -(1<<30) {
			return "", false
		}
		exp = e
	}
	intPart, frac, _ := strings.Cut(mant, ".")
	digits := strings.TrimLeft(intPart+frac, "0")
	exp -= len(frac)
	trimmed := strings.TrimRight(digits, "0")
	exp += len(digits) - len(trimmed)
	if trimmed == "" {
		return "0", true
	}
	sign := ""
	if neg {
		sign = "-"
	}
	return sign + trimmed + "e" + strconv.Itoa(exp), true
}
