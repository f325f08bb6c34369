package runner

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/h3a-check/h3a-check/internal/audit"
	"github.com/h3a-check/h3a-check/internal/gitrev/gittest"
)

// TestStagedReadsTheIndexOnly: a staged check reads the runs from the
// index, so a tampered artifact hidden from git's view of the working tree
// fails; it leaves the index and the working tree as they were, and no
// private copy behind.
func TestStagedReadsTheIndexOnly(t *testing.T) {
	g := gittest.Init(t)
	run := filepath.Join(g.Dir, "runs", exampleID)
	copyExample(t, run)
	g.Commit("a run")
	green := "runs/" + exampleID + "/artifacts/executor/test_output_green.txt"
	committed, err := os.ReadFile(filepath.Join(g.Dir, filepath.FromSlash(green)))
	if err != nil {
		t.Fatal(err)
	}
	g.Write(map[string]string{green: "tampered\n"})
	g.Git("add", green)
	g.Write(map[string]string{green: string(committed)})
	g.Git("update-index", "--skip-worktree", green)

	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	index := filepath.Join(g.Dir, ".git", "index")
	before, err := os.ReadFile(index)
	if err != nil {
		t.Fatal(err)
	}
	res, err := Check(context.Background(), Options{Scope: Scope{Paths: []string{g.Dir}, Staged: true, Getenv: noEnv}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Gate() != audit.Fail || len(res.Audits) != 1 || !hasRule(res.Audits[0], "h3a.integrity.hash_mismatch") {
		t.Errorf("gate %s, audits %d: want the staged tampered artifact to fail", res.Gate(), len(res.Audits))
	}
	if after, err := os.ReadFile(index); err != nil || !bytes.Equal(before, after) {
		t.Errorf("the index changed (%v)", err)
	}
	if disk, err := os.ReadFile(filepath.Join(g.Dir, filepath.FromSlash(green))); err != nil || !bytes.Equal(disk, committed) {
		t.Errorf("the working tree changed (%v)", err)
	}
	if left, err := os.ReadDir(tmp); err != nil || len(left) != 0 {
		t.Errorf("left behind in the temporary folder: %v (%v)", left, err)
	}
}

func hasRule(a *audit.Audit, rule string) bool {
	for _, f := range a.Findings {
		if f.Rule == rule {
			return true
		}
	}
	return false
}

// TestStagedErrorLeavesNoCopy: a staged object the repository lacks (a
// partial clone, a broken index) stops the check with an error, and the
// private copy made so far is removed.
func TestStagedErrorLeavesNoCopy(t *testing.T) {
	g := gittest.Init(t)
	copyExample(t, filepath.Join(g.Dir, "runs", exampleID))
	g.Commit("a run")
	g.Git("update-index", "--add", "--cacheinfo", "100644,1234567890123456789012345678901234567890,runs/"+exampleID+"/missing.txt")
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	if _, err := Check(context.Background(), Options{Scope: Scope{Paths: []string{g.Dir}, Staged: true, Getenv: noEnv}}); err == nil || !strings.Contains(err.Error(), "not in the repository") {
		t.Errorf("err = %v, want the missing object named", err)
	}
	if left, err := os.ReadDir(tmp); err != nil || len(left) != 0 {
		t.Errorf("left behind in the temporary folder: %v (%v)", left, err)
	}
}

// TestRangeStartTheChangeWrote: in CI, a pre-commit range that starts at
// a commit of the change's own branch (a push's before on a feature
// branch) starts where the branch left the revision the change cannot
// write: an artifact the earlier commit tampered with is in the range, and
// fails, instead of being the base the range is compared with.
func TestRangeStartTheChangeWrote(t *testing.T) {
	g := gittest.Init(t)
	copyExample(t, filepath.Join(g.Dir, "runs", exampleID))
	g.Publish(g.Commit("a run"))
	g.Git("checkout", "-q", "-b", "feature")
	green := "runs/" + exampleID + "/artifacts/executor/test_output_green.txt"
	g.Write(map[string]string{green: "tampered\n"})
	from := g.Commit("tamper")
	g.Write(map[string]string{"notes.txt": "x\n"})
	to := g.Commit("notes")
	for _, tc := range []struct {
		name string
		ci   string
		want string
		runs int
	}{
		{"in CI", "true", audit.Fail, 1},
		{"off CI", "", audit.Pass, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			env := map[string]string{"CI": tc.ci, "PRE_COMMIT_FROM_REF": from, "PRE_COMMIT_TO_REF": to}
			res, err := Check(context.Background(), Options{Scope: Scope{Paths: []string{g.Dir}, Staged: true, Getenv: func(k string) string { return env[k] }}})
			if err != nil {
				t.Fatal(err)
			}
			if res.Gate() != tc.want || res.Runs != tc.runs {
				t.Errorf("gate %s over %d runs, want %s over %d", res.Gate(), res.Runs, tc.want, tc.runs)
			}
		})
	}
}
