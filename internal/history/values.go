package history

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/h3a-check/h3a-check/internal/finding"
)

// maxShown bounds a value quoted in a message, in code points: enough to
// recognise an entry, short enough for one terminal line.
const maxShown = 80

// quoteValue renders a JSON value compactly for a message: strings quoted,
// objects and arrays as compact JSON, long ones cut with "…".
func quoteValue(v any) string {
	switch x := v.(type) {
	case absent:
		return "(absent)"
	case string:
		return strconv.Quote(truncate(x, maxShown))
	case json.Number:
		return truncate(string(x), maxShown)
	}
	if m, ok := v.(map[string]any); ok {
		return truncate(compactObject(m), maxShown)
	}
	return truncate(compactJSON(v), maxShown)
}

// identifying members come first when an entry is quoted, so that the part
// of it that survives truncation says which entry it is.
var identifying = []string{"task_id", "corrects", "agent", "from", "to", "time", "timestamp", "gate", "status"}

func compactObject(m map[string]any) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b string) int {
		ia, ib := slices.Index(identifying, a), slices.Index(identifying, b)
		switch {
		case ia >= 0 && ib >= 0:
			return ia - ib
		case ia >= 0:
			return -1
		case ib >= 0:
			return 1
		}
		return strings.Compare(a, b)
	})
	var b strings.Builder
	b.WriteByte('{')
	for i, k := range keys {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(compactJSON(k))
		b.WriteByte(':')
		b.WriteString(compactJSON(m[k]))
	}
	b.WriteByte('}')
	return b.String()
}

func compactJSON(v any) string {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return fmt.Sprintf("%v", v)
	}
	return strings.TrimSpace(buf.String())
}

// quoteText quotes a line of a Markdown ledger.
func quoteText(s string) string { return strconv.Quote(truncate(s, maxShown+40)) }

func truncate(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	i := 0
	for range n - 1 {
		_, size := utf8.DecodeRuneInString(s[i:])
		i += size
	}
	return s[:i] + "…"
}

func describe(v any) string {
	switch v.(type) {
	case map[string]any:
		return "an object"
	case []any:
		return "an array"
	case string:
		return "a string"
	case json.Number:
		return "a number"
	case bool:
		return "a boolean"
	case nil:
		return "null"
	}
	return fmt.Sprintf("%T", v)
}

func entries(n int) string {
	if n == 1 {
		return "1 entry"
	}
	return fmt.Sprintf("%d entries", n)
}

// statusLeft is the finding of rule, asking for a human, when the
// top-level member key of a JSON file reads as status at the base and as
// anything else in head; message says so, given head's value as written
// (absent when it has none). read gives the status a value reads as.
func statusLeft(p *pair, rule finding.Rule, key, status string, read func(any) string, message func(now string) string) []finding.Finding {
	if p.base.json == nil || p.head.json == nil {
		return nil
	}
	base, _ := p.base.json.Value.(map[string]any)
	head, _ := p.head.json.Value.(map[string]any)
	if read(base[key]) != status || read(head[key]) == status {
		return nil
	}
	now, ok := head[key]
	if !ok {
		now = absent{}
	}
	f := rule.New(p.path, "%s", message(quoteValue(now)))
	f.Pointer = "/" + key
	f.NeedsHuman = true
	return []finding.Finding{f}
}

// eachBaseID gives the findings check makes of each id that read finds in
// the base version of a JSON file, in id order, with what read finds for
// it in the base and in head (the zero value and ok false when head has
// none).
func eachBaseID[V any](p *pair, read func(any) map[string]V, check func(id string, base, head V, inHead bool) (finding.Finding, bool)) []finding.Finding {
	if p.base.json == nil || p.head.json == nil {
		return nil
	}
	base, head := read(p.base.json.Value), read(p.head.json.Value)
	var out []finding.Finding
	for _, id := range sortedIDs(base) {
		h, ok := head[id]
		if f, found := check(id, base[id], h, ok); found {
			out = append(out, f)
		}
	}
	return out
}

// countOf reads a count (an attempt or retry count, a version) as a reader
// of the file reads it: a JSON number, or a string that holds one ("2"),
// which the schema reports as the wrong type but which shows the same
// count. A base that wrote its count as a string must not let head lower
// it unseen. ok is false for anything else.
func countOf(v any) (json.Number, bool) {
	switch x := v.(type) {
	case json.Number:
		return x, true
	case string:
		// A JSON value that starts with a minus or a digit is a number.
		if s := strings.TrimSpace(x); s != "" && (s[0] == '-' || '0' <= s[0] && s[0] <= '9') && json.Valid([]byte(s)) {
			return json.Number(s), true
		}
	}
	return "", false
}
