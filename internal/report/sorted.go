package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

// appendSorted appends the JSON value src, as encoding/json writes it, to
// dst with the members of every object sorted by key, one member or
// element per line indented by two spaces, and every line after the first
// starting with prefix. The bytes are those of decoding src into a generic
// value and encoding that again with Encoder.SetIndent, as reports were
// written before, which the tests hold it to (TestSortedMatchesReencoding,
// FuzzSortedMatchesReencoding); it reads src once and copies its strings
// and numbers as they are.
func appendSorted(dst, src []byte, prefix string) ([]byte, error) {
	w := sortedWriter{src: src, out: dst, prefix: prefix}
	i, err := w.value(w.space(0), 0)
	if err != nil {
		return dst, err
	}
	if i = w.space(i); i != len(src) {
		return dst, fmt.Errorf("sorted JSON: unexpected %q after the value at offset %d", src[i], i)
	}
	return w.out, nil
}

type sortedWriter struct {
	src    []byte
	out    []byte
	prefix string
}

// member is one object member: its key as a string (for sorting) and the
// spans of its quoted key and of its value in src.
type member struct {
	key                          string
	keyStart, keyEnd, start, end int
}

func (w *sortedWriter) space(i int) int {
	for i < len(w.src) {
		switch w.src[i] {
		case ' ', '\t', '\n', '\r':
			i++
		default:
			return i
		}
	}
	return i
}

func (w *sortedWriter) newline(depth int) {
	w.out = append(w.out, '\n')
	w.out = append(w.out, w.prefix...)
	for range depth {
		w.out = append(w.out, "  "...)
	}
}

// value writes the value at src[i:] and returns the offset after it.
func (w *sortedWriter) value(i, depth int) (int, error) {
	if i >= len(w.src) {
		return i, fmt.Errorf("sorted JSON: unexpected end of input")
	}
	switch c := w.src[i]; {
	case c == '{':
		return w.object(i, depth)
	case c == '[':
		return w.array(i, depth)
	case c == '"':
		end, err := w.stringEnd(i)
		if err != nil {
			return i, err
		}
		w.appendString(w.src[i:end])
		return end, nil
	default:
		end := w.scalarEnd(i)
		if end == i || !json.Valid(w.src[i:end]) {
			return i, fmt.Errorf("sorted JSON: no value at offset %d", i)
		}
		w.out = append(w.out, w.src[i:end]...)
		return end, nil
	}
}

// skip returns the offset after the value at src[i:], writing nothing.
func (w *sortedWriter) skip(i int) (int, error) {
	if i >= len(w.src) {
		return i, fmt.Errorf("sorted JSON: unexpected end of input")
	}
	switch w.src[i] {
	case '"':
		return w.stringEnd(i)
	case '{', '[':
		depth := 0
		for j := i; j < len(w.src); j++ {
			switch w.src[j] {
			case '"':
				end, err := w.stringEnd(j)
				if err != nil {
					return i, err
				}
				j = end - 1
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					return j + 1, nil
				}
			}
		}
		return i, fmt.Errorf("sorted JSON: unexpected end of input")
	default:
		return w.scalarEnd(i), nil
	}
}

// scalarEnd returns the offset after the number, true, false or null that
// starts at src[i]: the next delimiter or space.
func (w *sortedWriter) scalarEnd(i int) int {
	for i < len(w.src) && !strings.ContainsRune(",]} \t\n\r", rune(w.src[i])) {
		i++
	}
	return i
}

func (w *sortedWriter) object(i, depth int) (int, error) {
	i = w.space(i + 1)
	var members []member
	for i < len(w.src) && w.src[i] != '}' {
		if len(members) > 0 {
			if w.src[i] != ',' {
				return i, fmt.Errorf("sorted JSON: expected ',' or '}' at offset %d", i)
			}
			i = w.space(i + 1)
		}
		if i >= len(w.src) || w.src[i] != '"' {
			return i, fmt.Errorf("sorted JSON: expected a key at offset %d", i)
		}
		keyEnd, err := w.stringEnd(i)
		if err != nil {
			return i, err
		}
		m := member{keyStart: i, keyEnd: keyEnd}
		raw := w.src[i+1 : keyEnd-1]
		if bytes.IndexByte(raw, '\\') < 0 {
			m.key = string(raw)
		} else if err := json.Unmarshal(w.src[i:keyEnd], &m.key); err != nil {
			return i, fmt.Errorf("sorted JSON: key at offset %d: %v", i, err)
		}
		i = w.space(keyEnd)
		if i >= len(w.src) || w.src[i] != ':' {
			return i, fmt.Errorf("sorted JSON: expected ':' at offset %d", i)
		}
		m.start = w.space(i + 1)
		if m.end, err = w.skip(m.start); err != nil {
			return i, err
		}
		members = append(members, m)
		i = w.space(m.end)
	}
	if i >= len(w.src) {
		return i, fmt.Errorf("sorted JSON: unexpected end of input in an object")
	}
	if len(members) == 0 {
		w.out = append(w.out, "{}"...)
		return i + 1, nil
	}
	// A decoded object keeps the last of members with the same key.
	slices.SortStableFunc(members, func(a, b member) int { return strings.Compare(a.key, b.key) })
	w.out = append(w.out, '{')
	first := true
	for k, m := range members {
		if k+1 < len(members) && members[k+1].key == m.key {
			continue
		}
		if !first {
			w.out = append(w.out, ',')
		}
		first = false
		w.newline(depth + 1)
		w.appendString(w.src[m.keyStart:m.keyEnd])
		w.out = append(w.out, ": "...)
		if _, err := w.value(m.start, depth+1); err != nil {
			return i, err
		}
	}
	w.newline(depth)
	w.out = append(w.out, '}')
	return i + 1, nil
}

func (w *sortedWriter) array(i, depth int) (int, error) {
	i = w.space(i + 1)
	if i < len(w.src) && w.src[i] == ']' {
		w.out = append(w.out, "[]"...)
		return i + 1, nil
	}
	w.out = append(w.out, '[')
	for n := 0; ; n++ {
		if n > 0 {
			w.out = append(w.out, ',')
		}
		w.newline(depth + 1)
		end, err := w.value(i, depth+1)
		if err != nil {
			return i, err
		}
		i = w.space(end)
		if i >= len(w.src) {
			return i, fmt.Errorf("sorted JSON: unexpected end of input in an array")
		}
		if w.src[i] == ']' {
			break
		}
		if w.src[i] != ',' {
			return i, fmt.Errorf("sorted JSON: expected ',' or ']' at offset %d", i)
		}
		i = w.space(i + 1)
	}
	w.newline(depth)
	w.out = append(w.out, ']')
	return i + 1, nil
}

// stringEnd returns the offset after the string that starts at src[i].
func (w *sortedWriter) stringEnd(i int) (int, error) {
	for j := i + 1; j < len(w.src); j++ {
		switch w.src[j] {
		case '\\':
			j++
		case '"':
			return j + 1, nil
		}
	}
	return i, fmt.Errorf("sorted JSON: unterminated string at offset %d", i)
}

// appendString copies a quoted string. encoding/json writes a byte that is
// not UTF-8 as the escape \ufffd, and the character U+FFFD it decodes to
// as itself: the escape is written as the character, as encoding the
// decoded value would.
func (w *sortedWriter) appendString(s []byte) {
	for {
		k := bytes.Index(s, []byte(`\ufffd`))
		if k < 0 {
			w.out = append(w.out, s...)
			return
		}
		// Only an escape if an even number of backslashes precedes it.
		n := 0
		for n < k && s[k-1-n] == '\\' {
			n++
		}
		w.out = append(w.out, s[:k]...)
		if n%2 == 0 {
			w.out = append(w.out, "\uFFFD"...)
		} else {
			w.out = append(w.out, `\ufffd`...)
		}
		s = s[k+len(`\ufffd`):]
	}
}
