// Folders of a commit found by name, wherever they are.

package gitrev

import (
	"bytes"
	"errors"
	"fmt"
	"path"
	"slices"
	"strings"
)

// maxListedName bounds one name of git's folder list: a longer one is an
// error, not a name cut short.
const maxListedName = 64 << 10

// FoldersNamed lists the folders commit holds, at any depth, whose own
// name keep accepts, relative to the top level and sorted. git lists
// every folder of the commit in one process (trees only, never a file);
// only the folders kept are held, so the memory follows the matches,
// not the repository.
func (r *Repo) FoldersNamed(commit string, keep func(name string) bool) ([]string, error) {
	if !isObjectName(commit) {
		return nil, fmt.Errorf("listing the folders of %q: expected a full commit name", commit)
	}
	args := []string{"ls-tree", "-r", "-d", "-z", "--name-only", "--full-tree", commit}
	cmd := gitCommand(r.Root, args...)
	list := &namedFolders{keep: keep}
	var errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = list, &limitWriter{w: &errb, n: 4096}
	if err := cmd.Run(); err != nil {
		return nil, &commandError{args: args, err: err, stderr: strings.TrimSpace(errb.String())}
	}
	if list.err != nil {
		return nil, fmt.Errorf("git %s: %w", strings.Join(args, " "), list.err)
	}
	if len(list.part) > 0 {
		return nil, fmt.Errorf("git %s: the list ends inside a name", strings.Join(args, " "))
	}
	slices.Sort(list.found)
	return list.found, nil
}

// namedFolders takes git's NUL-separated folder list as it is written and
// keeps the folders whose own name keep accepts.
type namedFolders struct {
	keep  func(name string) bool
	part  []byte // the start of a name whose end has not come yet
	found []string
	err   error
}

func (n *namedFolders) Write(p []byte) (int, error) {
	written := len(p)
	for len(p) > 0 && n.err == nil {
		end := bytes.IndexByte(p, 0)
		if end < 0 {
			n.part = append(n.part, p...)
			if len(n.part) > maxListedName {
				n.err = errors.New("a name longer than 64 KiB")
			}
			break
		}
		name := p[:end]
		if len(n.part) > 0 {
			name = append(n.part, name...)
		}
		if n.keep(path.Base(string(name))) {
			n.found = append(n.found, string(name))
		}
		n.part, p = n.part[:0], p[end+1:]
	}
	return written, nil
}
