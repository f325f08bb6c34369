package report

import (
	"bytes"
	"encoding/json"
	"reflect"
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
	} {
		if got := Escape(in); got != want {
			t.Errorf("Escape(%q) = %q, want %q", in, got, want)
		}
		if got := Escape(Escape(in)); got != Escape(in) {
			t.Errorf("Escape is not idempotent on %q: %q", in, got)
		}
	}
	for in, want := range map[string]string{
		"::error::x":      `\x3a:error::x`,
		"  ##[error]x":    `  \x23#[error]x`,
		"runs/::error::x": "runs/::error::x",
		"a\n::error::x":   `a\n::error::x`,
	} {
		if got := EscapeLine(in); got != want {
			t.Errorf("EscapeLine(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestSafeJSON: what Escape escapes, and "##[", never appears raw in
// encoded JSON, and the document decodes to the same value.
func TestSafeJSON(t *testing.T) {
	v := map[string]any{"k\u202e": []any{"##[error]x", "\x7f\u0085\u2066\u2028\x1b", "plain ü"}}
	raw, err := encode(v, true)
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
