package runwrite

import (
	"os"
	"path/filepath"
	"testing"
)

// TestWrittenByBoundsItsRead: an audit.json the run made huge (sparse: it
// costs nothing on disk) is not read whole to see who wrote it, which
// ended the process out of memory; it is not the checker's.
func TestWrittenByBoundsItsRead(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "audit.json")
	if err := os.WriteFile(p, []byte(`{"generator": "h3a-check 1.0"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	if !writtenBy(root, "h3a-check") {
		t.Fatal("the checker's own audit.json is not recognised")
	}
	if err := os.Truncate(p, 1<<40); err != nil {
		t.Skipf("no sparse file of 1 TiB here: %v", err)
	}
	if writtenBy(root, "h3a-check") {
		t.Error("a 1 TiB audit.json is taken as the checker's")
	}
}
