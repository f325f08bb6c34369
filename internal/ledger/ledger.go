// Package ledger parses the three Markdown ledgers of an H3A run
// (state/ROADMAP.md, state/GATES_LEDGER.md, state/EVIDENCE_LOG.md) into
// records that keep their 1-based line numbers, so every finding about a
// record can point at file:line:col.
//
// The parsers are tolerant of everything that is not a record (prose, tables,
// criteria, headings in any order) and strict about what is: a line that looks
// like a record but does not follow its grammar is reported as a Problem at
// its line, never silently dropped. Lines inside HTML comments and fenced code
// blocks are not records (the gate events log, which producers often fence,
// is the one exception). A comment is one where Markdown sees one: "<!--"
// in a code span opens none, and a comment that Markdown ends while it goes
// on hiding lines here is reported: one opened after text on its line ends
// with its paragraph, one opened in a block quote or a list item with the
// quote or the item, and one indented as code is none. A <script> or
// <style> block (an HTML block whose text a browser shows none of) is not
// read either, and is reported when it hides any text. Likewise a fence is
// one where Markdown opens one (at most 3 columns deeper than the content of
// the list item it is in) and ends with its list item. CRLF line endings
// and a leading UTF-8 BOM are accepted, characters that show as nothing
// (zero-width spaces and joiners, soft hyphens) are read as nothing, and a
// heading, a table cell or a labelled value is read as shown (a character
// reference as its character, any white space as a space); a heading
// underlined (setext) or standing in a block quote or a list item that
// names a section the parsers read, invalid UTF-8, a NUL byte (UTF-16
// text), over-long lines, a lone
// CR with text after it (a line break to every Markdown reader, not to
// these parsers) and a bidirectional override or isolate (which shows a
// line in another order than it is read) are reported, never fatal.
//
// Positions: lines and columns are 1-based; a column counts Unicode code
// points from the start of the line (an invalid UTF-8 byte counts as one; a
// leading BOM, and a format character that shows as nothing, such as a
// zero-width space, count as none). Only LF ends a line; a CR before it
// belongs to the line it ends and is not part of the line's text.
package ledger

import (
	"bytes"
	"cmp"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// MaxLineBytes is the longest line the parsers read; a longer line is
// reported as a Problem and otherwise ignored.
const MaxLineBytes = 1 << 20

// Problem is a defect of the document at a position.
type Problem struct {
	Line, Column int    // 1-based; column in code points
	Message      string // lower-case, concrete, says what was expected
}

func (p Problem) String() string { return fmt.Sprintf("%d:%d: %s", p.Line, p.Column, p.Message) }

// The messages of the problems about a line written as a record (a gate
// event, an evidence entry, a task) that is not read as one begin with one
// of these; the parsers write them from here, so UnreadRecord and the
// messages cannot drift apart.
const (
	malformedEvent = "malformed gate event"
	eventOutside   = "gate event outside"
	malformedEntry = "malformed evidence entry"
	malformedTask  = "malformed task"
)

var recordProblems = []string{malformedEvent, eventOutside, malformedEntry, malformedTask}

// UnreadRecord reports whether p is about a line written as a record of the
// ledger that the parser did not read as one: a malformed gate event,
// evidence entry or task, or a gate event outside the events log. Such a
// line is in the ledger for a reader all the same, so its history counts.
func UnreadRecord(p Problem) bool {
	for _, prefix := range recordProblems {
		if strings.HasPrefix(p.Message, prefix) {
			return true
		}
	}
	return false
}

// Section is an ATX heading ("#" to "######") outside code and comments.
type Section struct {
	Title string // without the #'s (opening and closing), trimmed
	Level int    // number of #'s
	Line  int
}

// line is one line of a scanned document.
type line struct {
	num  int
	text string // valid UTF-8 (each invalid byte is U+FFFD), no EOL, no BOM; comments blanked outside code; "" if too long
	// code marks a line inside a fenced code block or one of its fences; its
	// text is kept as written because comments do not exist inside code.
	code  bool
	fence bool // the opening or closing fence itself
	level int  // heading level, 0 if not a heading
	title string
	// indented is how far the line is indented past the content of the
	// list item it belongs to (of the document, outside lists), in
	// columns. From 4 on, Markdown never starts a list item there: the
	// line is indented code, or text of the paragraph above.
	indented int
	// indentedCode marks a line of an indented code block: indented 4
	// columns or more past its list item where no paragraph goes on.
	// Markdown shows it as code, so a label there ("    **Status:**
	// Complete") is no field to a reader.
	indentedCode bool
	// setext is the level of the heading this line underlines (1 for
	// "===", 2 for "---"), 0 if none; setextTitle is that heading's
	// title. The parsers read sections from "#" headings, but such a
	// heading ends the section above it for a reader all the same.
	setext      int
	setextTitle string
	// setextText marks a line of the text of an underlined heading: the
	// paragraph above a setext underline, which Markdown shows as the
	// heading, not as the lines (or records) it is written as.
	setextText bool
	// collapsed marks a line inside a <details> element without the open
	// attribute: GitHub shows it closed, so a reader sees its <summary>
	// and none of this line until they unfold it.
	collapsed bool
}

type document struct {
	lines    []line
	sections []Section
	problems []Problem
	unlisted int // problems past MaxProblems, counted only
}

// scan splits data into lines and classifies them. It is the only place that
// knows about fences, comments, headings, encodings and line endings, so the
// three parsers agree on what a line is.
func scan(data []byte) *document {
	data = bytes.TrimPrefix(data, []byte("\xEF\xBB\xBF"))
	d := &document{sections: []Section{}, lines: make([]line, 0, bytes.Count(data, []byte("\n"))+1)}
	var (
		inComment             bool
		commentLine, commentC int
		// A comment left open at the end of its line is one to Markdown
		// only as far as what holds it goes on: an inline comment (opened
		// after text on its line) ends with its paragraph, one opened in a
		// block quote or a list item with the quote or the item, and an
		// opener indented as code is no comment at all. held is that
		// comment's extent (nil for a comment block of the document, which
		// only "-->" ends). endedAt is the line where Markdown ended it while
		// it was open (0 if none), and endedHides whether a non-blank line
		// from there on was hidden: then Markdown shows what this parser
		// hides.
		held       *commentHold
		endedAt    int
		endedWhy   string
		endedHides bool
		para       bool // the line before is paragraph text, which an indented line continues
		paraFirst  line // the first line of the paragraph para is in
		// ticks is the length of a backtick run the paragraph's lines so far
		// left open (0 if none): a code span that a later line of the
		// paragraph may close, and that holds what stands between.
		ticks             int
		fenceChar         byte
		fenceLen          int // 0 outside a fence
		fenceLine, fenceC int
		hidden            int   // non-blank lines swallowed by the open fence or comment
		items             []int // content columns of the list items a line may belong to, innermost last
		fenceBase         int   // content column of the list item the open fence is in, 0 outside lists
		// rawTag is the tag of an open <script> or <style> block ("" if
		// none): Markdown passes it to the browser, which shows none of
		// it, up to the line holding its end tag.
		rawTag          string
		rawLine, rawC   int
		rawHidden       int
		rawTrailingText bool
		// details holds the <details> elements open at the end of the
		// line before, innermost last: true for one shown closed.
		details []bool
		nulSeen bool // a NUL byte was reported: one problem says it for the whole file
	)
	for num := 1; len(data) > 0; num++ {
		raw := data
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			raw, data = data[:i], data[i+1:]
		} else {
			data = nil
		}
		if n := len(raw); n > 0 && raw[n-1] == '\r' {
			raw = raw[:n-1]
		}
		l := line{num: num}
		if len(raw) > MaxLineBytes {
			d.problem(num, 1, "line is %d bytes long, over the limit of %d bytes; it is not read", len(raw), MaxLineBytes)
			d.lines = append(d.lines, l)
			continue
		}
		text, badCol, badByte := sanitize(raw)
		if badCol > 0 {
			d.problem(num, badCol, "invalid UTF-8 byte 0x%02x; expected UTF-8 text", badByte)
		}
		if !nulSeen {
			if at := strings.IndexByte(text, 0); at >= 0 {
				nulSeen = true
				d.problem(num, column(text, at), "a NUL byte: the file is not UTF-8 text (UTF-16 without a byte order mark writes one after every ASCII character), GitHub shows a file holding one as binary, not as Markdown, and no record of it is read as written; expected UTF-8 text")
			}
		}
		text, bidiCol, bidi := dropInvisible(text)
		if bidiCol > 0 {
			d.problem(num, bidiCol, "bidirectional control character %U makes the text after it show in another order than it is read, so a reader sees other words than are checked; expected none in a ledger", bidi)
		}
		if cr := loneCR(text); cr >= 0 {
			d.problem(num, column(text, cr), "carriage return without a line feed: the text after it (%s) shows as a line of its own but is read as part of this one, so a record there is not read; expected LF or CRLF line endings", snippet(strings.TrimSpace(text[cr+1:])))
		}
		if rawTag == "" && fenceLen == 0 && !inComment {
			if tag, at := rawBlockOpener(text, items); tag != "" {
				rawTag, rawLine, rawC, rawHidden, rawTrailingText = tag, num, column(text, at), 0, false
			}
		}
		if rawTag != "" {
			// No line of the block is read: a record there shows to no
			// one, and the block is reported if it hides any text, so a
			// record placed there neither counts nor goes unnoticed.
			rest, closed := rawBlockText(text, rawTag, num == rawLine)
			if _, inner := quoteMarkers(rest); strings.TrimSpace(inner) != "" {
				rawHidden++
			}
			if closed {
				if _, after, _ := strings.Cut(lowerASCII(text), "</"+rawTag); strings.TrimSpace(after[strings.IndexByte(after, '>')+1:]) != "" {
					rawTrailingText = true
				}
				d.rawBlockProblem(rawLine, rawC, rawTag, rawHidden, rawTrailingText, num)
				rawTag = ""
			}
			para = false
			d.lines = append(d.lines, l)
			continue
		}
		if fenceLen > 0 && fenceBase > 0 && strings.TrimSpace(text) != "" && indentColumns(text) < fenceBase {
			// A line indented less than the content of the list item the
			// fence is in ends the item, and the fence with it: Markdown
			// shows this line and those after it.
			fenceLen, hidden = 0, 0
		}
		if (fenceLen > 0 || inComment) && strings.TrimSpace(text) != "" {
			hidden++
		}
		opens, fenceAt := 0, 0
		if fenceLen == 0 && !inComment && strings.TrimSpace(text) != "" {
			l.indented = indentColumns(text) - itemBase(text, items)
			opens, fenceAt, items = fenceInList(text, items)
		}
		paraBefore := para
		para = false
		switch {
		case fenceLen > 0:
			l.code = true
			if closesFence(text, fenceChar, fenceLen, fenceBase) {
				l.fence = true
				fenceLen = 0
				hidden = 0
			}
		case opens > 0:
			indent := len(text) - len(strings.TrimLeft(text, " \t"))
			if fenceAt > 0 {
				indent = fenceAt // the fence of "- ```" is the item's content
			}
			fenceChar, fenceLen = text[indent], opens
			fenceBase = 0
			if len(items) > 0 {
				fenceBase = items[len(items)-1]
			}
			fenceLine, fenceC = num, utf8.RuneCountInString(text[:indent])+1
			l.code, l.fence = true, true
			hidden = 0
		default:
			wasOpen := inComment
			inParagraph := !wasOpen || (held != nil && held.inline)
			if !paraBefore {
				ticks = 0
			}
			if inComment && held != nil {
				why := held.ends(text)
				if why == "" && held.ticks > 0 && hasTickRun(text, held.ticks) {
					why = spanCloser
				}
				if why != "" && endedAt == 0 {
					endedAt, endedWhy = num, why
				}
				if endedAt > 0 && strings.TrimSpace(beforeClose(text)) != "" {
					endedHides = true
				}
			}
			written := text
			var openCol int
			text, inComment, openCol = blankComments(text, inComment)
			if wasOpen && (!inComment || openCol > 0) && endedHides {
				d.problem(commentLine, commentC, "%s", held.message(endedWhy, endedAt, num))
			}
			if wasOpen && (!inComment || openCol > 0) {
				held, endedAt, endedWhy, endedHides = nil, 0, "", false
			}
			if openCol > 0 {
				commentLine, commentC = num, openCol
				held = holdComment(written, text, openCol, items, paraBefore)
				if held != nil && held.code {
					endedAt, endedWhy = num, "indented code"
				}
				if held != nil && held.inline {
					// An opener after a backtick run left open may stand in a
					// code span that Markdown closes further on.
					at := runeOffset(written, openCol-1)
					if open := tickCarry(ticks, written[:at]); open > 0 {
						if hasTickRun(written[min(at+len("<!--"), len(written)):], open) {
							endedAt, endedWhy = num, spanCloser
						} else {
							held.ticks = open
						}
					}
				}
				hidden = 0
			} else if wasOpen && !inComment {
				hidden = 0
			}
			l.level, l.title = atxHeading(text)
			l.title = shownText(l.title)
			if l.level > 0 {
				d.sections = append(d.sections, Section{Title: l.title, Level: l.level, Line: num})
			} else {
				d.containedSection(num, text)
			}
			para = inParagraph && l.level == 0 && isParagraphText(written, l.indented, paraBefore)
			l.indentedCode = !wasOpen && l.indented >= 4 && !paraBefore && strings.TrimSpace(written) != ""
			if para {
				ticks = tickCarry(ticks, text)
			}
			if para && !paraBefore {
				paraFirst = line{num: num, text: written}
			}
			if paraBefore && !inComment && !wasOpen && l.indented < 4 && isSetextUnderline(written) {
				if d.setextSection(paraFirst) {
					l.setext = 2
					if strings.TrimSpace(written)[0] == '=' {
						l.setext = 1
					}
					l.setextTitle = shownText(strings.TrimSpace(paraFirst.text))
					d.markSetextText(paraFirst.num, num)
				}
			}
		}
		l.collapsed = slices.Contains(details, true)
		if !l.code {
			details = detailsTags(text, details)
			l.collapsed = l.collapsed || slices.Contains(details, true)
		}
		l.text = text
		d.lines = append(d.lines, l)
	}
	// An unclosed fence or comment silently hides every record after it, so
	// say so when it hides anything at all.
	if fenceLen > 0 && hidden > 0 {
		marker := strings.Repeat(string(fenceChar), fenceLen)
		d.problem(fenceLine, fenceC, "code fence %q is never closed and turns the %s after it into code; expected a closing %q", marker, nonBlankLines(hidden), marker)
	}
	if inComment && hidden > 0 {
		d.problem(commentLine, commentC, "html comment \"<!--\" is never closed and hides the %s after it; expected \"-->\"", nonBlankLines(hidden))
	}
	if rawTag != "" {
		d.rawBlockProblem(rawLine, rawC, rawTag, rawHidden, false, 0)
	}
	return d
}

var detailsTag = regexp.MustCompile(`(?i)<(/?)details(?:(\s[^>]*)(?:>|$)|>|$)`)

// detailsOpen matches the open attribute among a <details> tag's attributes.
var detailsOpen = regexp.MustCompile(`(?i)(?:^|\s)open(?:\s|=|/|$)`)

// detailsTags returns open, the <details> elements open before text (true
// for one shown closed), updated by the <details> and </details> tags of
// text outside code spans. HTML lets such an element hold Markdown on the
// lines between its tags, and GitHub shows it closed unless its tag has the
// open attribute.
func detailsTags(text string, open []bool) []bool {
	// Every line of every ledger passes here: one without a tag is left
	// before its lower-case copy is made.
	if strings.IndexByte(text, '<') < 0 || !strings.Contains(lowerASCII(text), "details") {
		return open
	}
	spans := codeSpans(text)
	for _, m := range detailsTag.FindAllStringSubmatchIndex(text, -1) {
		if slices.ContainsFunc(spans, func(sp [2]int) bool { return sp[0] <= m[0] && m[0] < sp[1] }) {
			continue
		}
		if m[3] > m[2] { // "</details>"
			if len(open) > 0 {
				open = open[:len(open)-1]
			}
			continue
		}
		attrs := ""
		if m[4] >= 0 {
			attrs = text[m[4]:m[5]]
		}
		open = append(open, !detailsOpen.MatchString(attrs))
	}
	return open
}

// codeSpans returns the byte ranges of the code spans that open and close
// on line s.
func codeSpans(s string) [][2]int {
	var spans [][2]int
	runs := tickRuns(s)
	for k := 0; k < len(runs); k++ {
		if next := runs[k].next; next >= 0 {
			spans = append(spans, [2]int{runs[k].at, runs[next].at + runs[next].n})
			k = next
		}
	}
	return spans
}

// rawBlockOpener returns the tag ("script" or "style") of the HTML block
// text opens, as CommonMark opens one (HTML blocks, start condition 1: the
// tag at the start of the line, indented less than code, followed by a
// space, ">" or the line's end), and the byte offset of its "<"; "" if
// none. <pre> and <textarea> open such blocks too, but a browser shows
// their text.
func rawBlockOpener(text string, items []int) (string, int) {
	if indentColumns(text)-itemBase(text, items) >= 4 {
		return "", 0
	}
	trimmed := strings.TrimLeft(text, " \t")
	// A block opened in a block quote or as a list item's content ("-
	// <script>", "> <script>") hides its text as much as one of the
	// document does.
	for {
		if depth, rest := quoteMarkers(trimmed); depth > 0 {
			trimmed = strings.TrimLeft(rest, " \t")
			continue
		}
		if off, ok := listItem(trimmed); ok && off < len(trimmed) {
			trimmed = trimmed[off:]
			continue
		}
		break
	}
	if !strings.HasPrefix(trimmed, "<") {
		return "", 0
	}
	lower := lowerASCII(trimmed)
	for _, tag := range [...]string{"script", "style"} {
		rest, ok := strings.CutPrefix(lower, "<"+tag)
		if ok && (rest == "" || strings.IndexByte(" \t>", rest[0]) >= 0) {
			return tag, len(text) - len(trimmed)
		}
	}
	return "", 0
}

// rawBlockText returns the text of a line of an open raw HTML block that is
// neither its start tag (on the block's first line) nor its end tag, and
// whether the line holds the end tag, which CommonMark ends the block with
// (HTML blocks, end condition 1).
func rawBlockText(text, tag string, first bool) (string, bool) {
	lower := lowerASCII(text)
	from := 0
	if first {
		from = strings.Index(lower, "<"+tag)
		if end := strings.IndexByte(lower[from:], '>'); end >= 0 {
			from += end + 1
		} else {
			from = len(lower)
		}
	}
	at := strings.Index(lower[from:], "</"+tag)
	if at < 0 {
		return text[from:], false
	}
	return text[from : from+at], strings.Contains(lower[from+at:], ">")
}

// rawBlockProblem reports a <script> or <style> block (opened at line,
// col) that hides text from every reader of the rendered Markdown; closed
// is the line of its end tag, 0 if it has none.
func (d *document) rawBlockProblem(line, col int, tag string, hidden int, trailing bool, closed int) {
	switch {
	case closed == 0 && hidden > 0:
		d.problem(line, col, "html <%s> block is never closed and hides the %s after it from every reader of the rendered Markdown, so no record there is read; expected no <%s> block in a ledger", tag, nonBlankLines(hidden), tag)
	case hidden > 0:
		d.problem(line, col, "html <%s> block (to line %d) hides the %s in it from every reader of the rendered Markdown, so no record there is read; expected no <%s> block in a ledger", tag, closed, nonBlankLines(hidden), tag)
	}
	if trailing {
		d.problem(closed, 1, "text after the html </%s> end tag is part of the raw html block to Markdown and is not read here; put it on a line of its own", tag)
	}
}

// sortedProblems returns the problems in document order, whichever stage
// found them.
func (d *document) sortedProblems() []Problem {
	slices.SortStableFunc(d.problems, func(a, b Problem) int {
		return cmp.Or(cmp.Compare(a.Line, b.Line), cmp.Compare(a.Column, b.Column))
	})
	if d.unlisted > 0 {
		last := d.problems[len(d.problems)-1]
		d.problems = append(d.problems, Problem{Line: last.Line, Column: last.Column,
			Message: fmt.Sprintf("%d more problems after this one are not listed", d.unlisted)})
	}
	return d.problems
}

func nonBlankLines(n int) string {
	if n == 1 {
		return "1 non-blank line"
	}
	return fmt.Sprintf("%d non-blank lines", n)
}

// MaxProblems bounds the problems listed per document, so a huge malformed
// ledger cannot grow the report without bound; the rest are counted.
const MaxProblems = 200

// problemCount is how many problems were reported so far, listed or not.
func (d *document) problemCount() int { return len(d.problems) + d.unlisted }

func (d *document) problem(line, col int, format string, args ...any) {
	if len(d.problems) >= MaxProblems {
		d.unlisted++
		return
	}
	d.problems = append(d.problems, Problem{Line: line, Column: col, Message: fmt.Sprintf(format, args...)})
}

// sectionLines marks the lines inside every section whose heading matches:
// from the line after the heading up to the next heading of the same or a
// higher level. found reports whether any heading matched.
func (d *document) sectionLines(match func(title string) bool) (in []bool, found bool) {
	in = make([]bool, len(d.lines))
	level := 0 // level of the matching section we are in, 0 if none
	for i, l := range d.lines {
		if level > 0 && l.setext > 0 && l.setext <= level {
			// An underlined heading ends the section for a reader: what
			// follows it is under that heading, not the section's.
			level = 0
		}
		if l.level > 0 {
			if level > 0 && l.level <= level {
				level = 0
			}
			if level == 0 && match(l.title) {
				level, found = l.level, true
				continue
			}
		}
		in[i] = level > 0
	}
	return in, found
}

// boldField finds the first "**Name:** value" (or "**Name**: value") line
// outside code (fenced or indented, which Markdown shows as code, not as a
// field) and returns its trimmed value and line number.
func (d *document) boldField(name string) (value string, num int) {
	if fields := d.boldFields(name); len(fields) > 0 {
		return fields[0].value, fields[0].num
	}
	return "", 0
}

// labelled is one line that gives a field's value.
type labelled struct {
	value string
	num   int
}

// boldFields returns every line that gives the field, each once, in the
// order boldField prefers them: the "**Name:**" lines first, then the
// field written otherwise, then headings.
func (d *document) boldFields(name string) []labelled {
	var out []labelled
	seen := map[int]bool{}
	add := func(value string, num int) {
		if !seen[num] {
			seen[num] = true
			out = append(out, labelled{value, num})
		}
	}
	name = strings.ToLower(name)
	prefixes := [...]string{"**" + name + ":**", "**" + name + "**:"}
	for _, l := range d.lines {
		if l.code || l.indentedCode {
			continue
		}
		t := unquoted(shownText(l.text))
		for _, p := range prefixes {
			if hasPrefixFoldASCII(t, p) {
				add(strings.TrimSpace(t[len(p):]), l.num)
				break
			}
		}
	}
	// Written without emphasis ("Status: Complete"), with another
	// ("__Status:__ Complete", "<b>Status:</b> Complete", "_Status:
	// Complete_") or as a list item ("- **Status:** Complete"), the field
	// says the same to a reader.
	for _, l := range d.lines {
		if l.code || l.indentedCode || l.level > 0 {
			continue
		}
		t := unquoted(shownText(l.text))
		if off, item := listItem(t); item {
			t = t[off:]
		}
		if n, v, ok := boldLabel(t); ok && n == name {
			add(v, l.num)
			continue
		}
		t = stripEmphasis(t)
		for _, p := range append(prefixes[:], name+":") {
			if hasPrefixFoldASCII(t, p) {
				add(strings.TrimSpace(t[len(p):]), l.num)
				break
			}
		}
	}
	// Written as a heading ("## Status: Complete"), it says the same to a
	// reader too, when nothing else gives the field.
	for _, l := range d.lines {
		if l.code || l.level == 0 {
			continue
		}
		t := stripEmphasis(strings.TrimSpace(l.title))
		if n, v, ok := boldLabel(t); ok && n == name {
			add(v, l.num)
		} else if hasPrefixFoldASCII(t, name+":") {
			add(strings.TrimSpace(t[len(name)+1:]), l.num)
		}
	}
	return out
}

// unquoted is s trimmed, inside the block quote markers it starts with: a
// field in a quote ("> **Status:** Complete") says the same to a reader as
// one outside it.
func unquoted(s string) string {
	_, s = quoteMarkers(s)
	return strings.TrimSpace(s)
}

// sanitize returns b as valid UTF-8 with every invalid byte replaced by
// U+FFFD, so that columns count each bad byte as one code point; badCol is
// the column of the first invalid byte (0 if none).
func sanitize(b []byte) (s string, badCol int, badByte byte) {
	if utf8.Valid(b) {
		return string(b), 0, 0
	}
	var sb strings.Builder
	sb.Grow(len(b) + 8)
	col := 1
	for len(b) > 0 {
		r, size := utf8.DecodeRune(b)
		if r == utf8.RuneError && size == 1 {
			if badCol == 0 {
				badCol, badByte = col, b[0]
			}
			sb.WriteRune(utf8.RuneError)
		} else {
			sb.Write(b[:size])
		}
		b = b[size:]
		col++
	}
	return sb.String(), badCol, badByte
}

// dropInvisible removes from s the format characters that show as nothing
// (Unicode category Cf: zero-width spaces and joiners, soft hyphens, word
// joiners, a byte order mark inside the text, bidirectional marks), so that
// a record is read as a reader sees it: "F\u200bailed" is "Failed", and a
// heading "Current\u200b Gate" is that section. bidiCol is the column in s
// of the first override, embedding or isolate (U+202A..U+202E,
// U+2066..U+2069), which reorders what follows it on screen, so no reading
// of the line is what a reader sees; 0 if none.
func dropInvisible(s string) (out string, bidiCol int, bidi rune) {
	i := 0
	for i < len(s) && s[i] < utf8.RuneSelf {
		i++
	}
	if i == len(s) {
		return s, 0, 0
	}
	var sb strings.Builder
	sb.Grow(len(s))
	sb.WriteString(s[:i])
	col := i + 1
	for _, r := range s[i:] {
		switch {
		case '\u202a' <= r && r <= '\u202e' || '\u2066' <= r && r <= '\u2069':
			if bidiCol == 0 {
				bidiCol, bidi = col, r
			}
		case r >= 0xad && unicode.Is(unicode.Cf, r):
		default:
			sb.WriteRune(r)
		}
		col++
	}
	return sb.String(), bidiCol, bidi
}

// loneCR returns the offset of the first CR in s that has something other
// than blanks or more CRs after it, or -1. Such a CR ends a line for
// CommonMark and for most viewers, so the text after it looks like a line
// of its own while the parser reads it as the end of this one: a record
// written there would silently not be a record.
func loneCR(s string) int {
	i := strings.IndexByte(s, '\r')
	if i < 0 || strings.TrimLeft(s[i:], "\r \t") == "" {
		return -1
	}
	return i
}

// blankComments replaces every code point inside HTML comments with a space,
// keeping columns intact. inComment carries a multi-line comment across
// lines; openCol is the column of a "<!--" left open at the end of the
// line. A "<!--" inside a code span (`<!--`) is code, as Markdown reads it,
// and opens nothing.
func blankComments(s string, inComment bool) (out string, stillIn bool, openCol int) {
	if !inComment && !strings.Contains(s, "<!--") {
		return s, false, 0
	}
	var runs []tickRun
	if strings.IndexByte(s, '`') >= 0 {
		runs = tickRuns(s)
	}
	var sb strings.Builder
	i, k := 0, 0 // k: the first backtick run at or after i
	for i < len(s) {
		if !inComment {
			j := strings.Index(s[i:], "<!--")
			if j < 0 {
				break
			}
			j += i
			for k < len(runs) && runs[k].at < i {
				k++
			}
			if k < len(runs) && runs[k].at < j {
				// A backtick run before the opener: a code span to its
				// closing run, or literal backticks when none closes it.
				r := runs[k]
				end, next := r.at+r.n, k+1
				if r.next >= 0 {
					end, next = runs[r.next].at+r.n, r.next+1
				}
				sb.WriteString(s[i:end])
				i, k = end, next
				continue
			}
			sb.WriteString(s[i:j])
			i = j
			inComment = true
			openCol = utf8.RuneCountInString(s[:i]) + 1
			// "<!-->" and "<!--->" are complete comments, so look for the end
			// from inside the opener.
			if e := strings.Index(s[i+2:], "-->"); e >= 0 {
				end := i + 2 + e + 3
				blank(&sb, s[i:end])
				i, inComment, openCol = end, false, 0
			} else {
				blank(&sb, s[i:])
				i = len(s)
			}
			continue
		}
		e := strings.Index(s[i:], "-->")
		if e < 0 {
			blank(&sb, s[i:])
			i = len(s)
			break
		}
		blank(&sb, s[i:i+e+3])
		i += e + 3
		inComment = false
	}
	sb.WriteString(s[i:])
	return sb.String(), inComment, openCol
}

// tickRun is a run of backticks in a line: its offset, its length, and the
// index of the next run of the same length (which closes a code span
// opened by this one), -1 if none.
type tickRun struct{ at, n, next int }

// tickRuns lists the backtick runs of s, each linked to the next run of
// its length in one pass from the end, so matching spans stays linear.
func tickRuns(s string) []tickRun {
	var runs []tickRun
	for i := 0; i < len(s); {
		if s[i] != '`' {
			i++
			continue
		}
		j := i
		for j < len(s) && s[j] == '`' {
			j++
		}
		runs = append(runs, tickRun{at: i, n: j - i, next: -1})
		i = j
	}
	last := map[int]int{}
	for k := len(runs) - 1; k >= 0; k-- {
		if n, ok := last[runs[k].n]; ok {
			runs[k].next = n
		}
		last[runs[k].n] = k
	}
	return runs
}

// endsParagraph says what ends a Markdown paragraph at line s ("" when
// nothing does): a blank line, or the start of a block that interrupts a
// paragraph (a list item, a heading, a code fence, a block quote, an HTML
// comment block). An inline comment still open there is no comment to
// Markdown.
func endsParagraph(s string) string {
	t := strings.TrimLeft(s, " \t")
	switch {
	case t == "":
		return "a blank line"
	case len(s)-len(t) >= 4:
		return "" // indented: a continuation line
	case strings.HasPrefix(t, ">"):
		return "a block quote"
	case strings.HasPrefix(t, "<!--"):
		return "an html comment block"
	case opensFence(t) > 0:
		return "a code fence"
	}
	if level, _ := atxHeading(t); level > 0 {
		return "a heading"
	}
	if c := strings.TrimRight(t, " \t"); len(c) >= 3 && strings.Contains("-*_=", c[:1]) && strings.Trim(c, c[:1]+" \t") == "" {
		return "a thematic break or heading underline"
	}
	// Only a list item with content, and of an ordered list only one
	// that starts at 1, interrupts a paragraph.
	if off, ok := listItem(t); ok && strings.TrimSpace(t[off:]) != "" && (strings.IndexByte("-*+", t[0]) >= 0 || strings.HasPrefix(t, "1.") || strings.HasPrefix(t, "1)")) {
		return "a list item"
	}
	return ""
}

// sectionNames are the headings the parsers read sections by.
var sectionNames = []string{"current gate", "gate events log", "gate history", "task brief", "task queue", "task decomposition"}

// setextSection reports a paragraph, starting at first, that an underline
// makes a heading naming one of the sections the parsers read. The parsers
// read ATX headings only; read so, its records would not be read as that
// section's while a reader sees them under its heading.
//
// It reports whether the underline makes a heading at all.
func (d *document) setextSection(first line) bool {
	t := strings.TrimSpace(first.text)
	if t == "" || strings.ContainsAny(t[:1], ">|") {
		return false // a block quote or table row is not a heading's text
	}
	if _, ok := listItem(first.text); ok {
		return false // an underline after a list item is a thematic break
	}
	title := shownText(t)
	for _, name := range sectionNames {
		if titleIs(name)(title) {
			d.problem(first.num, column(first.text, len(first.text)-len(strings.TrimLeft(first.text, " \t"))),
				"%s is underlined as a heading (setext), and the sections of a ledger are read from \"#\" headings only, so what follows is not read as its section; write it as \"## %s\"", snippet(t), t)
			return true
		}
	}
	return true
}

// markSetextText marks the lines from first up to the underline at line
// under as the text of the heading it makes, when each of them is a
// paragraph's line to Markdown: a list item, a block quote or a table row
// there starts another block, and the underline is then a thematic break
// (or the paragraph is not the one tracked).
func (d *document) markSetextText(first, under int) {
	if first < 1 || under-1 > len(d.lines) || first >= under {
		return
	}
	text := d.lines[first-1 : under-1]
	for _, l := range text {
		t := strings.TrimSpace(l.text)
		if _, item := listItem(l.text); item || t == "" || l.code || l.level > 0 || strings.ContainsAny(t[:1], ">|") {
			return
		}
	}
	for k := range text {
		text[k].setextText = true
	}
}

// containedSection reports a heading in a block quote or a list item ("> ##
// Current Gate: G2", "- ## Current Gate: G2") that names one of the
// sections the parsers read. A reader sees the section, but the parsers
// read headings at the start of a line only, so its records would not be
// read as that section's.
func (d *document) containedSection(num int, text string) {
	rest, where, outside := text, "", ""
	for {
		if depth, r := quoteMarkers(rest); depth > 0 {
			rest, where, outside = r, "a block quote", "quote"
			continue
		}
		if off, ok := listItem(rest); ok && off < len(rest) {
			rest, where, outside = rest[off:], "a list item", "list"
			continue
		}
		break
	}
	if where == "" {
		return
	}
	level, title := atxHeading(rest)
	if level == 0 {
		return
	}
	title = shownText(title)
	for _, name := range sectionNames {
		if titleIs(name)(title) {
			d.problem(num, column(text, len(text)-len(strings.TrimLeft(text, " \t"))),
				"heading %s stands in %s, and the sections of a ledger are read from headings at the start of a line only, so what follows is not read as its section; write it, and its section, outside the %s", snippet(title), where, outside)
			return
		}
	}
}

// isSetextUnderline reports whether s is a run of "=" or of "-" (with
// blanks around it), which makes the paragraph above a heading.
func isSetextUnderline(s string) bool {
	t := strings.TrimSpace(s)
	return t != "" && (strings.Trim(t, "=") == "" || strings.Trim(t, "-") == "")
}

// isParagraphText reports whether the line s (indented columns past the
// list item it is in) is text of a paragraph, which an indented line after
// it continues, rather than blank, a thematic break, a comment block, or
// indented code (indented 4 columns or more where no paragraph is open).
func isParagraphText(s string, indented int, paraBefore bool) bool {
	t := strings.TrimSpace(s)
	switch {
	case t == "":
		return false
	case indented >= 4:
		return paraBefore
	case strings.HasPrefix(t, "<!--"):
		return false
	case len(t) >= 3 && strings.Contains("-*_", t[:1]) && strings.Trim(t, t[:1]+" \t") == "":
		return false
	}
	return true
}

// spanCloser is why a comment opened in a code span is none to Markdown.
const spanCloser = "the backtick run that closes the code span it stands in"

// tickCarry is the length of the backtick run left open (0 if none) after
// s by a paragraph whose earlier lines left a run of length open open: a
// run of that length closes it; else runs pair up on s, and the first
// unpaired one is left open.
func tickCarry(open int, s string) int {
	if strings.IndexByte(s, '`') < 0 {
		return open
	}
	runs := tickRuns(s)
	for k := 0; k < len(runs); k++ {
		switch r := runs[k]; {
		case open > 0:
			if r.n == open {
				open = 0
			}
		case r.next >= 0:
			k = r.next
		default:
			open = r.n
		}
	}
	return open
}

// hasTickRun reports whether s holds a backtick run of exactly n.
func hasTickRun(s string, n int) bool {
	if strings.IndexByte(s, '`') < 0 {
		return false
	}
	for _, r := range tickRuns(s) {
		if r.n == n {
			return true
		}
	}
	return false
}

// runeOffset is the byte offset of s's code point number i (0-based).
func runeOffset(s string, i int) int {
	for off := range s {
		if i == 0 {
			return off
		}
		i--
	}
	return len(s)
}

// commentHold is what holds a comment left open at the end of the line
// that opens it, when something other than "-->" ends it for Markdown.
type commentHold struct {
	ends   func(line string) string // what ends the comment at line for Markdown, "" if nothing
	inline bool                     // opened after text, in a paragraph
	ticks  int                      // a backtick run of this length closes a code span the opener stands in
	code   bool                     // an opener indented as code: no comment at all
	// message is the problem of a comment Markdown ended (why, at line at)
	// that goes on hiding lines here up to line closed.
	message func(why string, at, closed int) string
}

// holdComment says what holds the comment that written (the line as
// written; text, with comments blanked) leaves open at column openCol:
// nil for a comment block of the document, which only "-->" ends. items
// are the list items the line may belong to (its own included when it is
// one), paraBefore whether the line before is paragraph text.
func holdComment(written, text string, openCol int, items []int, paraBefore bool) *commentHold {
	before := text
	for i := range text {
		if openCol--; openCol == 0 {
			before = text[:i]
			break
		}
	}
	if strings.TrimSpace(before) == "" {
		ind := indentColumns(written)
		base := itemBase(written, items)
		switch {
		case ind-base >= 4 && paraBefore:
			return inlineHold(fmt.Sprintf("on a line indented %d columns that continues a paragraph", ind-base))
		case ind-base >= 4:
			indent := ind - base
			return &commentHold{
				ends: func(string) string { return "" },
				code: true,
				message: func(_ string, at, closed int) string {
					return fmt.Sprintf("html comment \"<!--\" indented %d columns is indented code for Markdown, which shows it as text and the lines after it, but it hides them here up to its \"-->\" at line %d; indented 4 columns or more, \"<!--\" opens no comment: remove the indentation", indent, closed)
				},
			}
		case base > 0:
			return containerHold("list item", "the list", func(line string) bool {
				return strings.TrimSpace(line) != "" && indentColumns(line) < base
			})
		}
		return nil
	}
	if depth, rest := quoteMarkers(before); depth > 0 && (strings.TrimSpace(rest) == "" || isListMarker(rest)) {
		return containerHold("block quote", "the quote", func(line string) bool {
			d, _ := quoteMarkers(line)
			return d < depth
		})
	}
	if off, ok := listItem(before); ok && strings.TrimSpace(before[off:]) == "" && len(items) > 0 {
		base := items[len(items)-1]
		return containerHold("list item", "the list", func(line string) bool {
			return strings.TrimSpace(line) != "" && indentColumns(line) < base
		})
	}
	return inlineHold("after text on its line")
}

// inlineHold holds a comment opened in a paragraph: what ends the
// paragraph ends it.
func inlineHold(where string) *commentHold {
	return &commentHold{
		ends:   endsParagraph,
		inline: true,
		message: func(why string, at, closed int) string {
			return fmt.Sprintf("html comment \"<!--\" opened %s is ended by %s at line %d for Markdown, which shows it as text and the lines after it, but it hides them here up to its \"-->\" at line %d; close it before line %d, or put \"<!--\" at the start of a line of its own", where, why, at, closed, at)
		},
	}
}

// containerHold holds a comment opened in a block quote or a list item
// (what): a line that leaves it ends the container, and the comment with it.
func containerHold(what, outside string, leaves func(line string) bool) *commentHold {
	return &commentHold{
		ends: func(line string) string {
			if leaves(line) {
				return "the end of its " + what
			}
			return ""
		},
		message: func(why string, at, closed int) string {
			return fmt.Sprintf("html comment \"<!--\" opened in a %s is ended by %s at line %d for Markdown, which shows the lines after it, but it hides them here up to its \"-->\" at line %d; close it before line %d, or put \"<!--\" at the start of a line outside %s", what, why, at, closed, at, outside)
		},
	}
}

// quoteMarkers counts the block quote markers (">", each after at most 3
// spaces and taking one blank after it) that s starts with, and returns
// what follows them.
func quoteMarkers(s string) (int, string) {
	n := 0
	for {
		t := strings.TrimLeft(s, " ")
		if len(s)-len(t) > 3 || !strings.HasPrefix(t, ">") {
			return n, s
		}
		s = t[1:]
		if strings.HasPrefix(s, " ") || strings.HasPrefix(s, "\t") {
			s = s[1:]
		}
		n++
	}
}

// isListMarker reports whether s is a list item marker and blanks only.
func isListMarker(s string) bool {
	off, ok := listItem(s + " ")
	return ok && strings.TrimSpace(s[:min(off, len(s))]) != "" && strings.TrimSpace(s[min(off, len(s)):]) == ""
}

// beforeClose is the part of a line inside an open comment that the
// comment hides: up to its "-->", or all of it.
func beforeClose(s string) string {
	if i := strings.Index(s, "-->"); i >= 0 {
		return s[:i]
	}
	return s
}

func blank(sb *strings.Builder, s string) {
	sb.WriteString(strings.Repeat(" ", utf8.RuneCountInString(s)))
}

// fenceInList returns the length of the fence that the non-blank line s
// opens (0 if none), the byte offset in s of the list item marker's
// content when the fence is that content (0 otherwise), and the list
// items that the next line may belong to.
// items holds the content columns of the list items open before s. A
// fence may be indented up to 3 columns more than the content of the item
// it is in (of the document, outside lists): indented further, Markdown
// reads the line as indented code or as text, and taking it for a fence
// would hide the records up to its closing fence while every reader sees
// them. A line indented less than an item's content is not in that item.
func fenceInList(s string, items []int) (int, int, []int) {
	ind := indentColumns(s)
	for len(items) > 0 && items[len(items)-1] > ind {
		items = items[:len(items)-1]
	}
	base := 0
	if len(items) > 0 {
		base = items[len(items)-1]
	}
	if ind-base <= 3 {
		if n := opensFence(s); n > 0 {
			return n, 0, items
		}
	}
	if off, ok := listItem(s); ok {
		content := itemContentColumn(s, off)
		items = append(items, content)
		// A fence may be the item's first content ("- ```", "1. ~~~"):
		// Markdown opens it in the item, and shows the item's lines up to
		// its closing fence as code.
		if ind-base <= 3 && widthColumns(s[:off]) == content {
			if n := opensFence(s[off:]); n > 0 {
				return n, off, items
			}
		}
	}
	return 0, 0, items
}

// itemBase is the content column of the innermost list item in items that
// the non-blank line s may belong to (its indentation reaches that
// column), 0 outside lists.
func itemBase(s string, items []int) int {
	ind := indentColumns(s)
	for k := len(items) - 1; k >= 0; k-- {
		if items[k] <= ind {
			return items[k]
		}
	}
	return 0
}

// indentColumns is the width of s's leading blanks.
func indentColumns(s string) int {
	return widthColumns(s[:len(s)-len(strings.TrimLeft(s, " \t"))])
}

// widthColumns is the width of s in columns, a tab advancing to the next
// multiple of 4 as in Markdown and any other code point taking one.
func widthColumns(s string) int {
	col := 0
	for _, r := range s {
		if r == '\t' {
			col += 4 - col%4
		} else {
			col++
		}
	}
	return col
}

// itemContentColumn is the column where a list item's content starts
// (off is listItem's offset of it): after its marker and the blanks that
// follow, or one column after the marker when 5 or more follow (the rest
// is then indented code inside the item) or none does.
func itemContentColumn(s string, off int) int {
	markerEnd := widthColumns(strings.TrimRight(s[:off], " \t"))
	end := widthColumns(s[:off])
	if strings.TrimSpace(s[off:]) == "" || end-markerEnd >= 5 {
		return markerEnd + 1
	}
	return end
}

// opensFence returns the length of the fence that s opens, 0 if none,
// whatever its indentation (fenceInList bounds that).
func opensFence(s string) int {
	t := strings.TrimLeft(s, " \t")
	if t == "" || (t[0] != '`' && t[0] != '~') {
		return 0
	}
	n := len(t) - len(strings.TrimLeft(t, t[:1]))
	if n < 3 {
		return 0
	}
	if t[0] == '`' && strings.IndexByte(t[n:], '`') >= 0 {
		return 0 // ```x``` is inline code, not a fence
	}
	return n
}

// closesFence reports whether s closes a fence of n characters c opened in
// the list item whose content starts at column base (0 outside lists): a
// run of at least n of them, and nothing else, at most 3 columns deeper
// than base. Indented further, Markdown shows the line as the fence's
// content, and the fence goes on.
func closesFence(s string, c byte, n, base int) bool {
	if indentColumns(s)-base > 3 {
		return false
	}
	t := strings.TrimLeft(s, " \t")
	m := len(t) - len(strings.TrimLeft(t, string(c)))
	return m >= n && strings.TrimSpace(t[m:]) == ""
}

// atxHeading returns the level and title of an ATX heading, level 0 if s is
// not one.
func atxHeading(s string) (int, string) {
	i := 0
	for i < len(s) && i < 3 && s[i] == ' ' {
		i++
	}
	n := 0
	for i+n < len(s) && s[i+n] == '#' {
		n++
	}
	if n == 0 || n > 6 {
		return 0, ""
	}
	rest := s[i+n:]
	if rest != "" && rest[0] != ' ' && rest[0] != '\t' {
		return 0, "" // "#tag" is not a heading
	}
	title := strings.TrimSpace(rest)
	if t := strings.TrimRight(title, "#"); t == "" {
		title = ""
	} else if len(t) < len(title) && (t[len(t)-1] == ' ' || t[len(t)-1] == '\t') {
		title = strings.TrimSpace(t)
	}
	return n, title
}
