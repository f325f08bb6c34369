package jsonpos

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// pending is a problem whose line and column are not known yet. Positions
// are resolved together once parsing ends, in one pass over the data, so
// that many problems in one long line cost no more than one.
type pending struct {
	kind    ProblemKind
	offset  int
	pointer string
	message string
	// related, if not -1, is an offset whose "line L, column C" is appended
	// to message, followed by tail.
	related int
	tail    string
}

func (p *parser) report(kind ProblemKind, offset int, pointer, message string) {
	p.reportAt(kind, offset, pointer, message, -1, "")
}

// MaxProblemsPerKind bounds the non-fatal problems listed per kind; the
// rest are counted in one closing problem of that kind.
const MaxProblemsPerKind = 100

func (p *parser) reportAt(kind ProblemKind, offset int, pointer, message string, related int, tail string) {
	if !kind.Fatal() {
		if p.listed[kind] >= MaxProblemsPerKind {
			p.unlisted[kind]++
			return
		}
		p.listed[kind]++
	}
	p.pending = append(p.pending, pending{kind: kind, offset: offset, pointer: pointer, message: message, related: related, tail: tail})
}

// noteUnlisted adds, per kind that overflowed, one problem saying how many
// more there were, placed after the last listed one.
func (p *parser) noteUnlisted() {
	for kind, n := range p.unlisted {
		if n == 0 {
			continue
		}
		last := 0
		for _, q := range p.pending {
			if q.kind == ProblemKind(kind) {
				last = max(last, q.offset)
			}
		}
		p.pending = append(p.pending, pending{kind: ProblemKind(kind), offset: last, related: -1,
			message: fmt.Sprintf("%d more %s problems after this one are not listed", n, ProblemKind(kind))})
	}
}

func (p *parser) fail(kind ProblemKind, offset int, pointer, message string) {
	p.report(kind, offset, pointer, message)
	p.failed = true
}

func (p *parser) failAt(kind ProblemKind, offset int, pointer, message string, related int, tail string) {
	p.reportAt(kind, offset, pointer, message, related, tail)
	p.failed = true
}

func (p *parser) resolve() []Problem {
	p.noteUnlisted()
	if len(p.pending) == 0 {
		return nil
	}
	offsets := make([]int, 0, 2*len(p.pending))
	for _, q := range p.pending {
		offsets = append(offsets, q.offset)
		if q.related >= 0 {
			offsets = append(offsets, q.related)
		}
	}
	slices.Sort(offsets)
	offsets = slices.Compact(offsets)
	positions := make([][2]int, len(offsets))
	counter := newLineCounter(p.data)
	for i, off := range offsets {
		positions[i][0], positions[i][1] = counter.advance(off)
	}
	at := func(off int) (int, int) {
		i, _ := slices.BinarySearch(offsets, off)
		return positions[i][0], positions[i][1]
	}
	problems := make([]Problem, len(p.pending))
	for i, q := range p.pending {
		message := q.message
		if q.related >= 0 {
			line, col := at(q.related)
			message += "line " + strconv.Itoa(line) + ", column " + strconv.Itoa(col) + q.tail
		}
		line, col := at(q.offset)
		problems[i] = Problem{Kind: q.kind, Offset: q.offset, Line: line, Column: col, Pointer: q.pointer, Message: message}
	}
	// Duplicates are found when their object closes, after the problems
	// inside it; readers want the file's order.
	slices.SortStableFunc(problems, func(a, b Problem) int { return cmp.Compare(a.Offset, b.Offset) })
	return problems
}

// unexpected reports what stands at p.pos where the grammar, at site,
// wanted something else.
func (p *parser) unexpected(at site) {
	if p.pos >= len(p.data) {
		p.truncated()
		return
	}
	found := describe(p.data, p.pos)
	c := p.data[p.pos]
	var pointer, message, hint string
	switch at {
	case siteTop:
		message = "unexpected " + found + "; expected a json value"
		hint = valueHint(p.data, p.pos)
	case siteArrayFirst:
		pointer = p.childPointer()
		message = "unexpected " + found + ` after "["; expected a value or "]"`
		hint = valueHint(p.data, p.pos)
	case siteArrayNext:
		pointer = p.childPointer()
		message = "unexpected " + found + ` after ","; expected a value`
		if c == ']' {
			pointer = p.containerPointer(len(p.frames) - 1)
			hint = "trailing commas are not allowed"
		} else {
			hint = valueHint(p.data, p.pos)
		}
	case siteMemberValue:
		pointer = p.childPointer()
		message = "unexpected " + found + " as the value of member " + quote(p.frames[len(p.frames)-1].name) + "; expected a json value"
		hint = valueHint(p.data, p.pos)
	case siteArrayAfter:
		pointer = p.containerPointer(len(p.frames) - 1)
		message = "unexpected " + found + ` after array element; expected "," or "]"`
		if c == '}' {
			p.stillOpen(pointer, message)
			return
		}
		if startsValue(c) {
			hint = `missing "," between elements?`
		}
	case siteObjectFirst, siteObjectNext:
		pointer = p.containerPointer(len(p.frames) - 1)
		if at == siteObjectFirst {
			message = "unexpected " + found + ` after "{"; expected a quoted member name or "}"`
		} else {
			message = "unexpected " + found + ` after ","; expected a quoted member name`
		}
		switch {
		case c == '}' && at == siteObjectNext:
			hint = "trailing commas are not allowed"
		case c == ']':
			p.stillOpen(pointer, message)
			return
		case c == '\'':
			hint = "json strings use double quotes"
		case isLetter(c) || c == '_' || c == '$':
			hint = "member names must be in double quotes"
		default:
			hint = commentHint(p.data, p.pos)
		}
	case siteColon:
		pointer = p.childPointer()
		message = "unexpected " + found + " after member name " + quote(p.frames[len(p.frames)-1].name) + `; expected ":"`
	case siteObjectAfter:
		pointer = p.containerPointer(len(p.frames) - 1)
		message = "unexpected " + found + ` after object member; expected "," or "}"`
		switch {
		case c == ']':
			p.stillOpen(pointer, message)
			return
		case c == '"':
			hint = `missing "," between members?`
		default:
			hint = commentHint(p.data, p.pos)
		}
	}
	if hint != "" {
		message += " (" + hint + ")"
	}
	p.fail(Syntax, p.pos, pointer, message)
}

// stillOpen reports a closing bracket that does not match the innermost
// open container, naming where that container was opened.
func (p *parser) stillOpen(pointer, message string) {
	f := p.frames[len(p.frames)-1]
	kind := "array"
	if f.object {
		kind = "object"
	}
	p.failAt(Syntax, p.pos, pointer, message+" (the "+kind+" opened at ", f.open, " is still open)")
}

// truncated reports the end of input inside an open container.
func (p *parser) truncated() {
	if len(p.frames) == 0 {
		p.fail(Syntax, len(p.data), "", "unexpected end of input; expected a json value")
		return
	}
	f := p.frames[len(p.frames)-1]
	closer, kind := `"]"`, "array"
	if f.object {
		closer, kind = `"}"`, "object"
	}
	p.failAt(Syntax, len(p.data), p.containerPointer(len(p.frames)-1),
		"unexpected end of input: the document is truncated (expected "+closer+" to close the "+kind+" opened at ", f.open, ")")
}

func (p *parser) trailing() {
	message := "unexpected " + describe(p.data, p.pos) + " after the top-level value; expected end of input"
	switch p.data[p.pos] {
	case '}', ']':
		message += " (one closing bracket too many?)"
	case ',', '{', '[', '"':
		message += " (a json text holds exactly one value)"
	default:
		if h := commentHint(p.data, p.pos); h != "" {
			message += " (" + h + ")"
		}
	}
	p.fail(TrailingData, p.pos, "", message)
}

// stringFault reports why the string opened at open could not be read. A
// broken member name has no pointer of its own; its object's is used.
func (p *parser) stringFault(open int, scan stringScan) {
	pointer := p.childPointer()
	if p.readingName {
		pointer = p.containerPointer(len(p.frames) - 1)
	}
	switch scan.fault {
	case faultUnterminated:
		p.failAt(Syntax, len(p.data), pointer, "unterminated string starting at ", open, "; the input ends before its closing quote")
	case faultControl:
		at := scan.faultAt
		switch c := p.data[at]; c {
		case '\n', '\r':
			what, escape := "line break", `\n`
			if c == '\r' {
				what, escape = "carriage return", `\r`
			}
			p.failAt(Syntax, at, pointer, "unescaped "+what+" in the string starting at ", open,
				"; expected the closing quote before the end of the line (write a "+what+" inside a string as "+escape+")")
		case '\t':
			p.fail(Syntax, at, pointer, `unescaped tab in string; write it as \t`)
		default:
			p.fail(Syntax, at, pointer, fmt.Sprintf(`unescaped control character U+%04X in string; write it as \u%04x`, c, c))
		}
	case faultEscape:
		at := scan.faultAt
		const valid = `expected one of \" \\ \/ \b \f \n \r \t \uXXXX`
		e := p.data[at+1]
		switch {
		case e == 'u':
			end := min(at+6, len(p.data))
			text := p.data[at:end]
			if isPrintableASCII(text) {
				p.fail(Syntax, at, pointer, `invalid escape "`+string(text)+`" in string; expected 4 hex digits after \u`)
			} else {
				p.fail(Syntax, at, pointer, `invalid escape in string; expected 4 hex digits after \u`)
			}
		case e == '\'':
			p.fail(Syntax, at, pointer, `invalid escape "\'" in string; `+valid+` (a single quote needs no escape in json)`)
		case e > ' ' && e < utf8.RuneSelf:
			p.fail(Syntax, at, pointer, `invalid escape "\`+string(e)+`" in string; `+valid)
		default:
			p.fail(Syntax, at, pointer, `invalid escape in string: "\" followed by `+describe(p.data, at+1)+"; "+valid)
		}
	}
}

func (p *parser) badNumber(start, at int, why string) {
	p.fail(Syntax, at, p.childPointer(), "invalid number "+quote(numberText(p.data, start))+": "+why)
}

func (p *parser) truncatedNumber(start int, why string) {
	p.fail(Syntax, len(p.data), p.childPointer(),
		"unexpected end of input: the document is truncated in number "+quote(numberText(p.data, start))+" ("+why+")")
}

// badLiteral reports a word where true, false or null (want) was begun.
func (p *parser) badLiteral(want string) {
	word := wordAt(p.data, p.pos)
	if p.pos+len(word) == len(p.data) && strings.HasPrefix(want, word) {
		p.fail(Syntax, len(p.data), p.childPointer(),
			"unexpected end of input: the document is truncated in "+quote(word)+" (expected "+want+")")
		return
	}
	p.fail(Syntax, p.pos, p.childPointer(), "invalid literal "+quote(word)+"; expected "+want)
}

func (p *parser) invalidUTF8(scan stringScan, where, pointer string) {
	bad := fmt.Sprintf("0x%02x", p.data[scan.invalidAt])
	if scan.invalidCount == 1 {
		p.report(InvalidUTF8, scan.invalidAt, pointer, "invalid utf-8 byte "+bad+" in "+where+"; it reads as U+FFFD")
		return
	}
	p.report(InvalidUTF8, scan.invalidAt, pointer,
		fmt.Sprintf("%d invalid utf-8 bytes in %s (the first is %s); each reads as U+FFFD", scan.invalidCount, where, bad))
}

// duplicate reports m, a member whose name the object already had at first.
func (p *parser) duplicate(m member, first int) {
	pointer := p.containerPointer(len(p.frames)-1) + "/" + EscapeToken(m.name)
	p.reportAt(DuplicateKey, m.offset, pointer, "duplicate key "+quote(m.name)+" (first at ", first,
		"); the later value wins in most readers")
}

// lookalikes reports each member whose name shows as an earlier one's
// (ShownName): it differs only by characters that show as nothing (a
// zero-width space, a word joiner, a bidirectional mark, a variation
// selector, a combining grapheme joiner) or by letters drawn alike (a
// Cyrillic "а" for "a"). A
// reader sees the same key twice and takes the later value, while the
// checker, like any JSON reader, holds two keys and reads the one the name
// is spelled for.
func (p *parser) lookalikes(members []member) {
	plain := true
	for _, m := range members {
		for i := 0; i < len(m.name) && plain; i++ {
			plain = m.name[i] < utf8.RuneSelf
		}
	}
	if plain {
		return
	}
	first := make(map[string]member, len(members)) // by the name as shown
	written := make(map[string]bool, len(members))
	for _, m := range members {
		if written[m.name] {
			continue // a duplicate, reported as one
		}
		written[m.name] = true
		shown := ShownName(m.name)
		prev, seen := first[shown]
		if !seen {
			first[shown] = m
			continue
		}
		pointer := p.containerPointer(len(p.frames)-1) + "/" + EscapeToken(m.name)
		p.reportAt(DuplicateKey, m.offset, pointer, "key "+quote(m.name)+" shows as "+quote(shown)+DrawnLike(m.name)+", as the key "+quote(prev.name)+" does (first at ", prev.offset,
			"): a reader sees one key written twice, while readers of the data hold two different keys")
	}
}

// ShownName is name as a reader sees it: without the characters that show
// as nothing (invisible), and with each letter, digit or sign that is
// drawn like an ASCII one (a Cyrillic, Greek, Armenian or Cherokee letter
// such as U+0430, a fullwidth form, a mathematical or letterlike symbol, a
// Roman numeral, a dash) written as that one. Two names with one ShownName
// look the same.
func ShownName(name string) string {
	return strings.Map(func(r rune) rune {
		if invisible(r) {
			return -1
		}
		return showsAs(r)
	}, name)
}

// invisible reports whether r is drawn as nothing: Unicode's
// default-ignorable code points, which renderers skip. They are the format
// characters (a zero-width space, a bidirectional mark), the variation
// selectors, and the few others Unicode lists (a combining grapheme joiner,
// the Hangul fillers).
func invisible(r rune) bool {
	return r >= utf8.RuneSelf && unicode.In(r, unicode.Cf, unicode.Variation_Selector, unicode.Other_Default_Ignorable_Code_Point)
}

// DrawnLike names, for a message, the first character of name that is
// drawn like an ASCII one it is not (` (U+0430 is drawn like "a")`), since
// the quoted name shows it as that one, or that is drawn as nothing where
// the quoted name keeps it as it is (` (U+034F is not drawn)`); "" when
// there is none.
func DrawnLike(name string) string {
	for _, r := range name {
		if invisible(r) {
			if strconv.IsPrint(r) {
				return fmt.Sprintf(" (U+%04X is not drawn)", r)
			}
			continue // the quoted name writes it as an escape
		}
		if a := showsAs(r); a != r {
			return fmt.Sprintf(" (U+%04X is drawn like %q)", r, string(a))
		}
	}
	return ""
}

// confusables maps letters of other scripts and letter-like symbols to
// the ASCII letter they are drawn like in common fonts. The list is the
// small, explicit part of Unicode's confusables (and of its compatibility
// forms) that fits a key name: Cyrillic, Greek, Armenian and Cherokee
// letters whose glyph is a Latin one's, Latin letters without their dot,
// letterlike symbols and Roman numerals. Fullwidth forms and mathematical
// letters and digits, whole ranges, are in showsAs.
var confusables = map[rune]rune{
	// Cyrillic small letters.
	'а': 'a', 'с': 'c', 'ԁ': 'd', 'е': 'e', 'һ': 'h', 'і': 'i', 'ј': 'j', 'ӏ': 'l',
	'о': 'o', 'р': 'p', 'ԛ': 'q', 'ѕ': 's', 'ԝ': 'w', 'х': 'x', 'у': 'y',
	// Cyrillic capital letters.
	'А': 'A', 'В': 'B', 'С': 'C', 'Е': 'E', 'Н': 'H', 'І': 'I', 'Ӏ': 'I', 'Ј': 'J',
	'К': 'K', 'М': 'M', 'О': 'O', 'Р': 'P', 'Ԛ': 'Q', 'Ѕ': 'S', 'Т': 'T', 'Ԝ': 'W',
	'Х': 'X', 'Ү': 'Y',
	// Greek capital letters.
	'Α': 'A', 'Β': 'B', 'Ε': 'E', 'Ζ': 'Z', 'Η': 'H', 'Ι': 'I', 'Κ': 'K', 'Μ': 'M',
	'Ν': 'N', 'Ο': 'O', 'Ρ': 'P', 'Τ': 'T', 'Υ': 'Y', 'Χ': 'X',
	// Greek small letters.
	'ο': 'o', 'ν': 'v', 'ϲ': 'c', 'ϳ': 'j',
	// Armenian small letters.
	'ա': 'w', 'զ': 'q', 'հ': 'h', 'ո': 'n', 'ս': 'u', 'ց': 'g', 'օ': 'o',
	// Armenian capital letters.
	'Ս': 'U', 'Օ': 'O',
	// Cherokee letters drawn as Latin capitals.
	'\u13AA': 'A', '\u13F4': 'B', '\u13DF': 'C', '\u13A0': 'D', '\u13AC': 'E', '\u13C0': 'G',
	'\u13BB': 'H', '\u13AB': 'J', '\u13E6': 'K', '\u13DE': 'L', '\u13B7': 'M', '\u13E2': 'P',
	'\u13A1': 'R', '\u13DA': 'S', '\u13A2': 'T', '\u13D9': 'V', '\u13B3': 'W', '\u13D4': 'W',
	'\u13C3': 'Z',
	// Latin letters without their dot, and the Latin alpha and script g.
	'ı': 'i', 'ȷ': 'j', 'ɑ': 'a', 'ɡ': 'g',
	// Letterlike symbols (their compatibility forms are these letters).
	'ℂ': 'C', 'ℊ': 'g', 'ℋ': 'H', 'ℌ': 'H', 'ℍ': 'H', 'ℎ': 'h', 'ℐ': 'I', 'ℑ': 'I',
	'ℒ': 'L', 'ℓ': 'l', 'ℕ': 'N', 'ℙ': 'P', 'ℚ': 'Q', 'ℛ': 'R', 'ℜ': 'R', 'ℝ': 'R',
	'ℤ': 'Z', 'K': 'K', 'ℬ': 'B', 'ℭ': 'C', 'ℯ': 'e', 'ℰ': 'E', 'ℱ': 'F', 'ℳ': 'M',
	'ℴ': 'o', 'ℹ': 'i', 'ⅅ': 'D', 'ⅆ': 'd', 'ⅇ': 'e', 'ⅈ': 'i', 'ⅉ': 'j',
	// Roman numerals drawn as the letters they are written with.
	'Ⅰ': 'I', 'Ⅴ': 'V', 'Ⅹ': 'X', 'Ⅼ': 'L', 'Ⅽ': 'C', 'Ⅾ': 'D', 'Ⅿ': 'M',
	'ⅰ': 'i', 'ⅴ': 'v', 'ⅹ': 'x', 'ⅼ': 'l', 'ⅽ': 'c', 'ⅾ': 'd', 'ⅿ': 'm',
	// Dashes and minus signs drawn as a hyphen-minus.
	'\u2010': '-', '\u2011': '-', '\u2012': '-', '\u2013': '-', '\u2212': '-', '\uFE63': '-',
}

// showsAs returns the ASCII character r is drawn like, or r itself.
func showsAs(r rune) rune {
	switch {
	case r < utf8.RuneSelf:
		return r
	case r >= 0xFF01 && r <= 0xFF5E: // fullwidth forms of "!" to "~"
		return r - 0xFF01 + '!'
	case r >= 0x1D400 && r <= 0x1D6A3: // mathematical letters: styles of A-Z a-z
		if k := (r - 0x1D400) % 52; k < 26 {
			return 'A' + k
		} else {
			return 'a' + k - 26
		}
	case r >= 0x1D7CE && r <= 0x1D7FF: // mathematical digits: styles of 0-9
		return '0' + (r-0x1D7CE)%10
	}
	if a, ok := confusables[r]; ok {
		return a
	}
	return r
}

// describe names what stands at data[at] for a message: a quoted
// character or word, or what kind of byte it is.
func describe(data []byte, at int) string {
	if at >= len(data) {
		return "end of input"
	}
	c := data[at]
	switch {
	case isLetter(c):
		return quote(wordAt(data, at))
	case c == '"':
		return `'"'`
	case c == '\\':
		return `"\"`
	case c > ' ' && c < 0x7f:
		return `"` + string(c) + `"`
	case c == ' ':
		return "space"
	case c == 0:
		return "nul byte (U+0000)"
	case c < utf8.RuneSelf:
		return fmt.Sprintf("control character U+%04X", c)
	}
	r, size := utf8.DecodeRune(data[at:])
	if r == utf8.RuneError && size == 1 {
		return fmt.Sprintf("invalid utf-8 byte 0x%02x", c)
	}
	return fmt.Sprintf("%s (U+%04X)", strconv.Quote(string(r)), r)
}

// valueHint says what was probably meant where a value was expected.
func valueHint(data []byte, at int) string {
	c := data[at]
	switch {
	case c == '\'':
		return "json strings use double quotes"
	case c == '+':
		return `a number must not start with "+"`
	case c == '.':
		return "a number must start with a digit, as in 0.5"
	case c == 0:
		return "is the file utf-16? save it as utf-8"
	case (c == 0xFF || c == 0xFE) && at == 0:
		return "the file looks like utf-16; save it as utf-8"
	case isLetter(c):
		word := wordAt(data, at)
		switch lower := strings.ToLower(word); lower {
		case "true", "false", "null":
			return "json literals are lower-case: " + lower
		case "none", "nil", "undefined":
			return "json writes a missing value as null"
		case "nan", "infinity", "inf":
			return "json has no NaN or Infinity"
		}
		return "strings must be in double quotes"
	}
	if r, _ := utf8.DecodeRune(data[at:]); r == '\uFEFF' {
		return "a byte order mark is allowed only at the very start of the file"
	}
	return commentHint(data, at)
}

func commentHint(data []byte, at int) string {
	if data[at] == '#' || (data[at] == '/' && at+1 < len(data) && (data[at+1] == '/' || data[at+1] == '*')) {
		return "comments are not allowed in json"
	}
	return ""
}

func startsValue(c byte) bool {
	return c == '"' || c == '{' || c == '[' || c == '-' || isDigit(c) || c == 't' || c == 'f' || c == 'n'
}

func isLetter(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }

// wordAt returns the run of letters, digits and underscores at data[at],
// cut short for a message.
func wordAt(data []byte, at int) string {
	end := at
	for end < len(data) && end-at < 32 && (isLetter(data[end]) || isDigit(data[end]) || data[end] == '_') {
		end++
	}
	return string(data[at:end])
}

// numberText returns what looks like the number at data[start], for a
// message.
func numberText(data []byte, start int) string {
	end := start
	for end < len(data) && end-start < 32 && strings.IndexByte("0123456789+-.eE", data[end]) >= 0 {
		end++
	}
	return string(data[start:end])
}

func isPrintableASCII(b []byte) bool {
	for _, c := range b {
		if c < ' ' || c >= 0x7f {
			return false
		}
	}
	return true
}

// quote quotes s for a message, shortening what would swamp it.
func quote(s string) string {
	const keep = 60
	if utf8.RuneCountInString(s) <= keep {
		return strconv.Quote(s)
	}
	cut := 0
	for range keep {
		_, size := utf8.DecodeRuneInString(s[cut:])
		cut += size
	}
	return strconv.Quote(s[:cut]) + "…"
}
