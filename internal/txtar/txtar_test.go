package txtar

import (
	"reflect"
	"testing"
)

func TestParseFormat(t *testing.T) {
	tests := []struct {
		name, in string
		want     Archive
		out      string // Format's output, when it differs from in
	}{
		{"comment only", "base: x\n", Archive{Comment: "base: x\n"}, ""},
		{"files", "c\n-- a --\n1\n-- b/c --\n\n-- d --\n", Archive{Comment: "c\n", Files: []File{{"a", "1\n"}, {"b/c", "\n"}, {"d", ""}}}, ""},
		{"marker with CRLF", "-- a --\r\nx\r\n", Archive{Files: []File{{"a", "x\r\n"}}}, "-- a --\nx\r\n"},
		{"no final line break", "-- a --\nx", Archive{Files: []File{{"a", "x"}}}, "-- a --\nx\n"},
		{"not a marker", "-- a\n--a --\n-- --\n", Archive{Comment: "-- a\n--a --\n-- --\n"}, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := Parse([]byte(tc.in))
			if !reflect.DeepEqual(*got, tc.want) {
				t.Fatalf("Parse = %#v, want %#v", *got, tc.want)
			}
			out := tc.out
			if out == "" {
				out = tc.in
			}
			if s := string(got.Format()); s != out {
				t.Errorf("Format = %q, want %q", s, out)
			}
		})
	}
}

func TestCanHold(t *testing.T) {
	for data, want := range map[string]bool{
		"":                  true,
		"a\n":               true,
		"a":                 false,
		"a\n-- b --\n":      false,
		"a\n-- b\n":         true,
		"\xff\n":            true, // bytes are kept; whether they are readable is the caller's concern
		"x\r\n":             true,
		"-- x --\r\nrest\n": false,
	} {
		if got := CanHold(data); got != want {
			t.Errorf("CanHold(%q) = %v, want %v", data, got, want)
		}
		if want {
			ar := &Archive{Files: []File{{"f", data}}}
			if back, _ := Parse(ar.Format()).Get("f"); back != data {
				t.Errorf("round trip of %q gives %q", data, back)
			}
		}
	}
}

func TestSet(t *testing.T) {
	ar := Parse([]byte("-- want --\nold\n"))
	ar.Set("want", "new\n")
	ar.Set("expect", "gate: pass\n")
	if got := string(ar.Format()); got != "-- want --\nnew\n-- expect --\ngate: pass\n" {
		t.Errorf("Format after Set = %q", got)
	}
}
