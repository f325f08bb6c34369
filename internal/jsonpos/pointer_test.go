package jsonpos

import (
	"reflect"
	"testing"
)

func TestEscapeToken(t *testing.T) {
	tests := []struct{ in, want string }{
		{"", ""},
		{"plain", "plain"},
		{"a/b", "a~1b"},
		{"~", "~0"},
		{"~1", "~01"},
		{"/~", "~1~0"},
		{"é/😀", "é~1😀"},
	}
	for _, tt := range tests {
		if got := EscapeToken(tt.in); got != tt.want {
			t.Errorf("EscapeToken(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestPointer(t *testing.T) {
	tests := []struct {
		tokens []string
		want   string
	}{
		{nil, ""},
		{[]string{""}, "/"},
		{[]string{"steps", "0", "artifacts"}, "/steps/0/artifacts"},
		{[]string{"a/b", "~"}, "/a~1b/~0"},
		{[]string{"", ""}, "//"},
	}
	for _, tt := range tests {
		if got := Pointer(tt.tokens...); got != tt.want {
			t.Errorf("Pointer(%q) = %q, want %q", tt.tokens, got, tt.want)
		}
	}
}

func TestSplitPointer(t *testing.T) {
	tests := []struct {
		in      string
		want    []string
		wantErr string
	}{
		{in: "", want: nil},
		{in: "/", want: []string{""}},
		{in: "//", want: []string{"", ""}},
		{in: "/steps/0", want: []string{"steps", "0"}},
		{in: "/a~1b/~0/~01", want: []string{"a/b", "~", "~1"}},
		{in: "/ ", want: []string{" "}},
		{in: "steps", wantErr: `invalid json pointer "steps": expected it to be empty or to start with "/"`},
		{in: "#/steps", wantErr: `invalid json pointer "#/steps": expected it to be empty or to start with "/"`},
		{in: "/a~2", wantErr: `invalid json pointer "/a~2": in token "a~2", expected "~" to be followed by "0" or "1"`},
		{in: "/a/~", wantErr: `invalid json pointer "/a/~": in token "~", expected "~" to be followed by "0" or "1"`},
	}
	for _, tt := range tests {
		got, err := SplitPointer(tt.in)
		if tt.wantErr != "" {
			if err == nil || err.Error() != tt.wantErr {
				t.Errorf("SplitPointer(%q) error = %v, want %q", tt.in, err, tt.wantErr)
			}
			continue
		}
		if err != nil || !reflect.DeepEqual(got, tt.want) {
			t.Errorf("SplitPointer(%q) = %q, %v; want %q, nil", tt.in, got, err, tt.want)
		}
		if back := Pointer(got...); back != tt.in {
			t.Errorf("Pointer(SplitPointer(%q)...) = %q, want the pointer back", tt.in, back)
		}
	}
}
