package report

import (
	"bytes"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Escape shows, as an escape, every character of s that a terminal or a
// log viewer would act on instead of showing: C0 controls (tab and line
// breaks included), DEL, C1 controls, the line and paragraph separators
// U+2028 and U+2029, the bidirectional embeddings, overrides and isolates
// (U+202A–U+202E, U+2066–U+2069), and bytes that are not UTF-8. They
// become \t, \n, \r, \x1b, \u0085, \u202e, \xff; everything else, a
// backslash included, stays as it is. "##[" becomes "##\x5b" wherever it
// is: a GitHub Actions runner reads a workflow command of its older form
// at a "##[" anywhere on a line, not only at its start.
//
// Every byte a report, a message on stderr or the GitHub log takes from a
// checked file, a file name or a policy goes through Escape: a run cannot
// rewrite the line that judges it, hide what follows, or start a line of
// its own.
func Escape(s string) string {
	i := unsafeAt(s)
	if i < 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	b.WriteString(s[:i])
	for i < len(s) {
		c := s[i]
		if c == '#' && strings.HasPrefix(s[i:], "##[") {
			b.WriteString(`##\x5b`)
			i += 3
			continue
		}
		if c >= 0x20 && c < utf8.RuneSelf && c != 0x7f {
			b.WriteByte(c)
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case c == '\t':
			b.WriteString(`\t`)
		case c == '\n':
			b.WriteString(`\n`)
		case c == '\r':
			b.WriteString(`\r`)
		case c < utf8.RuneSelf || r == utf8.RuneError && size == 1:
			b.WriteString(`\x`)
			b.WriteByte(hexDigits[c>>4])
			b.WriteByte(hexDigits[c&15])
		case unsafeRune(r):
			b.WriteString(`\u`)
			for shift := 12; shift >= 0; shift -= 4 {
				b.WriteByte(hexDigits[r>>shift&15])
			}
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

const hexDigits = "0123456789abcdef"

// unsafeAt is the index of the first byte Escape changes, or -1.
func unsafeAt(s string) int {
	for i := 0; i < len(s); {
		c := s[i]
		if c == '#' && strings.HasPrefix(s[i:], "##[") {
			return i
		}
		if c >= 0x20 && c < utf8.RuneSelf && c != 0x7f {
			i++
			continue
		}
		if c < utf8.RuneSelf {
			return i
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 || unsafeRune(r) {
			return i
		}
		i += size
	}
	return -1
}

// unsafeRune reports the characters above ASCII that Escape shows escaped.
func unsafeRune(r rune) bool {
	return r >= 0x80 && r <= 0x9f || // C1 controls: 0x9b is CSI in 8-bit terminals
		r == 0x2028 || r == 0x2029 || // line and paragraph separators
		r >= 0x202a && r <= 0x202e || // bidirectional embeddings and overrides
		r >= 0x2066 && r <= 0x2069 // bidirectional isolates
}

// EscapeLine escapes s for the start of a line: besides Escape, a leading
// "::" loses its meaning as a GitHub Actions workflow command, its first
// character shown as \x3a. The runner looks for it after any white space,
// Unicode's too (U+00A0, U+2000–U+200A, U+3000: .NET's TrimStart), so
// that is what is skipped here. Text that begins a line of a report or of
// stderr goes through it.
func EscapeLine(s string) string {
	s = Escape(s)
	rest := strings.TrimLeftFunc(s, unicode.IsSpace)
	if strings.HasPrefix(rest, "::") {
		lead := len(s) - len(rest)
		return s[:lead] + `\x` + string(hexDigits[rest[0]>>4]) + string(hexDigits[rest[0]&15]) + rest[1:]
	}
	return s
}

// SafeJSON rewrites encoded JSON so that none of the characters Escape
// shows escaped appears raw, and neither does "##[", the start of a
// GitHub Actions command anywhere on a line: they become \u escapes,
// which decode to the same values. encoding/json already escapes C0
// controls, U+2028 and U+2029, and replaces bytes that are not UTF-8; DEL,
// C1 controls and the bidirectional characters it leaves raw. Outside
// strings JSON holds none of these, so rewriting the bytes is safe.
func SafeJSON(b []byte) []byte {
	if !needsSafeJSON(b) {
		return b
	}
	out := make([]byte, 0, len(b)+32)
	for i := 0; i < len(b); {
		c := b[i]
		if c == '#' && bytes.HasPrefix(b[i:], []byte("##[")) {
			out = append(out, `##\u005b`...)
			i += 3
			continue
		}
		if c < utf8.RuneSelf && c != 0x7f {
			out = append(out, c)
			i++
			continue
		}
		r, size := utf8.DecodeRune(b[i:])
		if c == 0x7f || unsafeRune(r) {
			out = append(out, `\u`...)
			for shift := 12; shift >= 0; shift -= 4 {
				out = append(out, hexDigits[r>>shift&15])
			}
		} else {
			out = append(out, b[i:i+size]...)
		}
		i += size
	}
	return out
}

func needsSafeJSON(b []byte) bool {
	if bytes.Contains(b, []byte("##[")) || bytes.IndexByte(b, 0x7f) >= 0 {
		return true
	}
	for i := 0; i < len(b); {
		if b[i] < utf8.RuneSelf {
			i++
			continue
		}
		r, size := utf8.DecodeRune(b[i:])
		if unsafeRune(r) {
			return true
		}
		i += size
	}
	return false
}

// mdBreak is an empty HTML comment. Rendered, it shows nothing and a copy
// of the text holds nothing of it, but it ends the run of text it is in:
// GitHub finds @-mentions, issue references and emoji codes in the text
// of the rendered HTML, where backslash escapes and entities are already
// gone, and cmark-gfm finds a URL autolink at a "://" and an email
// autolink in a run of text. A comment between two characters keeps them
// from being read together.
const mdBreak = "<!-- -->"

// mdInline makes text that Escape has escaped show as itself in one line
// of GitHub Markdown: a table cell, a heading, a list item. It writes
//   - & < > as entities (&amp; &lt; &gt;), so no HTML, entity or <autolink>
//     gets through;
//   - \ | * _ ` [ ] # ~ ! with a backslash, and a list marker that starts
//     the text ("-", "+", "1." or "1)"), so no table, emphasis, code, link,
//     image, heading or list syntax does;
//   - mdBreak after every "@" (no @user or @org/team mention, no email
//     autolink), after a ":" that starts "://" (no URL autolink) or an
//     emoji code (":100:" in a location "file:100:5"), after a "#" or
//     the "-" of "GH-" before a digit (no issue reference "#12",
//     "owner/repo#12" or "GH-12"), and inside "www." of any case (no www
//     autolink).
//
// Rendered, the text reads and copies exactly as it was given.
func mdInline(s string) string {
	var b strings.Builder
	b.Grow(len(s) + len(s)/8)
	list := listMarkerEnd(s)
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '&':
			b.WriteString("&amp;")
		case c == '<':
			b.WriteString("&lt;")
		case c == '>':
			b.WriteString("&gt;")
		case strings.IndexByte("\\|*_`[]~!", c) >= 0 || i == list:
			b.WriteByte('\\')
			b.WriteByte(c)
		case c == '#':
			b.WriteString(`\#`)
			if i+1 < len(s) && isDigit(s[i+1]) {
				b.WriteString(mdBreak)
			}
		case c == '@':
			b.WriteString("@" + mdBreak)
		case c == '-' && i >= 2 && strings.EqualFold(s[i-2:i], "gh") && i+1 < len(s) && isDigit(s[i+1]):
			b.WriteString("-" + mdBreak)
		case c == ':':
			b.WriteByte(c)
			if startsURLOrEmoji(s[i+1:]) {
				b.WriteString(mdBreak)
			}
		case (c == 'w' || c == 'W') && len(s)-i >= 4 && strings.EqualFold(s[i:i+4], "www."):
			b.WriteString(s[i : i+3])
			b.WriteString(mdBreak)
			b.WriteByte('.')
			i += 3
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// listMarkerEnd is the index of the character that makes s start a list
// item, when it does ("-", "+", or digits and "." or ")"), or -1.
func listMarkerEnd(s string) int {
	if s == "" {
		return -1
	}
	if s[0] == '-' || s[0] == '+' {
		return 0
	}
	i := 0
	for i < len(s) && isDigit(s[i]) {
		i++
	}
	if i > 0 && i < len(s) && (s[i] == '.' || s[i] == ')') {
		return i
	}
	return -1
}

// startsURLOrEmoji reports whether the text after a ":" would make it the
// ":" of "://" or the first of an emoji code's two (":+1:", ":100:").
func startsURLOrEmoji(rest string) bool {
	if strings.HasPrefix(rest, "/") {
		return true
	}
	i := 0
	for i < len(rest) && isEmojiNameByte(rest[i]) {
		i++
	}
	return i > 0 && i < len(rest) && rest[i] == ':'
}

func isEmojiNameByte(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || isDigit(c) || c == '_' || c == '+' || c == '-'
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

// mdCode is s, which Escape has escaped, as a Markdown code span: GitHub
// neither links nor mentions inside one. Its fence is one backtick longer
// than the longest run of backticks in s, so none of them ends it.
func mdCode(s string) string {
	longest, run := 0, 0
	for i := 0; i < len(s); i++ {
		if s[i] == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	fence := strings.Repeat("`", longest+1)
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") {
		s = " " + s + " " // one space each side is dropped when rendered
	}
	return fence + s + fence
}
