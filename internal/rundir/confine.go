package rundir

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
	"sync"
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
//
// Resolving costs one lstat per path element not seen before: directories
// already found link-free are remembered, so the fiftieth artifact of
// artifacts/executor/ costs one lstat, not three, and none of the directory
// opens os.Root would make for each element. A Root is safe for concurrent use.
type Root struct {
	dir  string
	root *os.Root
	fd   int // O_PATH descriptor of dir for openFast; -1 without one

	mu   sync.RWMutex
	dirs map[string]bool // relative paths found to be real directories, not links
}

// OpenRoot opens dir for confined reads.
func OpenRoot(dir string) (*Root, error) {
	r, err := os.OpenRoot(dir)
	if err != nil {
		return nil, err
	}
	return &Root{dir: dir, root: r, fd: openDirFD(dir), dirs: map[string]bool{}}, nil
}

func (r *Root) knownDir(rel string) bool {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return r.dirs[rel]
}

func (r *Root) rememberDir(rel string) {
	r.mu.Lock()
	r.dirs[rel] = true
	r.mu.Unlock()
}

// lstat describes rel without following a final link. It takes the plain
// path: every element before the last was found to be a real directory, so
// the kernel follows no link the checker has not already vetted. Should the
// tree change in between, only a file's description is read; files are
// opened through os.Root, which refuses to leave the run in any case.
func (r *Root) lstat(rel string) (fs.FileInfo, error) {
	return os.Lstat(filepath.Join(r.dir, filepath.FromSlash(rel)))
}

func (r *Root) Close() error {
	closeDirFD(r.fd)
	r.fd = -1
	return r.root.Close()
}

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
	var seen map[string]bool
	var last fs.FileInfo // of the last element, when it was just described
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
			last = nil
			continue
		}
		cur := path.Join(append(done, el)...)
		if len(pending) > 0 && r.knownDir(cur) {
			done = append(done, el)
			last = nil
			continue
		}
		info, err := r.lstat(cur)
		if err != nil {
			return "", nil, r.statProblem(ref, cur, err)
		}
		if info.Mode()&fs.ModeSymlink == 0 {
			done = append(done, el)
			last = info
			if info.IsDir() {
				r.rememberDir(cur)
			} else if len(pending) > 0 {
				return "", nil, &Problem{Kind: Missing, Path: ref, Detail: fmt.Sprintf("%q does not exist: %q is not a directory", ref, cur)}
			}
			continue
		}
		last = nil
		hops++
		chain = append(chain, cur)
		if seen[cur] {
			return "", nil, &Problem{Kind: Loop, Path: ref, Detail: fmt.Sprintf("%q: symbolic links form a loop: %s", ref, strings.Join(quoteAll(chain), " -> "))}
		}
		if seen == nil {
			seen = map[string]bool{}
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
	if last != nil {
		return rel, last, nil
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
		detail := fmt.Sprintf("%q does not exist", ref)
		if cur != ref {
			detail = fmt.Sprintf("%q does not exist (%q is missing)", ref, cur)
		}
		if variant := r.caseVariant(cur); variant != "" {
			if PlainPath(variant) {
				detail += fmt.Sprintf("; %q is there, and names are case-sensitive: rename it", variant)
			} else {
				detail += fmt.Sprintf("; %q is there, which shows as the name but is another: rename it", variant)
			}
		}
		return &Problem{Kind: Missing, Path: ref, Detail: detail}
	case errors.Is(err, syscall.ELOOP):
		return &Problem{Kind: Loop, Path: ref, Detail: fmt.Sprintf("%q: symbolic links form a loop", ref)}
	case errors.Is(err, syscall.ENOTDIR):
		return &Problem{Kind: Missing, Path: ref, Detail: fmt.Sprintf("%q does not exist: a parent is not a directory", ref)}
	}
	return &Problem{Kind: Unreadable, Path: ref, Detail: fmt.Sprintf("cannot read %q: %v", ref, unwrapPathError(err))}
}

// caseVariant is an entry beside the missing rel whose name differs from
// rel's only in ASCII case, or shows as it (sameShown) ("" when there is none): the file a run holds
// as State/ where its layout names state/ is a missing file that the
// message should point at.
func (r *Root) caseVariant(rel string) string {
	dir, name := path.Split(rel)
	dir = strings.TrimSuffix(dir, "/")
	if dir == "" {
		dir = "."
	}
	entries, err := r.readDir(dir)
	if err != nil {
		return ""
	}
	if match, ok := foldMatch(entries, name); ok && match != name {
		return path.Join(dir, match)
	}
	return ""
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

// OpenReader opens the regular file ref names, confined to the run, for
// one sequential read to its end, and returns its size when opened. It
// refuses what Open refuses; a path without symbolic links costs one
// system call to open (see openFast), any other path is resolved by hand.
func (r *Root) OpenReader(ref string) (io.ReadCloser, int64, *Problem) {
	clean, p := CleanRef(ref)
	if p != nil {
		return nil, 0, p
	}
	if rc, size, ok := r.openFast(clean); ok {
		return rc, size, nil
	}
	f, info, p := r.Open(ref)
	if p != nil {
		return nil, 0, p
	}
	return f, info.Size(), nil
}

// ReadFile reads a whole regular file of at most limit bytes (0: no limit).
func (r *Root) ReadFile(ref string, limit int64) ([]byte, *Problem) {
	rc, size, p := r.OpenReader(ref)
	if p != nil {
		return nil, p
	}
	defer rc.Close()
	if limit > 0 && size > limit {
		return nil, &Problem{Kind: TooLarge, Path: ref, Detail: fmt.Sprintf("%q is %d bytes, over the limit of %d bytes; it was not parsed", ref, size, limit)}
	}
	// The size may change under us; never read past the limit.
	var rd io.Reader = rc
	if limit > 0 {
		rd = io.LimitReader(rc, limit+1)
	}
	data, err := readAll(rd, size)
	if err != nil {
		return nil, &Problem{Kind: Unreadable, Path: ref, Detail: fmt.Sprintf("cannot read %q: %v", ref, unwrapPathError(err))}
	}
	if limit > 0 && int64(len(data)) > limit {
		return nil, &Problem{Kind: TooLarge, Path: ref, Detail: fmt.Sprintf("%q grew past the limit of %d bytes while being read; it was not parsed", ref, limit)}
	}
	return data, nil
}

// readAll reads r to its end into a buffer sized for the expected size
// (plus one byte, so that reaching the end takes no reallocation), where
// io.ReadAll would grow from 512 bytes by doubling.
func readAll(r io.Reader, size int64) ([]byte, error) {
	buf := make([]byte, 0, min(max(size, 0), 64<<20)+1)
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := r.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if err == io.EOF {
			return buf, nil
		}
		if err != nil {
			return nil, err
		}
	}
}

// Walk visits every entry of the run, relative and slash-separated, in
// lexical order within each directory, without following symbolic links;
// fn may return fs.SkipDir (for a directory: do not enter it; for a file:
// skip the rest of its directory) or fs.SkipAll. A directory that cannot be
// listed is skipped: whoever needs a file in it reports the problem.
func (r *Root) Walk(fn func(rel string, d fs.DirEntry) error) error {
	err := r.walk(".", fn)
	if err == fs.SkipDir || err == fs.SkipAll {
		return nil
	}
	return err
}

func (r *Root) walk(dir string, fn func(rel string, d fs.DirEntry) error) error {
	ents, err := r.readDir(dir)
	if err != nil {
		return nil
	}
	for _, d := range ents {
		rel := d.Name()
		if dir != "." {
			rel = dir + "/" + rel
		}
		err := fn(rel, d)
		switch {
		case err == fs.SkipDir && d.IsDir():
			continue
		case err == fs.SkipDir:
			return nil
		case err != nil:
			return err
		case d.IsDir():
			if err := r.walk(rel, fn); err != nil {
				return err
			}
		}
	}
	return nil
}

// readDir lists a directory of the run, sorted by name. Through os.Root a
// listing costs an lstat per entry (os cannot describe entries lazily
// there), so a directory reachable without links is opened with openat2
// and listed from the kernel's entry types alone.
func (r *Root) readDir(dir string) ([]fs.DirEntry, error) {
	if f, ok := r.openDirFast(dir); ok {
		defer f.Close()
		ents, err := f.ReadDir(-1)
		slices.SortFunc(ents, func(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
		return ents, err
	}
	return fs.ReadDir(r.root.FS(), dir)
}
