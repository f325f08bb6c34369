package gitrev

import (
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"
)

// ModeLink is git's mode of a symbolic link; ModeFolder of a folder.
const (
	ModeLink   = 0o120000
	ModeFolder = 0o40000
)

// ErrLink means a path runs into a symbolic link where a file or folder
// was expected.
var ErrLink = errors.New("a symbolic link")

// RepoOf returns the repository whose work tree holds p by p's path, and p
// relative to its top with forward slashes ("" for the top). Links above
// the work tree's top are resolved (a temporary folder that is a link, a
// home reached through one); links inside it are never followed, so what
// the working tree holds at p or on the way to it (a link to another
// folder, nothing at all) cannot move p into another repository or out of
// this one. The deepest work tree reached through real folders wins, as
// git's own search would find it from inside. An error wrapping
// ErrNotWorkTree means no work tree holds p.
func (l *Locator) RepoOf(p string) (*Repo, string, error) {
	abs, err := filepath.Abs(p)
	if err != nil {
		return nil, "", err
	}
	vol := filepath.VolumeName(abs)
	var parts []string
	for _, el := range strings.Split(abs[len(vol):], string(filepath.Separator)) {
		if el != "" {
			parts = append(parts, el)
		}
	}
	cur := vol + string(filepath.Separator)
	top, topAt := "", -1
	for i, el := range parts {
		next := filepath.Join(cur, el)
		if top == "" {
			resolved, err := filepath.EvalSymlinks(next)
			if err != nil {
				break
			}
			next = resolved
		} else if info, err := os.Lstat(next); err != nil || !info.IsDir() {
			break // missing, a file or a link: the rest of p is a path in the tree
		}
		if el == ".git" {
			break
		}
		cur = next
		if _, err := os.Lstat(filepath.Join(cur, ".git")); err == nil {
			top, topAt = cur, i
		}
	}
	if top == "" {
		return nil, "", fmt.Errorf("%s is %w", p, ErrNotWorkTree)
	}
	repo, err := l.Repo(top)
	if err != nil {
		return nil, "", err
	}
	if repo.Root != top {
		return nil, "", fmt.Errorf("%s: git places the work tree holding %s at %s", p, top, repo.Root)
	}
	return repo, strings.Join(parts[topAt+1:], "/"), nil
}

// Lookup returns the entry at p (top-level-relative) in rev, reading each
// folder on the way by its object name; ok is false when rev has nothing
// there. A symbolic link on the way is an error wrapping ErrLink, never
// "nothing there": git keeps a link as a file, so a path through it names
// nothing, and a reader by path must not quietly find nothing at a path
// that holds something.
func (r *Repo) Lookup(rev, p string) (e Entry, ok bool, err error) {
	clean := path.Clean("/" + p)[1:]
	if clean == "" {
		return Entry{}, false, fmt.Errorf("%q names the top of the repository", p)
	}
	folders, err := r.Folders(rev, []string{""})
	if err != nil {
		return Entry{}, false, err
	}
	dir := folders[0]
	parts := strings.Split(clean, "/")
	for i, el := range parts {
		if dir == nil {
			return Entry{}, false, nil
		}
		e, ok = dir.Entries[el]
		if !ok {
			return Entry{}, false, nil
		}
		if i == len(parts)-1 {
			return e, true, nil
		}
		at := strings.Join(parts[:i+1], "/")
		switch e.Mode {
		case ModeLink:
			return Entry{}, false, fmt.Errorf("%s at %s is %w, so %s cannot be read through it", at, short(rev), ErrLink, clean)
		case ModeFolder:
		default:
			return Entry{}, false, nil // a file where a folder was expected
		}
		next, err := r.trees(rev, []string{e.OID}, []string{at})
		if err != nil {
			return Entry{}, false, err
		}
		dir = next[0]
	}
	return Entry{}, false, nil
}

// ListEntries is List with each file's entry, so that a caller can tell a
// symbolic link from a file.
func (r *Repo) ListEntries(rev, dir string) (map[string]Entry, error) {
	if err := CheckRev(rev); err != nil {
		return nil, err
	}
	out := map[string]Entry{}
	level := []string{path.Clean("/" + dir)[1:]}
	folders, err := r.Folders(rev, level)
	for {
		if err != nil {
			return nil, err
		}
		if len(folders) == 0 {
			break
		}
		var next, ids []string
		for i, f := range folders {
			if f == nil {
				continue
			}
			for name, e := range f.Entries {
				switch p := path.Join(level[i], name); {
				case e.Mode == ModeFolder:
					next = append(next, p)
					ids = append(ids, e.OID)
				case e.IsFile():
					out[p] = e
				}
			}
		}
		level = next
		folders, err = r.trees(rev, ids, next)
	}
	return out, nil
}
