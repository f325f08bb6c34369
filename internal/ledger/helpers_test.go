package ledger

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"
)

// md joins lines with LF and ends the document with one.
func md(lines ...string) []byte { return []byte(strings.Join(lines, "\n") + "\n") }

func readFixture(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// assertEqual compares as JSON so a failure shows both values readably.
func assertEqual(t *testing.T, what string, got, want any) {
	t.Helper()
	if reflect.DeepEqual(got, want) {
		return
	}
	t.Errorf("%s mismatch\ngot:  %s\nwant: %s", what, toJSON(got), toJSON(want))
}

func toJSON(v any) string {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return fmt.Sprintf("%#v", v)
	}
	return b.String()
}

func assertProblems(t *testing.T, got, want []Problem) {
	t.Helper()
	if len(got) == 0 && len(want) == 0 {
		return
	}
	assertEqual(t, "problems", got, want)
}

// crlf converts LF line endings to CRLF.
func crlf(b []byte) []byte { return bytes.ReplaceAll(b, []byte("\n"), []byte("\r\n")) }

var bom = []byte{0xEF, 0xBB, 0xBF}

// docLines splits data the way the parsers count lines: LF ends a line, a
// trailing LF does not start another, a leading BOM is not part of line 1.
func docLines(data []byte) [][]byte {
	data = bytes.TrimPrefix(data, bom)
	if len(data) == 0 {
		return nil
	}
	return bytes.Split(bytes.TrimSuffix(data, []byte("\n")), []byte("\n"))
}

// checkPositions fails the test when a position is outside the document: a
// line outside 1..line count, or a column past the end of its line.
type positionChecker struct {
	t     testing.TB
	lines [][]byte
}

func newPositionChecker(t testing.TB, data []byte) *positionChecker {
	return &positionChecker{t: t, lines: docLines(data)}
}

func (c *positionChecker) line(what string, n int) {
	c.t.Helper()
	if n < 1 || n > len(c.lines) {
		c.t.Fatalf("%s: line %d outside 1..%d", what, n, len(c.lines))
	}
}

func (c *positionChecker) column(what string, n, col int) {
	c.t.Helper()
	c.line(what, n)
	l := bytes.TrimSuffix(c.lines[n-1], []byte("\r"))
	if max := utf8.RuneCount(l) + 1; col < 1 || col > max {
		c.t.Fatalf("%s: line %d column %d outside 1..%d", what, n, col, max)
	}
}

func (c *positionChecker) problems(ps []Problem) {
	c.t.Helper()
	for i, p := range ps {
		c.column("problem "+p.Message, p.Line, p.Column)
		if p.Message == "" || strings.ToLower(p.Message[:1]) != p.Message[:1] {
			c.t.Fatalf("problem message %q must be non-empty and start lower-case", p.Message)
		}
		if i > 0 && (ps[i-1].Line > p.Line || ps[i-1].Line == p.Line && ps[i-1].Column > p.Column) {
			c.t.Fatalf("problems not sorted by position: %v before %v", ps[i-1], p)
		}
	}
}

func (c *positionChecker) sections(ss []Section) {
	c.t.Helper()
	for _, s := range ss {
		c.line("section "+s.Title, s.Line)
	}
}

// checkDeterministic parses data twice and requires equal results.
func checkDeterministic(t testing.TB, data []byte, parse func([]byte) any) {
	t.Helper()
	if a, b := parse(data), parse(data); !reflect.DeepEqual(a, b) {
		t.Fatalf("parsing twice gave different results:\n%s\n%s", toJSON(a), toJSON(b))
	}
}

// The check functions assert what must hold for any input: every position
// lies inside the document, problems are sorted and phrased in lower case,
// no slice is nil, and a second parse gives the same result.

func checkRoadmap(t testing.TB, data []byte) {
	t.Helper()
	c := newPositionChecker(t, data)
	r, problems := ParseRoadmap(data)
	c.problems(problems)
	c.sections(r.Sections)
	if r.StatusLine != 0 {
		c.line("status", r.StatusLine)
	}
	for _, task := range r.Tasks {
		c.line("task "+task.ID, task.Line)
		if task.ID == "" || task.Text == "" {
			t.Fatalf("task at line %d has an empty field: %+v", task.Line, task)
		}
	}
	if r.Sections == nil || r.Tasks == nil {
		t.Fatal("roadmap has a nil slice")
	}
	checkDeterministic(t, data, func(b []byte) any { r, p := ParseRoadmap(b); return []any{r, p} })
}

func checkGatesLedger(t testing.TB, data []byte) {
	t.Helper()
	c := newPositionChecker(t, data)
	g, problems := ParseGatesLedger(data)
	c.problems(problems)
	c.sections(g.Sections)
	if g.EventsLine != 0 {
		c.line("events heading", g.EventsLine)
	}
	for _, e := range g.Events {
		c.line("event", e.Line)
		if e.Time == "" || !isGateID(e.Gate) || !isStatusWord(e.Status) || e.Agent == "" {
			t.Fatalf("event at line %d breaks the grammar: %+v", e.Line, e)
		}
	}
	for _, row := range g.Table {
		c.line("gate row", row.Line)
	}
	if g.Sections == nil || g.Events == nil || g.Table == nil {
		t.Fatal("gates ledger has a nil slice")
	}
	checkDeterministic(t, data, func(b []byte) any { g, p := ParseGatesLedger(b); return []any{g, p} })
}

func checkEvidenceLog(t testing.TB, data []byte) {
	t.Helper()
	c := newPositionChecker(t, data)
	ev, problems := ParseEvidenceLog(data)
	c.problems(problems)
	c.sections(ev.Sections)
	for _, e := range ev.Entries {
		c.column("entry path", e.Line, e.PathColumn)
		c.column("entry hash", e.Line, e.HashColumn)
		if e.Path == "" || !isHashToken(e.Hash) || e.Time == "" || e.Description == "" {
			t.Fatalf("entry at line %d breaks the grammar: %+v", e.Line, e)
		}
	}
	if ev.Sections == nil || ev.Entries == nil {
		t.Fatal("evidence log has a nil slice")
	}
	checkDeterministic(t, data, func(b []byte) any { ev, p := ParseEvidenceLog(b); return []any{ev, p} })
}
