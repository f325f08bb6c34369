// Package trust decides where repository-local policy directories and the
// configuration file are read from.
//
// On a pull request the run directories are the change under review, and so
// are policies/ and .h3a-check.yaml in the same tree: a change could weaken
// the rules that judge it. So when a base revision is in use, they are read
// as they are at the base; what exists only in the working tree is ignored,
// with a warning that says so. --trust-working-tree (for the change that
// edits the policies themselves) reads the working tree instead, and is
// recorded. Policies embedded in the binary are always trusted and never
// pass through here.
package trust

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/h3a-check/h3a-check/internal/gitrev"
)

// Origin is where something was read from.
type Origin string

const (
	Embedded    Origin = "embedded"
	Base        Origin = "base"
	WorkingTree Origin = "working-tree"
)

// Boundary is the trust decision of one check. The zero Boundary has no
// base: everything is read from the working tree.
type Boundary struct {
	Tree   gitrev.Tree // reads the base; nil when no base is in use
	Root   string      // the repository's top level, absolute
	Commit string      // the base commit; "" when no base is in use
	// TrustWorkingTree reads the working tree even when a base is in use.
	TrustWorkingTree bool
}

// Resolve builds the boundary for paths inside dir's repository, with the
// same base the runs are compared with: asked is the --base value. Outside
// a git work tree, or with --base none, there is no base.
func Resolve(l *gitrev.Locator, dir, asked string, getenv func(string) string, trustWorkingTree bool) (Boundary, error) {
	b := Boundary{TrustWorkingTree: trustWorkingTree}
	if asked == gitrev.None {
		return b, nil
	}
	repo, err := l.Repo(dir)
	if errors.Is(err, gitrev.ErrNotWorkTree) {
		return b, nil
	}
	if err != nil {
		return b, err
	}
	base, err := gitrev.ChooseBase(repo, asked, getenv)
	if err != nil {
		return b, err
	}
	if base.Commit != "" {
		b.Tree, b.Root, b.Commit = repo, repo.Root, base.Commit
	}
	return b, nil
}

// Source records where one policy directory or configuration file was read
// from, for audit.json and the text report.
type Source struct {
	Path   string `json:"path"`
	Origin Origin `json:"origin"`
	Commit string `json:"commit,omitempty"` // the base, when Origin is Base
	// Ignored lists files (relative to Path) that exist only in the working
	// tree and were not used; "." when Path itself is such a file or folder.
	Ignored []string `json:"ignored,omitempty"`
	Reason  string   `json:"reason"`
}

// String is the text report's line: `policies/: base 1a2b3c4d5e6f (…)`.
func (s Source) String() string {
	where := string(s.Origin)
	if s.Origin == Base {
		where = "base " + gitrev.Short(s.Commit)
	}
	return fmt.Sprintf("%s: %s (%s)", s.Path, where, s.Reason)
}

// Warnings are what the check prints, one per ignored file, lower-case and
// saying how to use the file on purpose.
func (s Source) Warnings() []string {
	var out []string
	for _, f := range s.Ignored {
		name := s.Path
		if f != "." {
			name = path.Join(filepath.ToSlash(s.Path), f)
		}
		out = append(out, fmt.Sprintf("%s exists only in the working tree, not at base %s: ignored, so that a change under review cannot change the rules that judge it (pass --trust-working-tree to use it)",
			name, gitrev.Short(s.Commit)))
	}
	return out
}

// decide returns the repository-relative path to read from the base, or
// the reason the working tree is read instead.
func (b Boundary) decide(p string) (rel string, useBase bool, reason string, err error) {
	switch {
	case b.Commit == "" || b.Tree == nil:
		return "", false, "no base revision in use", nil
	case b.TrustWorkingTree:
		return "", false, "--trust-working-tree", nil
	}
	abs, err := filepath.Abs(p)
	if err != nil {
		return "", false, "", err
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		abs = real
	} else if real, err := filepath.EvalSymlinks(filepath.Dir(abs)); err == nil {
		abs = filepath.Join(real, filepath.Base(abs)) // the file may exist only at the base
	}
	r, err := filepath.Rel(b.Root, abs)
	if err != nil || r == ".." || strings.HasPrefix(r, ".."+string(filepath.Separator)) {
		return "", false, "outside the repository of the base", nil
	}
	if r == "." {
		r = ""
	}
	return filepath.ToSlash(r), true, "read from the base revision: the working tree is the change under review", nil
}

// File reads a configuration file at p. exists is false when there is
// nothing to use (the caller falls back to its defaults): the file is
// absent, or exists only in the working tree while a base is in use (then
// src.Ignored says so, and src.Warnings() should be printed).
func (b Boundary) File(p string) (data []byte, src Source, exists bool, err error) {
	src = Source{Path: p}
	rel, useBase, reason, err := b.decide(p)
	if err != nil {
		return nil, src, false, err
	}
	src.Reason = reason
	if !useBase {
		src.Origin = WorkingTree
		data, err := readRegular(p)
		if errors.Is(err, fs.ErrNotExist) {
			return nil, src, false, nil
		}
		return data, src, err == nil, err
	}
	src.Origin, src.Commit = Base, b.Commit
	data, exists, err = b.Tree.Read(b.Commit, rel)
	if err != nil {
		return nil, src, false, err
	}
	if !exists {
		if _, err := os.Stat(p); err == nil {
			src.Ignored = []string{"."}
		}
		return nil, src, false, nil
	}
	return data, src, true, nil
}

// MaxFileSize bounds a configuration file read from the working tree, like
// the base reader bounds what it reads.
const MaxFileSize = 1 << 20

// readRegular reads a regular file of at most MaxFileSize bytes; a FIFO or
// device is refused before it is opened for reading.
func readRegular(p string) ([]byte, error) {
	info, err := os.Stat(p)
	if err != nil {
		return nil, err
	}
	if !info.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file", p)
	}
	f, err := os.Open(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, MaxFileSize+1))
	if err != nil {
		return nil, err
	}
	if len(data) > MaxFileSize {
		return nil, fmt.Errorf("%s is larger than %d bytes", p, MaxFileSize)
	}
	return data, nil
}

// Dir gives the policy directory at p as a file system. exists is false
// when the directory is absent (at the base, when one is in use). Files
// that only the working tree has are listed in src.Ignored.
func (b Boundary) Dir(p string) (fsys fs.FS, src Source, exists bool, err error) {
	src = Source{Path: p}
	rel, useBase, reason, err := b.decide(p)
	if err != nil {
		return nil, src, false, err
	}
	src.Reason = reason
	if !useBase {
		src.Origin = WorkingTree
		info, err := os.Stat(p)
		if errors.Is(err, fs.ErrNotExist) {
			return nil, src, false, nil
		}
		if err != nil {
			return nil, src, false, err
		}
		if !info.IsDir() {
			return nil, src, false, fmt.Errorf("%s is not a directory", p)
		}
		return os.DirFS(p), src, true, nil
	}
	src.Origin, src.Commit = Base, b.Commit
	files, err := b.Tree.List(b.Commit, rel)
	if err != nil {
		return nil, src, false, err
	}
	mem := memFS{}
	for _, f := range files {
		data, ok, err := b.Tree.Read(b.Commit, f)
		if err != nil {
			return nil, src, false, err
		}
		if ok {
			mem[strings.TrimPrefix(f, rel+"/")] = data
		}
	}
	src.Ignored = onlyInWorkingTree(p, mem)
	if len(files) == 0 {
		return nil, src, false, nil
	}
	return mem, src, true, nil
}

// onlyInWorkingTree lists the files under dir on disk that the base does not
// have.
func onlyInWorkingTree(dir string, base memFS) []string {
	var out []string
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return nil
		}
		rel = filepath.ToSlash(rel)
		if _, ok := base[rel]; !ok {
			out = append(out, rel)
		}
		return nil
	})
	if len(base) == 0 && len(out) > 0 {
		return []string{"."}
	}
	slices.Sort(out)
	return out
}
