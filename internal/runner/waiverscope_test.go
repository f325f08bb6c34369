package runner

import "testing"

// TestLineCompare: a line is compared without its line ending, so a log
// whose line endings changed keeps the records it had, and a record is the
// base's only as a whole line.
func TestLineCompare(t *testing.T) {
	head := []byte("a\r\nb\nc")
	for n, want := range map[int]string{1: "a", 2: "b", 3: "c"} {
		if got, ok := lineAt(head, n); !ok || string(got) != want {
			t.Errorf("lineAt(%d) = %q, %v; want %q", n, got, ok, want)
		}
	}
	if _, ok := lineAt(head, 4); ok {
		t.Error("lineAt past the end found a line")
	}
	base := []byte("a\nb\r\nxc\na\n")
	for line, want := range map[string]int{"a": 2, "b": 1, "c": 0, "": 1, "xc": 1} {
		if got := countLine(base, []byte(line)); got != want {
			t.Errorf("countLine(%q) = %d, want %d", line, got, want)
		}
	}
}
