package e2e

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// preCommitEnv isolates pre-commit's cache and lets the golang hook build
// from the module cache this test process already uses, so the hook
// installs without a network.
func preCommitEnv(t *testing.T, extraPath string) []string {
	t.Helper()
	out, err := exec.Command("go", "env", "GOMODCACHE", "GOCACHE").Output()
	if err != nil {
		t.Fatal(err)
	}
	caches := strings.Split(strings.TrimSpace(string(out)), "\n")
	env := gitEnv(t)
	for i, kv := range env {
		if strings.HasPrefix(kv, "PATH=") && extraPath != "" {
			env[i] = "PATH=" + extraPath + string(os.PathListSeparator) + strings.TrimPrefix(kv, "PATH=")
		}
	}
	return append(env,
		"PRE_COMMIT_HOME="+filepath.Join(t.TempDir(), "pre-commit-home"),
		"GOMODCACHE="+caches[0],
		"GOCACHE="+caches[1],
	)
}

func runIn(t *testing.T, dir string, env []string, name string, args ...string) (string, int) {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	cmd.Env = env
	out, err := cmd.CombinedOutput()
	if ee, ok := err.(*exec.ExitError); ok {
		return string(out), ee.ExitCode()
	}
	if err != nil {
		t.Fatalf("%s %v: %v\n%s", name, args, err, out)
	}
	return string(out), 0
}

func writeHookConfig(t *testing.T, repo, hookRepo, rev, hookID string) {
	t.Helper()
	cfg := fmt.Sprintf("repos:\n  - repo: %s\n    rev: %s\n    hooks:\n      - id: %s\n", hookRepo, rev, hookID)
	if err := os.WriteFile(filepath.Join(repo, ".pre-commit-config.yaml"), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestPreCommitHook: the real pre-commit builds the h3a-check hook from a
// snapshot of this checkout (language: golang) and runs it on every
// commit: a good commit goes through, one that breaks a run's evidence is
// refused with the finding on screen, and a commit outside any run does
// not run the hook.
func TestPreCommitHook(t *testing.T) {
	preCommit := mustHave(t, "pre-commit")
	hookRepo, rev := snapshotModule(t)
	repo := newRepo(t)
	writeHookConfig(t, repo, hookRepo, rev, "h3a-check")
	run := filepath.Join(repo, "runs", runID)
	copyCase(t, "ok", "complete", run)
	env := preCommitEnv(t, "")

	if out, code := runIn(t, repo, env, preCommit, "install", "--install-hooks"); code != 0 {
		t.Fatalf("pre-commit install: exit %d\n%s", code, out)
	}
	git(t, repo, "add", "-A")
	out, code := runIn(t, repo, env, "git", "commit", "-m", "a complete run")
	if code != 0 || !strings.Contains(out, "Passed") {
		t.Fatalf("good commit: exit %d\n%s", code, out)
	}
	good := git(t, repo, "rev-parse", "HEAD")

	breakArtifact(t, run)
	// A second staged file in the same run: still one check of the run.
	if err := os.WriteFile(filepath.Join(run, "README.md"), []byte("edited\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	git(t, repo, "add", "-A")
	out, code = runIn(t, repo, env, "git", "commit", "-m", "edit a logged artifact")
	t.Logf("hook output:\n%s", out)
	if code == 0 {
		t.Fatalf("a commit breaking the evidence went through:\n%s", out)
	}
	for _, want := range []string{"Failed", "runs/" + runID + "/state/EVIDENCE_LOG.md:19:54: error:", "[h3a.integrity.hash_mismatch]", "fix: re-run the step"} {
		if !strings.Contains(out, want) {
			t.Errorf("hook output lacks %q:\n%s", want, out)
		}
	}
	if strings.Count(out, "(layout h3a, run "+runID+")") != 1 {
		t.Errorf("the run must be checked once, whatever the number of staged files in it:\n%s", out)
	}
	if head := git(t, repo, "rev-parse", "HEAD"); head != good {
		t.Errorf("HEAD moved to %s although the hook failed", head)
	}

	git(t, repo, "reset", "-q", "--hard")
	if err := os.WriteFile(filepath.Join(repo, "NOTES.md"), []byte("not a run\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	git(t, repo, "add", "NOTES.md")
	out, code = runIn(t, repo, env, "git", "commit", "-m", "notes")
	if code != 0 || !strings.Contains(out, "Skipped") {
		t.Errorf("a commit outside any run: exit %d, want the hook skipped\n%s", code, out)
	}
}

// TestPreCommitSystemHook: h3a-check-system runs a binary already on PATH.
func TestPreCommitSystemHook(t *testing.T) {
	preCommit := mustHave(t, "pre-commit")
	hookRepo, rev := snapshotModule(t)
	repo := newRepo(t)
	writeHookConfig(t, repo, hookRepo, rev, "h3a-check-system")
	run := filepath.Join(repo, "runs", runID)
	copyCase(t, "ok", "complete", run)
	commitAll(t, repo, "base")
	breakArtifact(t, run)
	git(t, repo, "add", "-A")
	env := preCommitEnv(t, filepath.Dir(binary))
	out, code := runIn(t, repo, env, preCommit, "run")
	if code != 1 || !strings.Contains(out, "[h3a.integrity.hash_mismatch]") {
		t.Errorf("exit %d, want 1 with the hash mismatch on screen:\n%s", code, out)
	}
}
