// Package gitrev reads files as they were at a base revision of a git
// repository, so that append-only files can be compared with their past.
//
// A repository is read through one long-lived `git cat-file --batch`
// process, shared by every run of a check and safe for concurrent use: the
// cost of reading a file is a round trip on a pipe, not a process start.
// Folders and Blobs send many requests before reading the answers, so a
// run's files cost one round trip, and a folder's entries name each file's
// content, so a file identical to the working copy (same BlobID) is never
// read at all.
// A base that is not in the clone (a shallow checkout) is an error with the
// remedy in its message, never mistaken for "the file is new".
//
// Paths given to a Reader are relative to the repository's top level, with
// forward slashes.
package gitrev

import (
	"errors"
	"fmt"
	"io"
	"strings"
)

// Reader reads whole files at a revision. exists is false when the path
// names no file there; err is reserved for what prevents the answer.
type Reader interface {
	Read(rev, path string) (data []byte, exists bool, err error)
}

// Streamer hands a file's content at a revision to fn without holding it in
// memory, for artifacts of any size. Bytes fn leaves unread are discarded.
type Streamer interface {
	Stream(rev, path string, fn func(io.Reader) error) (exists bool, err error)
}

// Lister lists the files at a revision under a folder (every file of the
// revision when dir is ""), as top-level-relative paths in git's order.
type Lister interface {
	List(rev, dir string) ([]string, error)
}

// Tree is everything a comparison with a base needs.
type Tree interface {
	Reader
	Streamer
	Lister
}

// ErrTooLarge wraps a file over the reader's size limit; ErrNotFile a path
// that names a folder or a submodule. Both concern one file: the reader is
// still usable.
var (
	ErrTooLarge = errors.New("over the size limit")
	ErrNotFile  = errors.New("not a file")
)

// IsFileError reports whether err concerns one file only (as opposed to a
// reader that can no longer answer).
func IsFileError(err error) bool {
	return errors.Is(err, ErrTooLarge) || errors.Is(err, ErrNotFile)
}

// ErrNotWorkTree means a directory is not inside a git work tree.
var ErrNotWorkTree = errors.New("not inside a git work tree")

// MissingCommitError is a base revision the clone does not hold. In a
// shallow clone that is what an unfetched base looks like, and the message
// says how to fetch it.
type MissingCommitError struct {
	Rev     string
	Shallow bool
}

func (e *MissingCommitError) Error() string {
	if e.Shallow {
		fetch := "git fetch --no-tags --depth=1 origin <sha>"
		if isObjectName(e.Rev) {
			fetch = "git fetch --no-tags --depth=1 origin " + e.Rev
		}
		return fmt.Sprintf("base revision %q is not in this shallow clone, so the history cannot be compared; "+
			"fetch it first (%s) or check out with full history (actions/checkout: fetch-depth: 0)", e.Rev, fetch)
	}
	if isObjectName(e.Rev) {
		return fmt.Sprintf("base revision %q is not in this repository; fetch it first (git fetch origin %s)", e.Rev, e.Rev)
	}
	return fmt.Sprintf("base revision %q does not name a commit in this repository; expected a commit, branch or tag (e.g. HEAD, origin/main)", e.Rev)
}

// isObjectName reports whether s looks like a full SHA-1 or SHA-256 object
// name (the form a CI system passes).
func isObjectName(s string) bool {
	if len(s) != 40 && len(s) != 64 {
		return false
	}
	return strings.Trim(s, "0123456789abcdef") == ""
}

// CheckRev refuses what git would read as an option or what the batch
// protocol cannot carry, before it reaches git.
func CheckRev(rev string) error {
	switch {
	case rev == "":
		return errors.New("empty revision")
	case strings.HasPrefix(rev, "-"):
		return fmt.Errorf("revision %q starts with \"-\"; expected a commit, branch or tag", rev)
	case strings.ContainsAny(rev, "\n\r\x00"):
		return fmt.Errorf("revision %q contains a line break or NUL", rev)
	}
	return nil
}
