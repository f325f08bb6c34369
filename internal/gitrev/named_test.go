package gitrev

import (
	"path"
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

// FuzzNamedFolders: the folders kept do not depend on where git's writes
// cut its list, and are the list's names, in order.
func FuzzNamedFolders(f *testing.F) {
	f.Add("runs\x00runs/a\x00archive/a\x00", uint8(3))
	f.Add("a\x00\x00b/a\x00", uint8(1))
	f.Fuzz(func(t *testing.T, list string, size uint8) {
		keep := func(name string) bool { return strings.HasPrefix(name, "a") }
		whole := &namedFolders{keep: keep}
		whole.Write([]byte(list))
		cut := &namedFolders{keep: keep}
		step := int(size)%16 + 1
		for i := 0; i < len(list); i += step {
			cut.Write([]byte(list[i:min(i+step, len(list))]))
		}
		if !slices.Equal(whole.found, cut.found) || string(whole.part) != string(cut.part) || (whole.err == nil) != (cut.err == nil) {
			t.Fatalf("whole %q (part %q), cut every %d bytes %q (part %q)", whole.found, whole.part, step, cut.found, cut.part)
		}
		// Every name git ended with a NUL, in order; the rest is a name
		// not yet ended.
		var want []string
		names := strings.Split(list, "\x00")
		for _, name := range names[:len(names)-1] {
			if keep(path.Base(name)) {
				want = append(want, name)
			}
		}
		if whole.err == nil && !slices.Equal(whole.found, want) {
			t.Fatalf("kept %q, want %q", whole.found, want)
		}
	})
}
