package yamlpos

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/h3a-check/h3a-check/internal/jsonpos"
)

const blueprint = `# execution blueprint
tasks:
  - id: T01
    summary: "set up: the repo"
    dependencies: []
  - id: T02
    retries: 2
    ratio: 0.5
    done: false
    note: ~
    dependencies: [T01]
`

func TestParseValueAndPositions(t *testing.T) {
	doc, problems := Parse([]byte(blueprint))
	if doc == nil || len(problems) != 0 {
		t.Fatalf("Parse: %v", problems)
	}
	want := map[string]any{"tasks": []any{
		map[string]any{"id": "T01", "summary": "set up: the repo", "dependencies": []any{}},
		map[string]any{"id": "T02", "retries": json.Number("2"), "ratio": json.Number("0.5"), "done": false, "note": nil, "dependencies": []any{"T01"}},
	}}
	if !reflect.DeepEqual(doc.Value, want) {
		t.Errorf("Value = %#v\nwant %#v", doc.Value, want)
	}
	for _, tc := range []struct {
		ptr       string
		line, col int
		exact     bool
	}{
		{"", 2, 1, true},
		{"/tasks", 3, 3, true},
		{"/tasks/1", 6, 5, true},
		{"/tasks/1/id", 6, 9, true},
		{"/tasks/1/dependencies/0", 11, 20, true},
		{"/tasks/1/nope", 6, 5, false},
		{"/tasks/9", 3, 3, false},
	} {
		line, col, exact := doc.Position(tc.ptr)
		if line != tc.line || col != tc.col || exact != tc.exact {
			t.Errorf("Position(%q) = %d:%d %v, want %d:%d %v", tc.ptr, line, col, exact, tc.line, tc.col, tc.exact)
		}
	}
}

func TestParseProblems(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		kind     jsonpos.ProblemKind
		line     int
		fatal    bool
		contains string
	}{
		{"duplicate key", "a: 1\nb: 2\na: 3\n", jsonpos.DuplicateKey, 3, false, `duplicate key "a" (first at line 1, column 1)`},
		{"a key that shows as an earlier one", "tasks: [T1]\nx:\n  y: 1\n\"tasks\u200b\": [T2]\n", jsonpos.DuplicateKey, 4, false, `key "tasks\u200b" shows as "tasks", as the key "tasks" does (first at line 1, column 1)`},
		{"a key drawn like an earlier one", "tasks: [T1]\nx:\n  y: 1\nt\u0430sks: [T2]\n", jsonpos.DuplicateKey, 4, false, "key \"t\u0430sks\" shows as \"tasks\" (U+0430 is drawn like \"a\"), as the key \"tasks\" does (first at line 1, column 1)"},
		{"a key with a character that is not drawn", "tasks: [T1]\nta\u034fsks: [T2]\n", jsonpos.DuplicateKey, 2, false, "key \"ta\u034fsks\" shows as \"tasks\" (U+034F is not drawn), as the key \"tasks\" does (first at line 1, column 1)"},
		{"a key drawn like an earlier one in Armenian", "status: done\nstat\u057ds: open\n", jsonpos.DuplicateKey, 2, false, "key \"stat\u057ds\" shows as \"status\" (U+057D is drawn like \"u\")"},
		{"syntax", "a: [1, 2\nb: 3\n", jsonpos.Syntax, 0, true, "invalid yaml"},
		{"bad indent", "a:\n  b: 1\n c: 2\n", jsonpos.Syntax, 0, true, "invalid yaml"},
		{"empty", "", jsonpos.Syntax, 1, true, "empty document"},
		{"complex key", "? [a, b]\n: 1\n", jsonpos.Syntax, 1, true, "not a scalar"},
		{"a second document", "a: 1\n---\nb: 2\n", jsonpos.Syntax, 2, false, "a second yaml document starts here"},
		{"an empty second document", "a: 1\n--- \n# nothing\n", jsonpos.Syntax, 2, false, "a second yaml document starts here"},
		{"a broken second document", "a: 1\n---\nb: [1\n", jsonpos.Syntax, 0, false, "invalid yaml after the first document"},
		{"alias bomb", "a: &a [x, x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]\nc: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]\nd: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c, *c]\ne: &e [*d, *d, *d, *d, *d, *d, *d, *d, *d, *d]\nf: &f [*e, *e, *e, *e, *e, *e, *e, *e, *e, *e]\ng: [*f, *f, *f, *f, *f, *f, *f, *f, *f, *f]\n", jsonpos.TooManyValues, 4, true, "aliases make"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			doc, problems := Parse([]byte(tc.in))
			if (doc == nil) != tc.fatal {
				t.Fatalf("doc = %v, want fatal %v (%v)", doc, tc.fatal, problems)
			}
			if len(problems) != 1 {
				t.Fatalf("problems = %+v, want 1", problems)
			}
			p := problems[0]
			if p.Kind != tc.kind || (tc.line != 0 && p.Line != tc.line) || p.Line < 1 || !strings.Contains(p.Message, tc.contains) {
				t.Errorf("problem = %+v, want kind %v line %d containing %q", p, tc.kind, tc.line, tc.contains)
			}
		})
	}
}

// FuzzParse: any input parses or fails with a located problem, without a
// panic, within the bounds.
func FuzzParse(f *testing.F) {
	f.Add([]byte(blueprint))
	f.Add([]byte("a: &a [1]\nb: *a\n"))
	f.Add([]byte("a: 1\na: 2\n"))
	f.Add([]byte("--- \n- !!binary aGk=\n- 0x1F\n- .inf\n- 2025-01-01T00:00:00Z\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		doc, problems := Parse(data)
		for _, p := range problems {
			if p.Line < 1 || p.Column < 1 {
				t.Errorf("problem without a position: %+v", p)
			}
		}
		if doc != nil {
			doc.Position("/a/0")
			if _, err := json.Marshal(doc.Value); err != nil {
				t.Errorf("value is not JSON: %v", err)
			}
		}
	})
}

// TestExpansionBounds: what a document expands to is bounded in values
// (ParseLimit), in the bytes of its keys and strings, and in the share
// aliases make; past a bound it is one problem at the node that crossed
// it, never a value; positions are kept for the nodes written in the file
// only, and a value an alias repeats is located at the alias.
func TestExpansionBounds(t *testing.T) {
	long := strings.Repeat("x", 100_000)
	var refs []string
	for range 200 {
		refs = append(refs, "*s")
	}
	bigStrings := "s: &s " + long + "\nl: [" + strings.Join(refs, ", ") + "]\n"
	if doc, problems := Parse([]byte(bigStrings)); doc != nil || len(problems) != 1 || problems[0].Kind != jsonpos.TooManyValues ||
		problems[0].Line != 2 || !strings.Contains(problems[0].Message, "bytes") {
		t.Errorf("one string repeated 200 times: %v, %+v; want a too-many-values problem about bytes at line 2", doc != nil, problems)
	}

	var keys []string
	for i := range 100 {
		keys = append(keys, fmt.Sprintf("k%d: %d", i, i))
	}
	plain := "{" + strings.Join(keys, ", ") + "}\n"
	if doc, problems := ParseLimit([]byte(plain), 100); doc != nil || len(problems) != 1 || problems[0].Kind != jsonpos.TooManyValues {
		t.Errorf("101 values within a limit of 100: %v, %+v", doc != nil, problems)
	}
	if doc, problems := ParseLimit([]byte(plain), 101); doc == nil || doc.Values != 101 || len(problems) != 0 {
		t.Errorf("101 values within a limit of 101: %+v, %+v", doc, problems)
	}

	// A flow list of small numbers is refused by its punctuation, before
	// yaml.v3 builds a node of it; comment lines count for nothing.
	flow := "x: [" + strings.Repeat("1,", 200_000) + "1]\n"
	if doc, problems := ParseLimit([]byte(flow), 1000); doc != nil || len(problems) != 1 || problems[0].Kind != jsonpos.TooManyValues ||
		!strings.Contains(problems[0].Message, "punctuation allows up to 200006 yaml nodes") {
		t.Errorf("a list of 200,001 numbers within a limit of 1,000: %v, %+v", doc != nil, problems)
	}
	commented := strings.Repeat("  # a, b, c: [d] - {e}\n", 10_000) + "a: 1\n"
	if doc, problems := ParseLimit([]byte(commented), 10); doc == nil || len(problems) != 0 {
		t.Errorf("ten thousand comment lines and one value within a limit of 10: %v, %+v", doc != nil, problems)
	}

	doc, problems := Parse([]byte("a: &a {k: [1, 2]}\nb: *a\n"))
	if doc == nil || len(problems) != 0 {
		t.Fatalf("a plain alias: %+v", problems)
	}
	if line, col, exact := doc.Position("/b/k/1"); line != 2 || col != 4 || exact {
		t.Errorf("a value an alias repeats is at %d:%d (exact %v), want the alias at 2:4", line, col, exact)
	}
	if line, _, exact := doc.Position("/a/k/1"); line != 1 || !exact {
		t.Errorf("the anchor's own value is at line %d (exact %v)", line, exact)
	}
	if len(doc.pos) != 6 {
		t.Errorf("%d positions kept, want 6: the nodes written in the file", len(doc.pos))
	}
}

// TestMergeKeys: a merge key (<<) brings its mappings' keys into the
// mapping, as YAML readers expand it, so that a value written through one
// is not hidden under a key "<<"; the mapping's own keys win, a key two
// merged mappings hold is a duplicate, and a quoted "<<" is a plain key.
func TestMergeKeys(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		want     any
		dups     int
	}{
		{"inline", "a:\n  <<: {id: T04, x: 1}\n  x: 2\n", map[string]any{"a": map[string]any{"id": "T04", "x": json.Number("2")}}, 0},
		{"own key written first wins", "a:\n  x: 2\n  <<: {x: 1}\n", map[string]any{"a": map[string]any{"x": json.Number("2")}}, 0},
		{"alias", "base: &b {id: T04}\na:\n  <<: *b\n  s: docs\n", map[string]any{"base": map[string]any{"id": "T04"}, "a": map[string]any{"id": "T04", "s": "docs"}}, 0},
		{"list", "p: &p {x: 1}\nq: &q {y: 2}\na:\n  <<: [*p, *q]\n", map[string]any{"p": map[string]any{"x": json.Number("1")}, "q": map[string]any{"y": json.Number("2")}, "a": map[string]any{"x": json.Number("1"), "y": json.Number("2")}}, 0},
		{"two merged mappings hold a key", "a:\n  <<: [{x: 1}, {x: 2}]\n", map[string]any{"a": map[string]any{"x": json.Number("1")}}, 1},
		{"nested merge", "p: &p {<<: {id: T04}}\na: {<<: *p}\n", map[string]any{"p": map[string]any{"id": "T04"}, "a": map[string]any{"id": "T04"}}, 0},
		{"quoted key", "a: {\"<<\": {x: 1}}\n", map[string]any{"a": map[string]any{"<<": map[string]any{"x": json.Number("1")}}}, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			doc, problems := Parse([]byte(tc.in))
			if doc == nil {
				t.Fatalf("Parse: %v", problems)
			}
			if !reflect.DeepEqual(doc.Value, tc.want) {
				t.Errorf("Value = %#v\nwant %#v", doc.Value, tc.want)
			}
			if len(problems) != tc.dups {
				t.Errorf("problems = %+v, want %d duplicate keys", problems, tc.dups)
			}
			for _, p := range problems {
				if p.Kind != jsonpos.DuplicateKey || p.Line < 1 {
					t.Errorf("problem = %+v, want a located duplicate key", p)
				}
			}
		})
	}
	for _, in := range []string{"a:\n  <<: 1\n", "a:\n  <<: [{x: 1}, 2]\n", "s: &s [1]\na:\n  <<: *s\n"} {
		if doc, problems := Parse([]byte(in)); doc != nil || len(problems) == 0 || problems[len(problems)-1].Kind != jsonpos.Syntax {
			t.Errorf("Parse(%q) = %v, %+v; want a syntax problem: a merge key takes mappings", in, doc, problems)
		}
	}
}
