package schema

import (
	"cmp"
	"encoding/json"
	"fmt"
	"math/big"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/h3a-check/h3a-check/internal/textdist"
)

// Violation is one problem found by schema validation.
type Violation struct {
	// Pointer is the RFC 6901 pointer of the offending value. For "required"
	// it is the pointer the missing member would have (parent + "/" + name),
	// with Missing set; for additionalProperties, the member's pointer.
	Pointer string
	// Missing reports that the value at Pointer is absent, so the position to
	// report is the parent object's.
	Missing bool
	// Keyword is the failing keyword: "type", "enum", "required", "format",
	// "pattern", "minimum", ...
	Keyword string
	// Message is lower-case and concrete: it names the property, quotes the
	// value and says what was expected.
	Message string
}

// finding is a Violation plus what the anyOf/oneOf collapsing needs to know.
type finding struct {
	Violation
	depth     int      // number of pointer tokens
	wantTypes []string // set when the finding is a type mismatch
}

// collector walks one validation error tree over one document.
type collector struct {
	doc   any
	found []finding
}

func (s *Set) violations(root *verror, doc any) []Violation {
	c := &collector{doc: doc}
	c.walk(root)
	out := make([]Violation, 0, len(c.found))
	for _, f := range c.found {
		out = append(out, f.Violation)
	}
	slices.SortFunc(out, func(a, b Violation) int {
		return cmp.Or(strings.Compare(a.Pointer, b.Pointer), strings.Compare(a.Message, b.Message),
			strings.Compare(a.Keyword, b.Keyword))
	})
	return slices.Compact(out)
}

func (c *collector) walk(e *verror) {
	switch e.kind {
	case eAnyOf, eOneOf:
		c.alternatives(e)
		return
	}
	if len(e.causes) == 0 {
		c.leaf(e)
		return
	}
	for _, cause := range e.causes {
		c.walk(cause)
	}
}

// alternatives reports a failed anyOf/oneOf without listing every branch's
// complaints: branches that only rejected the value's type are merged into one
// "expected a string or an object" message; otherwise the branch that got
// furthest into the value (the one the author most likely meant) speaks.
func (c *collector) alternatives(e *verror) {
	here := len(e.at)
	var wantTypes []string
	var branches [][]finding
	for _, cause := range e.causes {
		sub := &collector{doc: c.doc}
		sub.walk(cause)
		if types, ok := onlyTypeMismatchAt(sub.found, here); ok {
			for _, t := range types {
				if !slices.Contains(wantTypes, t) {
					wantTypes = append(wantTypes, t)
				}
			}
			continue
		}
		branches = append(branches, sub.found)
	}
	if names, ok := onlyMissingMembers(branches, here); ok && len(wantTypes) == 0 {
		c.add(child(e.at, names[0]), true, "required",
			"missing required property "+orList(names), nil)
		return
	}
	if len(branches) == 0 {
		if len(wantTypes) == 0 {
			c.add(e.at, false, kindKeyword[e.kind],
				fmt.Sprintf("%s does not match any of the allowed shapes", c.subject(e.at)), nil)
			return
		}
		c.add(e.at, false, "type", c.typeMessage(e.at, wantTypes), wantTypes)
		return
	}
	best := branches[0]
	for _, b := range branches[1:] {
		if deeper(b, best) {
			best = b
		}
	}
	c.found = append(c.found, best...)
}

// onlyMissingMembers reports the member names when every branch only
// missed one member of the object at depth, as an anyOf of requireds that
// accepts either of two names does: one message names them all, instead of
// the first branch speaking as if the others did not exist.
func onlyMissingMembers(branches [][]finding, depth int) ([]string, bool) {
	if len(branches) < 2 {
		return nil, false
	}
	var names []string
	for _, b := range branches {
		if len(b) != 1 || !b[0].Missing || b[0].Keyword != "required" || b[0].depth != depth+1 {
			return nil, false
		}
		name := b[0].Pointer[strings.LastIndexByte(b[0].Pointer, '/')+1:]
		name = strings.ReplaceAll(strings.ReplaceAll(name, "~1", "/"), "~0", "~")
		if !slices.Contains(names, name) {
			names = append(names, name)
		}
	}
	return names, true
}

// orList quotes names and joins them: "a", "b" or "c".
func orList(names []string) string {
	words := make([]string, len(names))
	for i, n := range names {
		words[i] = strconv.Quote(n)
	}
	if len(words) == 1 {
		return words[0]
	}
	return strings.Join(words[:len(words)-1], ", ") + " or " + words[len(words)-1]
}

func onlyTypeMismatchAt(found []finding, depth int) ([]string, bool) {
	if len(found) == 0 {
		return nil, false
	}
	var types []string
	for _, f := range found {
		if f.wantTypes == nil || f.depth != depth {
			return nil, false
		}
		types = append(types, f.wantTypes...)
	}
	return types, true
}

// deeper reports whether branch a is more specific than b: its deepest
// finding is deeper, or equally deep with fewer findings.
func deeper(a, b []finding) bool {
	maxDepth := func(fs []finding) int {
		d := 0
		for _, f := range fs {
			d = max(d, f.depth)
		}
		return d
	}
	da, db := maxDepth(a), maxDepth(b)
	if da != db {
		return da > db
	}
	return len(a) < len(b)
}

func (c *collector) add(tokens []string, missing bool, keyword, msg string, wantTypes []string) {
	c.found = append(c.found, finding{
		Violation: Violation{Pointer: pointer(tokens), Missing: missing, Keyword: keyword, Message: msg},
		depth:     len(tokens),
		wantTypes: wantTypes,
	})
}

func (c *collector) leaf(e *verror) {
	at := e.at
	subj := c.subject(at)
	value, _ := lookup(c.doc, at)
	expected := e.expected
	keyword := kindKeyword[e.kind]

	switch e.kind {
	case eRequired:
		for _, name := range e.names {
			c.add(child(at, name), true, "required", c.missingMessage(at, name), nil)
		}
	case eAdditionalProperties:
		for _, name := range e.names {
			c.add(child(at, name), false, keyword, fmt.Sprintf("unexpected property %q", name), nil)
		}
	case ePropertyNames:
		c.add(child(at, e.names[0]), false, keyword,
			fmt.Sprintf("property name %q is not allowed here", e.names[0]), nil)
	case eType:
		c.add(at, false, keyword, c.typeMessage(at, e.names), e.names)
	case eEnum:
		c.add(at, false, keyword, enumMessage(subj, value, e.want.([]any)), nil)
	case eConst:
		c.add(at, false, keyword, fmt.Sprintf("%s is %s, expected %s", subj, display(value), display(e.want)), nil)
	case eFormat:
		if expected == "" {
			expected = formatPhrase(e.want.(string))
		}
		c.add(at, false, keyword, fmt.Sprintf("%s %s is not %s", subj, display(value), expected), nil)
	case ePattern:
		msg := fmt.Sprintf("%s %s does not match the pattern %q", subj, display(value), e.want)
		if expected != "" {
			msg = fmt.Sprintf("%s %s is not %s", subj, display(value), expected)
		}
		c.add(at, false, keyword, msg, nil)
	case eMinLength:
		var msg string
		switch {
		case e.got == 0:
			msg = fmt.Sprintf("%s is an empty string, expected %s", subj, cmp.Or(expected, "a non-empty string"))
		case expected != "":
			msg = fmt.Sprintf("%s %s is not %s: it has %d characters, expected at least %d", subj, display(value), expected, e.got, e.want)
		default:
			msg = fmt.Sprintf("%s %s has %d characters, expected at least %d", subj, display(value), e.got, e.want)
		}
		c.add(at, false, keyword, msg, nil)
	case eMaxLength:
		c.add(at, false, keyword, fmt.Sprintf("%s has %d characters, expected at most %d", subj, e.got, e.want), nil)
	case eMinimum, eMaximum, eExclusiveMinimum, eExclusiveMaximum:
		c.add(at, false, keyword, boundMessage(subj, value, expected, e.kind, e.want.(*big.Rat)), nil)
	case eOneOfTwice:
		c.add(at, false, keyword, fmt.Sprintf("%s matches more than one allowed shape (alternatives %d and %d), expected exactly one",
			subj, e.got+1, e.got2+1), nil)
	case eFalse:
		c.add(at, false, "false", fmt.Sprintf("%s is not allowed here", subj), nil)
	case eInvalidJSON:
		c.add(at, false, "type", fmt.Sprintf("%s holds a Go %T, which is not a JSON value", subj, e.value), nil)
	default:
		// A group with no causes; never made, but never dropped either.
		c.add(at, false, keyword, fmt.Sprintf("%s does not match its schema", subj), nil)
	}
}

// boundMessage says a number is out of range: by the schema's x-expected
// phrase when it has one, since a scale ("a score from 0 to 1") says more
// than the bound that was crossed.
func boundMessage(subj string, value any, expected string, k errKind, bound *big.Rat) string {
	if expected != "" {
		return fmt.Sprintf("%s %s is not %s", subj, display(value), expected)
	}
	var want string
	switch k {
	case eMinimum:
		want = "at least " + ratString(bound)
	case eMaximum:
		want = "at most " + ratString(bound)
	case eExclusiveMinimum:
		want = "more than " + ratString(bound)
	case eExclusiveMaximum:
		want = "less than " + ratString(bound)
	}
	return fmt.Sprintf("%s is %s, expected %s", subj, display(value), want)
}

// typeMessage says what the value at tokens is and which types were wanted:
// `iteration_count is a string ("1"), expected an integer`.
func (c *collector) typeMessage(tokens []string, want []string) string {
	value, _ := lookup(c.doc, tokens)
	got := typePhrase(jsonType(value))
	switch value.(type) {
	case string, json.Number, bool, float64, float32, int, int64:
		got += " (" + display(value) + ")"
	}
	return fmt.Sprintf("%s is %s, expected %s", c.subject(tokens), got, typeList(want))
}

// missingMessage names the missing property and, when the object holds a key
// that looks like a misspelling of it, that key too.
func (c *collector) missingMessage(parent []string, name string) string {
	msg := fmt.Sprintf("missing required property %q", name)
	obj, _ := lookup(c.doc, parent)
	// Past a few hundred keys the object is not hand-written and the search
	// would cost more than the hint is worth.
	if m, ok := obj.(map[string]any); ok && len(m) <= maxHintKeys {
		keys := make([]string, 0, len(m))
		for key := range m {
			if key != name {
				keys = append(keys, key)
			}
		}
		if near, ok := textdist.Nearest(name, keys); ok {
			msg += fmt.Sprintf(" (is %q a misspelling?)", near)
		}
	}
	return msg
}

// maxHintKeys bounds the misspelling search of missingMessage.
const maxHintKeys = 256

func enumMessage(subj string, value any, allowed []any) string {
	words := make([]string, len(allowed))
	for i, a := range allowed {
		words[i] = display(a)
	}
	msg := fmt.Sprintf("%s %s is not one of %s", subj, display(value), joinTruncated(words, maxListed))
	if s, ok := value.(string); ok {
		var candidates []string
		for _, a := range allowed {
			if as, ok := a.(string); ok {
				candidates = append(candidates, as)
			}
		}
		if near, ok := textdist.Nearest(s, candidates); ok {
			msg += fmt.Sprintf(" (did you mean %q?)", near)
		}
	}
	return msg
}

// maxListed is how many allowed values a message lists before summarising.
const maxListed = 10

func quoteList(values []string, limit int) string {
	words := make([]string, len(values))
	for i, v := range values {
		words[i] = strconv.Quote(v)
	}
	return joinTruncated(words, limit)
}

func joinTruncated(words []string, limit int) string {
	if limit > 0 && len(words) > limit+2 {
		return strings.Join(words[:limit], ", ") + fmt.Sprintf(" and %d more", len(words)-limit)
	}
	return strings.Join(words, ", ")
}

func formatPhrase(format string) string {
	switch format {
	case "date-time":
		return "a date-time (RFC 3339, e.g. 2025-09-29T13:42:15Z)"
	case "date":
		return "a date (RFC 3339, e.g. 2025-09-29)"
	case "time":
		return "a time (RFC 3339, e.g. 13:42:15Z)"
	case "duration":
		return "a duration (ISO 8601, e.g. P1DT2H)"
	case "uri":
		return "an absolute URI"
	case "uuid":
		return "a UUID"
	}
	return "a valid " + format
}

// subject names the value at tokens the way a reader of the file would: the
// property with its enclosing property, array indexes attached to their names
// (status, tdd_plan.red, steps[2].timestamp, tests.failed, artifacts[0]).
// The pointer carries the full path; two levels are enough to read the message.
func (c *collector) subject(tokens []string) string {
	if len(tokens) == 0 {
		return "document"
	}
	var segs []string
	node, known := c.doc, true
	for _, tok := range tokens {
		if isArray(node) {
			if len(segs) == 0 {
				segs = append(segs, "document")
			}
			segs[len(segs)-1] += "[" + tok + "]"
		} else if plainName(tok) {
			segs = append(segs, tok)
		} else {
			segs = append(segs, strconv.Quote(tok))
		}
		if known {
			node, known = lookup(node, []string{tok})
		}
	}
	if len(segs) > 2 {
		segs = segs[len(segs)-2:]
	}
	return strings.Join(segs, ".")
}

func isArray(v any) bool {
	_, ok := v.([]any)
	return ok
}

func plainName(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if !(r == '_' || r == '-' || r == '.' || r == '$' || '0' <= r && r <= '9' || 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z') {
			return false
		}
	}
	return true
}

// lookup returns the value at the unescaped pointer tokens.
func lookup(doc any, tokens []string) (any, bool) {
	v := doc
	for _, tok := range tokens {
		switch n := v.(type) {
		case map[string]any:
			var ok bool
			if v, ok = n[tok]; !ok {
				return nil, false
			}
		case []any:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(n) {
				return nil, false
			}
			v = n[i]
		default:
			return nil, false
		}
	}
	return v, true
}

func child(tokens []string, name string) []string {
	return append(slices.Clip(tokens), name)
}

func pointer(tokens []string) string {
	var b strings.Builder
	for _, tok := range tokens {
		b.WriteByte('/')
		b.WriteString(escapeToken(tok))
	}
	return b.String()
}

func escapeToken(tok string) string {
	return strings.ReplaceAll(strings.ReplaceAll(tok, "~", "~0"), "/", "~1")
}

func jsonType(v any) string {
	switch v := v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case json.Number:
		if _, err := v.Int64(); err == nil || !strings.ContainsAny(string(v), ".eE") {
			return "integer"
		}
		return "number"
	case float32, float64:
		return "number"
	case int, int8, int16, int32, int64, uint, uint8, uint16, uint32, uint64:
		return "integer"
	case string:
		return "string"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	return fmt.Sprintf("Go %T", v)
}

func typePhrase(t string) string {
	switch t {
	case "null":
		return "null"
	case "integer", "array", "object":
		return "an " + t
	}
	return "a " + t
}

// typeList renders wanted types as "a string, an object or null": null last
// because "expected a string or null" reads as the common case it is.
func typeList(want []string) string {
	ordered := slices.Clone(want)
	slices.SortStableFunc(ordered, func(a, b string) int {
		return cmp.Compare(boolRank(a == "null"), boolRank(b == "null"))
	})
	words := make([]string, len(ordered))
	for i, t := range ordered {
		words[i] = typePhrase(t)
	}
	switch len(words) {
	case 0:
		return "nothing"
	case 1:
		return words[0]
	}
	return strings.Join(words[:len(words)-1], ", ") + " or " + words[len(words)-1]
}

func boolRank(b bool) int {
	if b {
		return 1
	}
	return 0
}

// maxShown is how many characters of a string value a message quotes.
const maxShown = 60

// display renders a value for a message: strings quoted (and shortened),
// numbers and booleans as written, containers by their kind.
func display(v any) string {
	switch v := v.(type) {
	case nil:
		return "null"
	case string:
		if utf8.RuneCountInString(v) > maxShown {
			v = string([]rune(v)[:maxShown-1]) + "…"
		}
		return strconv.Quote(v)
	case json.Number:
		return v.String()
	case bool:
		return strconv.FormatBool(v)
	case float32, float64, int, int8, int16, int32, int64, uint, uint8, uint16, uint32, uint64:
		return fmt.Sprint(v)
	case []any:
		return "an array"
	case map[string]any:
		return "an object"
	}
	return fmt.Sprintf("a Go %T", v)
}

func ratString(r *big.Rat) string {
	if r == nil {
		return "?"
	}
	if r.IsInt() {
		return r.Num().String()
	}
	return strings.TrimRight(strings.TrimRight(r.FloatString(6), "0"), ".")
}
