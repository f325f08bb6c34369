//go:build linux

package gitrev

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// topLevelFromFiles answers TopLevel(dir) by reading the folders above dir
// as git's discovery reads them, without starting git, when the answer is
// certainly git's; ok is false whenever anything could make git answer
// otherwise, and the caller then asks git. It answers only for the plain
// cases: a work tree whose .git is a folder, or a linked work tree whose
// .git file names a folder of the same repository, owned by this user,
// on one file system from dir up, in an environment that sets nothing of
// git's, with a configuration that moves no work tree; and, with none of
// these anywhere above dir, outside a work tree. A submodule (its
// core.worktree), a bare repository, GIT_* variables other than those of
// identities and the network, a mount point on the way up, a
// folder owned by another user (safe.directory), a repository format git
// might refuse: each is git's to answer. TestTopLevelFromFilesIsGits
// holds the answers to git's in real repositories.
func topLevelFromFiles(dir string, env []string) (top string, ok bool) {
	for _, kv := range env {
		k, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(k, "GIT_") && !fixedEnvKey(k) && !transportEnvKey(k) || k == "SUDO_UID" {
			return "", false
		}
	}
	if !filepath.IsAbs(dir) {
		return "", false
	}
	uid := uint32(os.Geteuid())
	var dev uint64
	for d, first := filepath.Clean(dir), true; ; first = false {
		if filepath.Base(d) == ".git" {
			return "", false
		}
		st, ok := lstatT(d)
		if !ok || st.Mode&syscall.S_IFMT != syscall.S_IFDIR {
			return "", false
		}
		if !first && uint64(st.Dev) != dev {
			return "", false // a mount point: git stops there
		}
		dev = uint64(st.Dev)
		// A folder holding HEAD may be a repository itself (bare, or
		// inside .git): git's to say.
		if _, err := os.Lstat(filepath.Join(d, "HEAD")); !errors.Is(err, fs.ErrNotExist) {
			return "", false
		}
		dotgit := filepath.Join(d, ".git")
		gst, err := os.Lstat(dotgit)
		switch {
		case errors.Is(err, fs.ErrNotExist):
		case err != nil:
			return "", false
		case gst.IsDir():
			if st.Uid != uid || !plainRepository(dotgit, dotgit, uid) {
				return "", false
			}
			return d, true
		case gst.Mode().IsRegular():
			gitdir, ok := gitFileTarget(d, dotgit)
			if !ok || st.Uid != uid || gst.Sys().(*syscall.Stat_t).Uid != uid {
				return "", false
			}
			common, ok := commonDir(gitdir)
			if !ok || !plainRepository(gitdir, common, uid) {
				return "", false
			}
			return d, true
		default:
			return "", false
		}
		parent := filepath.Dir(d)
		if parent == d {
			return "", true
		}
		d = parent
	}
}

func fixedEnvKey(k string) bool {
	for _, kv := range fixedEnv {
		if strings.HasPrefix(kv, k+"=") {
			return true
		}
	}
	return false
}

// transportEnvKey: git's variables for identities, prompts and the
// network, which have no part in finding a repository (a machine's
// GIT_SSL_CAINFO would otherwise send every check to git).
func transportEnvKey(k string) bool {
	for _, p := range []string{"GIT_SSL_", "GIT_HTTP_", "GIT_AUTHOR_", "GIT_COMMITTER_"} {
		if strings.HasPrefix(k, p) {
			return true
		}
	}
	switch k {
	case "GIT_TERMINAL_PROMPT", "GIT_ASKPASS", "GIT_SSH", "GIT_SSH_COMMAND", "GIT_SSH_VARIANT", "GIT_EDITOR", "GIT_PAGER", "GIT_PROXY_COMMAND":
		return true
	}
	return false
}

func lstatT(p string) (*syscall.Stat_t, bool) {
	var st syscall.Stat_t
	if err := syscall.Lstat(p, &st); err != nil {
		return nil, false
	}
	return &st, true
}

// gitFileTarget reads a .git file: "gitdir: PATH", PATH relative to the
// file's folder when not absolute, and a folder.
func gitFileTarget(d, dotgit string) (string, bool) {
	b, err := os.ReadFile(dotgit)
	if err != nil || len(b) > 4096 {
		return "", false
	}
	line, rest, _ := bytes.Cut(b, []byte("\n"))
	if len(bytes.TrimSpace(rest)) != 0 {
		return "", false
	}
	p, found := strings.CutPrefix(strings.TrimRight(string(line), "\r"), "gitdir: ")
	if !found || p == "" || strings.TrimSpace(p) != p {
		return "", false
	}
	if !filepath.IsAbs(p) {
		p = filepath.Join(d, p)
	}
	return filepath.Clean(p), true
}

// commonDir is a linked work tree's repository folder: its gitdir's
// commondir file, which every linked work tree has (a gitdir without one,
// a submodule's, is git's to answer).
func commonDir(gitdir string) (string, bool) {
	b, err := os.ReadFile(filepath.Join(gitdir, "commondir"))
	if err != nil {
		return "", false
	}
	p := strings.TrimRight(string(b), "\n")
	if p == "" || strings.ContainsAny(p, "\n\r") {
		return "", false
	}
	if !filepath.IsAbs(p) {
		p = filepath.Join(gitdir, p)
	}
	return filepath.Clean(p), true
}

// plainRepository reports whether gitdir (with its repository folder
// common) is a repository git certainly accepts without moving the work
// tree: owned by uid, HEAD a plain file naming a ref or a commit, objects
// and refs folders, no commondir of its own unless linked (gitdir !=
// common), no per-work-tree configuration, and a configuration with no
// core.worktree, no bare repository, no include and no extensions.
func plainRepository(gitdir, common string, uid uint32) bool {
	for _, p := range []string{gitdir, common} {
		st, ok := lstatT(p)
		if !ok || st.Mode&syscall.S_IFMT != syscall.S_IFDIR || st.Uid != uid {
			return false
		}
	}
	head, err := os.Lstat(filepath.Join(gitdir, "HEAD"))
	if err != nil || !head.Mode().IsRegular() || head.Size() > 4096 {
		return false
	}
	b, err := os.ReadFile(filepath.Join(gitdir, "HEAD"))
	if err != nil || !plainHead(strings.TrimRight(string(b), "\n")) {
		return false
	}
	for _, sub := range []string{"objects", "refs"} {
		st, err := os.Stat(filepath.Join(common, sub))
		if err != nil || !st.IsDir() {
			return false
		}
	}
	if gitdir == common {
		if _, err := os.Lstat(filepath.Join(gitdir, "commondir")); !errors.Is(err, fs.ErrNotExist) {
			return false
		}
	}
	if _, err := os.Lstat(filepath.Join(gitdir, "config.worktree")); !errors.Is(err, fs.ErrNotExist) {
		return false
	}
	return plainConfig(filepath.Join(common, "config"))
}

func plainHead(s string) bool {
	if ref, ok := strings.CutPrefix(s, "ref: refs/"); ok {
		return ref != "" && !strings.ContainsAny(ref, " \t\r\n")
	}
	if len(s) != 40 && len(s) != 64 {
		return false
	}
	for _, c := range s {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}

// plainConfig reads a repository's configuration as far as discovery
// depends on it: any line that mentions a work tree, an include, an
// extension or a bare repository other than "bare = false", or a format
// version other than 0 or 1, makes the answer git's.
func plainConfig(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	sc := bufio.NewScanner(io.LimitReader(f, 1<<20))
	for sc.Scan() {
		line := strings.ToLower(strings.Join(strings.Fields(sc.Text()), " "))
		switch {
		case strings.Contains(line, "worktree"), strings.Contains(line, "include"), strings.Contains(line, "extensions"):
			return false
		case strings.Contains(line, "bare"):
			if line != "bare = false" {
				return false
			}
		case strings.Contains(line, "repositoryformatversion"):
			if line != "repositoryformatversion = 0" && line != "repositoryformatversion = 1" {
				return false
			}
		}
	}
	return sc.Err() == nil
}
