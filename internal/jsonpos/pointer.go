package jsonpos

import (
	"fmt"
	"strings"
)

// EscapeToken escapes one reference token for use in a JSON pointer
// (RFC 6901): "~" becomes "~0" and "/" becomes "~1".
func EscapeToken(tok string) string {
	if !strings.ContainsAny(tok, "~/") {
		return tok
	}
	var b strings.Builder
	b.Grow(len(tok) + 4)
	for i := 0; i < len(tok); i++ {
		switch c := tok[i]; c {
		case '~':
			b.WriteString("~0")
		case '/':
			b.WriteString("~1")
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// Pointer joins unescaped reference tokens into a JSON pointer; no tokens
// give "", the pointer of the whole document.
func Pointer(tokens ...string) string {
	if len(tokens) == 0 {
		return ""
	}
	var b strings.Builder
	for _, tok := range tokens {
		b.WriteByte('/')
		b.WriteString(EscapeToken(tok))
	}
	return b.String()
}

// SplitPointer splits a JSON pointer into its unescaped reference tokens.
// "" (the whole document) gives no tokens; any other pointer must start
// with "/", and "~" must be followed by "0" or "1".
func SplitPointer(p string) ([]string, error) {
	if p == "" {
		return nil, nil
	}
	if p[0] != '/' {
		return nil, fmt.Errorf("invalid json pointer %q: expected it to be empty or to start with \"/\"", p)
	}
	tokens := make([]string, 0, strings.Count(p, "/"))
	rest := p[1:]
	for {
		seg, tail, more := strings.Cut(rest, "/")
		tok, ok := unescapeToken(seg)
		if !ok {
			return nil, fmt.Errorf("invalid json pointer %q: in token %q, expected \"~\" to be followed by \"0\" or \"1\"", p, seg)
		}
		tokens = append(tokens, tok)
		if !more {
			return tokens, nil
		}
		rest = tail
	}
}

// unescapeToken undoes EscapeToken; it allocates only when seg holds a "~".
func unescapeToken(seg string) (string, bool) {
	i := strings.IndexByte(seg, '~')
	if i < 0 {
		return seg, true
	}
	var b strings.Builder
	b.Grow(len(seg))
	b.WriteString(seg[:i])
	for ; i < len(seg); i++ {
		c := seg[i]
		if c != '~' {
			b.WriteByte(c)
			continue
		}
		if i+1 >= len(seg) {
			return "", false
		}
		switch seg[i+1] {
		case '0':
			b.WriteByte('~')
		case '1':
			b.WriteByte('/')
		default:
			return "", false
		}
		i++
	}
	return b.String(), true
}
