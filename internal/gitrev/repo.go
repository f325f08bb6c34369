package gitrev

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"
)

// Repo is one git work tree and its cat-file process. A Repo is safe for
// concurrent use; Close ends the process.
type Repo struct {
	// Root is the work tree's top level: absolute, symbolic links resolved.
	Root string
	// MaxRead bounds Read (not Stream); 0 means no bound.
	MaxRead int64

	cat catFile

	keptMu sync.Mutex // held while a kept folder is read, so it is read once
	kept   map[string]*Folder
}

// fixedEnv is set for every git command the tool runs. Replace objects
// (refs/replace) and grafts let a clone show another history than the
// commits hold: a change could rewrite the base it is compared with, so
// git reads the commits as they are. The graft file is a path that cannot
// exist (below a device): git reads no grafts and, as for a missing file,
// says nothing, where an existing empty one made every git process print
// eight lines of deprecation hints into the errors it reports.
var fixedEnv = []string{
	"GIT_LITERAL_PATHSPECS=1", "LC_ALL=C",
	"GIT_NO_REPLACE_OBJECTS=1", "GIT_GRAFT_FILE=" + filepath.Join(os.DevNull, "no-grafts"),
}

// sanitizedEnv is the environment git runs with: fixedEnv, and the
// process's own without what fixedEnv sets or what points git at one
// repository (as hooks set them), so that each run is read from the
// repository that actually holds it.
func sanitizedEnv() []string {
	drop := map[string]bool{
		"GIT_DIR": true, "GIT_WORK_TREE": true, "GIT_COMMON_DIR": true,
		"GIT_INDEX_FILE": true, "GIT_PREFIX": true, "GIT_REPLACE_REF_BASE": true,
	}
	for _, kv := range fixedEnv {
		k, _, _ := strings.Cut(kv, "=")
		drop[k] = true
	}
	env := slices.Clone(fixedEnv)
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if drop[k] {
			continue
		}
		env = append(env, kv)
	}
	return env
}

// GitEnv is the environment every git command of the tool runs with (see
// sanitizedEnv), for the packages that start git themselves.
func GitEnv() []string { return sanitizedEnv() }

func gitCommand(dir string, args ...string) *exec.Cmd {
	cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
	cmd.Env = sanitizedEnv()
	return cmd
}

// gitOutput runs a short git command and returns its trimmed stdout; the
// error carries git's own words.
func gitOutput(dir string, args ...string) (string, error) {
	cmd := gitCommand(dir, args...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &limitWriter{w: &errb, n: 4096}
	if err := cmd.Run(); err != nil {
		return "", &commandError{args: args, err: err, stderr: strings.TrimSpace(errb.String())}
	}
	return strings.TrimSpace(out.String()), nil
}

type commandError struct {
	args   []string
	err    error
	stderr string
}

func (e *commandError) Error() string {
	msg := fmt.Sprintf("git %s: %v", strings.Join(e.args, " "), e.err)
	if e.stderr != "" {
		msg += ": " + e.stderr
	}
	return msg
}

func (e *commandError) Unwrap() error { return e.err }

// exitCode is the exit status of a finished git command, -1 if it did not run.
func exitCode(err error) int {
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ExitCode()
	}
	return -1
}

type limitWriter struct {
	w io.Writer
	n int
}

func (l *limitWriter) Write(p []byte) (int, error) {
	if l.n > 0 {
		k := min(len(p), l.n)
		l.w.Write(p[:k])
		l.n -= k
	}
	return len(p), nil
}

// Open returns the repository whose work tree holds dir. Prefer a Locator
// when many directories may share one repository.
func Open(dir string) (*Repo, error) {
	var l Locator
	return l.Repo(dir)
}

// Locator maps directories to their repositories, one Repo (and so one
// cat-file process) per repository however many directories it is asked
// about. It is safe for concurrent use.
type Locator struct {
	mu    sync.Mutex
	repos map[string]*Repo  // by the directory holding .git
	errs  map[string]error  // same key
	roots map[string]string // resolved folder above a dir asked about -> key, "" when in no work tree
}

// Repo returns the repository of dir, or an error wrapping ErrNotWorkTree.
// It finds the nearest ".git" above dir itself (a cheap walk), and asks git
// once per repository to confirm the work tree.
func (l *Locator) Repo(dir string) (*Repo, error) {
	resolved, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	if r, err := filepath.EvalSymlinks(resolved); err == nil {
		resolved = r
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.repos == nil {
		l.repos, l.errs, l.roots = map[string]*Repo{}, map[string]error{}, map[string]string{}
	}
	key, ok := l.roots[resolved]
	if !ok {
		key = l.rootOf(resolved)
	}
	if key == "" {
		return nil, fmt.Errorf("%s is %w", dir, ErrNotWorkTree)
	}
	if r := l.repos[key]; r != nil {
		return r, nil
	}
	if err := l.errs[key]; err != nil {
		return nil, err
	}
	r, err := openAt(key)
	if err != nil {
		l.errs[key] = err
		return nil, err
	}
	l.repos[key] = r
	return r, nil
}

// Close ends every repository's cat-file process.
func (l *Locator) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	var errs []error
	for _, r := range l.repos {
		errs = append(errs, r.Close())
	}
	return errors.Join(errs...)
}

// rootOf returns the nearest directory at or above dir holding a .git
// entry (a folder, or the file a linked work tree or submodule has). A
// directory inside a .git folder belongs to no work tree.
//
// The answer is remembered for the folders above dir, not for dir: the
// runs of one folder, however many, share one entry.
func (l *Locator) rootOf(dir string) string {
	for _, el := range strings.Split(filepath.ToSlash(dir), "/") {
		if el == ".git" {
			return ""
		}
	}
	if _, err := os.Lstat(filepath.Join(dir, ".git")); err == nil {
		return dir
	}
	parent := filepath.Dir(dir)
	if parent == dir {
		return ""
	}
	key, ok := l.roots[parent]
	if !ok {
		key = l.rootOf(parent)
		l.roots[parent] = key
	}
	return key
}

func openAt(dir string) (*Repo, error) { return openAtEnv(dir, GitEnv()) }

// openAtEnv is openAt where git would run in env. Where the folders
// themselves certainly give git's answer (topLevelFromFiles), no git
// process is started: a check in a plain clone starts one fewer.
func openAtEnv(dir string, env []string) (*Repo, error) {
	if top, ok := topLevelFromFiles(dir, env); ok {
		if top == "" {
			return nil, fmt.Errorf("%s is %w", dir, ErrNotWorkTree)
		}
		return &Repo{Root: top, cat: catFile{dir: top}}, nil
	}
	// One process answers both questions in a work tree, the common case;
	// --show-toplevel fails anywhere else, and only then is the first
	// question asked alone, to tell "not a work tree" from a broken
	// repository.
	out, err := gitOutput(dir, "rev-parse", "--is-inside-work-tree", "--show-toplevel")
	if err != nil {
		inside, err2 := gitOutput(dir, "rev-parse", "--is-inside-work-tree")
		if err2 == nil && inside != "true" {
			return nil, fmt.Errorf("%s is %w", dir, ErrNotWorkTree)
		}
		return nil, fmt.Errorf("cannot read the git repository at %s: %w", dir, err)
	}
	inside, top, _ := strings.Cut(out, "\n")
	if inside != "true" || top == "" {
		return nil, fmt.Errorf("%s is %w", dir, ErrNotWorkTree)
	}
	if r, err := filepath.EvalSymlinks(top); err == nil {
		top = r
	}
	return &Repo{Root: top, cat: catFile{dir: top}}, nil
}

// Rel turns a path on disk into a top-level-relative path with forward
// slashes ("" for the top level itself); an error if it lies outside.
func (r *Repo) Rel(p string) (string, error) {
	abs, err := filepath.Abs(p)
	if err != nil {
		return "", err
	}
	if resolved, err := filepath.EvalSymlinks(abs); err == nil {
		abs = resolved
	}
	rel, err := filepath.Rel(r.Root, abs)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", fmt.Errorf("%s is outside the repository at %s", p, r.Root)
	}
	if rel == "." {
		return "", nil
	}
	return filepath.ToSlash(rel), nil
}

// Resolve turns rev into the full name of the commit it names. A commit the
// clone does not hold is a *MissingCommitError. A name that could mean
// more than one thing (a tag and a branch, a local and a remote-tracking
// branch, a ref and an abbreviated object name) is an error naming each:
// git would pick one silently, and a change can create the other.
func (r *Repo) Resolve(rev string) (string, error) {
	if err := CheckRev(rev); err != nil {
		return "", err
	}
	rev, err := r.unambiguous(rev)
	if err != nil {
		return "", err
	}
	// One exchange with the shared cat-file process answers both "is it
	// here" and "which commit", where two git processes used to.
	var sha string
	exists, err := r.cat.request(rev+"^{commit}", func(h header, _ io.Reader) error {
		sha = h.oid
		return nil
	})
	if err != nil {
		return "", err
	}
	if !exists {
		return "", &MissingCommitError{Rev: rev, Shallow: r.shallow()}
	}
	return sha, nil
}

func (r *Repo) shallow() bool {
	out, err := gitOutput(r.Root, "rev-parse", "--is-shallow-repository")
	return err == nil && out == "true"
}

// head resolves HEAD to its commit; exists is false when nothing was
// committed yet. It asks the cat-file process that reads the base next,
// rather than a git process of its own.
func (r *Repo) head() (sha string, exists bool, err error) {
	exists, err = r.cat.request("HEAD^{commit}", func(h header, _ io.Reader) error {
		sha = h.oid
		return nil
	})
	return sha, exists, err
}

// MergeBase returns the best common ancestor of two commits; found is false
// when the history held by the clone has none (unrelated, or cut off by a
// shallow clone).
func (r *Repo) MergeBase(a, b string) (sha string, found bool, err error) {
	if !isObjectName(a) || !isObjectName(b) {
		return "", false, fmt.Errorf("merge base of %q and %q: expected full commit names", a, b)
	}
	out, err := gitOutput(r.Root, "merge-base", "--end-of-options", a, b)
	if err != nil {
		if exitCode(err) == 1 {
			return "", false, nil
		}
		return "", false, err
	}
	return out, true, nil
}

// object names a file of a commit for cat-file: "<commit>:<path>". The path
// is cleaned so that git never reads it relative to a current directory.
func object(rev, p string) (string, error) {
	if err := CheckRev(rev); err != nil {
		return "", err
	}
	c := path.Clean("/" + p)[1:]
	if c == "" {
		return "", fmt.Errorf("%q names the top of the repository, not a file", p)
	}
	return rev + ":" + c, nil
}

// Read returns a file's content at rev.
func (r *Repo) Read(rev, p string) ([]byte, bool, error) {
	obj, err := object(rev, p)
	if err != nil {
		return nil, false, err
	}
	r.countContent()
	var data []byte
	exists, err := r.cat.request(obj, func(h header, body io.Reader) error {
		if h.typ != "blob" {
			return fmt.Errorf("%s at %s is a %s: %w", p, short(rev), h.typ, ErrNotFile)
		}
		if r.MaxRead > 0 && h.size > r.MaxRead {
			return fmt.Errorf("%s at %s is %d bytes, over the limit of %d bytes: %w", p, short(rev), h.size, r.MaxRead, ErrTooLarge)
		}
		data = make([]byte, h.size)
		_, err := io.ReadFull(body, data)
		return err
	})
	if err != nil || !exists {
		return nil, exists, err
	}
	return data, true, nil
}

// TreeID returns the object name of the folder dir at rev, so that many
// files under it can be read as "<tree>:<path>": git then searches a small
// tree instead of walking from the top of the commit for every file, which
// matters when a folder holds thousands of runs. exists is false when rev
// has no folder there.
func (r *Repo) TreeID(rev, dir string) (string, bool, error) {
	if err := CheckRev(rev); err != nil {
		return "", false, err
	}
	obj := rev + "^{tree}"
	if d := path.Clean("/" + dir)[1:]; d != "" {
		obj = rev + ":" + d
	}
	var oid string
	exists, err := r.cat.request(obj, func(h header, _ io.Reader) error {
		if h.typ != "tree" {
			return fmt.Errorf("%s at %s is a %s, not a folder: %w", dir, short(rev), h.typ, ErrNotFile)
		}
		oid = h.oid
		return nil
	})
	return oid, exists, err
}

// Stream hands a file's content at rev to fn.
func (r *Repo) Stream(rev, p string, fn func(io.Reader) error) (bool, error) {
	obj, err := object(rev, p)
	if err != nil {
		return false, err
	}
	r.countContent()
	return r.cat.request(obj, func(h header, body io.Reader) error {
		if h.typ != "blob" {
			return fmt.Errorf("%s at %s is a %s: %w", p, short(rev), h.typ, ErrNotFile)
		}
		return fn(body)
	})
}

// List returns the files (blobs and symbolic links) under dir at rev, in
// byte order, nothing when rev has no folder there. The folders are read
// through the shared cat-file process, one exchange per level of
// folders, rather than by a git process per call; subfolders are asked
// for by their tree's object name: asked for by path, git would search
// every folder on the way again, the big one holding the runs once per
// run.
func (r *Repo) List(rev, dir string) ([]string, error) {
	entries, err := r.ListEntries(rev, dir)
	if err != nil {
		return nil, err
	}
	return slices.Sorted(maps.Keys(entries)), nil
}

// Processes reports how many cat-file processes this repository started:
// 0 before the first read, 1 after it.
func (r *Repo) Processes() int {
	r.cat.mu.Lock()
	defer r.cat.mu.Unlock()
	return r.cat.started
}

// Requests reports how many objects (files, folders) were asked of the
// cat-file process.
func (r *Repo) Requests() int {
	r.cat.mu.Lock()
	defer r.cat.mu.Unlock()
	return r.cat.reqs
}

// Traffic reports how many round trips the cat-file process made (a
// batch of objects written together and answered together is one) and
// how many file contents were asked for, as opposed to folders.
func (r *Repo) Traffic() (exchanges, contents int) {
	r.cat.mu.Lock()
	defer r.cat.mu.Unlock()
	return r.cat.trips, r.cat.contents
}

func (r *Repo) countContent() {
	r.cat.mu.Lock()
	r.cat.contents++
	r.cat.mu.Unlock()
}

// Close ends the cat-file process.
func (r *Repo) Close() error { return r.cat.Close() }

// short abbreviates an object name for messages.
func short(rev string) string {
	if isObjectName(rev) {
		return rev[:12]
	}
	return rev
}

// Short abbreviates a commit name for messages (12 hex digits).
func Short(rev string) string { return short(rev) }

// Changed lists the files, relative to the top level and slash-separated,
// that differ between rev and the working tree: tracked files changed,
// added or deleted since rev, and untracked files, ignored ones too (a
// check reads what the disk holds, whatever .gitignore says), a folder
// that holds nothing tracked as one entry ending in "/".
func (r *Repo) Changed(rev string) ([]string, error) {
	return r.StartChanged().Since(rev)
}

// ChangeList is a listing of changed files under way: the untracked files
// are listed from StartChanged on, while the caller chooses the revision
// to compare with.
type ChangeList struct {
	repo      *Repo
	done      chan struct{}
	untracked []byte
	err       error
}

// StartChanged starts listing the untracked files: the longer of the two
// questions Changed asks (git reads every folder of the working tree), and
// the one that does not depend on the revision. Since or Discard must
// follow, so that the process is waited for.
func (r *Repo) StartChanged() *ChangeList {
	c := &ChangeList{repo: r, done: make(chan struct{})}
	go func() {
		defer close(c.done)
		c.untracked, c.err = gitRawOutput(r.Root, "ls-files", "-z", "--others", "--directory", "--no-empty-directory")
	}()
	return c
}

// Discard waits for the listing and drops it.
func (c *ChangeList) Discard() { <-c.done }

// Since is Changed(rev): the diff against rev runs while the untracked
// files are still being listed.
func (c *ChangeList) Since(rev string) ([]string, error) {
	if err := CheckRev(rev); err != nil {
		c.Discard()
		return nil, err
	}
	// Without the index preloaded on threads: the listing of untracked
	// files is the longer wait and runs on one core, and a diff whose
	// threads take the other core too only slows it down.
	diff, err := gitRawOutput(c.repo.Root, "-c", "core.preloadIndex=false", "diff", "--name-only", "-z", "--no-renames", rev, "--")
	<-c.done
	if err != nil {
		return nil, err
	}
	if c.err != nil {
		return nil, c.err
	}
	var out []string
	for _, list := range [][]byte{diff, c.untracked} {
		for p := range bytes.SplitSeq(list, []byte{0}) {
			if len(p) > 0 {
				out = append(out, string(p))
			}
		}
	}
	return out, nil
}

// gitRawOutput is gitOutput without the trimming: a NUL-separated list
// keeps a name that starts or ends with a space as it is.
func gitRawOutput(dir string, args ...string) ([]byte, error) {
	cmd := gitCommand(dir, args...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &limitWriter{w: &errb, n: 4096}
	if err := cmd.Run(); err != nil {
		return nil, &commandError{args: args, err: err, stderr: strings.TrimSpace(errb.String())}
	}
	return out.Bytes(), nil
}
