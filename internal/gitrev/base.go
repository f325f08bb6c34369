package gitrev

import (
	"encoding/json"
	"fmt"
	"os"
)

// Base is the commit a repository's history is compared against.
type Base struct {
	// Commit is the full object name; "" when the history is not compared.
	Commit string
	// From says how Commit was chosen, for messages: "HEAD",
	// "origin/main", "the merge base of pull request base <sha> and HEAD".
	From string
	// Skip says why the history is not compared, when Commit is "".
	Skip string
}

// None is what --base none asks for.
const None = "none"

// ChooseBase picks the base of repo. asked is the --base value: "" for the
// default, None, or a revision. The default is, on a GitHub Actions
// pull_request event, the merge base of the event's base commit and HEAD,
// and HEAD otherwise (the working tree against the last commit). A
// revision the clone lacks is an error that says how to fetch it; so is an
// unreadable event. A repository with no commit yet is not compared.
func ChooseBase(repo *Repo, asked string, getenv func(string) string) (Base, error) {
	switch asked {
	case None:
		return Base{Skip: "--base none was given"}, nil
	case "":
		prBase, ok, err := PullRequestBase(getenv)
		if err != nil {
			return Base{}, err
		}
		if ok {
			return pullRequestBase(repo, prBase)
		}
		sha, exists, err := repo.head()
		if err != nil {
			return Base{}, err
		}
		if !exists {
			return Base{Skip: "the repository at " + repo.Root + " has no commit yet"}, nil
		}
		return Base{Commit: sha, From: "HEAD"}, nil
	}
	sha, err := repo.Resolve(asked)
	if err != nil {
		return Base{}, err
	}
	return Base{Commit: sha, From: asked}, nil
}

// pullRequestBase compares through the merge base, so that what the base
// branch gained after the pull request branched off is not mistaken for
// something the pull request removed.
func pullRequestBase(repo *Repo, prBase string) (Base, error) {
	base, err := repo.Resolve(prBase)
	if err != nil {
		return Base{}, err
	}
	head, err := repo.Resolve("HEAD")
	if err != nil {
		return Base{}, err
	}
	mb, found, err := repo.MergeBase(base, head)
	if err != nil {
		return Base{}, err
	}
	if !found {
		// A shallow clone holding the pull request's merge commit and the
		// fetched base has no merge base in reach; the base commit is then
		// the merge commit's first parent, which is the merge base.
		return Base{Commit: base, From: "pull request base " + short(base) + " (no merge base with HEAD in this clone)"}, nil
	}
	return Base{Commit: mb, From: "the merge base of pull request base " + short(base) + " and HEAD"}, nil
}

// PullRequestBase returns pull_request.base.sha when the process runs in
// GitHub Actions for a pull_request event; ok is false otherwise.
func PullRequestBase(getenv func(string) string) (sha string, ok bool, err error) {
	if getenv("GITHUB_ACTIONS") != "true" || getenv("GITHUB_EVENT_NAME") != "pull_request" {
		return "", false, nil
	}
	p := getenv("GITHUB_EVENT_PATH")
	if p == "" {
		return "", false, fmt.Errorf("GITHUB_EVENT_NAME is pull_request but GITHUB_EVENT_PATH is not set; pass --base <sha> to say what to compare with")
	}
	data, err := os.ReadFile(p)
	if err != nil {
		return "", false, fmt.Errorf("cannot read the pull_request event (GITHUB_EVENT_PATH): %w; pass --base <sha> to say what to compare with", err)
	}
	var ev struct {
		PullRequest *struct {
			Base *struct {
				SHA string `json:"sha"`
			} `json:"base"`
		} `json:"pull_request"`
	}
	if err := json.Unmarshal(data, &ev); err != nil {
		return "", false, fmt.Errorf("the pull_request event at %s is not valid JSON: %v", p, err)
	}
	if ev.PullRequest == nil || ev.PullRequest.Base == nil || !isObjectName(ev.PullRequest.Base.SHA) {
		return "", false, fmt.Errorf("the pull_request event at %s has no pull_request.base.sha commit name; pass --base <sha> to say what to compare with", p)
	}
	return ev.PullRequest.Base.SHA, true, nil
}
