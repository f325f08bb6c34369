package report

import (
	"bytes"
	"encoding/json"
	"reflect"
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
