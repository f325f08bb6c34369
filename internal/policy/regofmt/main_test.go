package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// root is the repository root, seen from this package's folder.
const root = "../../.."

// TestRegoFormatted fails for each shipped .rego file (policies, and the
// user policies the tests load) that is not in opa fmt form.
func TestRegoFormatted(t *testing.T) {
	t.Parallel()
	var dirs []string
	for _, d := range Shipped {
		dirs = append(dirs, filepath.Join(root, d))
	}
	unformatted, err := run(dirs, false)
	if err != nil {
		t.Fatal(err)
	}
	for i, f := range unformatted {
		rel, _ := filepath.Rel(root, f)
		unformatted[i] = filepath.ToSlash(rel)
	}
	if len(unformatted) > 0 {
		t.Errorf("not in opa fmt form:\n  %s\nfix: go run ./internal/policy/regofmt (from the repository root; it rewrites them)",
			strings.Join(unformatted, "\n  "))
	}
}

// TestRunFindsAndFixesUnformatted: an unformatted file is listed, left
// alone without write, rewritten with it, and then no longer listed; a
// file that does not parse is an error naming it.
func TestRunFindsAndFixesUnformatted(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	good := "package x\n\nallow if input.a == 1\n"
	bad := "package x\nallow   if {input.a==1}\n"
	write := func(name, src string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	write("good.rego", good)
	badPath := write("bad.rego", bad)
	write("notes.txt", bad)

	got, err := run([]string{dir}, false)
	if err != nil || !slices.Equal(got, []string{badPath}) {
		t.Fatalf("list: %v, %v; want [%s]", got, err, badPath)
	}
	if b, _ := os.ReadFile(badPath); string(b) != bad {
		t.Fatalf("listing rewrote the file:\n%s", b)
	}
	if got, err := run([]string{dir}, true); err != nil || len(got) != 1 {
		t.Fatalf("write: %v, %v", got, err)
	}
	if got, err := run([]string{dir}, false); err != nil || len(got) != 0 {
		t.Fatalf("after write: %v, %v; want nothing left", got, err)
	}
	if b, _ := os.ReadFile(badPath); string(b) != good {
		t.Fatalf("rewritten as\n%s\nwant\n%s", b, good)
	}

	broken := write("broken.rego", "package x\nallow if {\n")
	if _, err := run([]string{dir}, false); err == nil || !strings.Contains(err.Error(), broken) {
		t.Fatalf("err = %v, want one naming %s", err, broken)
	}
}
