package gitrev_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/h3a-check/h3a-check/internal/gitrev"
	"github.com/h3a-check/h3a-check/internal/gitrev/gittest"
)

func TestFoldersAndBlobs(t *testing.T) {
	g := gittest.Init(t)
	g.Write(map[string]string{
		"runs/r 1/state.json":      `{"steps": []}`,
		"runs/r 1/state/LEDGER.md": "# ledger\n",
		"runs/r 1/big.txt":         strings.Repeat("x", 5000),
		"runs/r 1/run.sh":          "#!/bin/sh\n",
		"top.txt":                  "top\n",
		"runs/ünï cödé/state.json": "{}",
		"runs/ünï cödé/empty.json": "",
	})
	if err := os.Chmod(filepath.Join(g.Dir, "runs/r 1/run.sh"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("state.json", filepath.Join(g.Dir, "runs/r 1/link.json")); err != nil {
		t.Fatal(err)
	}
	base := g.Commit("base")
	repo, err := gitrev.Open(g.Dir)
	if err != nil {
		t.Fatal(err)
	}
	defer repo.Close()
	repo.MaxRead = 1000

	folders, err := repo.Folders(base, []string{"runs/r 1", "runs/r 1/state", "runs/missing", "top.txt", "", "runs/ünï cödé"})
	if err != nil {
		t.Fatal(err)
	}
	if exchanges, _ := repo.Traffic(); exchanges != 1 || repo.Requests() != 6 {
		t.Errorf("%d exchanges for %d requests, want 1 for 6", exchanges, repo.Requests())
	}
	if folders[2] != nil || folders[3] != nil {
		t.Errorf("a missing folder and a file read as folders: %+v %+v", folders[2], folders[3])
	}
	run := folders[0]
	if run == nil || len(run.Entries) != 5 {
		t.Fatalf("run folder: %+v", run)
	}
	oid, _, _ := repo.TreeID(base, "runs/r 1")
	if run.OID != oid {
		t.Errorf("folder object %s, TreeID %s", run.OID, oid)
	}
	modes := map[string]uint32{"state.json": 0o100644, "run.sh": 0o100755, "link.json": 0o120000, "state": 0o40000}
	for name, mode := range modes {
		e := run.Entries[name]
		if e.Mode != mode {
			t.Errorf("%s: mode %o, want %o", name, e.Mode, mode)
		}
		if want := name != "state"; e.IsFile() != want {
			t.Errorf("%s: IsFile %v, want %v", name, e.IsFile(), want)
		}
	}
	if got := strings.TrimSpace(g.Git("rev-parse", base+":runs/r 1/state.json")); run.Entries["state.json"].OID != got {
		t.Errorf("state.json object %s, git says %s", run.Entries["state.json"].OID, got)
	}
	if folders[1].Entries["LEDGER.md"].OID == "" || folders[5].Entries["ünï cödé"].OID != "" || folders[5].Entries["empty.json"].OID == "" {
		t.Errorf("subfolder and unicode folder: %+v %+v", folders[1], folders[5])
	}
	if folders[4] == nil || folders[4].Entries["runs"].Mode != 0o40000 {
		t.Errorf("top-level folder: %+v", folders[4])
	}

	e := run.Entries
	_, before := repo.Traffic()
	blobs, err := repo.Blobs(base, []string{e["state.json"].OID, e["big.txt"].OID, e["state"].OID, e["link.json"].OID, folders[5].Entries["empty.json"].OID},
		[]string{"state.json", "big.txt", "state", "link.json", "empty.json"})
	if err != nil {
		t.Fatal(err)
	}
	if _, after := repo.Traffic(); after-before != 5 {
		t.Errorf("%d content reads counted, want 5", after-before)
	}
	if string(blobs[0].Data) != `{"steps": []}` || blobs[0].Err != nil || !blobs[0].Exists {
		t.Errorf("state.json: %+v", blobs[0])
	}
	if !errors.Is(blobs[1].Err, gitrev.ErrTooLarge) || !strings.Contains(blobs[1].Err.Error(), "big.txt") {
		t.Errorf("over the limit: %v", blobs[1].Err)
	}
	if !errors.Is(blobs[2].Err, gitrev.ErrNotFile) || !strings.Contains(blobs[2].Err.Error(), "state") {
		t.Errorf("a folder as a file: %v", blobs[2].Err)
	}
	if string(blobs[3].Data) != "state.json" {
		t.Errorf("a link's content is its target: %q", blobs[3].Data)
	}
	if blobs[4].Data == nil || len(blobs[4].Data) != 0 || !blobs[4].Exists {
		t.Errorf("empty file: %+v", blobs[4])
	}
	// The pipe is still in step after per-file errors.
	if data, ok, err := repo.Read(base, "top.txt"); err != nil || !ok || string(data) != "top\n" {
		t.Errorf("read after a batch: %q %v %v", data, ok, err)
	}
	if _, err := repo.Blobs(base, []string{"HEAD"}, []string{"x"}); err == nil {
		t.Error("a revision passed as an object name was accepted")
	}
	if _, err := repo.Folders("-x", []string{""}); err == nil {
		t.Error("an option passed as a revision was accepted")
	}
	if repo.Processes() != 1 {
		t.Errorf("%d processes, want 1", repo.Processes())
	}
}

// TestBatchLargerThanThePipe sends more request lines than a pipe holds,
// so the batch must be cut into exchanges that cannot deadlock.
func TestBatchLargerThanThePipe(t *testing.T) {
	g := gittest.Init(t)
	files := map[string]string{}
	var dirs []string
	// 150 folders four 200-byte names deep: as many bytes of names as
	// 600 folders one name deep, a quarter of the files to commit.
	long := strings.Repeat(strings.Repeat("d", 200)+"/", 4)
	for i := range 150 {
		d := fmt.Sprintf("%s%03d", long, i)
		files[d+"/f.txt"] = fmt.Sprint(i)
		dirs = append(dirs, d)
	}
	g.Write(files)
	base := g.Commit("base")
	repo, err := gitrev.Open(g.Dir)
	if err != nil {
		t.Fatal(err)
	}
	defer repo.Close()
	folders, err := repo.Folders(base, dirs)
	if err != nil {
		t.Fatal(err)
	}
	var oids, names []string
	for i, f := range folders {
		if f == nil {
			t.Fatalf("%s missing", dirs[i])
		}
		oids, names = append(oids, f.Entries["f.txt"].OID), append(names, dirs[i]+"/f.txt")
	}
	blobs, err := repo.Blobs(base, oids, names)
	if err != nil {
		t.Fatal(err)
	}
	for i, b := range blobs {
		if string(b.Data) != fmt.Sprint(i) {
			t.Fatalf("%s: %q", names[i], b.Data)
		}
	}
	if n, _ := repo.Traffic(); n < 2*2 || n > 2*20 {
		t.Errorf("%d exchanges for two batches of 150 long names", n)
	}
}

func TestBlobID(t *testing.T) {
	g := gittest.Init(t)
	for _, content := range []string{"", "x", "line\r\n", strings.Repeat("é", 10000)} {
		p := filepath.Join(t.TempDir(), "f")
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		want := strings.TrimSpace(g.Git("hash-object", "--no-filters", p))
		if got := gitrev.BlobID([]byte(content), 40); got != want {
			t.Errorf("%q: %s, git says %s", content, got, want)
		}
		if got, err := gitrev.BlobIDOf(strings.NewReader(content), int64(len(content)), 40); err != nil || got != want {
			t.Errorf("%q streamed: %s, %v; git says %s", content, got, err, want)
		}
	}
	// A stream that holds more or less than its size is no such blob.
	for _, size := range []int64{1, 3} {
		if _, err := gitrev.BlobIDOf(strings.NewReader("xy"), size, 40); err == nil {
			t.Errorf("2 bytes read as a blob of %d: no error", size)
		}
	}
	// SHA-256 repositories name content with 64 hex digits.
	if got := gitrev.BlobID(nil, 64); got != "473a0f4c3be8a93681a267e3b1e9a7dcda1185436fe141f7749120a303721813" {
		t.Errorf("empty blob in a SHA-256 repository: %s", got)
	}
}
