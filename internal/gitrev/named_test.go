package gitrev

import (
	"slices"
	"strings"
	"testing"
)

// TestNamedFoldersSplitAnywhere: git writes its list in pieces of any
// size, so a name cut between two writes must be read whole.
func TestNamedFoldersSplitAnywhere(t *testing.T) {
	list := "runs\x00runs/a\x00runs/a/state\x00archive\x00archive/a\x00archive/a/a\x00b\x00"
	want := []string{"runs/a", "archive/a", "archive/a/a"}
	for cut := range len(list) + 1 {
		for _, size := range []int{1, 2, 3, 7, len(list)} {
			n := &namedFolders{keep: func(name string) bool { return name == "a" }}
			rest := list
			for first := true; rest != "" || first; first = false {
				k := min(size, len(rest))
				if first {
					k = min(cut, len(rest))
				}
				if w, err := n.Write([]byte(rest[:k])); w != k || err != nil {
					t.Fatalf("Write = %d, %v", w, err)
				}
				rest = rest[k:]
			}
			if n.err != nil || len(n.part) != 0 || !slices.Equal(n.found, want) {
				t.Fatalf("cut %d, size %d: found %q (part %q, err %v), want %q", cut, size, n.found, n.part, n.err, want)
			}
		}
	}
}

func TestNamedFoldersRefusesAnEndlessName(t *testing.T) {
	n := &namedFolders{keep: func(name string) bool { return name == "a" }}
	n.Write([]byte(strings.Repeat("x", maxListedName)))
	n.Write([]byte("xx"))
	if n.err == nil {
		t.Fatal("a name longer than the bound was taken")
	}
}
