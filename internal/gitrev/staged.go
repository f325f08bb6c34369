package gitrev

import (
	"bytes"
	"fmt"
	"strings"
)

// Change is one file a commit of the index would change.
type Change struct {
	Path    string // relative to the top level, slash-separated
	Deleted bool
}

// Staged lists what a commit of the index would change against HEAD
// (every file of the index while nothing is committed yet). index is the
// index file to read, as a hook's GIT_INDEX_FILE names it for "git commit
// -a" or "git commit PATH"; "" reads the repository's own index.
func (r *Repo) Staged(index string) ([]Change, error) {
	out, err := r.gitIndexed(index, "diff", "--cached", "--name-status", "-z", "--no-renames", "--")
	if err != nil {
		return nil, err
	}
	fields := splitNUL(out)
	if len(fields)%2 != 0 {
		return nil, fmt.Errorf("git diff --cached: odd number of status fields in %q", out)
	}
	var changes []Change
	for i := 0; i < len(fields); i += 2 {
		changes = append(changes, Change{Path: fields[i+1], Deleted: fields[i] == "D"})
	}
	return changes, nil
}

// NotStaged lists the files under dirs (top-level relative folders) whose
// working tree is not what the index holds: tracked files changed or
// deleted since they were staged, and untracked files that are not
// ignored. A check of the working tree reads what a commit records only
// when this is empty.
func (r *Repo) NotStaged(index string, dirs []string) ([]string, error) {
	if len(dirs) == 0 {
		return nil, nil
	}
	args := append([]string{"--"}, dirs...)
	changed, err := r.gitIndexed(index, append([]string{"diff", "--name-only", "-z", "--no-renames"}, args...)...)
	if err != nil {
		return nil, err
	}
	untracked, err := r.gitIndexed(index, append([]string{"ls-files", "-z", "--others", "--exclude-standard"}, args...)...)
	if err != nil {
		return nil, err
	}
	return append(splitNUL(changed), splitNUL(untracked)...), nil
}

// gitIndexed runs git at the top level with index as its index file, and
// returns stdout untrimmed: a -z list may end with a name ending in a
// space.
func (r *Repo) gitIndexed(index string, args ...string) (string, error) {
	cmd := gitCommand(r.Root, args...)
	if index != "" {
		cmd.Env = append(cmd.Env, "GIT_INDEX_FILE="+index)
	}
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &limitWriter{w: &errb, n: 4096}
	if err := cmd.Run(); err != nil {
		return "", &commandError{args: args, err: err, stderr: strings.TrimSpace(errb.String())}
	}
	return out.String(), nil
}

func splitNUL(s string) []string {
	var out []string
	for _, f := range strings.Split(s, "\x00") {
		if f != "" {
			out = append(out, f)
		}
	}
	return out
}
