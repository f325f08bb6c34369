// Package gittest makes real git repositories in temporary directories for
// tests, isolated from the user's and the system's git configuration.
package gittest

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// Isolate points git at an empty configuration and a fixed identity for the
// rest of the test (t.Setenv, so the test must not be parallel). It skips
// the test when git is not installed.
func Isolate(t testing.TB) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	home := t.TempDir()
	for k, v := range map[string]string{
		"HOME":                home,
		"XDG_CONFIG_HOME":     home,
		"GIT_CONFIG_NOSYSTEM": "1",
		"GIT_CONFIG_GLOBAL":   filepath.Join(home, "gitconfig"),
		"GIT_AUTHOR_NAME":     "Test Author",
		"GIT_AUTHOR_EMAIL":    "author@example.com",
		"GIT_COMMITTER_NAME":  "Test Committer",
		"GIT_COMMITTER_EMAIL": "committer@example.com",
		"GIT_AUTHOR_DATE":     "2025-09-29T16:00:00Z",
		"GIT_COMMITTER_DATE":  "2025-09-29T16:00:00Z",
		"GIT_DIR":             "",
		"GIT_WORK_TREE":       "",
		"GIT_INDEX_FILE":      "",
	} {
		t.Setenv(k, v)
	}
	os.Unsetenv("GIT_DIR")
	os.Unsetenv("GIT_WORK_TREE")
	os.Unsetenv("GIT_INDEX_FILE")
	// maintenance.auto: git commit (and fetch, merge) would start a "git
	// maintenance run --auto" process each time, which finds nothing to do
	// in a test's small repository.
	if err := os.WriteFile(filepath.Join(home, "gitconfig"), []byte("[init]\n\tdefaultBranch = main\n[advice]\n\tdetachedHead = false\n[maintenance]\n\tauto = false\n"), 0o644); err != nil {
		t.Fatal(err)
	}
}

// Repo is a work tree made for a test.
type Repo struct {
	t   testing.TB
	Dir string
}

// Init creates an empty repository in a new temporary directory.
func Init(t testing.TB) *Repo {
	t.Helper()
	Isolate(t)
	r := &Repo{t: t, Dir: t.TempDir()}
	r.Git("init", "-q")
	return r
}

// At wraps an existing work tree (a clone, for instance).
func At(t testing.TB, dir string) *Repo { return &Repo{t: t, Dir: dir} }

// Git runs git in the work tree and returns its trimmed output; a failure
// fails the test.
func (r *Repo) Git(args ...string) string {
	r.t.Helper()
	out, err := r.TryGit(args...)
	if err != nil {
		r.t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return out
}

// TryGit runs git and returns its combined output and error.
func (r *Repo) TryGit(args ...string) (string, error) {
	cmd := exec.Command("git", append([]string{"-C", r.Dir}, args...)...)
	out, err := cmd.CombinedOutput()
	return strings.TrimSpace(string(out)), err
}

// Write writes files (path relative to the work tree → content), making
// folders as needed.
func (r *Repo) Write(files map[string]string) {
	r.t.Helper()
	for p, content := range files {
		full := filepath.Join(r.Dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			r.t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(content), 0o644); err != nil {
			r.t.Fatal(err)
		}
	}
}

// Remove deletes paths (files or folders) from the work tree.
func (r *Repo) Remove(paths ...string) {
	r.t.Helper()
	for _, p := range paths {
		if err := os.RemoveAll(filepath.Join(r.Dir, filepath.FromSlash(p))); err != nil {
			r.t.Fatal(err)
		}
	}
}

// Commit stages everything and commits it; it returns the commit's name.
func (r *Repo) Commit(msg string) string {
	r.t.Helper()
	r.Git("add", "-A")
	r.Git("commit", "-q", "--allow-empty", "-m", msg)
	if head, ok := LooseHead(r.Dir); ok {
		return head
	}
	return r.Git("rev-parse", "HEAD")
}

// LooseHead reads the commit HEAD names in the work tree dir without
// starting git, when HEAD is a branch whose ref is a loose file in
// dir/.git (as it is just after a commit there); ok is false otherwise
// (a detached HEAD, a packed ref, a .git file), and the caller asks git.
func LooseHead(dir string) (commit string, ok bool) {
	gitDir := filepath.Join(dir, ".git")
	head, err := os.ReadFile(filepath.Join(gitDir, "HEAD"))
	if err != nil {
		return "", false
	}
	ref, isRef := strings.CutPrefix(strings.TrimSpace(string(head)), "ref: ")
	if !isRef || !strings.HasPrefix(ref, "refs/heads/") {
		return "", false
	}
	data, err := os.ReadFile(filepath.Join(gitDir, filepath.FromSlash(ref)))
	if err != nil {
		return "", false
	}
	commit = strings.TrimSpace(string(data))
	if len(commit) != 40 && len(commit) != 64 {
		return "", false
	}
	for _, c := range commit {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return "", false
		}
	}
	return commit, true
}

// Publish makes commit the tip of origin's default branch (origin/main,
// and origin/HEAD pointing at it), as a clone of the repository holds it:
// what a check in CI reads the rules from.
func (r *Repo) Publish(commit string) {
	r.t.Helper()
	r.Git("update-ref", "refs/remotes/origin/main", commit)
	r.Git("symbolic-ref", "refs/remotes/origin/HEAD", "refs/remotes/origin/main")
}

// LogGit puts a git in front of the real one on PATH for the rest of the
// test (t.Setenv: the test must not be parallel) that writes each
// command's arguments, one line each, before running it. The function
// returned reads the lines written so far: the git processes a piece of
// code starts, counted.
func LogGit(t testing.TB) func() []string {
	t.Helper()
	realGit, err := exec.LookPath("git")
	if err != nil {
		t.Skip("git is not installed")
	}
	dir := t.TempDir()
	log := filepath.Join(dir, "git.log")
	script := "#!/bin/sh\nprintf '%s\\n' \"$*\" >>'" + log + "'\nexec '" + realGit + "' \"$@\"\n"
	if err := os.WriteFile(filepath.Join(dir, "git"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", dir+string(os.PathListSeparator)+os.Getenv("PATH"))
	return func() []string {
		data, err := os.ReadFile(log)
		if err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
		if len(data) == 0 {
			return nil
		}
		return strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	}
}
