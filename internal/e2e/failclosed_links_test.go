package e2e

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// The fail-closed matrix for links and folders two layouts claim: a pull
// request whose runs all pass but for one thing that used to be skipped in
// silence (a round, a run folder that is a symbolic link; a folder holding
// a second layout's broken files) must never exit 0.

const contractRunID = "TASK-0042-20260216-130000"

// passingRepo is a repository whose last commit holds runs that pass: a
// complete h3a run and a contract run with rounds.
func passingRepo(t *testing.T) string {
	t.Helper()
	repo := newRepo(t)
	copyCase(t, "ok", "complete", filepath.Join(repo, "runs", "h3a", runID))
	src := filepath.Join(moduleRoot, "testdata", "runs", "ok", "contract_rounds", contractRunID)
	if err := os.CopyFS(filepath.Join(repo, "runs", "contract", contractRunID), os.DirFS(src)); err != nil {
		t.Fatal(err)
	}
	commitAll(t, repo, "passing runs")
	return repo
}

var linkChanges = []weakening{
	{name: "a round a link", apply: func(t *testing.T, repo string) {
		run := filepath.Join(repo, "runs", "contract", contractRunID)
		copyTo(t, filepath.Join(run, "rounds", "round-2"), filepath.Join(run, "elsewhere"))
		// Without the doer's handoff.json the folder is no contract run of
		// its own: only the link stands for the round.
		if err := os.Remove(filepath.Join(run, "elsewhere", "handoff.json")); err != nil {
			t.Fatal(err)
		}
		symlink("runs/contract/"+contractRunID+"/rounds/round-3", "../elsewhere")(t, repo)
	}},
	{name: "a run folder a link inside the searched tree", apply: func(t *testing.T, repo string) {
		symlink("runs/linked/"+runID, "../h3a/"+runID)(t, repo)
	}},
	{name: "a run folder a link outside the searched tree", apply: func(t *testing.T, repo string) {
		copyCase(t, "err", "hash_mismatch", filepath.Join(repo, "archive", runID))
		symlink("runs/linked/"+runID, "../../archive/"+runID)(t, repo)
	}},
	{name: "a run folder a link outside the repository", apply: func(t *testing.T, repo string) {
		outside := filepath.Join(t.TempDir(), runID)
		copyCase(t, "err", "hash_mismatch", outside)
		symlink("runs/linked/"+runID, outside)(t, repo)
	}},
	{name: "the path argument a link to a run", apply: func(t *testing.T, repo string) {
		symlink("current", "runs/h3a/"+runID)(t, repo)
	}, args: []string{"current"}},
	{name: "an h3a run holding a broken contract round", apply: writeFiles(map[string]string{
		"runs/h3a/" + runID + "/rounds/round-1/verdict.json": `{"task_id": 5}`,
	})},
}

func TestFailClosedLinks(t *testing.T) {
	for _, w := range linkChanges {
		t.Run(w.name, func(t *testing.T) {
			t.Parallel()
			repo := passingRepo(t)
			target := head(t, repo)
			if code, out := checkIn(t, repo, eventEnv(t, "pull_request", target), []string{"runs"}); code != 0 {
				t.Fatalf("the passing runs exit %d before the change\n%s", code, out)
			}
			git(t, repo, "checkout", "-q", "-b", "change")
			if err := os.MkdirAll(filepath.Join(repo, "runs", "linked"), 0o755); err != nil {
				t.Fatal(err)
			}
			w.apply(t, repo)
			git(t, repo, "add", "-A")
			git(t, repo, "commit", "-q", "--allow-empty", "-m", "the change: "+w.name)
			args := w.args
			if args == nil {
				args = []string{"runs"}
			}
			if code, out := checkIn(t, repo, eventEnv(t, "pull_request", target), args); code != 1 && code != 2 {
				t.Errorf("exit %d, want 1 or 2 (never a pass)\n%s", code, out)
			}
		})
	}
}

// checkIn runs the binary in repo and returns its exit code and output.
func checkIn(t *testing.T, repo string, env, args []string) (int, string) {
	t.Helper()
	cmd := exec.Command(binary, append([]string{"--color", "never"}, args...)...)
	cmd.Dir = repo
	cmd.Env = append(gitEnv(t), env...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	if ee, ok := err.(*exec.ExitError); ok {
		return ee.ExitCode(), out.String()
	} else if err != nil {
		t.Fatal(err)
	}
	return 0, out.String()
}

func copyTo(t *testing.T, src, dst string) {
	t.Helper()
	if err := os.CopyFS(dst, os.DirFS(src)); err != nil {
		t.Fatal(err)
	}
}
