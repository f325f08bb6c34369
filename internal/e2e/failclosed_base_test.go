package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/h3a-check/h3a-check/internal/longtest"
)

// The fail-closed matrix, on every event and CI: a change that adds a
// wildcard waiver and rewrites a committed artifact (its evidence line
// updated to the new hash) on a branch. Whatever names the revision the
// change lands on (a GitHub event's payload, a GitLab pipeline's
// variables, only CI=true) the rules and the history come from a revision
// the change cannot write: the waiver does not apply, and the rewrite is
// found. Never exit 0.

// rewrittenRun is a run, clean at the base, whose committed artifact the
// change rewrites: only the history can tell.
const rewrittenRun = "runs/rewritten/" + runID

// publishAt makes the repository a clone of a bare origin made at dir,
// which repo names by url, whose main is the current commit: origin/main
// and origin/HEAD exist, as in a CI clone of the default branch.
func publishAt(t *testing.T, repo, dir, url string) {
	t.Helper()
	git(t, repo, "init", "-q", "--bare", dir)
	git(t, repo, "remote", "add", "origin", url)
	git(t, repo, "push", "-q", "origin", "main")
	git(t, repo, "fetch", "-q", "origin")
	git(t, repo, "remote", "set-head", "origin", "main")
}

// changeRepo is baseRepo with a clean run added, published as origin's
// main, and checked out on a branch whose commit adds the wildcard waiver
// and rewrites the clean run's artifact with its evidence line. It
// returns the repository, the base commit and the change's commit.
func changeRepo(t *testing.T) (repo, base, head string) {
	t.Helper()
	repo, commits := copyTemplate(t, &changeTemplate, func(t *testing.T, repo string) []string {
		buildBase(t, repo)
		copyCase(t, "ok", "complete", filepath.Join(repo, filepath.FromSlash(rewrittenRun)))
		base := commitAll(t, repo, "a clean run")
		publishAt(t, repo, filepath.Join(repo, "..", "origin.git"), "../origin.git")
		git(t, repo, "checkout", "-q", "-b", "change")
		writeFiles(map[string]string{".h3a-check.yaml": everyWaiver})(t, repo)
		rewriteArtifact(t, filepath.Join(repo, filepath.FromSlash(rewrittenRun)))
		head := commitAll(t, repo, "the change: a waiver, and an artifact rewritten with its log line")
		return []string{base, head}
	})
	return repo, commits[0], commits[1]
}

// rewriteArtifact edits a logged artifact and its evidence line to match,
// so that the run is consistent in itself and only its history shows the
// rewrite.
func rewriteArtifact(t *testing.T, run string) {
	t.Helper()
	art := filepath.Join(run, "artifacts", "executor", "test_output_green.txt")
	old, err := os.ReadFile(art)
	if err != nil {
		t.Fatal(err)
	}
	edited := append(bytes.Clone(old), "(and one more test passing)\n"...)
	if err := os.WriteFile(art, edited, 0o644); err != nil {
		t.Fatal(err)
	}
	logPath := filepath.Join(run, "state", "EVIDENCE_LOG.md")
	log, err := os.ReadFile(logPath)
	if err != nil {
		t.Fatal(err)
	}
	from, to := "[hash:"+loggedHash(old)+"]", "[hash:"+loggedHash(edited)+"]"
	if !bytes.Contains(log, []byte(from)) {
		t.Fatalf("the evidence log does not hold %s", from)
	}
	if err := os.WriteFile(logPath, bytes.Replace(log, []byte(from), []byte(to), 1), 0o644); err != nil {
		t.Fatal(err)
	}
}

// githubEnv is a GitHub Actions job for event, with its payload.
func githubEnv(t *testing.T, event, payload string) []string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "event.json")
	if err := os.WriteFile(p, []byte(payload), 0o644); err != nil {
		t.Fatal(err)
	}
	return []string{"CI=true", "GITHUB_ACTIONS=true", "GITHUB_EVENT_NAME=" + event, "GITHUB_EVENT_PATH=" + p}
}

// checkFindsAll runs the binary and requires exit 2, or exit 1 with every
// failing run's gate fail (checkStaysFailing) and the rewritten run
// failing on its history.
func checkFindsAll(t *testing.T, repo string, env, args []string) {
	t.Helper()
	code, out, stderr := runBinary(t, repo, env, args)
	staysFailing(t, code, out, stderr)
	if code == 2 {
		return
	}
	var doc struct {
		Audits []struct {
			Run, Gate string
			Findings  []struct {
				Rule   string
				Waived any `json:"waived"`
			}
		} `json:"audits"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("stdout is not JSON: %v\n%s", err, out)
	}
	for _, a := range doc.Audits {
		if strings.TrimPrefix(a.Run, "./") != rewrittenRun {
			continue
		}
		for _, f := range a.Findings {
			if strings.HasPrefix(f.Rule, "h3a.append_only.") && f.Waived == nil && a.Gate == "fail" {
				return
			}
		}
		t.Fatalf("%s: gate %s without an append-only finding: the history was not compared with the base\nstderr: %s\n%s", rewrittenRun, a.Gate, stderr, out)
	}
	t.Fatalf("%s was not checked\n%s", rewrittenRun, out)
}

// runBinary runs the built binary in repo with a JSON report.
func runBinary(t *testing.T, repo string, env, args []string) (code int, stdout, stderr string) {
	t.Helper()
	if args == nil {
		args = []string{"runs"}
	}
	cmd := exec.Command(binary, append([]string{"--format", "json", "--color", "never"}, args...)...)
	cmd.Dir = repo
	cmd.Env = append(gitEnv(t), env...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return code, out.String(), errb.String()
}

// eventsInReadme are the events the README's test command tries: one of
// each way the base is found (a pull request's payload, a push's before,
// GitLab's variables, origin/HEAD alone, the tip before a push to the
// default branch and before a forced one). Each case runs git and a check
// of every failing run; the long tests, which .ci/run runs, try them all,
// and TestChooseBaseOnEveryEvent (internal/gitrev) holds every event's
// choice in process.
var eventsInReadme = map[string]bool{
	"push": true, "pull_request_review": true, "GitLab merge request pipeline": true, "other CI": true,
	"a push to the default branch/GitHub": true, "a forced push to the default branch/GitLab": true,
}

func skipUnsampledEvent(t *testing.T, name string) {
	t.Helper()
	if !longtest.Enabled() && !eventsInReadme[name] {
		t.Skipf("every event: %s=1", longtest.Env)
	}
}

func TestFailClosedOnEveryEvent(t *testing.T) {
	repository := `"repository": {"full_name": "o/r", "default_branch": "main", "master_branch": "main"}`
	pullRequest := func(base, head string) string {
		return fmt.Sprintf(`"pull_request": {"number": 7, "head": {"ref": "change", "sha": %q}, "base": {"ref": "main", "sha": %q}}`, head, base)
	}
	tests := []struct {
		name string
		env  func(t *testing.T, base, head string) []string
	}{
		{"push", func(t *testing.T, base, head string) []string {
			return githubEnv(t, "push", fmt.Sprintf(`{"ref": "refs/heads/change", "before": %q, "after": %q, %s}`, base, head, repository))
		}},
		{"pull_request_review", func(t *testing.T, base, head string) []string {
			return githubEnv(t, "pull_request_review", `{"action": "submitted", "review": {"state": "approved"}, `+pullRequest(base, head)+`, `+repository+`}`)
		}},
		{"pull_request_review_comment", func(t *testing.T, base, head string) []string {
			return githubEnv(t, "pull_request_review_comment", `{"action": "created", "comment": {"body": "lgtm"}, `+pullRequest(base, head)+`, `+repository+`}`)
		}},
		{"workflow_dispatch", func(t *testing.T, _, _ string) []string {
			return githubEnv(t, "workflow_dispatch", `{"inputs": {}, "ref": "refs/heads/change", `+repository+`}`)
		}},
		{"workflow_run", func(t *testing.T, _, head string) []string {
			return githubEnv(t, "workflow_run", fmt.Sprintf(`{"action": "completed", "workflow_run": {"head_branch": "change", "head_sha": %q}, %s}`, head, repository))
		}},
		{"issue_comment", func(t *testing.T, _, _ string) []string {
			return githubEnv(t, "issue_comment", `{"action": "created", "issue": {"number": 7, "pull_request": {"url": "https://api.github.com/repos/o/r/pulls/7"}}, "comment": {"body": "/check"}, `+repository+`}`)
		}},
		{"GitLab merge request pipeline", func(t *testing.T, base, _ string) []string {
			return []string{"CI=true", "GITLAB_CI=true", "CI_PIPELINE_SOURCE=merge_request_event", "CI_MERGE_REQUEST_DIFF_BASE_SHA=" + base,
				"CI_MERGE_REQUEST_TARGET_BRANCH_NAME=main", "CI_DEFAULT_BRANCH=main", "CI_COMMIT_REF_NAME=change"}
		}},
		{"GitLab branch pipeline", func(t *testing.T, _, _ string) []string {
			return []string{"CI=true", "GITLAB_CI=true", "CI_PIPELINE_SOURCE=push", "CI_DEFAULT_BRANCH=main", "CI_COMMIT_BRANCH=change"}
		}},
		{"other CI", func(t *testing.T, _, _ string) []string { return []string{"CI=true"} }},
	}

	// A push to the default branch: the clone of the push holds
	// origin/main at the change itself, so the rules and the history come
	// from the branch's tip before the push; after a forced push, the
	// history is compared with that tip itself, not with the merge base,
	// which predates the commit the push rewrote.
	pushToMain := map[string]func(t *testing.T, before string) []string{
		"GitHub": func(t *testing.T, before string) []string {
			return githubEnv(t, "push", fmt.Sprintf(`{"ref": "refs/heads/main", "before": %q, "after": "", "forced": true, %s}`, before, repository))
		},
		"GitLab": func(t *testing.T, before string) []string {
			return []string{"CI=true", "GITLAB_CI=true", "CI_PIPELINE_SOURCE=push", "CI_DEFAULT_BRANCH=main", "CI_COMMIT_BRANCH=main", "CI_COMMIT_BEFORE_SHA=" + before}
		},
	}
	named := map[string]bool{}
	for _, tc := range tests {
		named[tc.name] = true
	}
	for name := range pushToMain {
		named["a push to the default branch/"+name] = true
		named["a forced push to the default branch/"+name] = true
	}
	for name := range eventsInReadme {
		if !named[name] {
			t.Errorf("eventsInReadme names %q, which is no event of this test", name)
		}
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			skipUnsampledEvent(t, tc.name)
			t.Parallel()
			repo, base, head := changeRepo(t)
			checkFindsAll(t, repo, tc.env(t, base, head), nil)
		})
	}
	for name, env := range pushToMain {
		t.Run("a push to the default branch/"+name, func(t *testing.T) {
			skipUnsampledEvent(t, "a push to the default branch/"+name)
			t.Parallel()
			repo, base, _ := changeRepo(t)
			git(t, repo, "checkout", "-q", "main")
			git(t, repo, "merge", "-q", "--ff-only", "change")
			git(t, repo, "push", "-q", "origin", "main")
			git(t, repo, "fetch", "-q", "origin")
			checkFindsAll(t, repo, env(t, base), nil)
		})
		t.Run("a forced push to the default branch/"+name, func(t *testing.T) {
			skipUnsampledEvent(t, "a forced push to the default branch/"+name)
			t.Parallel()
			repo, base, _ := changeRepo(t)
			git(t, repo, "checkout", "-q", "main")
			git(t, repo, "reset", "-q", "--hard", base+"~1")
			run := filepath.Join(repo, filepath.FromSlash(rewrittenRun))
			copyCase(t, "ok", "complete", run)
			rewriteArtifact(t, run)
			writeFiles(map[string]string{".h3a-check.yaml": everyWaiver})(t, repo)
			commitAll(t, repo, "the clean run's commit, rewritten and forced over it")
			git(t, repo, "push", "-q", "-f", "origin", "main")
			git(t, repo, "fetch", "-q", "origin")
			checkFindsAll(t, repo, env(t, base), nil)
		})
	}

	// A tag named like the base branch, pointing at the change: the name
	// means two things, and the check refuses.
	t.Run("a tag named like the base branch", func(t *testing.T) {
		t.Parallel()
		repo, _, head := changeRepo(t)
		git(t, repo, "tag", "origin/main", head)
		code, out, stderr := runBinary(t, repo, []string{"CI=true"}, []string{"--base", "origin/main", "runs"})
		if code != 2 || !strings.Contains(stderr, "refs/tags/origin/main") || !strings.Contains(stderr, "refs/remotes/origin/main") {
			t.Fatalf("exit %d, want 2 naming both refs\nstderr: %s\n%s", code, stderr, out)
		}
	})

	// A clone without the default branch (a depth-1 checkout of a
	// push): nothing the change cannot write is at hand, and the check
	// refuses, saying how to go on.
	t.Run("no default branch in the clone", func(t *testing.T) {
		t.Parallel()
		repo, base, head := changeRepo(t)
		git(t, repo, "remote", "remove", "origin")
		for _, env := range [][]string{
			githubEnv(t, "push", fmt.Sprintf(`{"ref": "refs/heads/change", "before": %q, "after": %q, %s}`, base, head, repository)),
			{"CI=true"},
		} {
			code, out, stderr := runBinary(t, repo, env, nil)
			if code != 2 || !strings.Contains(stderr, "--base") || !strings.Contains(stderr, "git fetch") {
				t.Errorf("%v: exit %d, want 2 saying to fetch or pass --base\nstderr: %s\n%s", env, code, stderr, out)
			}
		}
	})

	// A replace ref in the clone makes the base commit show the change's
	// tree and history: git must read the commits as they are.
	t.Run("a replace ref rewriting the base", func(t *testing.T) {
		t.Parallel()
		repo, base, head := changeRepo(t)
		git(t, repo, "replace", "-f", base, head)
		for _, env := range [][]string{
			eventEnv(t, "pull_request", base),
			{"CI=true"},
		} {
			checkFindsAll(t, repo, env, nil)
		}
	})
}

// TestLocalDefaultFindsBranchRewrites: on a developer's machine, a
// feature branch whose commit rewrote an evidence line is found by a plain
// check, as its pull request will be; --base HEAD compares with the last
// commit only, and passes.
func TestLocalDefaultFindsBranchRewrites(t *testing.T) {
	t.Parallel()
	repo := newRepo(t)
	copyCase(t, "ok", "complete", filepath.Join(repo, filepath.FromSlash(rewrittenRun)))
	commitAll(t, repo, "a clean run")
	git(t, repo, "checkout", "-q", "-b", "feature")
	rewriteArtifact(t, filepath.Join(repo, filepath.FromSlash(rewrittenRun)))
	commitAll(t, repo, "an artifact rewritten with its log line")

	code, out, stderr := runBinary(t, repo, nil, []string{"--format", "text", "runs"})
	if code != 1 || !strings.Contains(out, "h3a.append_only.") || !strings.Contains(out, "history: compared with the merge base") || !strings.Contains(out, "main") {
		t.Errorf("plain check on the branch: exit %d, want 1 with the rewrite found and the revision named\nstderr: %s\n%s", code, stderr, out)
	}
	code, out, stderr = runBinary(t, repo, nil, []string{"--format", "text", "--base", "HEAD", "runs"})
	if code != 0 || !strings.Contains(out, "history: compared with HEAD ") {
		t.Errorf("--base HEAD: exit %d, want 0 (the last commit has the rewrite)\nstderr: %s\n%s", code, stderr, out)
	}
}
