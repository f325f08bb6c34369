package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"regexp"
	"strings"
	"testing"
)

func TestEscape(t *testing.T) {
	for in, want := range map[string]string{
		"plain text, ünïcode and \\ backslashes": "plain text, ünïcode and \\ backslashes",
		"\x1b[31mred\x1b[0m":                     `\x1b[31mred\x1b[0m`,
		"a\tb\nc\rd\x00e\x7f":                    `a\tb\nc\rd\x00e\x7f`,
		"only a DEL\x7f here":                    `only a DEL\x7f here`,
		"nel\u0085csi\u009b":                     `nel\u0085csi\u009b`,
		"ls\u2028ps\u2029":                       `ls\u2028ps\u2029`,
		"\u202aLRE\u202eRLO\u2066LRI\u2069PDI":   `\u202aLRE\u202eRLO\u2066LRI\u2069PDI`,
		"bad \xff\x9b byte":                      `bad \xff\x9b byte`,
		"a ##[error]x mid-line":                  `a ##\x5berror]x mid-line`,
		"##[":                                    `##\x5b`,
	} {
		if got := Escape(in); got != want {
			t.Errorf("Escape(%q) = %q, want %q", in, got, want)
		}
		if got := Escape(Escape(in)); got != Escape(in) {
			t.Errorf("Escape is not idempotent on %q: %q", in, got)
		}
	}
	for in, want := range map[string]string{
		"::error::x":                `\x3a:error::x`,
		"  ##[error]x":              `  ##\x5berror]x`,
		"runs/::error::x":           "runs/::error::x",
		"a\n::error::x":             `a\n::error::x`,
		"\u00a0::warning::x":        "\u00a0\\x3a:warning::x",
		"\u2003\u3000 ::warning::x": "\u2003\u3000 \\x3a:warning::x",
		"\u200b::warning::x":        "\u200b::warning::x",
	} {
		if got := EscapeLine(in); got != want {
			t.Errorf("EscapeLine(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestEscapeEachClassAlone: each class of character Escape shows escaped,
// at both ends of its range, as the only unsafe character of a string, so
// that the fast path that returns a safe string untouched must see it too;
// and the safe characters just outside each range stay as they are. The
// same holds for EscapeLine, whose text starts a line.
func TestEscapeEachClassAlone(t *testing.T) {
	unsafe := []struct{ class, in, want string }{
		{"C0 NUL", "\x00", `\x00`},
		{"C0 ESC", "\x1b", `\x1b`},
		{"C0 US", "\x1f", `\x1f`},
		{"tab", "\t", `\t`},
		{"newline", "\n", `\n`},
		{"carriage return", "\r", `\r`},
		{"DEL", "\x7f", `\x7f`},
		{"C1 first (PAD)", "\u0080", `\u0080`},
		{"C1 NEL", "\u0085", `\u0085`},
		{"C1 CSI", "\u009b", `\u009b`},
		{"C1 last (APC)", "\u009f", `\u009f`},
		{"line separator", "\u2028", `\u2028`},
		{"paragraph separator", "\u2029", `\u2029`},
		{"bidi embedding LRE", "\u202a", `\u202a`},
		{"bidi override RLO", "\u202e", `\u202e`},
		{"bidi isolate LRI", "\u2066", `\u2066`},
		{"bidi isolate PDI", "\u2069", `\u2069`},
		{"invalid byte 0xff", "\xff", `\xff`},
		{"lone continuation byte", "\x9b", `\x9b`},
		{"truncated sequence", "\xe2\x80", `\xe2\x80`},
		{"overlong encoding", "\xc0\xaf", `\xc0\xaf`},
		{"surrogate", "\xed\xa0\x80", `\xed\xa0\x80`},
	}
	for _, tc := range unsafe {
		for _, in := range []string{tc.in, "safe " + tc.in + " text", "safe text" + tc.in} {
			want := strings.Replace(in, tc.in, tc.want, 1)
			if got := Escape(in); got != want {
				t.Errorf("%s: Escape(%q) = %q, want %q", tc.class, in, got, want)
			}
			if got := EscapeLine(in); got != want {
				t.Errorf("%s: EscapeLine(%q) = %q, want %q", tc.class, in, got, want)
			}
		}
	}
	for _, safe := range []string{
		" ", "~", "\\", // the ASCII ends, and the escape character itself
		"\u00a0", "é", // just above C1
		"\u2027", "\u202f", // around the separators and embeddings
		"\u2065", "\u206a", // around the isolates
		"\u200f", "\U0001f600", // a mark the list leaves out, a 4-byte character
	} {
		in := "safe " + safe + " text"
		if got := Escape(in); got != in {
			t.Errorf("Escape(%q) = %q, want it unchanged", in, got)
		}
		if got := EscapeLine(in); got != in {
			t.Errorf("EscapeLine(%q) = %q, want it unchanged", in, got)
		}
	}
}

// TestSafeJSON: what Escape escapes, and "##[", never appears raw in
// encoded JSON, and the document decodes to the same value.
func TestSafeJSON(t *testing.T) {
	v := map[string]any{"k\u202e": []any{"##[error]x", "\x7f\u0085\u2066\u2028\x1b", "plain ü"}}
	raw, err := encode(v)
	if err != nil {
		t.Fatal(err)
	}
	safe := SafeJSON(raw)
	for _, bad := range []string{"##[", "\x7f", "\u0085", "\u2066", "\u202e", "\u2028", "\x1b"} {
		if bytes.Contains(safe, []byte(bad)) {
			t.Errorf("%q is raw in %s", bad, safe)
		}
	}
	var back any
	if err := json.Unmarshal(safe, &back); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back, v) {
		t.Errorf("decodes to %v, want %v", back, v)
	}
	if plain := []byte(`{"a": "b"}`); !bytes.Equal(SafeJSON(plain), plain) {
		t.Error("SafeJSON changed a document it had no reason to")
	}
}

// TestMarkdownInline: what mdInline writes for each Markdown and GitHub
// construct a run's text could carry.
func TestMarkdownInline(t *testing.T) {
	for _, tc := range []struct{ name, in, want string }{
		{"plain", "plain text, ünïcode", "plain text, ünïcode"},
		{"mention", "ping @octocat now", "ping @<!-- -->octocat now"},
		{"team mention", "@org/team", "@<!-- -->org/team"},
		{"mention after a word character", "cc:@octocat", "cc:@<!-- -->octocat"},
		{"email autolink", "mail a.b@evil.example", "mail a.b@<!-- -->evil.example"},
		{"a lone at sign", "a @ b", "a @<!-- --> b"},
		{"URL autolink", "see https://evil.example/x", "see https:<!-- -->//evil.example/x"},
		{"URL autolink in capitals", "HTTP://EVIL.EXAMPLE", "HTTP:<!-- -->//EVIL.EXAMPLE"},
		{"ftp autolink", "ftp://evil.example", "ftp:<!-- -->//evil.example"},
		{"any scheme", "x-y://z", "x-y:<!-- -->//z"},
		{"www autolink", "go to www.evil.example", "go to www<!-- -->.evil.example"},
		{"www autolink in capitals", "WWW.EVIL.EXAMPLE", "WWW<!-- -->.EVIL.EXAMPLE"},
		{"www after an escaped underscore", "_www.evil.example", `\_www<!-- -->.evil.example`},
		{"www inside a word", "wwww.x", "wwww<!-- -->.x"},
		{"issue reference", "fixes #12 and org/repo#3", `fixes \#<!-- -->12 and org/repo\#<!-- -->3`},
		{"hash before no digit", "# x #y", `\# x \#y`},
		{"GH issue reference", "see GH-12, gh-3", "see GH-<!-- -->12, gh-<!-- -->3"},
		{"GH before no digit", "GH-x", "GH-x"},
		{"GH inside a word", "high-5", "high-<!-- -->5"},
		{"emoji code in a location", "a.json:100:5", "a.json:<!-- -->100:5"},
		{"emoji code", "nice :+1: and :white_check_mark:", `nice :<!-- -->+1: and :<!-- -->white\_check\_mark:`},
		{"colon before a space", "G1: passed", "G1: passed"},
		{"workflow command", "::error::x", "::<!-- -->error::x"},
		{"HTML and entities", `<b>&#64;x</b> <https://x>`, `&lt;b&gt;&amp;\#<!-- -->64;x&lt;/b&gt; &lt;https:<!-- -->//x&gt;`},
		{"a comment of the run's own", "<!-- -->", "&lt;\\!-- --&gt;"},
		{"emphasis, code, links, tables", "*a* _b_ `c` [d](e) ![f](g) | ~h~ \\", "\\*a\\* \\_b\\_ \\`c\\` \\[d\\](e) \\!\\[f\\](g) \\| \\~h\\~ \\\\"},
		{"bullet list marker", "- item", `\- item`},
		{"plus list marker", "+ item", `\+ item`},
		{"ordered list marker", "12. item", `12\. item`},
		{"ordered list marker with a parenthesis", "3) item", `3\) item`},
		{"not a list marker mid-text", "a - b 1. c", "a - b 1. c"},
		{"number without a marker", "2025 runs", "2025 runs"},
	} {
		if got := mdInline(tc.in); got != tc.want {
			t.Errorf("%s: mdInline(%q) = %q, want %q", tc.name, tc.in, got, tc.want)
		}
		checkMarkdownInline(t, tc.in, mdInline(tc.in))
	}
}

// checkMarkdownInline checks md, mdInline's text for in, as GitHub renders
// it: cmark-gfm reads Markdown syntax only where md leaves a character
// unescaped, and GitHub then finds mentions, references and emoji codes
// in each run of rendered text, which an HTML comment ends. Every such
// run is free of them, and together they read as in.
func checkMarkdownInline(t *testing.T, in, md string) {
	t.Helper()
	var shown strings.Builder
	for seg := range strings.SplitSeq(md, mdBreak) {
		text, err := renderSegment(seg)
		if err != nil {
			t.Errorf("mdInline(%q) = %q: %v", in, md, err)
			return
		}
		for _, c := range githubConstructs {
			if loc := c.re.FindStringIndex(text); loc != nil {
				t.Errorf("mdInline(%q) = %q: GitHub reads %q in %q as %s", in, md, text[loc[0]:loc[1]], text, c.name)
			}
		}
		shown.WriteString(text)
	}
	if shown.String() != in {
		t.Errorf("mdInline(%q) = %q renders as %q", in, md, shown.String())
	}
	if strings.ContainsAny(md, "\n\r") {
		t.Errorf("mdInline(%q) = %q breaks the line", in, md)
	}
}

// githubConstructs are what GitHub links in rendered text, in the runs of
// text that cmark-gfm's autolinks and GitHub's own filters see.
var githubConstructs = []struct {
	name string
	re   *regexp.Regexp
}{
	{"a mention (or an email autolink)", regexp.MustCompile(`@[A-Za-z0-9_.+-]`)},
	{"a URL autolink", regexp.MustCompile(`:/`)},
	{"a www autolink", regexp.MustCompile(`(?i)www\.`)},
	{"an issue reference", regexp.MustCompile(`(?i)(#|gh-)[0-9]`)},
	{"an emoji code", regexp.MustCompile(`:[A-Za-z0-9_+-]+:`)},
}

// renderSegment is the text cmark-gfm shows for seg, a piece of mdInline's
// output between comments; an error for any character it would read as
// Markdown or HTML syntax.
func renderSegment(seg string) (string, error) {
	var b strings.Builder
	for i := 0; i < len(seg); i++ {
		c := seg[i]
		switch {
		case c == '\\':
			if i+1 == len(seg) || !strings.ContainsRune("\\|*_`[]#~!-+.)", rune(seg[i+1])) {
				return "", fmt.Errorf("a backslash at %d escapes nothing it should", i)
			}
			b.WriteByte(seg[i+1])
			i++
		case c == '&':
			found := false
			for _, e := range [][2]string{{"&amp;", "&"}, {"&lt;", "<"}, {"&gt;", ">"}} {
				if strings.HasPrefix(seg[i:], e[0]) {
					b.WriteString(e[1])
					i += len(e[0]) - 1
					found = true
					break
				}
			}
			if !found {
				return "", fmt.Errorf("a raw & at %d", i)
			}
		case strings.IndexByte("<>|*_`[]#~!", c) >= 0:
			return "", fmt.Errorf("a raw %q at %d", c, i)
		default:
			b.WriteByte(c)
		}
	}
	return b.String(), nil
}

// FuzzMarkdownInline: whatever the text, mdInline's Markdown renders as
// that text, on one line, with nothing GitHub would link, mention or
// reference; and mdCell's as the escaped text, cut to its bound.
func FuzzMarkdownInline(f *testing.F) {
	for _, s := range []string{
		"@octocat", "a@b.co", "https://x.y", "www.x.y", "#1", ":100:", "- x", "1. x", "<!-- -->", "&#64;",
		"\\@x", "_www.x", "@@x", "::error::x", "x://y", "wWw.", "`@x`", "3)", "ww.www.w", "GH-1",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if e := Escape(s); e == s {
			checkMarkdownInline(t, s, mdInline(s))
		}
		cell := []rune(Escape(s))
		if len(cell) > summaryCell {
			cell = append(cell[:summaryCell], '…')
		}
		checkMarkdownInline(t, string(cell), mdCell(s))
	})
}

// TestMarkdownCode: a code span holds its text whatever backticks it has.
func TestMarkdownCode(t *testing.T) {
	for in, want := range map[string]string{
		"h3a-check explain x.y":    "`h3a-check explain x.y`",
		"explain a`b @c":           "``explain a`b @c``",
		"explain a``b`":            "``` explain a``b` ```",
		"explain <!-- --> & #1 :+": "`explain <!-- --> & #1 :+`",
	} {
		if got := mdCode(in); got != want {
			t.Errorf("mdCode(%q) = %q, want %q", in, got, want)
		}
	}
}
