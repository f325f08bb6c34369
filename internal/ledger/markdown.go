package ledger

import (
	"html"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// column converts a byte offset in s to a 1-based code-point column.
func column(s string, off int) int { return utf8.RuneCountInString(s[:off]) + 1 }

// listItem returns the byte offset of the content of a list item: a bullet
// ("- ", "* ", "+ ") or an ordered marker ("1. ", "1) "), at any indentation;
// ok is false if s is not one.
func listItem(s string) (off int, ok bool) {
	i := len(s) - len(strings.TrimLeft(s, " \t"))
	if i < len(s) && strings.IndexByte("-*+", s[i]) >= 0 {
		i++
	} else {
		digits := 0
		for i+digits < len(s) && digits < 10 && isDigit(s[i+digits]) {
			digits++
		}
		if digits == 0 || digits > 9 || i+digits >= len(s) || (s[i+digits] != '.' && s[i+digits] != ')') {
			return 0, false
		}
		i += digits + 1
	}
	if i >= len(s) || (s[i] != ' ' && s[i] != '\t') {
		return 0, false
	}
	return i + len(s[i:]) - len(strings.TrimLeft(s[i:], " \t")), true
}

// titleIs matches a heading title against a lower-case name, ignoring case,
// emphasis, leading emoji or numbering, and any qualifier after the name
// ("Task Queue (updated)", "Gate Events Log: G1").
func titleIs(name string) func(string) bool {
	return func(title string) bool {
		t := strings.TrimLeftFunc(stripEmphasis(title), func(r rune) bool {
			return !unicode.IsLetter(r)
		})
		if !hasPrefixFoldASCII(t, name) {
			return false
		}
		rest := t[len(name):]
		r, _ := utf8.DecodeRuneInString(rest)
		return rest == "" || strings.ContainsRune(" \t:(-—–[", r)
	}
}

// stripEmphasis removes emphasis or code markers wrapped around the whole of
// s ("**G0: Planning**" becomes "G0: Planning").
func stripEmphasis(s string) string {
	s = strings.TrimSpace(s)
	for {
		stripped := false
		for _, m := range [...]string{"**", "__", "*", "_", "`"} {
			if len(s) > 2*len(m) && strings.HasPrefix(s, m) && strings.HasSuffix(s, m) {
				s = strings.TrimSpace(s[len(m) : len(s)-len(m)])
				stripped = true
				break
			}
		}
		if !stripped {
			return s
		}
	}
}

// field is a part of a line with the byte offset of its first byte in the line.
type field struct {
	text string
	off  int
}

// splitDash splits s (found at byte offset off of its line) at " - " into at
// most limit trimmed fields; the last field keeps any further " - ".
func splitDash(s string, off, limit int) []field {
	var out []field
	for len(out) < limit-1 {
		i := strings.Index(s, " - ")
		if i < 0 {
			break
		}
		out = append(out, trimField(s[:i], off))
		s, off = s[i+3:], off+i+3
	}
	return append(out, trimField(s, off))
}

func trimField(s string, off int) field {
	t := strings.TrimLeft(s, " \t")
	return field{text: strings.TrimRight(t, " \t"), off: off + len(s) - len(t)}
}

// snippet quotes s for a message, shortened so a long line cannot flood the
// report.
func snippet(s string) string {
	const longest = 40
	if utf8.RuneCountInString(s) > longest {
		i := 0
		for n := 0; n < longest; n++ {
			_, size := utf8.DecodeRuneInString(s[i:])
			i += size
		}
		s = s[:i] + "…"
	}
	return strconv.Quote(s)
}

// isGateID accepts "G0", "G3.1", "G0_planning", "G1_implementation".
func isGateID(s string) bool {
	if len(s) < 2 || s[0] != 'G' || !isDigit(s[1]) {
		return false
	}
	for i := 2; i < len(s); i++ {
		if c := s[i]; !isDigit(c) && !isASCIILetter(c) && c != '_' && c != '.' && c != '-' {
			return false
		}
	}
	return true
}

func isDigit(c byte) bool       { return '0' <= c && c <= '9' }
func isASCIILetter(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }
func isHexDigit(c byte) bool    { return isDigit(c) || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F' }

// tableCells splits a pipe-table row into trimmed cells, honouring "\|".
func tableCells(s string) []string {
	s = strings.TrimSpace(s)
	s = strings.TrimPrefix(s, "|")
	if strings.HasSuffix(s, "|") && !strings.HasSuffix(s, `\|`) {
		s = s[:len(s)-1]
	}
	var cells []string
	start := 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case '|':
			cells = append(cells, shownText(strings.TrimSpace(s[start:i])))
			start = i + 1
		}
	}
	return append(cells, shownText(strings.TrimSpace(s[start:])))
}

// shownText is s as Markdown shows it, as far as reading a heading, a
// table cell or a labelled value goes: a character reference ("&#32;",
// "&nbsp;", "&#x46;") is the character it stands for, and any white space
// (a no-break space, an em space) is a space. "Current&nbsp;Gate" is the
// heading a reader sees, "F&#97;iled" the status.
func shownText(s string) string {
	plain := true
	for i := 0; i < len(s); i++ {
		if s[i] == '&' || s[i] >= utf8.RuneSelf {
			plain = false
			break
		}
	}
	if plain {
		return s
	}
	return strings.Map(func(r rune) rune {
		if r != ' ' && r != '\t' && unicode.IsSpace(r) {
			return ' '
		}
		return r
	}, html.UnescapeString(s))
}

// isDelimiterRow reports whether s is a table's "|---|:--:|" row.
func isDelimiterRow(s string) bool {
	if !strings.Contains(s, "|") {
		return false
	}
	for _, c := range tableCells(s) {
		c = strings.TrimSuffix(strings.TrimPrefix(c, ":"), ":")
		if c == "" || strings.Trim(c, "-") != "" {
			return false
		}
	}
	return true
}

// hasPrefixFoldASCII is strings.HasPrefix ignoring ASCII case; lowerPrefix
// must be lower-case ASCII.
func hasPrefixFoldASCII(s, lowerPrefix string) bool {
	if len(s) < len(lowerPrefix) {
		return false
	}
	for k := 0; k < len(lowerPrefix); k++ {
		c := s[k]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != lowerPrefix[k] {
			return false
		}
	}
	return true
}
