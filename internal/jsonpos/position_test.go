package jsonpos

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// positionDoc's positions in the tests below were counted by hand.
const positionDoc = `{
  "run_id": "r-1",
  "steps": [
    {"agent": "planner", "artifacts": ["a.txt", "b.txt"]},
    {
      "agent": "exécuteur",
      "score": -0.5,
      "ok": true,
      "none": null
    }
  ],
  "a/b": {"~": false, "ü😀": 3},
  "": {"": 7},
  "dup": 1,
  "dup": [2]
}`

func TestPosition(t *testing.T) {
	doc := mustParse(t, positionDoc)
	tests := []struct {
		pointer         string
		line, col       int
		keyLine, keyCol int
		exact           bool
		comment         string
	}{
		{"", 1, 1, 1, 1, true, "root"},
		{"/run_id", 2, 13, 2, 3, true, ""},
		{"/steps", 3, 12, 3, 3, true, ""},
		{"/steps/0", 4, 5, 4, 5, true, "array elements have no name"},
		{"/steps/0/agent", 4, 15, 4, 6, true, ""},
		{"/steps/0/artifacts", 4, 39, 4, 26, true, ""},
		{"/steps/0/artifacts/1", 4, 49, 4, 49, true, ""},
		{"/steps/1", 5, 5, 5, 5, true, ""},
		{"/steps/1/agent", 6, 16, 6, 7, true, ""},
		{"/steps/1/score", 7, 16, 7, 7, true, "a number starts at its sign"},
		{"/steps/1/ok", 8, 13, 8, 7, true, ""},
		{"/steps/1/none", 9, 15, 9, 7, true, ""},
		{"/a~1b", 12, 10, 12, 3, true, `"/" in a name is "~1"`},
		{"/a~1b/~0", 12, 16, 12, 11, true, `"~" in a name is "~0"`},
		{"/a~1b/ü😀", 12, 29, 12, 23, true, "columns count code points"},
		{"/", 13, 7, 13, 3, true, "the empty name"},
		{"//", 13, 12, 13, 8, true, "the empty name twice"},
		{"/dup", 15, 10, 15, 3, true, "the later duplicate wins"},
		{"/dup/0", 15, 11, 15, 11, true, ""},

		// Not resolvable: the deepest ancestor that is, inexactly.
		{"/steps/5", 3, 12, 3, 3, false, "index past the end"},
		{"/steps/-", 3, 12, 3, 3, false, `"-" names no existing element`},
		{"/steps/01", 3, 12, 3, 3, false, "leading zero"},
		{"/steps/+1", 3, 12, 3, 3, false, ""},
		{"/steps/0/agent/x", 4, 15, 4, 6, false, "below a scalar"},
		{"/run_id/0", 2, 13, 2, 3, false, ""},
		{"/nope", 1, 1, 1, 1, false, ""},
		{"/a~1b/missing/deeper", 12, 10, 12, 3, false, ""},
		{"/a/b", 1, 1, 1, 1, false, `"a/b" needs "~1"`},
		{"steps", 1, 1, 1, 1, false, "malformed: no leading slash"},
		{"/steps/0~2", 3, 12, 3, 3, false, "malformed escape"},
	}
	for _, tt := range tests {
		line, col, exact := doc.Position(tt.pointer)
		if line != tt.line || col != tt.col || exact != tt.exact {
			t.Errorf("Position(%q) = %d:%d, %v; want %d:%d, %v %s", tt.pointer, line, col, exact, tt.line, tt.col, tt.exact, tt.comment)
		}
		line, col, exact = doc.KeyPosition(tt.pointer)
		if line != tt.keyLine || col != tt.keyCol || exact != tt.exact {
			t.Errorf("KeyPosition(%q) = %d:%d, %v; want %d:%d, %v %s", tt.pointer, line, col, exact, tt.keyLine, tt.keyCol, tt.exact, tt.comment)
		}
	}
}

func TestPositionBOMAndCRLF(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "bom_crlf.json"))
	if err != nil {
		t.Fatal(err)
	}
	doc, problems := Parse(data)
	if doc == nil || len(problems) != 1 || problems[0].Kind != BOM {
		t.Fatalf("Parse(bom_crlf.json) = %v, %s; want a document and one bom problem", doc, formatProblems(problems))
	}
	tests := []struct {
		pointer         string
		line, col       int
		keyLine, keyCol int
	}{
		{"", 1, 1, 1, 1},
		{"/a", 2, 8, 2, 3},
		{"/a/1", 2, 12, 2, 12},
		{"/a/2", 2, 17, 2, 17},
		{"/b/c", 3, 14, 3, 9},
	}
	for _, tt := range tests {
		if line, col, exact := doc.Position(tt.pointer); line != tt.line || col != tt.col || !exact {
			t.Errorf("Position(%q) = %d:%d, %v; want %d:%d, true", tt.pointer, line, col, exact, tt.line, tt.col)
		}
		if line, col, exact := doc.KeyPosition(tt.pointer); line != tt.keyLine || col != tt.keyCol || !exact {
			t.Errorf("KeyPosition(%q) = %d:%d, %v; want %d:%d, true", tt.pointer, line, col, exact, tt.keyLine, tt.keyCol)
		}
	}
}

// TestPositionWideObject covers objects big enough to be looked up by map,
// including a duplicate and an escaped name.
func TestPositionWideObject(t *testing.T) {
	var b strings.Builder
	b.WriteString("{\n")
	const members = 40
	for i := range members {
		fmt.Fprintf(&b, "  \"k%02d\": %d,\n", i, i) // line i+2; name at column 3, value at 10
	}
	b.WriteString("  \"k07\": 7,\n")            // line 42: the later k07 wins
	b.WriteString("  \"wide\\/slash\": true\n") // line 43
	b.WriteString("}")
	doc := mustParse(t, b.String())
	for i := range members {
		pointer := fmt.Sprintf("/k%02d", i)
		wantLine := i + 2
		if i == 7 {
			wantLine = 42
		}
		if line, col, exact := doc.Position(pointer); line != wantLine || col != 10 || !exact {
			t.Errorf("Position(%q) = %d:%d, %v; want %d:10, true", pointer, line, col, exact, wantLine)
		}
		if line, col, exact := doc.KeyPosition(pointer); line != wantLine || col != 3 || !exact {
			t.Errorf("KeyPosition(%q) = %d:%d, %v; want %d:3, true", pointer, line, col, exact, wantLine)
		}
	}
	if line, col, exact := doc.Position("/wide~1slash"); line != 43 || col != 18 || !exact {
		t.Errorf(`Position("/wide~1slash") = %d:%d, %v; want 43:18, true`, line, col, exact)
	}
	if line, col, exact := doc.Position("/k40"); line != 1 || col != 1 || exact {
		t.Errorf(`Position("/k40") = %d:%d, %v; want the root 1:1, false`, line, col, exact)
	}
}

// TestPositionWithoutParse covers Documents built by hand: positions come
// from Data alone, and broken Data never causes a panic.
func TestPositionWithoutParse(t *testing.T) {
	tests := []struct {
		data      string
		pointer   string
		line, col int
		exact     bool
	}{
		{"", "", 1, 1, false},
		{"   ", "/a", 1, 1, false},
		{`{"a": [1, 2`, "/a/1", 1, 11, true},
		{`{"a": [1, 2`, "/a/2", 1, 7, false},
		{`{"a" 1}`, "/a", 1, 1, false},
		{`{"a": "unterminated`, "/a", 1, 7, true},
		{`[}`, "/0", 1, 1, false},
		{`{"a": {"b": }}`, "/a/b", 1, 7, false},
		{strings.Repeat("[", MaxDepth+5), "/0/0", 1, 3, true},
	}
	for _, tt := range tests {
		doc := &Document{Data: []byte(tt.data)}
		if line, col, exact := doc.Position(tt.pointer); line != tt.line || col != tt.col || exact != tt.exact {
			t.Errorf("Document{Data: %q}.Position(%q) = %d:%d, %v; want %d:%d, %v", tt.data, tt.pointer, line, col, exact, tt.line, tt.col, tt.exact)
		}
	}
	var none *Document
	if line, col, exact := none.Position("/a"); line != 1 || col != 1 || exact {
		t.Errorf("(*Document)(nil).Position = %d:%d, %v; want 1:1, false", line, col, exact)
	}
}

func TestPositionConcurrent(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "state.json"))
	if err != nil {
		t.Fatal(err)
	}
	pointers := []string{"", "/meta/commit", "/steps/0/artifacts/1", "/steps/1/evidence/path~1with~1slash",
		"/steps/1/evidence/tilde~0key", "/notes", "/steps/9", "/gates/G2_validation"}
	reference := mustParse(t, string(data))
	want := make([][3]int, len(pointers))
	for i, p := range pointers {
		line, col, _ := reference.Position(p)
		keyLine, keyCol, _ := reference.KeyPosition(p)
		want[i] = [3]int{line, col, keyLine*1000 + keyCol}
	}

	doc := mustParse(t, string(data)) // fresh: the index is built under contention
	var wg sync.WaitGroup
	for g := range 16 {
		wg.Go(func() {
			for round := range 50 {
				i := (g + round) % len(pointers)
				line, col, _ := doc.Position(pointers[i])
				keyLine, keyCol, _ := doc.KeyPosition(pointers[i])
				if got := [3]int{line, col, keyLine*1000 + keyCol}; got != want[i] {
					t.Errorf("goroutine %d: %q gave %v, want %v", g, pointers[i], got, want[i])
					return
				}
			}
		})
	}
	wg.Wait()
}

func TestLineCol(t *testing.T) {
	tests := []struct {
		name      string
		data      string
		offset    int
		line, col int
	}{
		{"empty", "", 0, 1, 1},
		{"first byte", "abc", 0, 1, 1},
		{"third byte", "abc", 2, 1, 3},
		{"end of input", "abc", 3, 1, 4},
		{"past the end is clamped", "abc", 99, 1, 4},
		{"negative is clamped", "abc", -5, 1, 1},
		{"after lf", "a\nb", 2, 2, 1},
		{"cr before lf ends its line", "a\r\nb", 1, 1, 2},
		{"lf after cr", "a\r\nb", 2, 1, 3},
		{"after crlf", "a\r\nb", 3, 2, 1},
		{"a lone cr does not end a line", "a\rb", 2, 1, 3},
		{"two-byte character counts once", "éx", 2, 1, 2},
		{"inside a two-byte character", "éx", 1, 1, 1},
		{"four-byte character counts once", "😀x", 4, 1, 2},
		{"inside a four-byte character", "😀x", 3, 1, 1},
		{"invalid byte counts once", "\xffx", 1, 1, 2},
		{"truncated sequence counts per byte", "\xe2\x82x", 2, 1, 3},
		{"stray continuation byte", "a\x80b", 2, 1, 3},
		{"multi-byte on an earlier line does not matter", "é\nab", 5, 2, 3},
		{"bom takes no column", bom + "ab", 4, 1, 2},
		{"bom start", bom + "ab", 3, 1, 1},
		{"inside the bom", bom + "ab", 1, 1, 1},
		{"bom later in the file is a character", "a\n" + bom + "b", 5, 2, 2},
	}
	for _, tt := range tests {
		if line, col := LineCol([]byte(tt.data), tt.offset); line != tt.line || col != tt.col {
			t.Errorf("%s: LineCol(%q, %d) = %d:%d, want %d:%d", tt.name, tt.data, tt.offset, line, col, tt.line, tt.col)
		}
	}
}

func mustParse(t testing.TB, data string) *Document {
	t.Helper()
	doc, problems := Parse([]byte(data))
	if doc == nil {
		t.Fatalf("Parse failed: %s", formatProblems(problems))
	}
	return doc
}
