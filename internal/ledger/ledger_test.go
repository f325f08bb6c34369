package ledger

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/h3a-check/h3a-check/internal/longtest"
)

const okEntry = "- `a` - [hash:abcdef12] - t - d"

func entryAt(line, pathCol, hashCol int) Entry {
	return Entry{Path: "a", Hash: "abcdef12", Time: "t", Description: "d", Line: line, PathColumn: pathCol, HashColumn: hashCol}
}

func TestSections(t *testing.T) {
	tests := []struct {
		name string
		doc  []byte
		want []Section
	}{
		{"empty document", nil, []Section{}},
		{
			name: "atx headings and their titles",
			doc: md("# One", "   ### Three spaces", "## closing hashes ##", "# C#", "#", "#\ttab",
				"## **Bold** title", "# a <!-- hidden -->", "###### six"),
			want: []Section{
				{"One", 1, 1}, {"Three spaces", 3, 2}, {"closing hashes", 2, 3}, {"C#", 1, 4},
				{"", 1, 5}, {"tab", 1, 6}, {"**Bold** title", 2, 7}, {"a", 1, 8}, {"six", 6, 9},
			},
		},
		{
			name: "not headings",
			doc: md("#tag", "####### seven", "    # four spaces is code", "```", "# in a fence", "```",
				"<!--", "# in a comment", "-->", "text # not at the start", "Setext", "======"),
			want: []Section{},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, parse := range parsers {
				assertEqual(t, parse.name+" sections", parse.sections(tt.doc), tt.want)
			}
		})
	}
}

// parsers runs each public parser for tests about what all three share.
var parsers = []struct {
	name     string
	sections func([]byte) []Section
}{
	{"roadmap", func(b []byte) []Section { r, _ := ParseRoadmap(b); return r.Sections }},
	{"gates ledger", func(b []byte) []Section { g, _ := ParseGatesLedger(b); return g.Sections }},
	{"evidence log", func(b []byte) []Section { e, _ := ParseEvidenceLog(b); return e.Sections }},
}

// evidenceCase is an evidence log and what parsing it gives: its entries
// (none when nil) and its problems.
type evidenceCase struct {
	name     string
	doc      []byte
	want     []Entry
	problems []Problem
}

func runEvidenceCases(t *testing.T, tests []evidenceCase) {
	t.Helper()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, problems := ParseEvidenceLog(tt.doc)
			want := tt.want
			if want == nil {
				want = []Entry{}
			}
			assertEqual(t, "entries", got.Entries, want)
			assertProblems(t, problems, tt.problems)
		})
	}
}

func TestLinesAndEncodings(t *testing.T) {
	long := bytes.Repeat([]byte("x"), MaxLineBytes+1)
	limit := bytes.Repeat([]byte("x"), MaxLineBytes)
	tests := []evidenceCase{
		{name: "empty document", doc: []byte{}},
		{name: "only a BOM", doc: bom},
		{
			name: "a BOM is not part of the first line's columns",
			doc:  append(append([]byte{}, bom...), okEntry...),
			want: []Entry{entryAt(1, 4, 15)},
		},
		{
			name: "CRLF endings are not part of the text; a missing final newline is fine",
			doc:  []byte("\r\n" + okEntry + "\r\n\r\n" + okEntry),
			want: []Entry{entryAt(2, 4, 15), entryAt(4, 4, 15)},
		},
		{
			name: "a lone CR does not end a line, and text after it is reported",
			doc:  []byte("- `a` - [hash:abcdef12] - t - d\rmore\n" + okEntry + "\n"),
			want: []Entry{
				{Path: "a", Hash: "abcdef12", Time: "t", Description: "d\rmore", Line: 1, PathColumn: 4, HashColumn: 15},
				entryAt(2, 4, 15),
			},
			problems: []Problem{{1, 32, loneCRMessage(`"more"`)}},
		},
		{
			name: "invalid UTF-8 is reported and counts one column per byte",
			doc:  []byte("# log\n- `a\xff\xfe` - [hash:abcdef12] - t - d\n"),
			want: []Entry{{Path: "a\uFFFD\uFFFD", Hash: "abcdef12", Time: "t", Description: "d", Line: 2, PathColumn: 4, HashColumn: 17}},
			problems: []Problem{
				{2, 5, "invalid UTF-8 byte 0xff; expected UTF-8 text"},
			},
		},
		{
			// Every byte of UTF-16 text without a byte order mark is valid
			// UTF-8, but it reads as no record at all, and GitHub shows the
			// file as binary: said once, at the first NUL.
			name: "UTF-16 without a BOM (NUL bytes) is reported once",
			doc:  utf16LE("# log\n" + okEntry + "\n"),
			problems: []Problem{
				{1, 2, nulMessage},
			},
		},
		{
			name: "an over-long line is reported and skipped; the next line keeps its number",
			doc:  append(append(long, '\n'), okEntry...),
			want: []Entry{entryAt(2, 4, 15)},
			problems: []Problem{
				{1, 1, fmt.Sprintf("line is %d bytes long, over the limit of %d bytes; it is not read", MaxLineBytes+1, MaxLineBytes)},
			},
		},
		{
			name: "a line at the limit is read",
			doc:  append(append(limit, '\n'), okEntry...),
			want: []Entry{entryAt(2, 4, 15)},
		},
	}
	runEvidenceCases(t, tests)
}

const nulMessage = "a NUL byte: the file is not UTF-8 text (UTF-16 without a byte order mark writes one after every ASCII character), GitHub shows a file holding one as binary, not as Markdown, and no record of it is read as written; expected UTF-8 text"

// utf16LE encodes ASCII s as UTF-16LE, without a byte order mark.
func utf16LE(s string) []byte {
	b := make([]byte, 0, 2*len(s))
	for i := 0; i < len(s); i++ {
		b = append(b, s[i], 0)
	}
	return b
}

func loneCRMessage(after string) string {
	return "carriage return without a line feed: the text after it (" + after + ") shows as a line of its own but is read as part of this one, so a record there is not read; expected LF or CRLF line endings"
}

// TestLoneCarriageReturn: a CR not followed by LF breaks the line for every
// Markdown reader, so a record written after it looks like one to a human
// while the parser reads it as the end of the line before. Each parser
// reports it at the CR; a CR with nothing after it shows nothing and is
// tolerated.
func TestLoneCarriageReturn(t *testing.T) {
	const event = "[2025-01-01T00:00:00Z] G1 - PASSED - executor - done"
	problems := map[string]func([]byte) []Problem{
		"roadmap":      func(b []byte) []Problem { _, p := ParseRoadmap(b); return p },
		"gates ledger": func(b []byte) []Problem { _, p := ParseGatesLedger(b); return p },
		"evidence log": func(b []byte) []Problem { _, p := ParseEvidenceLog(b); return p },
	}
	tests := []struct {
		name    string
		parsers []string
		doc     []byte
		want    []Problem
	}{
		{
			name:    "an evidence entry after a lone CR",
			parsers: []string{"evidence log"},
			doc:     []byte("# Log\n" + okEntry + "\r- `b` - [hash:00000000] - t - d\n"),
			want:    []Problem{{2, 32, loneCRMessage(`"- ` + "`b`" + ` - [hash:00000000] - t - d"`)}},
		},
		{
			name:    "a gate event after a lone CR",
			parsers: []string{"gates ledger"},
			doc:     []byte("### Gate Events Log\n" + event + "\r[2025-01-02T00:00:00Z] G1 - FAILED - validator - no\n"),
			want:    []Problem{{2, 53, loneCRMessage(`"[2025-01-02T00:00:00Z] G1 - FAILED - val…"`)}},
		},
		{
			name:    "old Mac line endings in every ledger",
			parsers: []string{"roadmap", "gates ledger", "evidence log"},
			doc:     []byte("# Title\rtext\r"),
			want:    []Problem{{1, 8, loneCRMessage(`"text"`)}},
		},
		{
			name:    "a CR before CRLF, or before blanks only, shows nothing",
			parsers: []string{"roadmap", "gates ledger", "evidence log"},
			doc:     []byte("# Title\r\r\ntext \r \t\r\n" + okEntry + "\r"),
		},
		{
			name:    "only the first lone CR of a line is reported",
			parsers: []string{"evidence log"},
			doc:     []byte("a\rb\rc\n"),
			want:    []Problem{{1, 2, loneCRMessage(`"b\rc"`)}},
		},
	}
	for _, tt := range tests {
		for _, name := range tt.parsers {
			t.Run(tt.name+"/"+name, func(t *testing.T) {
				assertProblems(t, problems[name](tt.doc), tt.want)
			})
		}
	}
}

func TestCommentsAndFences(t *testing.T) {
	tests := []evidenceCase{
		{
			name: "a multi-line comment hides its lines; text after its end is read in place",
			doc:  md("<!--", okEntry, "-->"+okEntry),
			want: []Entry{entryAt(3, 7, 18)},
		},
		{
			name: "<!--> is a whole comment",
			doc:  md(okEntry+" <!-->", okEntry),
			want: []Entry{entryAt(1, 4, 15), entryAt(2, 4, 15)},
		},
		{
			name: "a fence inside a comment is not a fence",
			doc:  md("<!--", "```", "-->", okEntry),
			want: []Entry{entryAt(4, 4, 15)},
		},
		{
			name: "a comment inside a fence is not a comment",
			doc:  md("```", "<!--", "```", okEntry),
			want: []Entry{entryAt(4, 4, 15)},
		},
		{
			name: "inline code is not a fence",
			doc:  md("```inline``` text", okEntry),
			want: []Entry{entryAt(2, 4, 15)},
		},
		{
			name: "a fence with an info string does not close a fence",
			doc:  md("```", "```bash", okEntry, "```", okEntry),
			want: []Entry{entryAt(5, 4, 15)},
		},
		{
			name: "an unclosed fence that hides lines is reported at its opening",
			doc:  md("# log", "  ````go", okEntry, "", "text"),
			problems: []Problem{
				{2, 3, "code fence \"````\" is never closed and turns the 2 non-blank lines after it into code; expected a closing \"````\""},
			},
		},
		{
			name: "an unclosed fence that hides nothing is not a problem",
			doc:  md(okEntry, "```", "", "  "),
			want: []Entry{entryAt(1, 4, 15)},
		},
		{
			name: "an unclosed comment that hides lines is reported at its opening",
			doc:  md("text <!-- a --> and <!-- b", okEntry, okEntry),
			problems: []Problem{
				{1, 21, `html comment "<!--" is never closed and hides the 2 non-blank lines after it; expected "-->"`},
			},
		},
		{
			name: "an unclosed comment that hides nothing is not a problem",
			doc:  md(okEntry, "<!-- trailing note"),
			want: []Entry{entryAt(1, 4, 15)},
		},
		{
			name: "problems come out in document order",
			doc:  md("<!--", "x", "-->", "- `a`", "\xff", "<!-- open", "hidden"),
			problems: []Problem{
				{4, 6, "malformed evidence entry: " + entryExpect + ", missing the hash field"},
				{5, 1, "invalid UTF-8 byte 0xff; expected UTF-8 text"},
				{6, 1, `html comment "<!--" is never closed and hides the 1 non-blank line after it; expected "-->"`},
			},
		},
	}
	runEvidenceCases(t, tests)
}

// TestRawHTMLBlocks: a <script> or <style> block shows nothing to a reader
// of the rendered Markdown, so no record in it is read, and one that hides
// any text is reported; <pre> and <textarea> show their text.
func TestRawHTMLBlocks(t *testing.T) {
	tests := []evidenceCase{
		{
			name: "a script block hides its records and is reported",
			doc:  md(okEntry, "<script>", okEntry, "</script>", okEntry),
			want: []Entry{entryAt(1, 4, 15), entryAt(5, 4, 15)},
			problems: []Problem{
				{2, 1, "html <script> block (to line 4) hides the 1 non-blank line in it from every reader of the rendered Markdown, so no record there is read; expected no <script> block in a ledger"},
			},
		},
		{
			name: "a style block, any case, with attributes, indented, on one line",
			doc:  md("  <STYLE type=x>"+okEntry+"</Style>", okEntry),
			want: []Entry{entryAt(2, 4, 15)},
			problems: []Problem{
				{1, 3, "html <style> block (to line 1) hides the 1 non-blank line in it from every reader of the rendered Markdown, so no record there is read; expected no <style> block in a ledger"},
			},
		},
		{
			name: "a script block in a list item or a block quote hides its records too",
			doc:  md(okEntry, "- <script>", "  "+okEntry, "  </script>", "> - <script>", "> "+okEntry, "> </script>", okEntry),
			want: []Entry{entryAt(1, 4, 15), entryAt(8, 4, 15)},
			problems: []Problem{
				{2, 3, "html <script> block (to line 4) hides the 1 non-blank line in it from every reader of the rendered Markdown, so no record there is read; expected no <script> block in a ledger"},
				{5, 5, "html <script> block (to line 7) hides the 1 non-blank line in it from every reader of the rendered Markdown, so no record there is read; expected no <script> block in a ledger"},
			},
		},
		{
			name: "text after the end tag is reported",
			doc:  md("<script>", "</script> "+okEntry),
			problems: []Problem{
				{2, 1, "text after the html </script> end tag is part of the raw html block to Markdown and is not read here; put it on a line of its own"},
			},
		},
		{
			name: "an unclosed script block hides the rest",
			doc:  md(okEntry, "<script", okEntry, "", okEntry),
			want: []Entry{entryAt(1, 4, 15)},
			problems: []Problem{
				{2, 1, "html <script> block is never closed and hides the 2 non-blank lines after it from every reader of the rendered Markdown, so no record there is read; expected no <script> block in a ledger"},
			},
		},
		{
			name: "an empty script block, a scripts word, code, comments and pre are not such blocks",
			doc:  md("<script></script>", "<scripts>", okEntry, "# h", "    <script>", okEntry, "```", "<script>", "```", okEntry, "<!--", "<script>", "-->", okEntry, "<pre>", okEntry, "</pre>"),
			want: []Entry{entryAt(3, 4, 15), entryAt(6, 4, 15), entryAt(10, 4, 15), entryAt(14, 4, 15), entryAt(16, 4, 15)},
		},
	}
	runEvidenceCases(t, tests)
}

func endedCommentMessage(why string, at, close int) string {
	return fmt.Sprintf(`html comment "<!--" opened after text on its line is ended by %s at line %d for Markdown, which shows it as text and the lines after it, but it hides them here up to its "-->" at line %d; close it before line %d, or put "<!--" at the start of a line of its own`, why, at, close, at)
}

// TestCommentsMarkdownSees: a comment hides records only where Markdown
// sees one. "<!--" inside a code span is code; a comment opened after text
// on its line lives in its paragraph, so a blank line or a new block ends
// it for Markdown, which then shows the records this parser would hide.
func TestCommentsMarkdownSees(t *testing.T) {
	const event = "[t] G1 - FAILED - validator - n"
	tests := []evidenceCase{
		{
			name: "<!-- in a code span opens no comment",
			doc:  md(okEntry+" `<!--`", okEntry, okEntry+" `-->`"),
			want: []Entry{
				{Path: "a", Hash: "abcdef12", Time: "t", Description: "d `<!--`", Line: 1, PathColumn: 4, HashColumn: 15},
				entryAt(2, 4, 15),
				{Path: "a", Hash: "abcdef12", Time: "t", Description: "d `-->`", Line: 3, PathColumn: 4, HashColumn: 15},
			},
		},
		{
			name: "a span of two backticks holds a single one",
			doc:  md("x ``a`<!--`` y", okEntry),
			want: []Entry{entryAt(2, 4, 15)},
		},
		{
			name: "an unmatched backtick is text, and a comment after it is one",
			doc:  md("x ` y <!-- z --> w", okEntry),
			want: []Entry{entryAt(2, 4, 15)},
		},
		{
			name: "a comment after a code span on its line is one",
			doc:  md("x `a` <!--", "- `b` - [hash:abcdef12] - t - d -->", okEntry),
			want: []Entry{entryAt(3, 4, 15)},
			problems: []Problem{
				{1, 7, endedCommentMessage("a list item", 2, 2)},
			},
		},
		{
			name: "an inline comment across a blank line is reported at its opening",
			doc:  md("# log", "text <!-- note", "", okEntry, "", "-->", okEntry),
			want: []Entry{entryAt(7, 4, 15)},
			problems: []Problem{
				{2, 6, endedCommentMessage("a blank line", 3, 6)},
			},
		},
		{
			name: "an inline comment within its paragraph hides its lines",
			doc:  md("text <!-- a", "more", "end -->", okEntry),
			want: []Entry{entryAt(4, 4, 15)},
		},
		{
			name: "an inline comment ended by Markdown that hides nothing more is not a problem",
			doc:  md("text <!-- a", "", "-->", okEntry),
			want: []Entry{entryAt(4, 4, 15)},
		},
		{
			name: "a list item starting at 2 continues the paragraph",
			doc:  md("text <!-- a", "2. x -->", okEntry),
			want: []Entry{entryAt(3, 4, 15)},
		},
		{
			name: "a comment at the start of a line is a block and spans blank lines",
			doc:  md("<!-- example:", "", okEntry, "", "-->", okEntry),
			want: []Entry{entryAt(6, 4, 15)},
		},
		{
			name: "an opener indented as code after a blank line opens no comment",
			doc:  md("# log", "", "    <!--", okEntry, "    -->", okEntry),
			want: []Entry{entryAt(6, 4, 15)},
			problems: []Problem{
				{3, 5, `html comment "<!--" indented 4 columns is indented code for Markdown, which shows it as text and the lines after it, but it hides them here up to its "-->" at line 5; indented 4 columns or more, "<!--" opens no comment: remove the indentation`},
			},
		},
		{
			name: "an opener indented as code that hides nothing is not a problem",
			doc:  md("", "    <!--", "", "    -->", okEntry),
			want: []Entry{entryAt(5, 4, 15)},
		},
		{
			name: "an indented opener continuing a paragraph is an inline comment",
			doc:  md("text", "    <!--", "more", okEntry, "-->", okEntry),
			want: []Entry{entryAt(6, 4, 15)},
			problems: []Problem{
				{2, 5, `html comment "<!--" opened on a line indented 4 columns that continues a paragraph is ended by a list item at line 4 for Markdown, which shows it as text and the lines after it, but it hides them here up to its "-->" at line 5; close it before line 4, or put "<!--" at the start of a line of its own`},
			},
		},
		{
			name: "a comment opened in a block quote ends with the quote",
			doc:  md("> <!--", "text", okEntry, "-->", okEntry),
			want: []Entry{entryAt(5, 4, 15)},
			problems: []Problem{
				{1, 3, `html comment "<!--" opened in a block quote is ended by the end of its block quote at line 2 for Markdown, which shows the lines after it, but it hides them here up to its "-->" at line 4; close it before line 2, or put "<!--" at the start of a line outside the quote`},
			},
		},
		{
			name: "a comment in a block quote hides the quote's lines",
			doc:  md("> <!--", "> "+okEntry, ">", "> -->", okEntry),
			want: []Entry{entryAt(5, 4, 15)},
		},
		{
			name: "a comment opened in a list item ends with the item",
			doc:  md("- <!--", "  hidden", "text", "-->", okEntry),
			want: []Entry{entryAt(5, 4, 15)},
			problems: []Problem{
				{1, 3, `html comment "<!--" opened in a list item is ended by the end of its list item at line 3 for Markdown, which shows the lines after it, but it hides them here up to its "-->" at line 4; close it before line 3, or put "<!--" at the start of a line outside the list`},
			},
		},
		{
			name: "a comment starting a line of a list item ends with the item",
			doc:  md("- item", "  <!--", "", "  hidden", okEntry, "-->", okEntry),
			want: []Entry{entryAt(7, 4, 15)},
			problems: []Problem{
				{2, 3, `html comment "<!--" opened in a list item is ended by the end of its list item at line 5 for Markdown, which shows the lines after it, but it hides them here up to its "-->" at line 6; close it before line 5, or put "<!--" at the start of a line outside the list`},
			},
		},
		{
			name: "a comment in a list item hides the item's lines across blank lines",
			doc:  md("- <!--", "", "  "+okEntry, "  -->", okEntry),
			want: []Entry{entryAt(5, 4, 15)},
		},
		{
			name: "an opener in a code span a line above opens, closed on its line, is none",
			doc:  md("text `a", "b <!-- c` d", okEntry, "-->", okEntry),
			want: []Entry{entryAt(5, 4, 15)},
			problems: []Problem{
				{2, 3, endedCommentMessage("the backtick run that closes the code span it stands in", 2, 4)},
			},
		},
		{
			name: "an opener in a code span that a hidden line closes is none",
			doc:  md("text ``a", "b <!-- c", "d `` e", okEntry, "-->", okEntry),
			want: []Entry{entryAt(6, 4, 15)},
			problems: []Problem{
				{2, 3, endedCommentMessage("the backtick run that closes the code span it stands in", 3, 5)},
			},
		},
		{
			name: "a backtick run no line of the paragraph closes is text",
			doc:  md("text `a", "b <!-- c", "d", "-->", okEntry),
			want: []Entry{entryAt(5, 4, 15)},
		},
		{
			name: "a code span closed before the opener leaves it a comment",
			doc:  md("text `a", "b` <!-- c `d`", "e", "-->", okEntry),
			want: []Entry{entryAt(5, 4, 15)},
		},
		{
			name: "an inline comment never closed is reported once, as unclosed",
			doc:  md("text <!-- a", "", okEntry),
			problems: []Problem{
				{1, 6, `html comment "<!--" is never closed and hides the 1 non-blank line after it; expected "-->"`},
			},
		},
	}
	runEvidenceCases(t, tests)
	t.Run("gate events", func(t *testing.T) {
		doc := md("### Gate Events Log", "[t] G1 - PASSED - executor - fixed `<!--` tags", event, "note <!-- x", "", event, "-->")
		g, problems := ParseGatesLedger(doc)
		if len(g.Events) != 2 || g.Events[1].Line != 3 {
			t.Errorf("events: got %s, want the events of lines 2 and 3", toJSON(g.Events))
		}
		assertProblems(t, problems, []Problem{{4, 6, endedCommentMessage("a blank line", 5, 7)}})
	})
	t.Run("gate events after an opener indented as code", func(t *testing.T) {
		doc := md("### Gate Events Log", "[t] G1 - PASSED - executor - n", "", "    <!--", event, "    -->")
		_, problems := ParseGatesLedger(doc)
		assertProblems(t, problems, []Problem{{4, 5, `html comment "<!--" indented 4 columns is indented code for Markdown, which shows it as text and the lines after it, but it hides them here up to its "-->" at line 6; indented 4 columns or more, "<!--" opens no comment: remove the indentation`}})
	})
}

// TestFenceIndentation: a fence opens where Markdown opens one, at most 3
// columns deeper than the content of the list item it is in (or than the
// margin outside lists), and ends with its item. A fence taken where
// Markdown sees indented code or text would hide the records every reader
// sees, up to the next fence.
func TestFenceIndentation(t *testing.T) {
	entry := func(line int) Entry { return entryAt(line, 4, 15) }
	tests := []struct {
		name string
		doc  []byte
		want []Entry
	}{
		{"4 spaces outside lists is indented code", md("text", "", "    ```", "", okEntry, "```"), []Entry{entry(5)}},
		{"a tab outside lists is indented code", md("\t```", okEntry, "```"), []Entry{entry(2)}},
		{"3 spaces outside lists is a fence", md("   ```", okEntry, "```", okEntry), []Entry{entry(4)}},
		{"a fence in a list item", md("- item", "  ```", "  "+okEntry, "  ```", okEntry), []Entry{entry(5)}},
		{"a fence in a nested item", md("- a", "  - b", "    ```", "    "+okEntry, "    ```", okEntry), []Entry{entry(6)}},
		{"a fence in an ordered item", md("10. item", "", "    ```", "    "+okEntry, "    ```", okEntry), []Entry{entry(6)}},
		{"4 columns deeper than the item's content is code", md("- item", "      ```", okEntry, "```"), []Entry{entry(3)}},
		{"text at the margin leaves the item", md("- item", "", "text", "    ```", okEntry, "```"), []Entry{entry(5)}},
		{"a wide gap after the marker is code in the item", md("-      code", "      ```", okEntry), []Entry{entry(3)}},
		// "- ```" opens a fence as the item's content: what Markdown shows
		// as code there is no record, up to the closing fence or the end
		// of the item.
		{"a fence as a list item's content", md("- ```", "  "+okEntry, "  ```", okEntry), []Entry{entry(4)}},
		{"a fence as an ordered item's content ends with the item", md("1. ~~~", "   "+okEntry, "", okEntry), []Entry{entry(4)}},
		{"a fence after a wide gap in an item is code, no fence", md("-     ```", okEntry), []Entry{entry(2)}},
		{"a fence as a nested item's content", md("- a", "  * ```", "    "+okEntry, "    ```", okEntry), []Entry{entry(5)}},
		{
			name: "a fence in an item ends with the item",
			doc:  md(okEntry, "", "    ```", "", okEntry, "", "```"),
			want: []Entry{entry(1), entry(5)},
		},
		{
			name: "indented lines stay in the item's fence",
			doc:  md("- item", "  ```", "", "  "+okEntry, "  ```", okEntry),
			want: []Entry{entry(6)},
		},
		{
			name: "a closing fence 4 columns deep is the fence's content",
			doc:  md("```", "    ```", "```", okEntry, "```", "x"),
			want: []Entry{entry(4)},
		},
		{"a closing fence 3 columns deep closes", md("```", "   ```", okEntry), []Entry{entry(3)}},
		{"a closing tab is 4 columns deep", md("~~~", "\t~~~", "~~~", okEntry), []Entry{entry(4)}},
		{
			name: "a closing fence in an item counts from the item's content",
			doc:  md("- item", "  ```", "      ```", "  ```", "  "+okEntry, "     ```", okEntry),
			want: []Entry{entryAt(5, 6, 17), entry(7)},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, _ := ParseEvidenceLog(tt.doc)
			assertEqual(t, "entries", got.Entries, tt.want)
		})
	}
}

// TestAdversarialInputsAreLinear feeds inputs built to trip quadratic
// scanning (one huge line, thousands of openers without closers). Linear
// parsing takes well under a second even on a loaded machine; quadratic
// parsing of a megabyte takes hours, so the generous bound stays meaningful
// without being flaky. A long test: the race detector, which the README's
// command turns on, makes ten megabytes of parsing in one goroutine take
// five times as long and can find nothing in it.
func TestAdversarialInputsAreLinear(t *testing.T) {
	longtest.Skip(t)
	const size = MaxLineBytes - 16
	inputs := map[string][]byte{
		"brackets":         []byte("### Gate Events Log\n" + strings.Repeat("[", size)),
		"completed suffix": []byte("### Task Queue\n- [ ] T001: " + strings.Repeat("(Completed:", size/12) + ")"),
		"backticks":        []byte("- `" + strings.Repeat("`- ", size/3)),
		"dashes":           []byte("- `a` - [hash:abcdef12]" + strings.Repeat(" - ", size/3)),
		"code spans":       []byte(strings.Repeat("`<!--` ``", size/9) + "<!--"),
		"comment openers":  []byte(strings.Repeat("<!--\n", size/5)),
		"fences":           []byte(strings.Repeat("```\n~~~\n", size/8)),
		"table rows":       []byte("| Gate | Status |\n|---|---|\n" + strings.Repeat("| G0 | 🟢 |\n", size/16)),
		"table headers":    []byte(strings.Repeat("| Gate | Owner |\n|---|---|\n", size/28)),
		"headings":         []byte(strings.Repeat("### Task Queue\n", size/15)),
	}
	for name, data := range inputs {
		t.Run(name, func(t *testing.T) {
			start := time.Now()
			ParseRoadmap(data)
			ParseGatesLedger(data)
			ParseEvidenceLog(data)
			if d := time.Since(start); d > 30*time.Second {
				t.Fatalf("parsing %d bytes took %v; expected linear time", len(data), d)
			}
		})
	}
}

// TestProblemsBounded: a ledger with a malformed record on every line lists
// MaxProblems of them and counts the rest.
func TestProblemsBounded(t *testing.T) {
	var b strings.Builder
	b.WriteString("## Artifact Index\n")
	const n = 3 * MaxProblems
	for range n {
		b.WriteString("- `a.txt` - no hash here\n")
	}
	_, problems := ParseEvidenceLog([]byte(b.String()))
	if len(problems) != MaxProblems+1 {
		t.Fatalf("%d problems, want %d", len(problems), MaxProblems+1)
	}
	if last := problems[len(problems)-1]; !strings.Contains(last.Message, "400 more problems") || last.Line != MaxProblems+1 {
		t.Errorf("closing problem %+v", last)
	}
}

// TestInvisibleCharacters: a character that shows as nothing is read as
// nothing, so a record reads as a reader sees it; a bidirectional override
// or isolate, which shows the line in another order than it is read, is a
// problem.
func TestInvisibleCharacters(t *testing.T) {
	t.Run("a status and a heading with zero-width characters", func(t *testing.T) {
		data := md(
			"| Gate | Status |",
			"|---|---|",
			"| G2\u200b: Validation | F\u200bai\u00adled |",
			"## Current\u200b Gate: G2\u2060_validation",
			"**Sta\ufefftus:** Fai\u200dled",
			"### Gate Events Log",
			"[2025-01-01T00:00:00Z] G2_validation - FAIL\u200bED - validator - x\u200by",
		)
		g := assertG2Failed(t, data)
		assertEqual(t, "events", g.Events, []Event{{"2025-01-01T00:00:00Z", "G2_validation", "FAILED", "validator", "xy", 7}})
	})
	t.Run("an evidence entry's columns count no invisible character", func(t *testing.T) {
		ev, problems := ParseEvidenceLog(md("- \u200b`a` - [hash:abcdef12] - t - d"))
		assertProblems(t, problems, nil)
		assertEqual(t, "entries", ev.Entries, []Entry{entryAt(1, 4, 15)})
	})
	t.Run("a bidirectional override is a problem at its column", func(t *testing.T) {
		_, problems := ParseGatesLedger(md("| Gate | Status |", "|---|---|", "| G2 | \u202edeliaF |", "x \u2066y\u2069"))
		assertProblems(t, problems, []Problem{
			{3, 8, "bidirectional control character U+202E makes the text after it show in another order than it is read, so a reader sees other words than are checked; expected none in a ledger"},
			{4, 3, "bidirectional control character U+2066 makes the text after it show in another order than it is read, so a reader sees other words than are checked; expected none in a ledger"},
		})
	})
}

// TestReadAsShown: a heading, a table cell and a labelled value are read
// as Markdown shows them, character references and any white space
// included; a heading underlined (setext) that names a section the
// parsers read is a problem, since sections are read from "#" headings.
func TestReadAsShown(t *testing.T) {
	t.Run("character references and white space", func(t *testing.T) {
		data := md(
			"| Gate | Status |",
			"|---|---|",
			"| G2&#58; Validation | F&#97;iled |",
			"## Current&nbsp;Gate: G2&#95;validation",
			"**Status&#58;**\u00a0Failed",
			"### Gate\u2003Events Log",
		)
		g := assertG2Failed(t, data)
		if g.EventsLine != 6 {
			t.Errorf("events log heading: got line %d, want 6", g.EventsLine)
		}
		r, _ := ParseRoadmap(md("**Status:**&#32;Complete", "## Task&nbsp;Queue", "- [ ] T001: open"))
		if r.Status != "Complete" || len(r.Tasks) != 1 {
			t.Errorf("roadmap: got status %q and %d tasks, want \"Complete\" and 1", r.Status, len(r.Tasks))
		}
	})
	t.Run("a setext heading naming a section", func(t *testing.T) {
		const msg = `"Current Gate: G2" is underlined as a heading (setext), and the sections of a ledger are read from "#" headings only, so what follows is not read as its section; write it as "## Current Gate: G2"`
		_, problems := ParseGatesLedger(md("text", "", "Current Gate: G2", "----", "**Status:** Failed", "", "  Task Queue", "more", "===", "", "Notes", "---", "", "- Current Gate: G3", "---", "", "Current Gate: G4", "", "---"))
		assertProblems(t, problems, []Problem{
			{3, 1, msg},
			{7, 3, `"Task Queue" is underlined as a heading (setext), and the sections of a ledger are read from "#" headings only, so what follows is not read as its section; write it as "## Task Queue"`},
		})
	})
	t.Run("a heading in a block quote or a list item naming a section", func(t *testing.T) {
		_, problems := ParseGatesLedger(md("> ## Current Gate: G2", "> **Status:** Failed", "", " > > ### Gate&nbsp;Events Log", "> ## Notes", "> #hashtag Current Gate", "```", "> ## Current Gate: G3", "```",
			"- ## Current Gate: G4", "  **Status:** Failed", "", "> 1. ### Task Queue", "- Current Gate: G5"))
		assertProblems(t, problems, []Problem{
			{1, 1, `heading "Current Gate: G2" stands in a block quote, and the sections of a ledger are read from headings at the start of a line only, so what follows is not read as its section; write it, and its section, outside the quote`},
			{4, 2, `heading "Gate Events Log" stands in a block quote, and the sections of a ledger are read from headings at the start of a line only, so what follows is not read as its section; write it, and its section, outside the quote`},
			{10, 1, `heading "Current Gate: G4" stands in a list item, and the sections of a ledger are read from headings at the start of a line only, so what follows is not read as its section; write it, and its section, outside the list`},
			{13, 1, `heading "Task Queue" stands in a list item, and the sections of a ledger are read from headings at the start of a line only, so what follows is not read as its section; write it, and its section, outside the list`},
		})
	})
}

// assertG2Failed parses a gates ledger whose line 3 is G2's row of the gate
// table and whose lines 4 and 5 are a Current Gate heading and status, and
// asserts that both say G2 failed, with no problem.
func assertG2Failed(t *testing.T, data []byte) *GatesLedger {
	t.Helper()
	g, problems := ParseGatesLedger(data)
	assertProblems(t, problems, nil)
	assertEqual(t, "table", g.Table, []GateRow{{Gate: "G2", Name: "Validation", Status: GateFailed, RawStatus: "Failed", Line: 3}})
	assertEqual(t, "current gates", g.Current, []CurrentGate{
		{Gate: "G2_validation", Line: 4, Status: GateFailed, RawStatus: "Failed", StatusLine: 5, Blockers: []Blocker{}},
	})
	return g
}
