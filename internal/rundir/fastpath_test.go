package rundir

import (
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// openModes opens the test tree twice: as OpenRoot does (with the openat2
// fast path where the platform has it) and with the portable path only.
func openModes(t *testing.T, run string) map[string]*Root {
	t.Helper()
	fast, err := OpenRoot(run)
	if err != nil {
		t.Fatal(err)
	}
	slow, err := OpenRoot(run)
	if err != nil {
		t.Fatal(err)
	}
	closeDirFD(slow.fd)
	slow.fd = -1
	t.Cleanup(func() { fast.Close(); slow.Close() })
	return map[string]*Root{"fast": fast, "portable": slow}
}

// TestOpenReaderModes: both paths give the same bytes and refuse the same
// references for the same reason, including the special files and the
// links that only the portable path can follow.
func TestOpenReaderModes(t *testing.T) {
	run := tree(t)
	tests := []struct {
		ref  string
		kind ProblemKind
		data string
	}{
		{"a/b/f.txt", 0, "hello"},
		{"./a//b/f.txt", 0, "hello"},
		{"a/inside-link", 0, "hello"},
		{"a/dirlink/f.txt", 0, "hello"},
		{"a/escape", Escape, ""},
		{"a/abs-escape", Escape, ""},
		{"a/sneaky/outside.txt", Escape, ""},
		{"a/loop1", Loop, ""},
		{"a/dangling", Missing, ""},
		{"a/nope.txt", Missing, ""},
		{"a/fifo", NotRegular, ""},
		{"a/sock", NotRegular, ""},
		{"a/b", NotRegular, ""},
		{"../outside.txt", DotDot, ""},
		{"/etc/hostname", Absolute, ""},
	}
	for mode, root := range openModes(t, run) {
		for _, tc := range tests {
			t.Run(mode+"/"+tc.ref, func(t *testing.T) {
				rc, size, p := root.OpenReader(tc.ref)
				if tc.kind != 0 {
					if p == nil || p.Kind != tc.kind {
						if rc != nil {
							rc.Close()
						}
						t.Fatalf("got %v, want kind %d", p, tc.kind)
					}
					return
				}
				if p != nil {
					t.Fatalf("unexpected problem: %v", p)
				}
				defer rc.Close()
				b, err := io.ReadAll(rc)
				if err != nil || string(b) != tc.data || size != int64(len(tc.data)) {
					t.Errorf("read %q (size %d, err %v), want %q", b, size, err, tc.data)
				}
			})
		}
	}
}

// TestFastPathTaken: on platforms with openat2, a link-free path opens
// without resolution by hand, and a path through a link does not.
func TestFastPathTaken(t *testing.T) {
	run := tree(t)
	root := openModes(t, run)["fast"]
	if root.fd < 0 {
		t.Skip("no openat2 fast path on this platform or kernel")
	}
	rc, _, ok := root.openFast("a/b/f.txt")
	if !ok {
		if openat2Unavailable.Load() {
			t.Skip("openat2 refused by the kernel")
		}
		t.Fatal("a link-free regular file did not take the fast path")
	}
	rc.Close()
	for _, ref := range []string{"a/inside-link", "a/dirlink/f.txt", "a/escape", "a/fifo", "a/b", "a/nope.txt"} {
		if rc, _, ok := root.openFast(ref); ok {
			rc.Close()
			t.Errorf("%s took the fast path; links, special files and missing files must not", ref)
		}
	}
}

// TestWalkModes: both paths list the same entries in the same order, never
// enter a linked directory, and honour SkipDir and SkipAll.
func TestWalkModes(t *testing.T) {
	run := tree(t)
	want := []string{"a", "a/abs-escape", "a/b", "a/b/f.txt", "a/dangling", "a/dirlink", "a/escape",
		"a/fifo", "a/inside-link", "a/loop1", "a/loop2", "a/self", "a/sneaky", "a/sock"}
	for mode, root := range openModes(t, run) {
		t.Run(mode, func(t *testing.T) {
			var all []string
			if err := root.Walk(func(rel string, d fs.DirEntry) error {
				all = append(all, rel)
				info, err := d.Info()
				if err != nil {
					t.Errorf("%s: Info: %v", rel, err)
					return nil
				}
				want, err := os.Lstat(filepath.Join(run, filepath.FromSlash(rel)))
				if err != nil || info.Mode().Type() != want.Mode().Type() || info.Mode().Type() != d.Type() || info.Size() != want.Size() {
					t.Errorf("%s: Info says %v, %d bytes; entry type %v; the file is %v, %d bytes", rel, info.Mode(), info.Size(), d.Type(), want.Mode(), want.Size())
				}
				return nil
			}); err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(all, want) {
				t.Errorf("walk listed\n%v\nwant\n%v", all, want)
			}

			var skipped []string
			root.Walk(func(rel string, d fs.DirEntry) error {
				skipped = append(skipped, rel)
				if rel == "a/b" {
					return fs.SkipDir // do not enter a/b
				}
				if rel == "a/fifo" {
					return fs.SkipDir // a file: skip the rest of a/
				}
				return nil
			})
			if got := strings.Join(skipped, " "); got != "a a/abs-escape a/b a/dangling a/dirlink a/escape a/fifo" {
				t.Errorf("with SkipDir: %s", got)
			}

			n := 0
			err := root.Walk(func(string, fs.DirEntry) error { n++; return fs.SkipAll })
			if err != nil || n != 1 {
				t.Errorf("SkipAll: %d calls, err %v; want 1 call and no error", n, err)
			}
		})
	}
}
