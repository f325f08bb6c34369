package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/h3a-check/h3a-check/internal/longtest"
)

// TestPreCommitStagedTricks: the hook checks what the commit records, the
// index, whatever the working tree shows: a tampered artifact staged and
// then hidden behind assume-unchanged or skip-worktree, a broken run
// staged and then deleted from the disk, and a broken run whose state
// folder is written State, are each refused. A long test: the same
// tricks are refused in process, through a real git index, by the cli
// package's TestStaged; this one proves that pre-commit hands the hook
// nothing that undoes that.
func TestPreCommitStagedTricks(t *testing.T) {
	longtest.Skip(t)
	t.Parallel()
	preCommit := mustHave(t, "pre-commit")
	hookRepo, rev, home := sharedHookRepo(t)
	repo := newRepo(t)
	writeHookConfig(t, repo, hookRepo, rev, "h3a-check-system")
	run := filepath.Join(repo, "runs", runID)
	copyCase(t, "ok", "complete", run)
	commitAll(t, repo, "a complete run")
	env := preCommitEnv(t, home, filepath.Dir(binary))
	if out, code := runIn(t, repo, env, preCommit, "install", "--install-hooks"); code != 0 {
		t.Fatalf("pre-commit install: exit %d\n%s", code, out)
	}
	green := "runs/" + runID + "/artifacts/executor/test_output_green.txt"
	committed, err := os.ReadFile(filepath.Join(repo, filepath.FromSlash(green)))
	if err != nil {
		t.Fatal(err)
	}

	for _, bit := range []string{"--assume-unchanged", "--skip-worktree"} {
		breakArtifact(t, run)
		git(t, repo, "add", green)
		if err := os.WriteFile(filepath.Join(repo, filepath.FromSlash(green)), committed, 0o644); err != nil {
			t.Fatal(err)
		}
		git(t, repo, "update-index", bit, green)
		hookRefuses(t, repo, env, "a tampered artifact behind "+bit, "[h3a.integrity.hash_mismatch]")
		// git reset --hard refuses an entry it was told not to look at.
		git(t, repo, "update-index", "--no"+strings.TrimPrefix(bit, "-"), green)
		git(t, repo, "reset", "-q", "--hard")
	}

	// A new broken run, staged, then gone from the disk.
	other := filepath.Join(repo, "runs", otherRunID)
	copyCase(t, "ok", "complete", other)
	breakArtifact(t, other)
	git(t, repo, "add", "-A")
	if err := os.RemoveAll(other); err != nil {
		t.Fatal(err)
	}
	commitRefused(t, repo, env, "a broken run staged, then deleted from the disk", otherRunID, "[h3a.integrity.hash_mismatch]")

	// A new broken run whose state folder is written State: no search
	// that matched names exactly would see a run there.
	copyCase(t, "ok", "complete", other)
	breakArtifact(t, other)
	if err := os.Rename(filepath.Join(other, "state"), filepath.Join(other, "State")); err != nil {
		t.Fatal(err)
	}
	git(t, repo, "add", "-A")
	commitRefused(t, repo, env, "a broken run whose state folder is State", otherRunID, "[h3a.structure.name_case]")
	if err := os.RemoveAll(other); err != nil {
		t.Fatal(err)
	}

	// A new run inside the committed run: the committed run now holds
	// another, which the nearest run's check alone would not see.
	// The inner run passes on its own.
	inner := filepath.Join(run, "artifacts", "executor", "sub", runID)
	copyCase(t, "ok", "complete", inner)
	git(t, repo, "add", "-A")
	commitRefused(t, repo, env, "a run added inside the committed run", "[h3a.structure.nested_run]")
	if err := os.RemoveAll(filepath.Join(run, "artifacts", "executor", "sub")); err != nil {
		t.Fatal(err)
	}

	// A tampered artifact staged, then deleted from the disk.
	breakArtifact(t, run)
	git(t, repo, "add", green)
	if err := os.Remove(filepath.Join(repo, filepath.FromSlash(green))); err != nil {
		t.Fatal(err)
	}
	commitRefused(t, repo, env, "a tampered artifact staged, then deleted from the disk", "[h3a.integrity.hash_mismatch]")
}

// TestPreCommitCIModes: pre-commit in CI runs the documented hook over
// the whole tree (pre-commit run --all-files, as CI jobs do: the CI check,
// against the target branch, refused without one) or
// over a range of commits (--from-ref/--to-ref, as the pre-commit action
// does for a pull request); a broken run committed past the hook fails
// both, and so does a range that starts after it while it is not on the
// target branch; a range from the target branch that leaves it alone
// does not. A long test: the modes' environment (PRE_COMMIT_FROM_REF and
// _TO_REF, CI) is tested in process by the cli package's TestStagedModes;
// this one proves that pre-commit sets it as those tests do.
func TestPreCommitCIModes(t *testing.T) {
	longtest.Skip(t)
	t.Parallel()
	preCommit := mustHave(t, "pre-commit")
	hookRepo, rev, home := sharedHookRepo(t)
	repo := newRepo(t)
	writeHookConfig(t, repo, hookRepo, rev, "h3a-check")
	copyCase(t, "ok", "complete", filepath.Join(repo, "runs", runID))
	base := commitAll(t, repo, "a complete run")
	other := filepath.Join(repo, "runs", otherRunID)
	copyCase(t, "ok", "complete", other)
	breakArtifact(t, other)
	broken := commitAll(t, repo, "a broken run, past the hook")
	if err := os.WriteFile(filepath.Join(repo, "NOTES.md"), []byte("not a run\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	notes := commitAll(t, repo, "notes")
	env := append(preCommitEnv(t, home, ""), "CI=true")
	if out, code := runIn(t, repo, env, preCommit, "install-hooks"); code != 0 {
		t.Fatalf("pre-commit install-hooks: exit %d\n%s", code, out)
	}

	// In CI, HEAD is the change: --all-files needs the target branch to
	// judge it by, and is the CI check against it.
	out, code := runIn(t, repo, env, preCommit, "run", "--all-files")
	t.Logf("pre-commit run --all-files, no target branch:\n%s", out)
	if code == 0 || !strings.Contains(out, "this CI names no target branch") {
		t.Errorf("--all-files in CI without a target branch: exit %d, want a refusal naming what is missing\n%s", code, out)
	}
	git(t, repo, "update-ref", "refs/remotes/origin/main", base)
	git(t, repo, "symbolic-ref", "refs/remotes/origin/HEAD", "refs/remotes/origin/main")
	out, code = runIn(t, repo, env, preCommit, "run", "--all-files")
	t.Logf("pre-commit run --all-files:\n%s", out)
	if code == 0 || !strings.Contains(out, "[h3a.integrity.hash_mismatch]") || !strings.Contains(out, otherRunID) || strings.Contains(out, "nothing to check") || !strings.Contains(out, "against the CI base") {
		t.Errorf("--all-files over a broken committed run: exit %d, want a failure naming it\n%s", code, out)
	}

	out, code = runIn(t, repo, env, preCommit, "run", "--from-ref", base, "--to-ref", notes)
	t.Logf("pre-commit run --from-ref base --to-ref HEAD:\n%s", out)
	if code == 0 || !strings.Contains(out, "[h3a.integrity.hash_mismatch]") || !strings.Contains(out, otherRunID) {
		t.Errorf("a range holding a broken run: exit %d, want a failure naming it\n%s", code, out)
	}

	// A range that starts past the target branch starts at a commit the
	// change wrote: it starts where the change left the target instead.
	out, code = runIn(t, repo, env, preCommit, "run", "--from-ref", broken, "--to-ref", notes)
	if code == 0 || !strings.Contains(out, "[h3a.integrity.hash_mismatch]") || !strings.Contains(out, "not in the history of the one the change cannot write") {
		t.Errorf("a range from a commit past the target branch: exit %d, want the broken run it skips to fail\n%s", code, out)
	}
	// Once the broken run is on the target branch, a range from there
	// leaves it alone.
	git(t, repo, "update-ref", "refs/remotes/origin/main", broken)
	out, code = runIn(t, repo, env, preCommit, "run", "--from-ref", broken, "--to-ref", notes)
	if code != 0 || strings.Contains(out, otherRunID) {
		t.Errorf("a range that leaves the runs alone: exit %d, want it through\n%s", code, out)
	}
}

// hookRefuses is commitRefused without the reset.
func hookRefuses(t *testing.T, repo string, env []string, msg string, want ...string) {
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
}
