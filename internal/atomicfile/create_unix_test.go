//go:build unix

package atomicfile

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// TestCreate: a new file gets the umask's mode, a replaced file keeps
// its own; what an interrupted write left is removed; a planted symbolic
// link is replaced, never written through; Abort leaves the target alone.
func TestCreate(t *testing.T) {
	dir := t.TempDir()
	old := syscall.Umask(0o027)
	defer syscall.Umask(old)

	fresh := filepath.Join(dir, "fresh.json")
	if err := WriteFile(fresh, []byte("new")); err != nil {
		t.Fatal(err)
	}
	if info, _ := os.Stat(fresh); info.Mode().Perm() != 0o640 {
		t.Errorf("a new file: mode %v, want 0640 under umask 027", info.Mode().Perm())
	}

	private := filepath.Join(dir, "private.json")
	if err := os.WriteFile(private, []byte("old"), 0o600); err != nil {
		t.Fatal(err)
	}
	leftover := filepath.Join(dir, ".private.json.h3a-check-00000000000000ff.tmp")
	other := filepath.Join(dir, ".other.json.h3a-check-00000000000000ff.tmp")
	for _, p := range []string{leftover, other} {
		if err := os.WriteFile(p, []byte("partial"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := WriteFile(private, []byte("new")); err != nil {
		t.Fatal(err)
	}
	if info, _ := os.Stat(private); info.Mode().Perm() != 0o600 {
		t.Errorf("a replaced 0600 file: mode %v", info.Mode().Perm())
	}
	if _, err := os.Lstat(leftover); err == nil {
		t.Error("the leftover of an interrupted write of the same file is still there")
	}
	if _, err := os.Lstat(other); err != nil {
		t.Error("the leftover of another file was removed")
	}

	victim := filepath.Join(t.TempDir(), "victim")
	if err := os.WriteFile(victim, []byte("precious"), 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link.json")
	if err := os.Symlink(victim, link); err != nil {
		t.Fatal(err)
	}
	if err := WriteFile(link, []byte("new")); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(victim); string(got) != "precious" {
		t.Error("the write went through the symbolic link")
	}
	if info, _ := os.Lstat(link); !info.Mode().IsRegular() {
		t.Error("the symbolic link was not replaced by the file")
	}

	f, err := Create(fresh)
	if err != nil {
		t.Fatal(err)
	}
	f.Write([]byte("half"))
	f.Abort()
	if got, _ := os.ReadFile(fresh); string(got) != "new" {
		t.Errorf("after Abort the file holds %q", got)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 4 {
		t.Errorf("files left in the folder: %v", ents)
	}
}
