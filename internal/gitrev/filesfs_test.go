package gitrev

import (
	"io/fs"
	"testing"
	"testing/fstest"
)

// TestFilesFS: a listing of a revision behaves as a file system, folders
// implied by the names and content read on demand.
func TestFilesFS(t *testing.T) {
	content := map[string]string{"runs/a/state.json": `{"v": 1}`, "runs/a/state/ROADMAP.md": "# r\n", "top.txt": "t"}
	var names []string
	for n := range content {
		names = append(names, n)
	}
	fsys := NewFilesFS(append(names, "/runs/a/state.json", "runs/./a/state/ROADMAP.md"), func(name string) ([]byte, error) {
		return []byte(content[name]), nil
	})
	// Sizes are known only once a file is read, so the file system's own
	// conformance is checked with every file empty.
	if err := fstest.TestFS(NewFilesFS(names, nil), "runs/a/state.json", "runs/a/state/ROADMAP.md", "top.txt"); err != nil {
		t.Fatal(err)
	}
	if info, err := fs.Stat(fsys, "runs/a/state"); err != nil || !info.IsDir() {
		t.Errorf("runs/a/state: %v %v, want a folder", info, err)
	}
	if _, err := fs.ReadDir(fsys, "runs/b"); err == nil {
		t.Error("a folder the listing does not imply exists")
	}
	if data, err := fs.ReadFile(fsys, "runs/a/state.json"); err != nil || string(data) != `{"v": 1}` {
		t.Errorf("content %q %v", data, err)
	}
}
