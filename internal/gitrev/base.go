package gitrev

import (
	"encoding/json"
	"fmt"
	"os"
)

// Base is the commit a repository's history is compared against, or the
// commit its rules and configuration are read from.
type Base struct {
	// Commit is the full object name; "" when there is none.
	Commit string
	// From says how Commit was chosen, for messages: "HEAD",
	// "origin/main", "the merge base of pull request base <sha> and HEAD".
	From string
	// Skip says why there is no commit, when Commit is "".
	Skip string
}

// None is what --base none asks for.
const None = "none"

// Event is a GitHub Actions event that names the commit a change is to
// land on: pull_request and pull_request_target (pull_request.base.sha,
// the target branch's tip when the event fired) and merge_group
// (merge_group.base_sha).
type Event struct {
	Name   string // GITHUB_EVENT_NAME
	Target string // the target branch's commit
	Field  string // where Target was read, for messages
}

// eventTargets are the events that carry a target, and where.
var eventTargets = map[string]string{
	"pull_request":        "pull_request.base.sha",
	"pull_request_target": "pull_request.base.sha",
	"merge_group":         "merge_group.base_sha",
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
	p := getenv("GITHUB_EVENT_PATH")
	if p == "" {
		return Event{}, false, fmt.Errorf("GITHUB_EVENT_NAME is %s but GITHUB_EVENT_PATH is not set; pass --base <sha> to say what to compare with", name)
	}
	data, err := os.ReadFile(p)
	if err != nil {
		return Event{}, false, fmt.Errorf("cannot read the %s event (GITHUB_EVENT_PATH): %w; pass --base <sha> to say what to compare with", name, err)
	}
	var doc struct {
		PullRequest *struct {
			Base *struct {
				SHA string `json:"sha"`
			} `json:"base"`
		} `json:"pull_request"`
		MergeGroup *struct {
			BaseSHA string `json:"base_sha"`
		} `json:"merge_group"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		return Event{}, false, fmt.Errorf("the %s event at %s is not valid JSON: %v", name, p, err)
	}
	var sha string
	switch {
	case name == "merge_group" && doc.MergeGroup != nil:
		sha = doc.MergeGroup.BaseSHA
	case name != "merge_group" && doc.PullRequest != nil && doc.PullRequest.Base != nil:
		sha = doc.PullRequest.Base.SHA
	}
	if !isObjectName(sha) {
		return Event{}, false, fmt.Errorf("the %s event at %s has no %s commit name; pass --base <sha> to say what to compare with", name, p, field)
	}
	return Event{Name: name, Target: sha, Field: field}, true, nil
}

// ChooseBase picks the revision repo's history is compared with. asked is
// the --base value: "" for the default, None, or a revision. The default
// is, on an event with a target (ReadEvent), the merge base of the target
// and HEAD: the change's own diff, so that what the target branch gained
// after the change branched off is not mistaken for something the change
// removed; and HEAD otherwise (the working tree against the last commit).
// A revision the clone lacks is an error that says how to fetch it; so is
// an unreadable event. A repository with no commit yet is not compared.
func ChooseBase(repo *Repo, asked string, getenv func(string) string) (Base, error) {
	switch asked {
	case None:
		return Base{Skip: "--base none was given"}, nil
	case "":
		ev, ok, err := ReadEvent(getenv)
		if err != nil {
			return Base{}, err
		}
		if ok {
			return mergeBase(repo, ev)
		}
		return headBase(repo)
	}
	sha, err := repo.Resolve(asked)
	if err != nil {
		return Base{}, err
	}
	return Base{Commit: sha, From: asked}, nil
}

// ChooseRulesBase picks the revision repo's rules and configuration are
// read from when the working tree is not trusted. asked is the --base
// value: a revision is used as it is; otherwise (the default or None,
// which only turns off the history) an event's target (ReadEvent) is the
// revision the change is to land on, the rules it must meet, and HEAD is
// used without such an event.
func ChooseRulesBase(repo *Repo, asked string, getenv func(string) string) (Base, error) {
	if asked != "" && asked != None {
		sha, err := repo.Resolve(asked)
		if err != nil {
			return Base{}, err
		}
		return Base{Commit: sha, From: asked}, nil
	}
	ev, ok, err := ReadEvent(getenv)
	if err != nil {
		return Base{}, err
	}
	if ok {
		sha, err := repo.Resolve(ev.Target)
		if err != nil {
			return Base{}, err
		}
		return Base{Commit: sha, From: "the " + ev.Name + " event's target " + short(sha) + " (" + ev.Field + ")"}, nil
	}
	return headBase(repo)
}

// headBase is HEAD, or no base in a repository without a commit.
func headBase(repo *Repo) (Base, error) {
	sha, exists, err := repo.head()
	if err != nil {
		return Base{}, err
	}
	if !exists {
		return Base{Skip: "the repository at " + repo.Root + " has no commit yet"}, nil
	}
	return Base{Commit: sha, From: "HEAD"}, nil
}

// mergeBase compares through the merge base of the event's target and
// HEAD.
func mergeBase(repo *Repo, ev Event) (Base, error) {
	base, err := repo.Resolve(ev.Target)
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
		return Base{Commit: base, From: ev.Name + " target " + short(base) + " (no merge base with HEAD in this clone)"}, nil
	}
	return Base{Commit: mb, From: "the merge base of " + ev.Name + " target " + short(base) + " and HEAD"}, nil
}
