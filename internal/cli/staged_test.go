package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/h3a-check/h3a-check/internal/gitrev/gittest"
)

const (
	completeID = "20250929-134215-8b6f8b9a-7c9f-4c5e-8c6a-2f0f0d2e9c1a"
	otherID    = "20250930-101500-3f1c2b8e-4d5a-4b6c-9e7f-1a2b3c4d5e6f"
	greenRel   = "artifacts/executor/test_output_green.txt"
)

// stagedRepo is a repository with two committed runs under runs/: the
// complete example and a copy whose logged artifact was broken in a commit
// that skipped the hook, which a staged check must not look at unless a
// staged change touches it. The working directory is the top level, as
// for a hook. It is a copy of one made once for the package's tests (in
// scratch), since dozens of cases start from it.
func stagedRepo(t *testing.T) *gittest.Repo {
	t.Helper()
	gittest.Isolate(t)
	stagedTemplate.once.Do(func() {
		dir := filepath.Join(scratch, "staged")
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		g := gittest.At(t, dir)
		g.Git("init", "-q")
		src := filepath.Join(casesDir, "ok", "complete", completeID)
		for _, id := range []string{completeID, otherID} {
			if err := os.CopyFS(filepath.Join(g.Dir, "runs", id), os.DirFS(src)); err != nil {
				t.Fatal(err)
			}
		}
		g.Write(map[string]string{"runs/" + otherID + "/" + greenRel: "broken after logging\n"})
		g.Commit("two runs")
		// git init's sample hooks are never run: fewer files to copy.
		if err := os.RemoveAll(filepath.Join(dir, ".git", "hooks")); err != nil {
			t.Fatal(err)
		}
		stagedTemplate.dir = dir
	})
	if stagedTemplate.dir == "" {
		t.Fatal("the staged repository could not be made in an earlier test")
	}
	g := gittest.At(t, t.TempDir())
	if err := os.CopyFS(g.Dir, os.DirFS(stagedTemplate.dir)); err != nil {
		t.Fatal(err)
	}
	t.Chdir(g.Dir)
	return g
}

// stagedTemplate is the repository stagedRepo copies.
var stagedTemplate struct {
	once sync.Once
	dir  string
}

// stagedModeVars choose what a staged check reads besides the index.
var stagedModeVars = map[string]bool{
	"CI": true, "PRE_COMMIT": true, "PRE_COMMIT_FROM_REF": true, "PRE_COMMIT_TO_REF": true,
	"PRE_COMMIT_ORIGIN": true, "PRE_COMMIT_SOURCE": true, "GIT_INDEX_FILE": true,
	"GITHUB_ACTIONS": true, "GITHUB_EVENT_NAME": true, "GITHUB_EVENT_PATH": true,
}

// runStaged runs "check --staged" in the working directory with the
// environment given (on top of the process's).
func runStaged(t *testing.T, vars map[string]string, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	e := &env{stdout: &out, stderr: &errb, getenv: func(k string) string {
		if v, ok := vars[k]; ok {
			return v
		}
		if stagedModeVars[k] {
			return "" // the CI running the tests must not choose the mode
		}
		return os.Getenv(k)
	}}
	code := run(context.Background(), append([]string{"check", "--staged"}, args...), e)
	return code, out.String(), errb.String()
}

// newID names a run that only a staged change holds.
const newID = "20251001-090000-5a6b7c8d-1e2f-4a3b-8c4d-5e6f7a8b9c0d"

// copyExample copies the committed complete run to rel in the
// repository (the working directory is the repository's by then).
func copyExample(t *testing.T, g *gittest.Repo, rel string) {
	t.Helper()
	src := filepath.Join(g.Dir, "runs", completeID)
	if err := os.CopyFS(filepath.Join(g.Dir, filepath.FromSlash(rel)), os.DirFS(src)); err != nil {
		t.Fatal(err)
	}
}

// tamperStaged stages a changed file and puts the committed content back
// in the working tree: the commit records the change, the disk does not.
func tamperStaged(t *testing.T, g *gittest.Repo, rel string) {
	t.Helper()
	committed, err := os.ReadFile(filepath.Join(g.Dir, filepath.FromSlash(rel)))
	if err != nil {
		t.Fatal(err)
	}
	g.Write(map[string]string{rel: "tampered\n"})
	g.Git("add", rel)
	g.Write(map[string]string{rel: string(committed)})
}

func TestStaged(t *testing.T) {
	complete := "runs/" + completeID
	tests := []struct {
		name   string
		change func(t *testing.T, g *gittest.Repo)
		code   int
		want   []string // in stdout or stderr
		not    []string
	}{
		{"nothing staged", func(*testing.T, *gittest.Repo) {}, ExitPass, []string{"no staged change touches a run"}, []string{otherID}},
		{"a file outside every run", func(t *testing.T, g *gittest.Repo) {
			g.Write(map[string]string{"NOTES.md": "notes\n"})
			g.Git("add", "NOTES.md")
		}, ExitPass, []string{"no staged change touches a run"}, []string{otherID}},
		{"a change inside one run checks that run only", func(t *testing.T, g *gittest.Repo) {
			g.Write(map[string]string{complete + "/README.md": "edited\n"})
			g.Git("add", "-A")
		}, ExitPass, []string{"1 run checked", completeID}, []string{otherID}},
		{"a new run staged inside a committed run checks both", func(t *testing.T, g *gittest.Repo) {
			// A run of its own, that the committed run's folder holds.
			tmp := filepath.Join(t.TempDir(), completeID)
			if err := os.CopyFS(tmp, os.DirFS(filepath.Join(g.Dir, complete))); err != nil {
				t.Fatal(err)
			}
			if err := os.CopyFS(filepath.Join(g.Dir, complete, "artifacts", "executor", "sub", completeID), os.DirFS(tmp)); err != nil {
				t.Fatal(err)
			}
			g.Git("add", "-A")
		}, ExitFail, []string{"2 runs checked", "[h3a.structure.nested_run]"}, []string{otherID}},
		{"a deleted logged artifact", func(t *testing.T, g *gittest.Repo) {
			g.Git("rm", "-q", complete+"/"+greenRel)
		}, ExitFail, []string{"[h3a.integrity.missing_artifact]", "[h3a.append_only.artifact_deleted]"}, []string{otherID}},
		{"a deleted run", func(t *testing.T, g *gittest.Repo) {
			g.Git("rm", "-q", "-r", complete)
		}, ExitFail, []string{`run "` + completeID + `" exists at base`, "[h3a.append_only.run_deleted]"}, nil},
		{"an artifact removed from the index only", func(t *testing.T, g *gittest.Repo) {
			g.Git("rm", "-q", "--cached", complete+"/"+greenRel)
		}, ExitFail, []string{"[h3a.integrity.missing_artifact]", "[h3a.append_only.artifact_deleted]"}, nil},
		{"a file changed after git add is checked as staged", func(t *testing.T, g *gittest.Repo) {
			g.Write(map[string]string{complete + "/" + greenRel: "tampered\n"})
			g.Git("add", "-A")
			g.Write(map[string]string{complete + "/" + greenRel: "changed again\n"})
		}, ExitFail, []string{"[h3a.integrity.hash_mismatch]"}, []string{otherID}},
		{"a tampered artifact staged, the working tree restored and assumed unchanged", func(t *testing.T, g *gittest.Repo) {
			tamperStaged(t, g, complete+"/"+greenRel)
			g.Git("update-index", "--assume-unchanged", complete+"/"+greenRel)
		}, ExitFail, []string{"[h3a.integrity.hash_mismatch]"}, []string{otherID}},
		{"a tampered artifact staged, the working tree restored and skipped", func(t *testing.T, g *gittest.Repo) {
			tamperStaged(t, g, complete+"/"+greenRel)
			g.Git("update-index", "--skip-worktree", complete+"/"+greenRel)
		}, ExitFail, []string{"[h3a.integrity.hash_mismatch]"}, []string{otherID}},
		{"a tampered artifact staged, then deleted from the working tree", func(t *testing.T, g *gittest.Repo) {
			tamperStaged(t, g, complete+"/"+greenRel)
			g.Remove(complete + "/" + greenRel)
		}, ExitFail, []string{"[h3a.integrity.hash_mismatch]"}, []string{"[h3a.integrity.missing_artifact]"}},
		{"a new broken run staged, then deleted from the working tree", func(t *testing.T, g *gittest.Repo) {
			copyExample(t, g, "runs/"+newID)
			g.Write(map[string]string{"runs/" + newID + "/" + greenRel: "tampered\n"})
			g.Git("add", "-A")
			g.Remove("runs/" + newID)
		}, ExitFail, []string{newID, "[h3a.integrity.hash_mismatch]"}, []string{"nothing to check"}},
		{"an untracked file in the run is not what the commit records", func(t *testing.T, g *gittest.Repo) {
			g.Write(map[string]string{complete + "/README.md": "edited\n"})
			g.Git("add", "-A")
			g.Remove(complete + "/" + greenRel)
			g.Git("rm", "-q", "--cached", complete+"/"+greenRel)
			g.Write(map[string]string{complete + "/" + greenRel: "untracked\n"})
		}, ExitFail, []string{"[h3a.integrity.missing_artifact]"}, nil},
		{"a run folder staged as a symbolic link to a committed run", func(t *testing.T, g *gittest.Repo) {
			if err := os.Symlink(completeID, filepath.Join(g.Dir, "runs", newID)); err != nil {
				t.Fatal(err)
			}
			g.Git("add", "-A")
		}, ExitFail, []string{newID, "[h3a.structure.symlink]"}, []string{"nothing to check", otherID}},
		{"a run folder staged as a symbolic link out of the repository", func(t *testing.T, g *gittest.Repo) {
			outside := filepath.Join(t.TempDir(), newID)
			copyExample(t, g, "runs/"+newID)
			if err := os.Rename(filepath.Join(g.Dir, "runs", newID), outside); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(outside, filepath.Join(g.Dir, "runs", newID)); err != nil {
				t.Fatal(err)
			}
			g.Git("add", "-A")
		}, ExitFail, []string{newID, "[h3a.structure.symlink]"}, []string{"nothing to check", otherID}},
		{"a run staged where committed links out of the paths lead", func(t *testing.T, g *gittest.Repo) {
			g.Write(map[string]string{".h3a-check.yaml": "paths: [runs/]\n", "near/.keep": "", "far/.keep": ""})
			for link, to := range map[string]string{"runs/shelf": "../near", "near/far": "../far"} {
				if err := os.Symlink(to, filepath.Join(g.Dir, filepath.FromSlash(link))); err != nil {
					t.Fatal(err)
				}
			}
			g.Commit("links to a folder of runs to come")
			copyExample(t, g, "far/"+newID)
			g.Git("add", "-A")
		}, ExitFail, []string{"runs/shelf", "[h3a.structure.symlink]", newID}, []string{"nothing to check", otherID}},
		{"a committed link to a file out of the paths is no folder of runs", func(t *testing.T, g *gittest.Repo) {
			g.Write(map[string]string{".h3a-check.yaml": "paths: [runs/]\n", "NOTES.md": "notes\n"})
			if err := os.Symlink(filepath.Join("..", "NOTES.md"), filepath.Join(g.Dir, "runs", "NOTES.md")); err != nil {
				t.Fatal(err)
			}
			g.Commit("a link to notes")
			g.Write(map[string]string{complete + "/README.md": "edited\n"})
			g.Git("add", "-A")
		}, ExitPass, []string{"1 run checked", completeID}, []string{otherID}},
		{"a run staged with its state.json and state/ folder as symbolic links", func(t *testing.T, g *gittest.Repo) {
			run := filepath.Join(g.Dir, "runs", newID)
			if err := os.Mkdir(run, 0o755); err != nil {
				t.Fatal(err)
			}
			for _, name := range []string{"state", "state.json"} {
				if err := os.Symlink(filepath.Join("..", completeID, name), filepath.Join(run, name)); err != nil {
					t.Fatal(err)
				}
			}
			g.Git("add", "-A")
		}, ExitFail, []string{newID, "[h3a.structure.symlink]"}, []string{"nothing to check", otherID}},
		{"a run staged in a folder whose name is not UTF-8", func(t *testing.T, g *gittest.Repo) {
			if err := os.Mkdir(filepath.Join(g.Dir, "runs", "\xff"), 0o755); err != nil {
				t.Skipf("this file system takes no such name: %v", err)
			}
			copyExample(t, g, "runs/\xff/"+newID)
			g.Write(map[string]string{"runs/\xff/" + newID + "/" + greenRel: "tampered\n"})
			g.Git("add", "-A")
		}, ExitError, []string{"not valid UTF-8"}, []string{"nothing to check"}},
		{"a file added with git add -N is not recorded", func(t *testing.T, g *gittest.Repo) {
			g.Write(map[string]string{complete + "/README.md": "edited\n"})
			g.Git("add", "-A")
			g.Git("rm", "-q", "--cached", complete+"/"+greenRel)
			g.Git("add", "-N", complete+"/"+greenRel)
		}, ExitFail, []string{"[h3a.integrity.missing_artifact]"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := stagedRepo(t)
			tt.change(t, g)
			code, stdout, stderr := runStaged(t, nil)
			if code != tt.code {
				t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, tt.code, stdout, stderr)
			}
			for _, w := range tt.want {
				if !strings.Contains(stdout+stderr, w) {
					t.Errorf("output lacks %q:\n%s%s", w, stdout, stderr)
				}
			}
			for _, w := range tt.not {
				if strings.Contains(stdout+stderr, w) {
					t.Errorf("output mentions %q:\n%s%s", w, stdout, stderr)
				}
			}
		})
	}
}

// TestStagedReadsTheHookIndex: "git commit -a" hands the hook a temporary
// index in GIT_INDEX_FILE; the deletion staged there is what the commit
// records, though the repository's own index does not hold it.
func TestStagedReadsTheHookIndex(t *testing.T) {
	g := stagedRepo(t)
	own := filepath.Join(g.Dir, ".git", "index")
	data, err := os.ReadFile(own)
	if err != nil {
		t.Fatal(err)
	}
	next := filepath.Join(g.Dir, ".git", "next-index.lock")
	if err := os.WriteFile(next, data, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("GIT_INDEX_FILE", next)
	g.Git("rm", "-q", "runs/"+completeID+"/"+greenRel)
	os.Unsetenv("GIT_INDEX_FILE")
	for _, index := range []string{next, ".git/next-index.lock"} {
		code, stdout, stderr := runStaged(t, map[string]string{"GIT_INDEX_FILE": index})
		if code != ExitFail || !strings.Contains(stdout, "[h3a.integrity.missing_artifact]") {
			t.Errorf("GIT_INDEX_FILE=%s: exit %d, want 1 with the deleted artifact\n%s%s", index, code, stdout, stderr)
		}
	}
	// The repository's own index stages nothing: that check would pass.
	if code, _, stderr := runStaged(t, map[string]string{"GIT_INDEX_FILE": ""}); code != ExitPass || !strings.Contains(stderr, "no staged change") {
		t.Errorf("the repository's own index: exit %d, %s", code, stderr)
	}
}

// TestStagedComparesWithHEAD: outside CI the configuration's base does
// not change what a staged check compares with, and --base and --changed
// are refused beside --staged. In CI the pull request event decides, as it
// does without --staged: HEAD is the change there.
func TestStagedComparesWithHEAD(t *testing.T) {
	g := stagedRepo(t)
	g.Write(map[string]string{".h3a-check.yaml": "base: 0000000000000000000000000000000000000000\n"})
	g.Commit("a configuration with a base the clone lacks")
	event := filepath.Join(t.TempDir(), "event.json")
	if err := os.WriteFile(event, []byte(`{"pull_request": {"base": {"sha": "1111111111111111111111111111111111111111"}}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	g.Write(map[string]string{"runs/" + completeID + "/README.md": "edited\n"})
	g.Git("add", "-A")
	code, stdout, stderr := runStaged(t, nil, "--format", "text")
	if code != ExitPass || !strings.Contains(stdout, "1 run checked") {
		t.Fatalf("exit %d, want 0\n%s%s", code, stdout, stderr)
	}
	code, stdout, stderr = runStaged(t, map[string]string{"GITHUB_ACTIONS": "true", "GITHUB_EVENT_NAME": "pull_request", "GITHUB_EVENT_PATH": event}, "--format", "text")
	if code != ExitError || !strings.Contains(stderr, `base revision "1111111111111111111111111111111111111111" is not in this repository`) {
		t.Fatalf("a pull request whose base the clone lacks: exit %d, want 2 naming it\n%s%s", code, stdout, stderr)
	}
	for _, args := range [][]string{{"--base", "HEAD~1"}, {"--changed"}} {
		if code, _, stderr := runStaged(t, nil, args...); code != ExitError || !strings.Contains(stderr, "--staged") {
			t.Errorf("--staged %v: exit %d, %s", args, code, stderr)
		}
	}
}

// TestStagedFirstCommit: before the first commit every staged run is
// checked, without history.
func TestStagedFirstCommit(t *testing.T) {
	g := gittest.Init(t)
	if err := os.CopyFS(filepath.Join(g.Dir, "runs", completeID), os.DirFS(filepath.Join(casesDir, "ok", "complete", completeID))); err != nil {
		t.Fatal(err)
	}
	g.Git("add", "-A")
	t.Chdir(g.Dir)
	code, stdout, stderr := runStaged(t, nil)
	if code != ExitPass || !strings.Contains(stdout, "has no commit yet [h3a.append_only.not_compared]") {
		t.Errorf("exit %d\n%s%s", code, stdout, stderr)
	}
}

// TestStagedModes: pre-commit's CI modes. With nothing staged under
// pre-commit or in CI (pre-commit run --all-files) every run is checked,
// the broken one committed past the hook included; with a range
// (pre-commit run --from-ref A --to-ref B) the runs changed in it are
// checked as of B against A. A range variable is never an option to git.
func TestStagedModes(t *testing.T) {
	complete := "runs/" + completeID
	tests := []struct {
		name   string
		change func(t *testing.T, g *gittest.Repo) map[string]string
		code   int
		want   []string
		not    []string
	}{
		// In CI, HEAD is the change under review: with nothing staged and
		// no range the check is CI's, against the target branch.
		{"nothing staged in CI", func(t *testing.T, g *gittest.Repo) map[string]string {
			g.Publish(g.Git("rev-parse", "HEAD"))
			return map[string]string{"CI": "true"}
		}, ExitFail, []string{"every run against the CI base", "[h3a.integrity.hash_mismatch]", otherID, "2 runs checked"}, []string{"nothing to check"}},
		{"nothing staged in CI, on a change that waives its own breakage", func(t *testing.T, g *gittest.Repo) map[string]string {
			g.Publish(g.Git("rev-parse", "HEAD"))
			g.Write(map[string]string{
				complete + "/" + greenRel: "tampered\n",
				".h3a-check.yaml":         "waivers:\n  - rule: h3a.*\n    path: runs/**\n    reason: r\n    expires: 2999-01-01\n",
			})
			g.Commit("the change: a broken run and a waiver")
			return map[string]string{"CI": "true", "PRE_COMMIT": "1"}
		}, ExitFail, []string{"[h3a.integrity.hash_mismatch]", "[h3a.append_only.artifact_changed]", "[h3a.security.rules_changed]", completeID}, []string{"waived"}},
		{"nothing staged in CI with no target branch", func(*testing.T, *gittest.Repo) map[string]string {
			return map[string]string{"CI": "true"}
		}, ExitError, []string{"this CI names no target branch"}, nil},
		{"nothing staged under pre-commit", func(*testing.T, *gittest.Repo) map[string]string {
			return map[string]string{"PRE_COMMIT": "1"}
		}, ExitFail, []string{"[h3a.integrity.hash_mismatch]", otherID}, []string{"nothing to check"}},
		{"a range that breaks a run", func(t *testing.T, g *gittest.Repo) map[string]string {
			from := g.Git("rev-parse", "HEAD")
			g.Write(map[string]string{complete + "/" + greenRel: "tampered\n"})
			to := g.Commit("past the hook")
			// The working tree and the index go back: the range is what counts.
			g.Git("checkout", "-q", from)
			return map[string]string{"PRE_COMMIT_FROM_REF": from, "PRE_COMMIT_TO_REF": to, "PRE_COMMIT": "1"}
		}, ExitFail, []string{"[h3a.integrity.hash_mismatch]", "[h3a.append_only.artifact_changed]", completeID}, []string{otherID}},
		{"a range in CI that waives its own breakage", func(t *testing.T, g *gittest.Repo) map[string]string {
			// The range's own configuration waives what it breaks: in CI
			// the rules are read where the range starts.
			from := g.Git("rev-parse", "HEAD")
			g.Write(map[string]string{
				complete + "/" + greenRel: "tampered\n",
				".h3a-check.yaml":         "waivers:\n  - rule: h3a.*\n    path: runs/**\n    reason: r\n    expires: 2999-01-01\n",
			})
			to := g.Commit("past the hook, with a waiver")
			return map[string]string{"CI": "true", "PRE_COMMIT": "1", "PRE_COMMIT_FROM_REF": from, "PRE_COMMIT_TO_REF": to}
		}, ExitFail, []string{"[h3a.integrity.hash_mismatch]", "[h3a.security.rules_changed]", "PRE_COMMIT_FROM_REF"}, []string{"waived", otherID}},
		{"a range in CI that edits only the configuration", func(t *testing.T, g *gittest.Repo) map[string]string {
			// No run is touched, but the rules that judge the next
			// change are: reported as a full check reports them, and
			// failing it where the team's fail level is warning.
			g.Write(map[string]string{".h3a-check.yaml": "fail-level: warning\n"})
			from := g.Commit("the team's configuration")
			g.Write(map[string]string{".h3a-check.yaml": "fail-level: warning\nwaivers:\n  - rule: h3a.*\n    path: runs/**\n    reason: r\n    expires: 2999-01-01\n"})
			to := g.Commit("a waiver alone")
			return map[string]string{"CI": "true", "PRE_COMMIT": "1", "PRE_COMMIT_FROM_REF": from, "PRE_COMMIT_TO_REF": to}
		}, ExitFail, []string{"[h3a.security.rules_changed]", ".h3a-check.yaml"}, []string{completeID, otherID}},
		{"a range in the older variables", func(t *testing.T, g *gittest.Repo) map[string]string {
			g.Write(map[string]string{complete + "/" + greenRel: "tampered\n"})
			g.Commit("past the hook")
			return map[string]string{"PRE_COMMIT_ORIGIN": "HEAD~1", "PRE_COMMIT_SOURCE": "HEAD"}
		}, ExitFail, []string{"[h3a.integrity.hash_mismatch]", completeID}, []string{otherID}},
		{"a range that adds a run folder as a symbolic link", func(t *testing.T, g *gittest.Repo) map[string]string {
			if err := os.Symlink(completeID, filepath.Join(g.Dir, "runs", newID)); err != nil {
				t.Fatal(err)
			}
			g.Commit("a link")
			return map[string]string{"PRE_COMMIT_FROM_REF": "HEAD~1", "PRE_COMMIT_TO_REF": "HEAD", "PRE_COMMIT": "1"}
		}, ExitFail, []string{newID, "[h3a.structure.symlink]"}, []string{otherID}},
		{"nothing staged under pre-commit, a run folder committed as a link", func(t *testing.T, g *gittest.Repo) map[string]string {
			if err := os.Symlink(completeID, filepath.Join(g.Dir, "runs", newID)); err != nil {
				t.Fatal(err)
			}
			g.Commit("a link")
			return map[string]string{"PRE_COMMIT": "1"}
		}, ExitFail, []string{newID, "[h3a.structure.symlink]"}, nil},
		{"a range touching no run", func(t *testing.T, g *gittest.Repo) map[string]string {
			g.Write(map[string]string{"NOTES.md": "n\n"})
			g.Commit("notes")
			return map[string]string{"PRE_COMMIT_FROM_REF": "HEAD~1", "PRE_COMMIT_TO_REF": "HEAD"}
		}, ExitPass, []string{"no change in the range touches a run"}, []string{otherID}},
		{"a range variable that is an option", func(*testing.T, *gittest.Repo) map[string]string {
			return map[string]string{"PRE_COMMIT_FROM_REF": "--output=owned", "PRE_COMMIT_TO_REF": "HEAD"}
		}, ExitError, []string{`"--output=owned" starts with "-"`}, nil},
		{"half a range", func(*testing.T, *gittest.Repo) map[string]string {
			return map[string]string{"PRE_COMMIT_FROM_REF": "HEAD"}
		}, ExitError, []string{"--staged: PRE_COMMIT_FROM_REF and PRE_COMMIT_TO_REF must be set together"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := stagedRepo(t)
			vars := tt.change(t, g)
			code, stdout, stderr := runStaged(t, vars)
			if code != tt.code {
				t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, tt.code, stdout, stderr)
			}
			for _, w := range tt.want {
				if !strings.Contains(stdout+stderr, w) {
					t.Errorf("output lacks %q:\n%s%s", w, stdout, stderr)
				}
			}
			for _, w := range tt.not {
				if strings.Contains(stdout+stderr, w) {
					t.Errorf("output mentions %q:\n%s%s", w, stdout, stderr)
				}
			}
			if _, err := os.Stat(filepath.Join(g.Dir, "owned")); err == nil {
				t.Error("a variable reached git as an option")
			}
		})
	}
}

// TestStagedSubmodule: a commit that moves a submodule holding a run is
// checked at the submodule's new commit when it is checked out, against
// its previous one; when it is not, a warning says its runs were not
// checked.
func TestStagedSubmodule(t *testing.T) {
	sub := gittest.Init(t)
	if err := os.CopyFS(filepath.Join(sub.Dir, "runs", completeID), os.DirFS(filepath.Join(casesDir, "ok", "complete", completeID))); err != nil {
		t.Fatal(err)
	}
	sub.Commit("a run")
	g := gittest.Init(t)
	g.Write(map[string]string{"README.md": "top\n"})
	g.Git("-c", "protocol.file.allow=always", "submodule", "add", "-q", sub.Dir, "vendor-runs")
	g.Commit("the submodule")
	t.Chdir(g.Dir)

	// The submodule's new commit breaks its run.
	inside := gittest.At(t, filepath.Join(g.Dir, "vendor-runs"))
	inside.Write(map[string]string{"runs/" + completeID + "/" + greenRel: "tampered\n"})
	inside.Commit("past the hook")
	g.Git("add", "vendor-runs")
	code, stdout, stderr := runStaged(t, nil)
	if code != ExitFail || !strings.Contains(stdout, "vendor-runs/runs/"+completeID) || !strings.Contains(stdout, "[h3a.append_only.artifact_changed]") {
		t.Errorf("submodule checked out: exit %d, want 1 with its run's broken artifact\n%s%s", code, stdout, stderr)
	}

	// Not checked out: the commit is recorded, its runs are not checked.
	g.Git("commit", "-q", "--no-verify", "-m", "moved")
	g.Git("submodule", "deinit", "-q", "-f", "vendor-runs")
	other := sub.Commit("another commit")
	g.Git("update-index", "--cacheinfo", "160000,"+other+",vendor-runs")
	code, stdout, stderr = runStaged(t, nil)
	if code != ExitPass || !strings.Contains(stdout, "[h3a.structure.submodule_not_checked]") || !strings.Contains(stdout, "not checked out") {
		t.Errorf("submodule absent: exit %d, want 0 with a warning that its runs were not checked\n%s%s", code, stdout, stderr)
	}
}

// TestStagedAllUnderPaths: with nothing staged under pre-commit, every run under the
// PATHs is checked, and a PATH inside a run checks that run.
func TestStagedAllUnderPaths(t *testing.T) {
	stagedRepo(t)
	ci := map[string]string{"PRE_COMMIT": "1"}
	if code, stdout, stderr := runStaged(t, ci, "runs/"+completeID); code != ExitPass || !strings.Contains(stdout, "1 run checked") {
		t.Errorf("a good run: exit %d, want 0 with it checked\n%s%s", code, stdout, stderr)
	}
	if code, stdout, stderr := runStaged(t, ci, "runs/"+otherID+"/README.md"); code != ExitFail || !strings.Contains(stdout, "[h3a.integrity.hash_mismatch]") {
		t.Errorf("a file of the broken run: exit %d, want 1\n%s%s", code, stdout, stderr)
	}
}

// TestStagedLinkToRuns: a link staged under the path checked, to a folder
// of runs out of it, is a folder of runs reached through the link alone.
func TestStagedLinkToRuns(t *testing.T) {
	g := stagedRepo(t)
	copyExample(t, g, "archive/"+completeID)
	g.Write(map[string]string{"archive/" + completeID + "/" + greenRel: "tampered\n"})
	if err := os.Symlink("../archive", filepath.Join(g.Dir, "runs", "batch")); err != nil {
		t.Fatal(err)
	}
	g.Git("add", "-A")
	code, stdout, stderr := runStaged(t, nil, "runs")
	if code != ExitFail || !strings.Contains(stdout, "runs/batch") || !strings.Contains(stdout, "[h3a.structure.symlink]") {
		t.Errorf("exit %d, want 1 with the link to the folder of runs\n%s%s", code, stdout, stderr)
	}
}

// TestStagedAllInsideNestedRun: a path inside a run that a committed run
// holds lies in both, and the outer one holds another run.
func TestStagedAllInsideNestedRun(t *testing.T) {
	g := stagedRepo(t)
	inner := "runs/" + completeID + "/artifacts/sub/" + completeID
	copy := filepath.Join(t.TempDir(), completeID)
	if err := os.CopyFS(copy, os.DirFS(filepath.Join(g.Dir, "runs", completeID))); err != nil {
		t.Fatal(err)
	}
	if err := os.CopyFS(filepath.Join(g.Dir, filepath.FromSlash(inner)), os.DirFS(copy)); err != nil {
		t.Fatal(err)
	}
	g.Commit("a run inside a run, past the hook")
	ci := map[string]string{"PRE_COMMIT": "1"}
	code, stdout, stderr := runStaged(t, ci, inner+"/state")
	if code != ExitFail || !strings.Contains(stdout, "[h3a.structure.nested_run]") || !strings.Contains(stdout, "2 runs checked") {
		t.Errorf("a folder of the inner run: exit %d, want 1 with the outer run holding it\n%s%s", code, stdout, stderr)
	}
}

// TestStagedBrokenPolicy: a policy that does not compile stops a staged
// check even when the change touches no run.
func TestStagedBrokenPolicy(t *testing.T) {
	g := stagedRepo(t)
	policies := t.TempDir()
	if err := os.WriteFile(filepath.Join(policies, "broken.rego"), []byte("package h3a.user.broken\n\ndeny contains msg if {\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	g.Write(map[string]string{"NOTES.md": "notes\n"})
	g.Git("add", "NOTES.md")
	if code, stdout, stderr := runStaged(t, nil, "--policy", policies); code != ExitError || !strings.Contains(stderr, "broken.rego") {
		t.Errorf("exit %d, want 2 naming the policy\n%s%s", code, stdout, stderr)
	}
}
