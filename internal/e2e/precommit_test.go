package e2e

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/h3a-check/h3a-check/internal/longtest"
)

// preCommitEnv points pre-commit at the tests' own cache (home, from
// sharedHookRepo) and lets the golang hook build from the module cache
// this test process already uses, so the hook installs without a network.
func preCommitEnv(t *testing.T, home, extraPath string) []string {
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
	// The hook repository is a new folder on every run, and without
	// -trimpath the build cache keys each package on its folder: the
	// hook's "go install ./..." would compile the whole module again each
	// time instead of linking what the tests already built.
	goflags := strings.TrimSpace(os.Getenv("GOFLAGS") + " -trimpath")
	return append(env,
		"PRE_COMMIT_HOME="+home,
		"GOMODCACHE="+caches[0],
		"GOCACHE="+caches[1],
		"GOFLAGS="+goflags,
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

// otherRunID names a second h3a run beside the cases' runID: in the hook
// tests one committed broken past the hook, which no commit that leaves
// it alone may be blamed for; in the action's tests a run added beside
// the base's.
const otherRunID = "20250930-101500-3f1c2b8e-4d5a-4b6c-9e7f-1a2b3c4d5e6f"

// commitRefused commits what is staged and expects the hook to refuse it
// with each of want on screen, HEAD staying where it was; it then resets
// the repository to HEAD.
func commitRefused(t *testing.T, repo string, env []string, msg string, want ...string) {
	t.Helper()
	before := git(t, repo, "rev-parse", "HEAD")
	out, code := runIn(t, repo, env, "git", "commit", "-m", msg)
	t.Logf("hook output for %q:\n%s", msg, out)
	if code == 0 {
		t.Fatalf("%q went through:\n%s", msg, out)
	}
	for _, w := range append([]string{"Failed"}, want...) {
		if !strings.Contains(out, w) {
			t.Errorf("%q: hook output lacks %q:\n%s", msg, w, out)
		}
	}
	if head := git(t, repo, "rev-parse", "HEAD"); head != before {
		t.Errorf("HEAD moved to %s although the hook failed", head)
	}
	git(t, repo, "reset", "-q", "--hard")
}

// TestPreCommitHook: the real pre-commit builds the h3a-check hook from a
// snapshot of this checkout (language: golang) and runs it on every
// commit. A good commit goes through; one that breaks a run's evidence,
// deletes a logged artifact or deletes a run is refused with the finding
// on screen; a commit outside any run goes through without a look at the
// runs it leaves alone, even a broken one. A long test: pre-commit builds
// the hook with go install ./..., every program of the module, which costs
// more than the rest of this package; TestPreCommitSystemHook runs the
// real pre-commit in the README's command.
func TestPreCommitHook(t *testing.T) {
	t.Parallel()
	longtest.Skip(t)
	preCommit := mustHave(t, "pre-commit")
	hookRepo, rev, home := sharedHookRepo(t)
	repo := newRepo(t)
	writeHookConfig(t, repo, hookRepo, rev, "h3a-check")
	run := filepath.Join(repo, "runs", runID)
	copyCase(t, "ok", "complete", run)
	env := preCommitEnv(t, home, "")

	if out, code := runIn(t, repo, env, preCommit, "install", "--install-hooks"); code != 0 {
		t.Fatalf("pre-commit install: exit %d\n%s", code, out)
	}
	git(t, repo, "add", "-A")
	out, code := runIn(t, repo, env, "git", "commit", "-m", "a complete run")
	if code != 0 || !strings.Contains(out, "Passed") {
		t.Fatalf("good commit: exit %d\n%s", code, out)
	}

	breakArtifact(t, run)
	// A second staged file in the same run: still one check of the run.
	if err := os.WriteFile(filepath.Join(run, "README.md"), []byte("edited\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	git(t, repo, "add", "-A")
	commitRefused(t, repo, env, "edit a logged artifact",
		"runs/"+runID+"/state/EVIDENCE_LOG.md:19:54: error:", "[h3a.integrity.hash_mismatch]", "fix: re-run the step")

	git(t, repo, "rm", "-q", "runs/"+runID+"/artifacts/executor/test_output_green.txt")
	commitRefused(t, repo, env, "delete a logged artifact", "[h3a.integrity.missing_artifact]", "[h3a.append_only.artifact_deleted]")

	git(t, repo, "rm", "-q", "-r", "runs/"+runID)
	commitRefused(t, repo, env, "delete a run", runID+`" exists at base`, "[h3a.append_only.run_deleted]")

	// A broken run committed past the hook, then a commit elsewhere.
	other := filepath.Join(repo, "runs", otherRunID)
	copyCase(t, "ok", "complete", other)
	breakArtifact(t, other)
	git(t, repo, "add", "-A")
	git(t, repo, "commit", "-q", "--no-verify", "-m", "a broken run, past the hook")
	if err := os.WriteFile(filepath.Join(repo, "NOTES.md"), []byte("not a run\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	git(t, repo, "add", "NOTES.md")
	out, code = runIn(t, repo, env, "git", "commit", "-m", "notes")
	if code != 0 || !strings.Contains(out, "Passed") || strings.Contains(out, otherRunID) {
		t.Errorf("a commit outside any run: exit %d, want it through without a check of the runs\n%s", code, out)
	}
}

// TestPreCommitSystemHook: h3a-check-system runs a binary already on PATH,
// and sees a commit that deletes a run.
func TestPreCommitSystemHook(t *testing.T) {
	t.Parallel()
	preCommit := mustHave(t, "pre-commit")
	hookRepo, rev, home := sharedHookRepo(t)
	repo := newRepo(t)
	writeHookConfig(t, repo, hookRepo, rev, "h3a-check-system")
	run := filepath.Join(repo, "runs", runID)
	copyCase(t, "ok", "complete", run)
	commitAll(t, repo, "base")
	env := preCommitEnv(t, home, filepath.Dir(binary))

	breakArtifact(t, run)
	git(t, repo, "add", "-A")
	out, code := runIn(t, repo, env, preCommit, "run")
	if code != 1 || !strings.Contains(out, "[h3a.integrity.hash_mismatch]") {
		t.Errorf("exit %d, want 1 with the hash mismatch on screen:\n%s", code, out)
	}
	git(t, repo, "reset", "-q", "--hard")

	if out, code := runIn(t, repo, env, preCommit, "install"); code != 0 {
		t.Fatalf("pre-commit install: exit %d\n%s", code, out)
	}
	git(t, repo, "rm", "-q", "-r", "runs/"+runID)
	commitRefused(t, repo, env, "delete a run", "[h3a.append_only.run_deleted]")
}
