package rundir

import (
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

func TestCleanRef(t *testing.T) {
	tests := []struct {
		ref, want string
		kind      ProblemKind
	}{
		{"artifacts/a.txt", "artifacts/a.txt", 0},
		{"./artifacts//a.txt", "artifacts/a.txt", 0},
		{" artifacts/a.txt ", "artifacts/a.txt", 0},
		{`artifacts\a.txt`, "artifacts/a.txt", 0},
		{"/etc/passwd", "", Absolute},
		{`C:\x\y`, "", Absolute},
		{"c:/x", "", Absolute},
		{"../x", "", DotDot},
		{"a/../../x", "", DotDot},
		{"a/../b", "", DotDot},
		{`..\x`, "", DotDot},
		{"", "", Missing},
	}
	for _, tc := range tests {
		got, p := CleanRef(tc.ref)
		switch {
		case tc.kind == 0 && p != nil:
			t.Errorf("CleanRef(%q): unexpected problem %v", tc.ref, p)
		case tc.kind != 0 && (p == nil || p.Kind != tc.kind):
			t.Errorf("CleanRef(%q) = %q, %v; want kind %d", tc.ref, got, p, tc.kind)
		case got != tc.want:
			t.Errorf("CleanRef(%q) = %q, want %q", tc.ref, got, tc.want)
		}
	}
}

// tree builds a run directory with files, links and special files, inside
// a parent that holds a file outside the run.
func tree(t *testing.T) string {
	t.Helper()
	parent := t.TempDir()
	run := filepath.Join(parent, "run")
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.MkdirAll(filepath.Join(run, "a", "b"), 0o755))
	must(os.WriteFile(filepath.Join(parent, "outside.txt"), []byte("secret"), 0o644))
	must(os.WriteFile(filepath.Join(run, "a", "b", "f.txt"), []byte("hello"), 0o644))
	must(os.Symlink("b/f.txt", filepath.Join(run, "a", "inside-link")))
	must(os.Symlink("b", filepath.Join(run, "a", "dirlink")))
	must(os.Symlink("../../outside.txt", filepath.Join(run, "a", "escape")))
	must(os.Symlink("/etc/hostname", filepath.Join(run, "a", "abs-escape")))
	must(os.Symlink("dirlink/../../..", filepath.Join(run, "a", "sneaky")))
	must(os.Symlink("loop2", filepath.Join(run, "a", "loop1")))
	must(os.Symlink("loop1", filepath.Join(run, "a", "loop2")))
	must(os.Symlink("self", filepath.Join(run, "a", "self")))
	must(os.Symlink("missing-target", filepath.Join(run, "a", "dangling")))
	must(syscall.Mkfifo(filepath.Join(run, "a", "fifo"), 0o644))
	l, err := net.Listen("unix", filepath.Join(run, "a", "sock"))
	if err != nil {
		t.Skipf("no unix sockets: %v", err)
	}
	t.Cleanup(func() { l.Close() })
	return run
}

func TestRootStat(t *testing.T) {
	run := tree(t)
	root, err := OpenRoot(run)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	tests := []struct {
		ref    string
		kind   ProblemKind
		detail string
	}{
		{"a/b/f.txt", 0, ""},
		{"a/inside-link", 0, ""},
		{"a/dirlink/f.txt", 0, ""},
		{"a/escape", Escape, `"a/escape" is a symbolic link to "../../outside.txt", outside the run`},
		{"a/abs-escape", Escape, `outside the run`},
		{"a/sneaky/outside.txt", Escape, `outside the run`},
		{"a/loop1", Loop, `"a/loop1" -> "a/loop2" -> "a/loop1"`},
		{"a/self", Loop, "loop"},
		{"a/dangling", Missing, `"a/dangling" does not exist`},
		{"a/nope.txt", Missing, `"a/nope.txt" does not exist`},
		{"a/b/f.txt/x", Missing, "not a directory"},
		{"a/fifo", NotRegular, "named pipe"},
		{"a/sock", NotRegular, "socket"},
		{"a/b", NotRegular, "a directory"},
		{"../outside.txt", DotDot, `contains ".."`},
		{"/etc/hostname", Absolute, "absolute"},
	}
	for _, tc := range tests {
		t.Run(tc.ref, func(t *testing.T) {
			_, _, p := root.Stat(tc.ref)
			if tc.kind == 0 {
				if p != nil {
					t.Fatalf("unexpected problem: %v", p)
				}
				f, _, p := root.Open(tc.ref)
				if p != nil {
					t.Fatalf("open: %v", p)
				}
				f.Close()
				return
			}
			if p == nil || p.Kind != tc.kind {
				t.Fatalf("got %v, want kind %d", p, tc.kind)
			}
			if !strings.Contains(p.Detail, tc.detail) {
				t.Errorf("detail %q does not contain %q", p.Detail, tc.detail)
			}
		})
	}
}

func TestReadFileLimit(t *testing.T) {
	run := tree(t)
	root, err := OpenRoot(run)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	if b, p := root.ReadFile("a/b/f.txt", 5); p != nil || string(b) != "hello" {
		t.Fatalf("at the limit: %q %v", b, p)
	}
	if _, p := root.ReadFile("a/b/f.txt", 4); p == nil || p.Kind != TooLarge {
		t.Fatalf("over the limit: %v", p)
	}
}

// TestRootSwappedDirectory: a directory already resolved, then replaced by
// a link out of the run, is not followed out: the remembered directory
// saves lstat calls, never the confinement of the open.
func TestRootSwappedDirectory(t *testing.T) {
	run := tree(t)
	root, err := OpenRoot(run)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	if b, p := root.ReadFile("a/b/f.txt", 0); p != nil || string(b) != "hello" {
		t.Fatalf("before the swap: %q, %v", b, p)
	}
	// Move a/b away and put in its place a link to the parent of the run,
	// which holds outside.txt; then ask for the outside file through it.
	if err := os.Rename(filepath.Join(run, "a", "b"), filepath.Join(run, "a", "b.old")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("../..", filepath.Join(run, "a", "b")); err != nil {
		t.Fatal(err)
	}
	b, p := root.ReadFile("a/b/outside.txt", 0)
	if p == nil {
		t.Fatalf("read %q through a swapped-in link out of the run", b)
	}
	if string(b) == "secret" {
		t.Fatal("the outside file was read")
	}
}

// TestRootConcurrent: Stat and Open from many goroutines at once, as the
// hashing workers do, agree with a single-threaded resolution.
func TestRootConcurrent(t *testing.T) {
	run := tree(t)
	root, err := OpenRoot(run)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	refs := []string{"a/b/f.txt", "a/inside-link", "a/dirlink/f.txt", "a/escape", "a/loop1", "a/nope.txt"}
	want := make([]ProblemKind, len(refs))
	for i, ref := range refs {
		if _, _, p := root.Stat(ref); p != nil {
			want[i] = p.Kind
		}
	}
	fresh, err := OpenRoot(run)
	if err != nil {
		t.Fatal(err)
	}
	defer fresh.Close()
	done := make(chan error)
	for g := range 8 {
		go func() {
			var err error
			for i := range 50 {
				k := (g + i) % len(refs)
				var got ProblemKind
				if _, _, p := fresh.Stat(refs[k]); p != nil {
					got = p.Kind
				}
				if got != want[k] && err == nil {
					err = fmt.Errorf("%s: kind %d, want %d", refs[k], got, want[k])
				}
			}
			done <- err
		}()
	}
	for range 8 {
		if err := <-done; err != nil {
			t.Error(err)
		}
	}
}
