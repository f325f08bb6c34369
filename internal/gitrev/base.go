package gitrev

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
)

// Base is the commit a repository's history is compared against, or the
// commit its rules and configuration are read from.
type Base struct {
	// Commit is the full object name; "" when there is none.
	Commit string
	// From says which revision Commit is and why it was chosen, for the
	// report: "HEAD (--base HEAD)", "the merge base of HEAD and the
	// pull_request event's target 1a2b3c4d5e6f (pull_request.base.sha)".
	From string
	// Skip says why there is no commit, when Commit is "".
	Skip string
}

// None is what --base none asks for.
const None = "none"

// NoneSkip is why a check asked for base None compares no history.
const NoneSkip = "--base none was given"

// InCI reports whether the environment says the check runs in CI: one of
// CIVariables set (to anything but "false" or "0"), or BUILD_TAG as
// Jenkins sets it.
func InCI(getenv func(string) string) bool { return CIMarker(getenv) != "" }

// CIVariables are the variables by which a CI service says a job runs on
// it. CI is the common one (GitHub Actions, GitLab, Buildkite, CircleCI,
// Travis CI, Bitbucket Pipelines, Drone, Woodpecker), but some services
// never set it: Jenkins (JENKINS_URL, HUDSON_URL), Azure Pipelines
// (TF_BUILD), AWS CodeBuild (CODEBUILD_BUILD_ID), TeamCity
// (TEAMCITY_VERSION) and Bamboo (bamboo_buildKey). Taken for a person's
// own machine there, a pull request's own configuration and policies
// would judge it.
var CIVariables = []string{
	"CI", "GITHUB_ACTIONS", "GITLAB_CI", "BUILDKITE", "JENKINS_URL", "HUDSON_URL",
	"TF_BUILD", "CODEBUILD_BUILD_ID", "TEAMCITY_VERSION", "bamboo_buildKey",
}

// CIMarker names what says the check runs in CI ("CI", "JENKINS_URL",
// "BUILD_TAG", ...), or "" when nothing does. BUILD_TAG counts only as
// Jenkins writes it, "jenkins-<job>-<build>": Jenkins sets it in every
// build, JENKINS_URL only where its URL is configured.
func CIMarker(getenv func(string) string) string {
	for _, k := range CIVariables {
		if isSet(getenv(k)) {
			return k
		}
	}
	if strings.HasPrefix(getenv("BUILD_TAG"), "jenkins-") {
		return "BUILD_TAG"
	}
	return ""
}

func isSet(v string) bool {
	v = strings.ToLower(strings.TrimSpace(v))
	return v != "" && v != "false" && v != "0"
}

// Event is a GitHub Actions event that names the commit a change is to
// land on: every pull_request* event (pull_request.base.sha, the target
// branch's tip when the event fired) and merge_group
// (merge_group.base_sha).
type Event struct {
	Name   string // GITHUB_EVENT_NAME
	Target string // the target branch's commit
	Field  string // where Target was read, for messages
}

// eventTargets are the events that carry a target, and where.
var eventTargets = map[string]string{
	"pull_request":                "pull_request.base.sha",
	"pull_request_target":         "pull_request.base.sha",
	"pull_request_review":         "pull_request.base.sha",
	"pull_request_review_comment": "pull_request.base.sha",
	"merge_group":                 "merge_group.base_sha",
}

// eventDoc is the part of a GitHub event payload the base is chosen from.
type eventDoc struct {
	PullRequest *struct {
		Base *struct {
			SHA string `json:"sha"`
		} `json:"base"`
	} `json:"pull_request"`
	MergeGroup *struct {
		BaseSHA string `json:"base_sha"`
	} `json:"merge_group"`
	Repository *struct {
		DefaultBranch string `json:"default_branch"`
	} `json:"repository"`
	// A push event's branch and the commit it pointed at before the push.
	Ref    string `json:"ref"`
	Before string `json:"before"`
}

// readEventDoc reads the payload of a GitHub Actions job's event.
func readEventDoc(getenv func(string) string) (eventDoc, error) {
	name, p := getenv("GITHUB_EVENT_NAME"), getenv("GITHUB_EVENT_PATH")
	var doc eventDoc
	if p == "" {
		return doc, &RemedyError{Remedy: NameTheBase, Err: fmt.Errorf("GITHUB_EVENT_NAME is %q but GITHUB_EVENT_PATH is not set", name)}
	}
	data, err := os.ReadFile(p)
	if err != nil {
		return doc, &RemedyError{Remedy: NameTheBase, Err: fmt.Errorf("cannot read the %s event (GITHUB_EVENT_PATH): %w", name, err)}
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		return doc, fmt.Errorf("the %s event at %s is not valid JSON: %v", name, p, err)
	}
	return doc, nil
}

// ReadEvent returns the event of a GitHub Actions job when it names a
// target (see Event); ok is false outside GitHub Actions and for other
// events. An event of these kinds that cannot be read is an error, never
// taken for "no event": the check would trust the change itself.
func ReadEvent(getenv func(string) string) (ev Event, ok bool, err error) {
	name := getenv("GITHUB_EVENT_NAME")
	field, known := eventTargets[name]
	if getenv("GITHUB_ACTIONS") != "true" || !known {
		return Event{}, false, nil
	}
	doc, err := readEventDoc(getenv)
	if err != nil {
		return Event{}, false, err
	}
	var sha string
	switch {
	case name == "merge_group" && doc.MergeGroup != nil:
		sha = doc.MergeGroup.BaseSHA
	case name != "merge_group" && doc.PullRequest != nil && doc.PullRequest.Base != nil:
		sha = doc.PullRequest.Base.SHA
	}
	if !isObjectName(sha) {
		return Event{}, false, &RemedyError{Remedy: NameTheBase, Err: fmt.Errorf("the %s event at %s has no %s commit name", name, getenv("GITHUB_EVENT_PATH"), field)}
	}
	return Event{Name: name, Target: sha, Field: field}, true, nil
}

// Target is the revision a change under review cannot write, which its
// rules are read from and its history is compared through.
type Target struct {
	Commit string
	// Why names the revision and says why it was chosen, for the report.
	Why string
	// Replaced: Commit is what HEAD replaces (a push to the default branch
	// replaces the branch's previous tip), so the history is compared with
	// Commit itself, not with the merge base: a forced push that rewrote a
	// commit of the branch must not be compared with the commit before the
	// rewrite.
	Replaced bool
}

// ErrNoTarget wraps the error of a CI job where no revision the change
// cannot write was found.
var ErrNoTarget = errors.New("no revision the change cannot write")

// CITarget finds, in CI (InCI), the revision the change under review
// cannot write, in this order: the target an event names (every
// pull_request* event of GitHub Actions, merge_group, a GitLab merge
// request pipeline); for a push to the default branch, the branch's tip
// before the push (GitHub: the push event's before; GitLab:
// CI_COMMIT_BEFORE_SHA), since the branch's tip is now the change itself;
// the repository's default branch as the clone holds it (GitHub Actions:
// the event's repository.default_branch; GitLab: CI_DEFAULT_BRANCH), else
// origin/HEAD. Finding none is an error that
// says how to fetch one or to pass --base: the change must never be
// compared with itself.
func CITarget(repo *Repo, getenv func(string) string) (Target, error) {
	switch {
	case getenv("GITHUB_ACTIONS") == "true":
		return githubTarget(repo, getenv)
	case getenv("GITLAB_CI") == "true":
		return gitlabTarget(repo, getenv)
	}
	return defaultBranch(repo, "", "", CIMarker(getenv)+" is set, and this CI names no target branch")
}

func githubTarget(repo *Repo, getenv func(string) string) (Target, error) {
	ev, ok, err := ReadEvent(getenv)
	if err != nil {
		return Target{}, err
	}
	if ok {
		sha, err := repo.Resolve(ev.Target)
		if err != nil {
			return Target{}, err
		}
		return Target{Commit: sha, Why: fmt.Sprintf("the %s event's target %s (%s)", ev.Name, short(sha), ev.Field)}, nil
	}
	name := getenv("GITHUB_EVENT_NAME")
	var (
		branch string
		doc    eventDoc
	)
	if getenv("GITHUB_EVENT_PATH") != "" || name != "" {
		if doc, err = readEventDoc(getenv); err != nil {
			return Target{}, err
		}
		if doc.Repository != nil {
			branch = doc.Repository.DefaultBranch
		}
	}
	if name == "push" && branch != "" && doc.Ref == "refs/heads/"+branch {
		if t, ok, err := pushedOver(repo, doc.Before, branch, "the push event's before"); ok || err != nil {
			return t, err
		}
	}
	if name == "" {
		name = "GitHub Actions"
	}
	return defaultBranch(repo, branch, "the event's repository.default_branch", "the "+name+" event names no target branch")
}

func gitlabTarget(repo *Repo, getenv func(string) string) (Target, error) {
	for _, k := range []string{"CI_MERGE_REQUEST_TARGET_BRANCH_SHA", "CI_MERGE_REQUEST_DIFF_BASE_SHA"} {
		v := getenv(k)
		if v == "" {
			continue
		}
		if !isObjectName(v) {
			return Target{}, &RemedyError{Remedy: NameTheBase, Err: fmt.Errorf("%s is %q, not a full commit name", k, v)}
		}
		sha, err := repo.Resolve(v)
		if err != nil {
			return Target{}, err
		}
		return Target{Commit: sha, Why: fmt.Sprintf("the merge request's target %s (%s)", short(sha), k)}, nil
	}
	if branch := getenv("CI_DEFAULT_BRANCH"); branch != "" && getenv("CI_COMMIT_BRANCH") == branch {
		if t, ok, err := pushedOver(repo, getenv("CI_COMMIT_BEFORE_SHA"), branch, "CI_COMMIT_BEFORE_SHA"); ok || err != nil {
			return t, err
		}
	}
	return defaultBranch(repo, getenv("CI_DEFAULT_BRANCH"), "CI_DEFAULT_BRANCH", "a GitLab branch pipeline names no target branch")
}

// pushedOver is the target of a push to the default branch: before, the
// branch's tip before the push, when the CI names one (source says
// where). A push that created the branch names none (all zeros); ok is
// then false. A before the clone lacks is an error that says how to fetch
// it, never a reason to compare the change with itself.
func pushedOver(repo *Repo, before, branch, source string) (t Target, ok bool, err error) {
	if before == "" || strings.Trim(before, "0") == "" {
		return Target{}, false, nil
	}
	if !isObjectName(before) {
		return Target{}, false, &RemedyError{Remedy: NameTheBase, Err: fmt.Errorf("%s is %q, not a full commit name", source, before)}
	}
	if err := checkBranchName(branch); err != nil {
		return Target{}, false, err
	}
	sha, err := repo.Resolve(before)
	if err != nil {
		return Target{}, false, err
	}
	return Target{Commit: sha, Why: fmt.Sprintf("%s %s, the tip of %s before this push (a push to the default branch is compared with what it replaced; named by %s)", branch, short(sha), branch, source), Replaced: true}, true, nil
}

// defaultBranch is the tip of the repository's default branch as the
// clone's remote-tracking branches hold it: refs/remotes/origin/<branch>
// when a branch name is known (from source), else origin/HEAD.
func defaultBranch(repo *Repo, branch, source, why string) (Target, error) {
	var tried []string
	if branch != "" {
		if err := checkBranchName(branch); err != nil {
			return Target{}, fmt.Errorf("%s: %w", source, err)
		}
		ref := "refs/remotes/origin/" + branch
		sha, ok, err := repo.refCommit(ref)
		if err != nil {
			return Target{}, err
		}
		if ok {
			return Target{Commit: sha, Why: fmt.Sprintf("origin/%s %s, the default branch (%s; named by %s)", branch, short(sha), why, source)}, nil
		}
		tried = append(tried, "origin/"+branch)
	}
	sha, ok, err := repo.refCommit("refs/remotes/origin/HEAD")
	if err != nil {
		return Target{}, err
	}
	if ok {
		return Target{Commit: sha, Why: fmt.Sprintf("origin/HEAD %s, the default branch (%s)", short(sha), why)}, nil
	}
	tried = append(tried, "origin/HEAD")
	fetch := "git fetch --no-tags origin && git remote set-head origin --auto"
	if branch != "" {
		fetch = "git fetch --no-tags origin " + branch + ":refs/remotes/origin/" + branch
	}
	return Target{}, &RemedyError{Remedy: NameTheTarget, Err: fmt.Errorf("%w: in CI the rules and the history must come from a revision the change under review cannot write, but %s, and this clone holds none of %s; "+
		"fetch the default branch (%s; actions/checkout: fetch-depth: 0)",
		ErrNoTarget, why, strings.Join(tried, ", "), fetch)}
}

// checkBranchName refuses a branch name from the environment that git
// could read as something else than one branch.
func checkBranchName(b string) error {
	bad := b == "" || strings.HasPrefix(b, "-") || strings.HasPrefix(b, "/") || strings.HasSuffix(b, "/") ||
		strings.HasSuffix(b, ".lock") || strings.HasSuffix(b, ".") ||
		strings.Contains(b, "..") || strings.Contains(b, "@{") || strings.Contains(b, "//") ||
		strings.ContainsAny(b, " ~^:?*[\\\x7f")
	for _, c := range b {
		if c < 0x20 {
			bad = true
		}
	}
	if bad {
		return fmt.Errorf("%q is not a branch name", b)
	}
	return nil
}

// localDefaults are the refs that stand for the default branch on a
// developer's machine, in order of preference.
var localDefaults = []struct{ ref, name string }{
	{"refs/remotes/origin/HEAD", "origin/HEAD"},
	{"refs/heads/main", "main"},
	{"refs/heads/master", "master"},
}

// ChooseBase picks the revision repo's history is compared with. asked is
// the --base value: "" for the default, None, or a revision, compared with
// as it is. The default is the merge base of HEAD and the revision the
// change lands on: in CI the revision CITarget finds, so that what the
// target branch gained after the change branched off is not mistaken for
// something the change removed; on a developer's machine the default
// branch (origin/HEAD, else a local main or master), so that the commits
// of a feature branch are compared as its pull request will be; HEAD
// where there is none. A revision the clone lacks is an error that says
// how to fetch it. A repository with no commit yet is not compared.
func ChooseBase(repo *Repo, asked string, getenv func(string) string) (Base, error) {
	switch asked {
	case None:
		return Base{Skip: NoneSkip}, nil
	case "":
	default:
		b, err := explicitBase(repo, asked)
		if err != nil {
			return b, err
		}
		return confineHistoryBase(repo, b, getenv)
	}
	head, exists, err := repo.head()
	if err != nil {
		return Base{}, err
	}
	if !exists {
		return Base{Skip: "the repository at " + repo.Root + " has no commit yet"}, nil
	}
	if InCI(getenv) {
		t, err := CITarget(repo, getenv)
		if err != nil {
			return Base{}, err
		}
		if t.Replaced {
			return Base{Commit: t.Commit, From: t.Why}, nil
		}
		return mergeBase(repo, head, t)
	}
	refs := make([]string, len(localDefaults))
	for i, d := range localDefaults {
		refs[i] = d.ref
	}
	found, err := repo.refCommits(refs...) // one git process for the three
	if err != nil {
		return Base{}, err
	}
	for _, d := range localDefaults {
		a, ok := found[d.ref]
		if !ok {
			continue
		}
		if a.err != nil {
			return Base{}, a.err
		}
		return mergeBase(repo, head, Target{Commit: a.sha, Why: d.name + " " + short(a.sha) + ", the default branch (not in CI: the working tree is yours, compared as its pull request will be)"})
	}
	return Base{Commit: head, From: "HEAD " + short(head) + " (no origin/HEAD, main or master to compare with)"}, nil
}

// HeadBase is HEAD, or no base in a repository without a commit: what a
// commit of the index is compared with (--staged).
func HeadBase(repo *Repo) (Base, error) {
	sha, exists, err := repo.head()
	if err != nil {
		return Base{}, err
	}
	if !exists {
		return Base{Skip: "the repository at " + repo.Root + " has no commit yet"}, nil
	}
	return Base{Commit: sha, From: "HEAD " + short(sha) + " (a commit is checked against its parent)"}, nil
}

func explicitBase(repo *Repo, asked string) (Base, error) {
	sha, err := repo.Resolve(asked)
	if err != nil {
		return Base{}, err
	}
	return Base{Commit: sha, From: asked + " " + short(sha) + " (--base " + asked + ")"}, nil
}

// ChooseRulesBase picks the revision repo's rules and configuration are
// read from when the working tree is not trusted. asked is the --base
// value: a revision is used as it is (in CI, when ConfineRulesBase keeps
// it); otherwise (the default or None, which only turns off the history)
// in CI the revision the change cannot write (CITarget), and HEAD
// elsewhere.
func ChooseRulesBase(repo *Repo, asked string, getenv func(string) string) (Base, error) {
	if asked != "" && asked != None {
		b, err := explicitBase(repo, asked)
		if err != nil {
			return b, err
		}
		return ConfineRulesBase(repo, b, getenv)
	}
	if InCI(getenv) {
		t, err := CITarget(repo, getenv)
		if err != nil {
			return Base{}, err
		}
		return Base{Commit: t.Commit, From: t.Why}, nil
	}
	return HeadBase(repo)
}

// ConfineRulesBase keeps, in CI, a rules revision named by the command
// line (--base) or by pre-commit's range (PRE_COMMIT_FROM_REF) only when
// it lies in the history of the revision the change cannot write
// (CITarget): a feature branch's earlier tip, a push event's before on
// such a branch, is a commit the change under review may have written,
// and rules it loosened would judge the commits after it. Another
// revision gives way to the target. Where CI names no target, a named
// revision is how the job names one, and it stands.
func ConfineRulesBase(repo *Repo, rules Base, getenv func(string) string) (Base, error) {
	if rules.Commit == "" || !InCI(getenv) {
		return rules, nil
	}
	t, err := CITarget(repo, getenv)
	if err != nil || t.Commit == rules.Commit {
		return rules, nil
	}
	mb, found, err := repo.MergeBase(rules.Commit, t.Commit)
	if err != nil {
		return Base{}, err
	}
	if found && mb == rules.Commit {
		return rules, nil
	}
	return Base{Commit: t.Commit, From: t.Why + ", not " + rules.From + ": that revision is not in the history of the one the change cannot write, so the change may have written it"}, nil
}

// confineHistoryBase keeps, in CI, a --base the history is compared with
// only when it lies in the history of the revision the change cannot write
// (CITarget), as ConfineRulesBase does for the rules: a human decision the
// base holds counts as a person's, and an append-only file is held to the
// base, so a revision the change wrote (a feature branch's earlier tip)
// would let a decision it claimed, or a ledger it rewrote, pass in the
// next push. Another revision gives way to the base the check takes with
// no --base; where CI names no target, the --base stands.
func confineHistoryBase(repo *Repo, b Base, getenv func(string) string) (Base, error) {
	confined, err := ConfineRulesBase(repo, b, getenv)
	if err != nil || confined.Commit == b.Commit {
		return b, err
	}
	head, exists, err := repo.head()
	if err != nil || !exists {
		return b, err
	}
	t, err := CITarget(repo, getenv)
	if err != nil {
		return Base{}, err
	}
	why := ", not " + b.From + ": that revision is not in the history of the one the change cannot write, so the change may have written it"
	if t.Replaced {
		return Base{Commit: t.Commit, From: t.Why + why}, nil
	}
	mb, err := mergeBase(repo, head, t)
	if err != nil {
		return Base{}, err
	}
	mb.From += why
	return mb, nil
}

// mergeBase compares through the merge base of the target and HEAD.
func mergeBase(repo *Repo, head string, t Target) (Base, error) {
	if t.Commit == head {
		// A commit is its own merge base: no git process to say so.
		return Base{Commit: head, From: "HEAD " + short(head) + ", the merge base with " + t.Why}, nil
	}
	mb, found, err := repo.MergeBase(t.Commit, head)
	if err != nil {
		return Base{}, err
	}
	if !found {
		// A shallow clone holding the pull request's merge commit and the
		// fetched base has no merge base in reach; the base commit is then
		// the merge commit's first parent, which is the merge base.
		return Base{Commit: t.Commit, From: t.Why + ", which has no merge base with HEAD in this clone"}, nil
	}
	if mb == head {
		return Base{Commit: mb, From: "HEAD " + short(mb) + ", the merge base with " + t.Why}, nil
	}
	return Base{Commit: mb, From: "the merge base " + short(mb) + " of HEAD and " + t.Why}, nil
}
