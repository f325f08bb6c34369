package jsonpos

import (
	"reflect"
	"strconv"
	"testing"
)

func TestParseLines(t *testing.T) {
	data := []byte("{\"id\": 1, \"L\": \"I\"}\n\n{\"id\": 2, \"msg\": \"x\"}\r\n{\"id\": 3,\n{\"id\": 4}\n")
	l, problems := ParseLines(data)
	if len(l.Value) != 4 || l.Value[2] != nil {
		t.Fatalf("values %v: want 4 records, the third nil", l.Value)
	}
	if got := l.Value[1].(map[string]any)["msg"]; got != "x" {
		t.Errorf("CRLF record: msg %v", got)
	}
	if len(problems) != 1 || problems[0].Line != 4 || problems[0].Pointer == "" || !problems[0].Kind.Fatal() {
		t.Fatalf("problems %+v: want one fatal problem on line 4", problems)
	}
	tests := []struct {
		pointer   string
		line, col int
		exact     bool
	}{
		{"/0/L", 1, 16, true},
		{"/1/msg", 3, 18, true},
		{"/3", 5, 1, true},
		{"/3/nope", 5, 1, false},
		{"/9", 1, 1, false},
	}
	for _, tc := range tests {
		line, col, exact := l.Position(tc.pointer)
		if got := []any{line, col, exact}; !reflect.DeepEqual(got, []any{tc.line, tc.col, tc.exact}) {
			t.Errorf("Position(%q) = %v, want %d:%d %v", tc.pointer, got, tc.line, tc.col, tc.exact)
		}
	}
	if l.Line(1) != 3 || l.Line(7) != 0 {
		t.Errorf("Line: %d %d", l.Line(1), l.Line(7))
	}
}

func FuzzParseLines(f *testing.F) {
	f.Add([]byte("{\"a\":1}\n[1,2]\n\n\"x\"\n"))
	f.Add([]byte("{\n}\r\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		l, _ := ParseLines(data)
		for i := range l.Value {
			if line, _, _ := l.Position(Pointer(strconv.Itoa(i))); line < 1 {
				t.Fatalf("record %d has line %d", i, line)
			}
		}
	})
}
