package runner

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/h3a-check/h3a-check/internal/jsonpos"
	"github.com/h3a-check/h3a-check/internal/ledger"
	"github.com/h3a-check/h3a-check/internal/rundir"
)

// realworld holds files other people's agents wrote; the repository sits
// beside shared/ in the workspace and CI.
const realworld = "../../../shared/realworld"

// TestRealWorldFilesLoad reads every real-world file through the confined
// loader and every parser that could meet it, within a time bound, and
// checks that broken JSON is reported with a line.
func TestRealWorldFilesLoad(t *testing.T) {
	if _, err := os.Stat(realworld); err != nil {
		t.Skipf("no real-world corpus: %v", err)
	}
	n, broken := 0, 0
	err := filepath.WalkDir(realworld, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		n++
		root, err := rundir.OpenRoot(filepath.Dir(p))
		if err != nil {
			t.Fatal(err)
		}
		defer root.Close()
		data, prob := root.ReadFile(d.Name(), DefaultMaxJSONSize)
		if prob != nil {
			t.Fatalf("%s: %v", p, prob)
		}
		done := make(chan struct{})
		go func() {
			defer close(done)
			switch strings.ToLower(filepath.Ext(p)) {
			case ".json", ".txt":
				doc, problems := jsonpos.Parse(data)
				if doc == nil {
					broken++
					for _, pr := range problems {
						if pr.Kind.Fatal() && pr.Line < 1 {
							t.Errorf("%s: fatal problem without a line: %+v", p, pr)
						}
					}
				}
			case ".md":
				ledger.ParseRoadmap(data)
				ledger.ParseGatesLedger(data)
				ledger.ParseEvidenceLog(data)
			}
		}()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			t.Fatalf("%s: parsing took over 10 s", p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n < 100 || broken == 0 {
		t.Errorf("read %d files, %d broken; expected the whole corpus (over 100 files, some broken)", n, broken)
	}
}

// TestRealWorldIsNotAnH3ARun: none of the real-world folders is an H3A run;
// the only runs found there are of the layouts they were written for.
func TestRealWorldIsNotAnH3ARun(t *testing.T) {
	if _, err := os.Stat(realworld); err != nil {
		t.Skipf("no real-world corpus: %v", err)
	}
	res, err := Check(context.Background(), Options{Scope: Scope{Paths: []string{realworld}}})
	if errors.Is(err, ErrNoRuns) {
		return
	}
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range res.Audits {
		if a.Layout == "h3a" {
			t.Errorf("%s was taken for an h3a run", a.Run)
		}
	}
}
