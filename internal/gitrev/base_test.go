package gitrev_test

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/h3a-check/h3a-check/internal/gitrev"
	"github.com/h3a-check/h3a-check/internal/gitrev/gittest"
)

// ciRepo is a clone on a feature branch: main at mainTip (also
// origin/main, origin/HEAD), the feature forked from it at fork.
type ciRepo struct {
	g                   *gittest.Repo
	repo                *gitrev.Repo
	fork, head, mainTip string
}

func newCIRepo(t *testing.T) ciRepo {
	g := gittest.Init(t)
	g.Write(map[string]string{"f": "1"})
	fork := g.Commit("fork point")
	g.Git("checkout", "-q", "-b", "feature")
	g.Write(map[string]string{"f": "feature"})
	head := g.Commit("feature work")
	g.Git("checkout", "-q", "main")
	g.Write(map[string]string{"f": "main moved on"})
	mainTip := g.Commit("main work")
	g.Git("checkout", "-q", "feature")
	g.Git("update-ref", "refs/remotes/origin/main", mainTip)
	g.Git("symbolic-ref", "refs/remotes/origin/HEAD", "refs/remotes/origin/main")
	repo, err := gitrev.Open(g.Dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { repo.Close() })
	return ciRepo{g: g, repo: repo, fork: fork, head: head, mainTip: mainTip}
}

// payload writes an event payload as GitHub sends it (the fields read,
// and a few around them).
func payload(t *testing.T, doc string) string {
	p := filepath.Join(t.TempDir(), "event.json")
	if err := os.WriteFile(p, []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func envOf(vars map[string]string) func(string) string {
	return func(k string) string { return vars[k] }
}

// TestChooseBaseOnEveryEvent: in CI, whatever the event or the CI, the
// rules come from a revision the change cannot write and the history is
// compared through the merge base with it; never with HEAD, the change
// itself.
func TestChooseBaseOnEveryEvent(t *testing.T) {
	r := newCIRepo(t)
	other := r.g.Git("rev-parse", "HEAD~1") // the fork point, not the default branch
	prJSON := `{"action": "submitted", "pull_request": {"number": 7, "head": {"ref": "feature", "sha": "` + r.head + `"}, "base": {"ref": "main", "sha": "` + r.mainTip + `"}}, "repository": {"full_name": "o/r", "default_branch": "main"}}`
	pushJSON := `{"ref": "refs/heads/feature", "before": "` + other + `", "after": "` + r.head + `", "repository": {"full_name": "o/r", "default_branch": "main", "master_branch": "main"}}`
	repoOnly := `{"repository": {"full_name": "o/r", "default_branch": "main"}}`
	github := func(event, doc string) func(string) string {
		return envOf(map[string]string{"CI": "true", "GITHUB_ACTIONS": "true", "GITHUB_EVENT_NAME": event, "GITHUB_EVENT_PATH": payload(t, doc)})
	}
	gitlab := func(vars map[string]string) func(string) string {
		vars["CI"], vars["GITLAB_CI"] = "true", "true"
		return envOf(vars)
	}
	tests := []struct {
		name   string
		getenv func(string) string
		why    string // in the rules base's From
	}{
		{"push", github("push", pushJSON), "origin/main"},
		{"pull_request_review", github("pull_request_review", prJSON), "pull_request.base.sha"},
		{"pull_request_review_comment", github("pull_request_review_comment", prJSON), "pull_request.base.sha"},
		{"workflow_dispatch", github("workflow_dispatch", `{"inputs": {}, "ref": "refs/heads/feature", `+repoOnly[1:]), "origin/main"},
		{"workflow_run", github("workflow_run", `{"action": "completed", "workflow_run": {"head_sha": "`+r.head+`"}, `+repoOnly[1:]), "origin/main"},
		{"issue_comment", github("issue_comment", `{"action": "created", "issue": {"number": 7, "pull_request": {"url": "x"}}, `+repoOnly[1:]), "origin/main"},
		{"schedule: no payload fields, origin/HEAD", github("schedule", `{"schedule": "0 0 * * *"}`), "origin/HEAD"},
		{"GitLab merge request pipeline", gitlab(map[string]string{"CI_PIPELINE_SOURCE": "merge_request_event", "CI_MERGE_REQUEST_DIFF_BASE_SHA": r.mainTip, "CI_DEFAULT_BRANCH": "main"}), "CI_MERGE_REQUEST_DIFF_BASE_SHA"},
		{"GitLab merged results pipeline", gitlab(map[string]string{"CI_MERGE_REQUEST_TARGET_BRANCH_SHA": r.mainTip, "CI_MERGE_REQUEST_DIFF_BASE_SHA": other}), "CI_MERGE_REQUEST_TARGET_BRANCH_SHA"},
		{"GitLab branch pipeline", gitlab(map[string]string{"CI_PIPELINE_SOURCE": "push", "CI_DEFAULT_BRANCH": "main", "CI_COMMIT_BRANCH": "feature"}), "CI_DEFAULT_BRANCH"},
		{"other CI", envOf(map[string]string{"CI": "true"}), "origin/HEAD"},
		{"Jenkins, which sets no CI", envOf(map[string]string{"JENKINS_URL": "https://jenkins.example/", "CHANGE_ID": "7"}), "origin/HEAD"},
		{"Azure Pipelines, which sets no CI", envOf(map[string]string{"TF_BUILD": "True"}), "origin/HEAD"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rules, err := gitrev.ChooseRulesBase(r.repo, "", tc.getenv)
			if err != nil || rules.Commit != r.mainTip || !strings.Contains(rules.From, tc.why) {
				t.Errorf("rules: %+v %v; want %s, from %s", rules, err, r.mainTip, tc.why)
			}
			hist, err := gitrev.ChooseBase(r.repo, "", tc.getenv)
			if err != nil || hist.Commit != r.fork || !strings.Contains(hist.From, "merge base") || !strings.Contains(hist.From, tc.why) {
				t.Errorf("history: %+v %v; want the merge base %s", hist, err, r.fork)
			}
			// --base none turns off the history, not the trusted rules.
			if rules, err := gitrev.ChooseRulesBase(r.repo, "none", tc.getenv); err != nil || rules.Commit != r.mainTip {
				t.Errorf("rules with --base none: %+v %v", rules, err)
			}
		})
	}
}

// TestPushToDefaultBranch: a push to the default branch makes the
// branch's tip the change itself, so the rules come from the tip before
// the push and the history is compared with it, not through a merge base
// (a forced push is compared with the commits it replaced). A push that
// created the branch names no tip before it; a tip before the push that
// the clone lacks is an error saying to fetch it.
func TestPushToDefaultBranch(t *testing.T) {
	g := gittest.Init(t)
	g.Write(map[string]string{"f": "1"})
	root := g.Commit("root")
	g.Write(map[string]string{"f": "2"})
	before := g.Commit("the tip before the push")
	g.Git("checkout", "-q", "-b", "rewritten", root)
	g.Write(map[string]string{"f": "2, rewritten"})
	g.Commit("forced over before")
	g.Git("checkout", "-q", "main")
	g.Write(map[string]string{"f": "3"})
	pushed := g.Commit("pushed")
	g.Git("update-ref", "refs/remotes/origin/main", pushed) // the clone of the push
	repo, err := gitrev.Open(g.Dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { repo.Close() })
	const missing = "0123456789abcdef0123456789abcdef01234567"
	github := func(ref, before string) func(string) string {
		doc := `{"ref": "` + ref + `", "before": "` + before + `", "after": "` + pushed + `", "forced": false, "repository": {"full_name": "o/r", "default_branch": "main"}}`
		return envOf(map[string]string{"CI": "true", "GITHUB_ACTIONS": "true", "GITHUB_EVENT_NAME": "push", "GITHUB_EVENT_PATH": payload(t, doc)})
	}
	gitlab := func(branch, before string) func(string) string {
		return envOf(map[string]string{"CI": "true", "GITLAB_CI": "true", "CI_PIPELINE_SOURCE": "push", "CI_DEFAULT_BRANCH": "main", "CI_COMMIT_BRANCH": branch, "CI_COMMIT_BEFORE_SHA": before})
	}
	zeros := strings.Repeat("0", 40)
	for _, tc := range []struct {
		name     string
		getenv   func(string) string
		rules    string // the commit the rules come from
		history  string // the commit the history is compared with
		why      string
		checkout string // HEAD, when not main
	}{
		{"GitHub push", github("refs/heads/main", before), before, before, "the push event's before", ""},
		{"GitHub forced push", github("refs/heads/main", before), before, before, "before this push", "rewritten"},
		{"GitHub push creating the branch", github("refs/heads/main", zeros), pushed, pushed, "repository.default_branch", ""},
		{"GitHub push to another branch", github("refs/heads/feature", before), pushed, pushed, "repository.default_branch", ""},
		{"GitLab push", gitlab("main", before), before, before, "CI_COMMIT_BEFORE_SHA", ""},
		{"GitLab push creating the branch", gitlab("main", zeros), pushed, pushed, "CI_DEFAULT_BRANCH", ""},
		{"GitLab push to another branch", gitlab("feature", before), pushed, pushed, "CI_DEFAULT_BRANCH", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.checkout != "" {
				g.Git("checkout", "-q", tc.checkout)
				defer g.Git("checkout", "-q", "main")
			}
			rules, err := gitrev.ChooseRulesBase(repo, "", tc.getenv)
			if err != nil || rules.Commit != tc.rules || !strings.Contains(rules.From, tc.why) {
				t.Errorf("rules: %+v %v; want %s, from %s", rules, err, tc.rules, tc.why)
			}
			// After a forced push, before itself: not root, the merge
			// base of before and the forced tip.
			hist, err := gitrev.ChooseBase(repo, "", tc.getenv)
			if err != nil || hist.Commit != tc.history || !strings.Contains(hist.From, tc.why) {
				t.Errorf("history: %+v %v; want %s", hist, err, tc.history)
			}
		})
	}
	for name, getenv := range map[string]func(string) string{
		"GitHub": github("refs/heads/main", missing),
		"GitLab": gitlab("main", missing),
	} {
		for _, choose := range []func(*gitrev.Repo, string, func(string) string) (gitrev.Base, error){gitrev.ChooseBase, gitrev.ChooseRulesBase} {
			b, err := choose(repo, "", getenv)
			var mc *gitrev.MissingCommitError
			if !errors.As(err, &mc) || !strings.Contains(err.Error(), missing) {
				t.Errorf("%s, before not in the clone: %+v %v; want an error saying to fetch it", name, b, err)
			}
		}
	}
	for name, getenv := range map[string]func(string) string{
		"GitHub": github("refs/heads/main", "main~1"),
		"GitLab": gitlab("main", "main~1"),
	} {
		if b, err := gitrev.ChooseRulesBase(repo, "", getenv); err == nil {
			t.Errorf("%s: a revision in place of before was accepted: %+v", name, b)
		}
	}
}

// TestChooseBaseFindsNothing: in CI with no revision the change cannot
// write, the check refuses, saying to fetch or name the target (the
// command line words it as --base); never HEAD.
func TestChooseBaseFindsNothing(t *testing.T) {
	r := newCIRepo(t)
	r.g.Git("update-ref", "-d", "--no-deref", "refs/remotes/origin/HEAD")
	r.g.Git("update-ref", "-d", "refs/remotes/origin/main")
	for name, vars := range map[string]map[string]string{
		"push":                  {"CI": "true", "GITHUB_ACTIONS": "true", "GITHUB_EVENT_NAME": "push", "GITHUB_EVENT_PATH": payload(t, `{"before": "`+r.fork+`", "after": "`+r.head+`", "repository": {"default_branch": "main"}}`)},
		"GitLab branch":         {"CI": "true", "GITLAB_CI": "true", "CI_DEFAULT_BRANCH": "main"},
		"other CI":              {"CI": "true"},
		"GitHub without events": {"GITHUB_ACTIONS": "true"},
		"Jenkins":               {"BUILD_TAG": "jenkins-agents-pr-7-1"},
	} {
		t.Run(name, func(t *testing.T) {
			for _, choose := range []func(*gitrev.Repo, string, func(string) string) (gitrev.Base, error){gitrev.ChooseBase, gitrev.ChooseRulesBase} {
				b, err := choose(r.repo, "", envOf(vars))
				var re *gitrev.RemedyError
				if !errors.Is(err, gitrev.ErrNoTarget) || !errors.As(err, &re) || re.Remedy != gitrev.NameTheTarget || !strings.Contains(err.Error(), "git fetch") {
					t.Errorf("%+v %v; want an error saying to fetch or name the target", b, err)
				}
			}
		})
	}
	// The event or environment names a branch git could read otherwise.
	for name, vars := range map[string]map[string]string{
		"an option as the default branch":  {"CI": "true", "GITHUB_ACTIONS": "true", "GITHUB_EVENT_NAME": "push", "GITHUB_EVENT_PATH": payload(t, `{"repository": {"default_branch": "--output=/tmp/x"}}`)},
		"a revision as the default branch": {"CI": "true", "GITLAB_CI": "true", "CI_DEFAULT_BRANCH": "main~1"},
		"a branch name as a commit":        {"CI": "true", "GITLAB_CI": "true", "CI_MERGE_REQUEST_DIFF_BASE_SHA": "main"},
	} {
		t.Run(name, func(t *testing.T) {
			if b, err := gitrev.ChooseRulesBase(r.repo, "", envOf(vars)); err == nil {
				t.Errorf("%+v accepted", b)
			}
		})
	}
}

// TestCIMarker: a job of a CI service that sets no CI (Jenkins, Azure
// Pipelines, AWS CodeBuild, TeamCity, Bamboo) is CI all the same, so that
// a pull request built there is judged by the rules of its target, never
// by its own; on a person's machine none of these is set.
func TestCIMarker(t *testing.T) {
	tests := []struct {
		name string
		vars map[string]string
		want string
	}{
		{"nothing", nil, ""},
		{"CI=false", map[string]string{"CI": "false"}, ""},
		{"CI=0", map[string]string{"CI": "0"}, ""},
		{"CI=true", map[string]string{"CI": "true"}, "CI"},
		{"GitHub Actions", map[string]string{"GITHUB_ACTIONS": "true"}, "GITHUB_ACTIONS"},
		{"GitHub Actions with CI=false", map[string]string{"CI": "false", "GITHUB_ACTIONS": "true"}, "GITHUB_ACTIONS"},
		{"GitLab", map[string]string{"GITLAB_CI": "true"}, "GITLAB_CI"},
		{"Buildkite", map[string]string{"BUILDKITE": "true"}, "BUILDKITE"},
		{"Jenkins with its URL", map[string]string{"JENKINS_URL": "https://jenkins.example/"}, "JENKINS_URL"},
		{"Jenkins without its URL", map[string]string{"BUILD_TAG": "jenkins-agents-PR-7-3", "BUILD_ID": "3"}, "BUILD_TAG"},
		{"Hudson", map[string]string{"HUDSON_URL": "https://hudson.example/"}, "HUDSON_URL"},
		{"Azure Pipelines", map[string]string{"TF_BUILD": "True"}, "TF_BUILD"},
		{"AWS CodeBuild", map[string]string{"CODEBUILD_BUILD_ID": "proj:0f3c"}, "CODEBUILD_BUILD_ID"},
		{"TeamCity", map[string]string{"TEAMCITY_VERSION": "2024.12"}, "TEAMCITY_VERSION"},
		{"Bamboo", map[string]string{"bamboo_buildKey": "PROJ-PLAN-JOB1"}, "bamboo_buildKey"},
		{"a BUILD_TAG of something else", map[string]string{"BUILD_TAG": "v1.2.0"}, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := gitrev.CIMarker(envOf(tc.vars)); got != tc.want {
				t.Errorf("CIMarker = %q, want %q", got, tc.want)
			}
			if got := gitrev.InCI(envOf(tc.vars)); got != (tc.want != "") {
				t.Errorf("InCI = %v, want %v", got, tc.want != "")
			}
		})
	}
}

// TestLocalDefault: on a developer's machine the history is compared
// through the merge base with the default branch: origin/HEAD, else main,
// else master, else HEAD.
func TestLocalDefault(t *testing.T) {
	r := newCIRepo(t)
	local := envOf(nil)
	check := func(want, from string) {
		t.Helper()
		b, err := gitrev.ChooseBase(r.repo, "", local)
		if err != nil || b.Commit != want || !strings.Contains(b.From, from) {
			t.Errorf("%+v %v; want %s from %s", b, err, want, from)
		}
	}
	check(r.fork, "origin/HEAD")
	r.g.Git("update-ref", "-d", "--no-deref", "refs/remotes/origin/HEAD")
	check(r.fork, "main")
	r.g.Git("branch", "-q", "-m", "main", "master")
	check(r.fork, "master")
	r.g.Git("branch", "-q", "-D", "master")
	check(r.head, "HEAD")
	// A branch below the name (main/x) is not the default branch, though
	// git's pattern for main matches it.
	r.g.Git("branch", "-q", "main/x", r.mainTip)
	check(r.head, "HEAD")
	if b, err := gitrev.ChooseBase(r.repo, "HEAD", local); err != nil || b.Commit != r.head {
		t.Errorf("--base HEAD: %+v %v", b, err)
	}
}

// TestAmbiguousBase: a name that means more than one thing is refused,
// naming each; git alone would pick the tag.
func TestAmbiguousBase(t *testing.T) {
	r := newCIRepo(t)
	r.g.Git("tag", "origin/main", r.head)
	_, err := gitrev.ChooseBase(r.repo, "origin/main", envOf(nil))
	if err == nil || !strings.Contains(err.Error(), "refs/tags/origin/main") || !strings.Contains(err.Error(), "refs/remotes/origin/main") {
		t.Errorf("tag and remote-tracking branch: %v", err)
	}
	r.g.Git("branch", "origin/HEAD", r.head)
	if _, err := gitrev.ChooseRulesBase(r.repo, "origin/HEAD~1", envOf(nil)); err == nil || !strings.Contains(err.Error(), "refs/heads/origin/HEAD") {
		t.Errorf("local and remote-tracking branch: %v", err)
	}
	// A tag named like an abbreviated commit name.
	r.g.Git("tag", r.mainTip[:7], r.head)
	if _, err := gitrev.ChooseBase(r.repo, r.mainTip[:7], envOf(nil)); err == nil || !strings.Contains(err.Error(), "ambiguous") {
		t.Errorf("tag and abbreviated commit: %v", err)
	}
	// One meaning: resolved by its full name.
	if b, err := gitrev.ChooseBase(r.repo, "main~1", envOf(nil)); err != nil || b.Commit != r.fork {
		t.Errorf("main~1: %+v %v", b, err)
	}
	if b, err := gitrev.ChooseBase(r.repo, "refs/remotes/origin/main", envOf(nil)); err != nil || b.Commit != r.mainTip {
		t.Errorf("a full ref name: %+v %v", b, err)
	}
}

// TestReplaceRefsIgnored: a replace object (or a graft) in the clone
// cannot make git show another commit than the base.
func TestReplaceRefsIgnored(t *testing.T) {
	r := newCIRepo(t)
	r.g.Git("replace", r.mainTip, r.head)
	if data, _, err := r.repo.Read(r.mainTip, "f"); err != nil || string(data) != "main moved on" {
		t.Errorf("read through a replace ref: %q %v", data, err)
	}
	// main's tip replaced by a commit on top of the feature: through it,
	// the feature would be compared with itself.
	evil := r.g.Git("commit-tree", "-p", r.head, "-m", "evil", r.mainTip+"^{tree}")
	r.g.Git("replace", "-f", r.mainTip, evil)
	b, err := gitrev.ChooseBase(r.repo, "", envOf(nil))
	if err != nil || b.Commit != r.fork {
		t.Errorf("merge base through a replace ref: %+v %v", b, err)
	}
	r.g.Git("replace", "-d", r.mainTip)
	os.WriteFile(filepath.Join(r.g.Dir, ".git", "info", "grafts"), []byte(r.head+"\n"), 0o644)
	if b, err := gitrev.ChooseBase(r.repo, "", envOf(nil)); err != nil || b.Commit != r.fork {
		t.Errorf("merge base through a graft: %+v %v", b, err)
	}
}

// TestLocalDefaultProcesses: choosing the base on a developer's machine
// asks for the three default branches with one git process, and asks git
// for no merge base when the default branch is HEAD itself.
func TestLocalDefaultProcesses(t *testing.T) {
	r := newCIRepo(t)
	r.g.Git("update-ref", "-d", "--no-deref", "refs/remotes/origin/HEAD")
	tests := []struct {
		name      string
		setup     func()
		want      string
		processes []string // the git commands started, cat-file aside
	}{
		{"main, HEAD forked from it", func() {}, r.fork, []string{"for-each-ref", "merge-base"}},
		{"master at HEAD", func() {
			r.g.Git("branch", "-q", "-m", "main", "master")
			r.g.Git("branch", "-q", "-f", "master", r.head)
		}, r.head, []string{"for-each-ref"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.setup()
			started := gittest.LogGit(t)
			b, err := gitrev.ChooseBase(r.repo, "", envOf(nil))
			if err != nil || b.Commit != tt.want {
				t.Fatalf("%+v %v; want %s", b, err, tt.want)
			}
			var got []string
			for _, l := range started() {
				f := strings.Fields(l)
				if len(f) > 2 && f[2] != "cat-file" { // the cat-file process reads HEAD, whatever the base
					got = append(got, f[2])
				}
			}
			if strings.Join(got, ", ") != strings.Join(tt.processes, ", ") {
				t.Errorf("git processes %q, want %q", got, tt.processes)
			}
		})
	}
}

// TestGitSaysNothingOfGrafts: with the tool's environment a git command
// writes nothing to stderr, so an error it reports carries git's own
// words, not its hints about the graft file the tool points it at.
func TestGitSaysNothingOfGrafts(t *testing.T) {
	r := newCIRepo(t)
	cmd := exec.Command("git", "-C", r.g.Dir, "log", "-1", "--format=%H")
	cmd.Env = gitrev.GitEnv()
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil || stderr.Len() > 0 {
		t.Errorf("git log: %v, stderr %q", err, stderr.String())
	}
}

// TestNamedBaseTheChangeWrote: in CI, a --base off the history of the
// revision the change cannot write (the feature branch's own commit, a
// push's before there) neither chooses the rules nor is the history
// compared with it: the check takes the bases it takes with no --base. A
// --base in that history, one off CI, and one where CI names no target
// stand.
func TestNamedBaseTheChangeWrote(t *testing.T) {
	c := newCIRepo(t)
	ci := envOf(map[string]string{"CI": "true"})
	for _, tc := range []struct {
		name              string
		asked             string
		getenv            func(string) string
		wantRules, wantMB string
	}{
		{"CI, the feature's own commit", c.head, ci, c.mainTip, c.fork},
		{"CI, HEAD", "HEAD", ci, c.mainTip, c.fork},
		{"CI, the fork point", c.fork, ci, c.fork, c.fork},
		{"CI, the target", c.mainTip, ci, c.mainTip, c.mainTip},
		{"local, the feature's own commit", c.head, envOf(nil), c.head, c.head},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rules, err := gitrev.ChooseRulesBase(c.repo, tc.asked, tc.getenv)
			if err != nil {
				t.Fatal(err)
			}
			rules, err = gitrev.ConfineRulesBase(c.repo, rules, tc.getenv)
			if err != nil || rules.Commit != tc.wantRules {
				t.Errorf("rules at %s (%s, %v), want %s", rules.Commit, rules.From, err, tc.wantRules)
			}
			hist, err := gitrev.ChooseBase(c.repo, tc.asked, tc.getenv)
			if err != nil || hist.Commit != tc.wantMB {
				t.Errorf("history compared with %s (%s, %v), want %s", hist.Commit, hist.From, err, tc.wantMB)
			}
		})
	}
	// No target in the clone: the --base is how the job names one.
	c.g.Git("update-ref", "-d", "refs/remotes/origin/HEAD")
	c.g.Git("update-ref", "-d", "refs/remotes/origin/main")
	repo, err := gitrev.Open(c.g.Dir)
	if err != nil {
		t.Fatal(err)
	}
	defer repo.Close()
	if hist, err := gitrev.ChooseBase(repo, c.head, ci); err != nil || hist.Commit != c.head {
		t.Errorf("no target: history compared with %s (%v), want %s", hist.Commit, err, c.head)
	}
}
