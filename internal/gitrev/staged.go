package gitrev

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"strings"
)

// ModeSubmodule is git's mode of a gitlink: a submodule's commit.
const ModeSubmodule = "160000"

// ModeLinkText is git's mode of a symbolic link, as a listing writes it.
const ModeLinkText = "120000"

// Change is one file a commit of the index (or a range of commits) changes.
type Change struct {
	Path    string // relative to the top level, slash-separated
	Deleted bool
	// OldMode and NewMode are git's octal modes before and after
	// ("000000" where there is no file), OldObject and NewObject the
	// object names; a submodule's are its commits.
	OldMode, NewMode     string
	OldObject, NewObject string
}

// Submodule reports whether the change concerns a gitlink (before or after).
func (c Change) Submodule() bool {
	return c.OldMode == ModeSubmodule || c.NewMode == ModeSubmodule
}

// Staged lists what a commit of the index would change against HEAD
// (every file of the index while nothing is committed yet). index is the
// index file to read, as a hook's GIT_INDEX_FILE names it for "git commit
// -a" or "git commit PATH"; "" reads the repository's own index. A file
// added with "git add -N" (intent to add) is not listed: a commit does not
// record it.
func (r *Repo) Staged(index string) ([]Change, error) {
	out, err := r.gitIndexed(index, "diff", "--cached", "--raw", "-z", "--no-abbrev", "--no-renames", "--ita-invisible-in-index", "--ignore-submodules=none", "--")
	if err != nil {
		return nil, err
	}
	return parseRaw(out)
}

// Between lists what changes from commit from to commit to (full object
// names, as Resolve gives them).
func (r *Repo) Between(from, to string) ([]Change, error) {
	if !isObjectName(from) || !isObjectName(to) {
		return nil, fmt.Errorf("comparing %q with %q: expected full commit names", from, to)
	}
	out, err := r.gitIndexed("", "diff", "--raw", "-z", "--no-abbrev", "--no-renames", "--ignore-submodules=none", from, to, "--")
	if err != nil {
		return nil, err
	}
	return parseRaw(out)
}

// parseRaw reads "git diff --raw -z": ":OLDMODE NEWMODE OLD NEW STATUS\0PATH\0".
func parseRaw(out string) ([]Change, error) {
	fields := strings.Split(out, "\x00")
	var changes []Change
	for i := 0; i+1 < len(fields); i += 2 {
		meta := strings.Fields(strings.TrimPrefix(fields[i], ":"))
		if len(meta) != 5 || !strings.HasPrefix(fields[i], ":") {
			return nil, fmt.Errorf("git diff --raw: unexpected line %q", fields[i])
		}
		changes = append(changes, Change{
			Path: fields[i+1], Deleted: meta[4] == "D",
			OldMode: meta[0], NewMode: meta[1], OldObject: meta[2], NewObject: meta[3],
		})
	}
	return changes, nil
}

// SnapshotFile is one entry a commit records: a file, a symbolic link
// (its content is the target) or a submodule's commit.
type SnapshotFile struct {
	Mode   string // git's octal mode: 100644, 100755, 120000, 160000
	Object string
	Path   string // relative to the top level, slash-separated
}

// IndexFiles lists what a commit of the index records: every entry of the
// index but those added with "git add -N". The index is only read; the
// assume-unchanged and skip-worktree bits change nothing here, since the
// working tree is not looked at. A conflicted index is an error: it cannot
// be committed.
func (r *Repo) IndexFiles(index string) ([]SnapshotFile, error) {
	out, err := r.gitIndexed(index, "ls-files", "-s", "-z", "--full-name")
	if err != nil {
		return nil, err
	}
	intent, err := r.intentToAdd(index)
	if err != nil {
		return nil, err
	}
	var files []SnapshotFile
	for _, rec := range splitNUL(out) {
		meta, name, ok := strings.Cut(rec, "\t")
		m := strings.Fields(meta)
		if !ok || len(m) != 3 {
			return nil, fmt.Errorf("git ls-files -s: unexpected entry %q", rec)
		}
		if m[2] != "0" {
			return nil, fmt.Errorf("the index holds a merge conflict at %q; resolve it (git add) before committing", name)
		}
		if intent[name] {
			continue
		}
		files = append(files, SnapshotFile{Mode: m[0], Object: m[1], Path: name})
	}
	return files, nil
}

// intentToAdd lists the entries added with "git add -N": git diff --cached
// shows them (as added, or as a file emptied) only when asked to, so they
// are the paths whose status differs between the two ways of asking.
func (r *Repo) intentToAdd(index string) (map[string]bool, error) {
	args := []string{"diff", "--cached", "--name-status", "-z", "--no-renames"}
	visible, err := r.gitIndexed(index, append(args, "--ita-visible-in-index", "--")...)
	if err != nil {
		return nil, err
	}
	invisible, err := r.gitIndexed(index, append(args, "--ita-invisible-in-index", "--")...)
	if err != nil {
		return nil, err
	}
	status := func(out string) map[string]string {
		m := map[string]string{}
		f := strings.Split(out, "\x00")
		for i := 0; i+1 < len(f); i += 2 {
			m[f[i+1]] = f[i]
		}
		return m
	}
	seen, hidden := status(visible), status(invisible)
	set := map[string]bool{}
	for name, st := range seen {
		if hidden[name] != st {
			set[name] = true
		}
	}
	return set, nil
}

// CommitFiles lists what commit (a full object name) records.
func (r *Repo) CommitFiles(commit string) ([]SnapshotFile, error) {
	if !isObjectName(commit) {
		return nil, fmt.Errorf("listing %q: expected a full commit name", commit)
	}
	out, err := r.gitIndexed("", "ls-tree", "-r", "-z", "--full-tree", commit)
	if err != nil {
		return nil, err
	}
	var files []SnapshotFile
	for _, rec := range splitNUL(out) {
		meta, name, ok := strings.Cut(rec, "\t")
		m := strings.Fields(meta)
		if !ok || len(m) != 3 {
			return nil, fmt.Errorf("git ls-tree: unexpected entry %q", rec)
		}
		files = append(files, SnapshotFile{Mode: m[0], Object: m[2], Path: name})
	}
	return files, nil
}

// HasCommit reports whether the clone holds commit (a full object name).
func (r *Repo) HasCommit(commit string) bool {
	if !isObjectName(commit) {
		return false
	}
	_, err := gitOutput(r.Root, "cat-file", "-e", commit+"^{commit}")
	return err == nil
}

// ReadObject returns a blob's content, at most limit bytes of it.
func (r *Repo) ReadObject(oid string, limit int64) ([]byte, error) {
	var data []byte
	err := r.StreamObject(oid, func(rd io.Reader) error {
		var err error
		data, err = io.ReadAll(io.LimitReader(rd, limit))
		return err
	})
	return data, err
}

// StreamObject hands a blob's content to fn.
func (r *Repo) StreamObject(oid string, fn func(io.Reader) error) error {
	if !isObjectName(oid) {
		return fmt.Errorf("object %q: expected a full object name", oid)
	}
	r.countContent()
	exists, err := r.cat.request(oid, func(h header, body io.Reader) error {
		if h.typ != "blob" {
			return fmt.Errorf("object %s is a %s: %w", short(oid), h.typ, ErrNotFile)
		}
		return fn(body)
	})
	if err == nil && !exists {
		err = fmt.Errorf("object %s is not in the repository", short(oid))
	}
	return err
}

// maxLinkTarget bounds a symbolic link's target read from a blob.
const maxLinkTarget = 4096

// Materialize writes the files of files under dir (top-level relative,
// "" for all) into dest, an empty folder that becomes dir, as the snapshot
// records them:
// regular files with their content, symbolic links as links (never
// followed: every write goes through an os.Root of dest), submodules as
// empty folders. Content is streamed, so memory does not grow with the
// files' sizes.
func (r *Repo) Materialize(files []SnapshotFile, dir, dest string) error {
	root, err := os.OpenRoot(dest)
	if err != nil {
		return err
	}
	defer root.Close()
	made := map[string]bool{".": true}
	mkdirs := func(d string) error {
		if made[d] {
			return nil
		}
		var walk []string
		for p := d; !made[p]; p = path.Dir(p) {
			walk = append(walk, p)
		}
		for i := len(walk) - 1; i >= 0; i-- {
			if err := root.Mkdir(walk[i], 0o755); errors.Is(err, os.ErrExist) {
				// Only a folder made here: an entry written before
				// (a link, a file) is never gone through.
				if info, err := root.Lstat(walk[i]); err != nil || !info.IsDir() {
					return fmt.Errorf("%s is not a folder in the snapshot", walk[i])
				}
			} else if err != nil {
				return err
			}
			made[walk[i]] = true
		}
		return nil
	}
	for _, f := range files {
		rel, ok := underDir(f.Path, dir)
		if !ok {
			continue
		}
		name := rel
		if !filepath.IsLocal(filepath.FromSlash(name)) {
			return fmt.Errorf("%q is not a path inside the repository", f.Path)
		}
		if err := mkdirs(path.Dir(name)); err != nil {
			return fmt.Errorf("writing %s: %w", f.Path, err)
		}
		switch f.Mode {
		case ModeSubmodule:
			err = mkdirs(name)
		case ModeLinkText:
			var target []byte
			if target, err = r.ReadObject(f.Object, maxLinkTarget); err == nil {
				err = root.Symlink(string(target), name)
			}
		default:
			perm := os.FileMode(0o644)
			if f.Mode == "100755" {
				perm = 0o755
			}
			err = r.writeBlob(root, name, f.Object, perm)
		}
		if err != nil {
			return fmt.Errorf("writing %s: %w", f.Path, err)
		}
	}
	return nil
}

func (r *Repo) writeBlob(root *os.Root, name, oid string, perm os.FileMode) error {
	out, err := root.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
	if err != nil {
		return err
	}
	err = r.StreamObject(oid, func(rd io.Reader) error {
		_, err := io.Copy(out, rd)
		return err
	})
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	return err
}

// underDir returns file relative to dir (both top-level relative, "" the
// top), and whether file lies under it.
func underDir(file, dir string) (string, bool) {
	if dir == "" {
		return file, true
	}
	return strings.CutPrefix(file, dir+"/")
}

// gitIndexed runs git at the top level with index as its index file, and
// returns stdout untrimmed: a -z list may end with a name ending in a
// space. Every command it runs only reads the index.
func (r *Repo) gitIndexed(index string, args ...string) (string, error) {
	cmd := gitCommand(r.Root, args...)
	if index != "" {
		cmd.Env = append(cmd.Env, "GIT_INDEX_FILE="+index)
	}
	// No optional lock: git diff would otherwise refresh and rewrite
	// the index it reads.
	cmd.Env = append(cmd.Env, "GIT_OPTIONAL_LOCKS=0")
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
