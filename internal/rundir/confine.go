package rundir

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"syscall"
)

// ProblemKind says why a path in a run could not be used.
type ProblemKind int

const (
	Absolute   ProblemKind = iota + 1 // the reference is an absolute path
	DotDot                            // the reference contains a ".." element
	Escape                            // a symbolic link on the way leads out of the run
	Loop                              // symbolic links form a cycle (or too many hops)
	Missing                           // nothing exists at the path
	NotRegular                        // a directory, FIFO, socket or device where a file belongs
	TooLarge                          // over the caller's size limit
	Unreadable                        // any other I/O error
)

// Problem is a path that was not opened, with the reason in words.
type Problem struct {
	Kind   ProblemKind
	Path   string // the reference as written
	Detail string // lower-case sentence, e.g. `"a/b" is a symbolic link to "../../x", outside the run`
}

func (p *Problem) Error() string { return p.Detail }

// maxLinkHops bounds symlink resolution like the kernel's ELOOP limit.
const maxLinkHops = 40

// Root confines every read to one run directory. Paths are resolved by hand
// first, so that each refusal can say which link or element was at fault, and
// files are then opened through os.Root, which refuses escapes even if the tree
// changes between the two steps.
type Root struct {
	dir  string
	root *os.Root
}

// OpenRoot opens dir for confined reads.
func OpenRoot(dir string) (*Root, error) {
	r, err := os.OpenRoot(dir)
	if err != nil {
		return nil, err
	}
	return &Root{dir: dir, root: r}, nil
}

func (r *Root) Close() error { return r.root.Close() }

// Dir is the absolute run directory.
func (r *Root) Dir() string { return r.dir }

// CleanRef checks a reference lexically and returns it cleaned, with forward
// slashes. Backslashes are treated as separators too: a run may have been
// written on Windows, and "..\\x" must not slip through.
func CleanRef(ref string) (string, *Problem) {
	s := strings.ReplaceAll(strings.TrimSpace(ref), `\`, "/")
	if s == "" {
		return "", &Problem{Kind: Missing, Path: ref, Detail: "empty path"}
	}
	if strings.HasPrefix(s, "/") || filepath.IsAbs(ref) || hasDriveLetter(s) {
		return "", &Problem{Kind: Absolute, Path: ref, Detail: fmt.Sprintf("%q is an absolute path; runs reference files relative to the run directory", ref)}
	}
	for _, el := range strings.Split(s, "/") {
		if el == ".." {
			return "", &Problem{Kind: DotDot, Path: ref, Detail: fmt.Sprintf("%q contains \"..\"; references must stay inside the run directory", ref)}
		}
	}
	return path.Clean(s), nil
}

func hasDriveLetter(s string) bool {
	return len(s) >= 2 && s[1] == ':' && (s[0]|0x20 >= 'a' && s[0]|0x20 <= 'z')
}

// resolve follows symbolic links inside the run by hand and returns the
// link-free relative path of ref, or why it cannot be used.
func (r *Root) resolve(ref, clean string) (string, fs.FileInfo, *Problem) {
	pending := strings.Split(clean, "/")
	var done []string // resolved, link-free elements
	hops := 0
	var chain []string // links followed, to name a cycle
	seen := map[string]bool{}
	for len(pending) > 0 {
		el := pending[0]
		pending = pending[1:]
		switch el {
		case "", ".":
			continue
		case "..":
			if len(done) == 0 {
				return "", nil, &Problem{Kind: Escape, Path: ref, Detail: fmt.Sprintf("%q resolves through symbolic links to a place outside the run", ref)}
			}
			done = done[:len(done)-1]
			continue
		}
		cur := path.Join(append(done, el)...)
		info, err := r.root.Lstat(cur)
		if err != nil {
			return "", nil, r.statProblem(ref, cur, err)
		}
		if info.Mode()&fs.ModeSymlink == 0 {
			done = append(done, el)
			if len(pending) > 0 && !info.IsDir() {
				return "", nil, &Problem{Kind: Missing, Path: ref, Detail: fmt.Sprintf("%q does not exist: %q is not a directory", ref, cur)}
			}
			continue
		}
		hops++
		chain = append(chain, cur)
		if seen[cur] {
			return "", nil, &Problem{Kind: Loop, Path: ref, Detail: fmt.Sprintf("%q: symbolic links form a loop: %s", ref, strings.Join(quoteAll(chain), " -> "))}
		}
		seen[cur] = true
		if hops > maxLinkHops {
			return "", nil, &Problem{Kind: Loop, Path: ref, Detail: fmt.Sprintf("%q: symbolic links form a loop (more than %d hops at %q)", ref, maxLinkHops, cur)}
		}
		target, err := os.Readlink(filepath.Join(r.dir, filepath.FromSlash(cur)))
		if err != nil {
			return "", nil, &Problem{Kind: Unreadable, Path: ref, Detail: fmt.Sprintf("cannot read symbolic link %q: %v", cur, err)}
		}
		if filepath.IsAbs(target) || strings.HasPrefix(target, "/") {
			return "", nil, &Problem{Kind: Escape, Path: ref, Detail: fmt.Sprintf("%q is a symbolic link to %q, outside the run", cur, target)}
		}
		tparts := strings.Split(filepath.ToSlash(target), "/")
		// Check lexically that the target stays inside before walking it,
		// so the message names the link that leaves.
		depth := len(done)
		for _, t := range tparts {
			switch t {
			case "..":
				depth--
			case "", ".":
			default:
				depth++
			}
			if depth < 0 {
				return "", nil, &Problem{Kind: Escape, Path: ref, Detail: fmt.Sprintf("%q is a symbolic link to %q, outside the run", cur, target)}
			}
		}
		pending = append(tparts, pending...)
	}
	rel := path.Join(done...)
	if rel == "" {
		rel = "."
	}
	info, err := r.root.Lstat(rel)
	if err != nil {
		return "", nil, r.statProblem(ref, rel, err)
	}
	return rel, info, nil
}

func quoteAll(ss []string) []string {
	q := make([]string, len(ss))
	for i, s := range ss {
		q[i] = fmt.Sprintf("%q", s)
	}
	return q
}

func (r *Root) statProblem(ref, cur string, err error) *Problem {
	switch {
	case errors.Is(err, fs.ErrNotExist):
		if cur != ref {
			return &Problem{Kind: Missing, Path: ref, Detail: fmt.Sprintf("%q does not exist (%q is missing)", ref, cur)}
		}
		return &Problem{Kind: Missing, Path: ref, Detail: fmt.Sprintf("%q does not exist", ref)}
	case errors.Is(err, syscall.ELOOP):
		return &Problem{Kind: Loop, Path: ref, Detail: fmt.Sprintf("%q: symbolic links form a loop", ref)}
	case errors.Is(err, syscall.ENOTDIR):
		return &Problem{Kind: Missing, Path: ref, Detail: fmt.Sprintf("%q does not exist: a parent is not a directory", ref)}
	}
	return &Problem{Kind: Unreadable, Path: ref, Detail: fmt.Sprintf("cannot read %q: %v", ref, unwrapPathError(err))}
}

func unwrapPathError(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// Stat resolves ref and describes the regular file it names.
func (r *Root) Stat(ref string) (rel string, info fs.FileInfo, p *Problem) {
	clean, p := CleanRef(ref)
	if p != nil {
		return "", nil, p
	}
	rel, info, p = r.resolve(ref, clean)
	if p != nil {
		return "", nil, p
	}
	if !info.Mode().IsRegular() {
		return "", nil, &Problem{Kind: NotRegular, Path: ref, Detail: fmt.Sprintf("%q is %s, not a regular file", ref, describeMode(info.Mode()))}
	}
	return rel, info, nil
}

func describeMode(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe (FIFO)"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeDevice != 0 || m&fs.ModeCharDevice != 0:
		return "a device"
	case m&fs.ModeSymlink != 0:
		return "a symbolic link"
	}
	return "not a regular file"
}

// Open opens the regular file ref names, confined to the run. The open is
// non-blocking, so a FIFO swapped in after Stat cannot stall the checker, and
// the opened file is checked again with fstat.
func (r *Root) Open(ref string) (*os.File, fs.FileInfo, *Problem) {
	rel, _, p := r.Stat(ref)
	if p != nil {
		return nil, nil, p
	}
	f, err := r.root.OpenFile(rel, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, nil, r.statProblem(ref, rel, err)
	}
	info, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, &Problem{Kind: Unreadable, Path: ref, Detail: fmt.Sprintf("cannot read %q: %v", ref, unwrapPathError(err))}
	}
	if !info.Mode().IsRegular() {
		f.Close()
		return nil, nil, &Problem{Kind: NotRegular, Path: ref, Detail: fmt.Sprintf("%q is %s, not a regular file", ref, describeMode(info.Mode()))}
	}
	return f, info, nil
}

// ReadFile reads a whole regular file of at most limit bytes (0: no limit).
func (r *Root) ReadFile(ref string, limit int64) ([]byte, *Problem) {
	f, info, p := r.Open(ref)
	if p != nil {
		return nil, p
	}
	defer f.Close()
	if limit > 0 && info.Size() > limit {
		return nil, &Problem{Kind: TooLarge, Path: ref, Detail: fmt.Sprintf("%q is %d bytes, over the limit of %d bytes; it was not parsed", ref, info.Size(), limit)}
	}
	// The size may change under us; never read past the limit.
	var rd io.Reader = f
	if limit > 0 {
		rd = io.LimitReader(f, limit+1)
	}
	data, err := io.ReadAll(rd)
	if err != nil {
		return nil, &Problem{Kind: Unreadable, Path: ref, Detail: fmt.Sprintf("cannot read %q: %v", ref, unwrapPathError(err))}
	}
	if limit > 0 && int64(len(data)) > limit {
		return nil, &Problem{Kind: TooLarge, Path: ref, Detail: fmt.Sprintf("%q grew past the limit of %d bytes while being read; it was not parsed", ref, limit)}
	}
	return data, nil
}

// Walk visits every entry of the run, relative and slash-separated, without
// following symbolic links; fn may return fs.SkipDir for directories.
func (r *Root) Walk(fn func(rel string, d fs.DirEntry) error) error {
	return fs.WalkDir(r.root.FS(), ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			// An unreadable subdirectory is reported by whoever needs a file in it.
			if d != nil && d.IsDir() && p != "." {
				return fs.SkipDir
			}
			return nil
		}
		if p == "." {
			return nil
		}
		return fn(p, d)
	})
}
