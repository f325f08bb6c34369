// Package trust decides where repository-local policy folders and the
// configuration file are read from.
//
// Whose working tree is this? On a machine where nothing says otherwise
// (not in CI, no --base), it is the person's own: their rules and
// configuration are read as they are, committed or not. In CI, or when a
// base revision is named with --base, the working tree is the change
// under review, and so are policies/ and .h3a-check.yaml in it: a change
// could weaken the rules that judge it. Then they are read from a revision
// the change cannot write (gitrev.ChooseRulesBase: in CI the target the
// event or the CI names, else the default branch; or the --base given,
// in CI only when it lies in the target's history: ConfineRulesBase),
// by path, as git objects: whatever the working tree
// holds at that path (a link, a folder, nothing) never changes which
// objects are read, and what the working tree holds differently is
// reported as a Change a reviewer sees. --trust-working-tree (for the
// change that edits the rules on purpose) reads the working tree anyway,
// and is recorded. Policies embedded in the binary are always trusted and
// never pass through here.
package trust

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/h3a-check/h3a-check/internal/gitrev"
)

// Origin is where something was read from.
type Origin string

const (
	Embedded    Origin = "embedded"
	Base        Origin = "base"
	WorkingTree Origin = "working-tree"
)

// Boundary is the trust decision of one check. The zero Boundary reads
// the working tree.
type Boundary struct {
	fromBase bool // read repository-local rules from a base revision
	why      Why
	reason   string // why, for the audit and the text report
	locator  *gitrev.Locator
	asked    string
	getenv   func(string) string
	bases    *baseCache
	// againstHead reads the rules at HEAD and compares with HEAD: a commit
	// of the index is checked against its parent (--staged).
	againstHead bool
	// rangeStart, when set, is where a range of commits under review
	// starts (pre-commit's --from-ref): the rules are read there, since
	// HEAD is the range's own last commit.
	rangeStart string
}

type baseCache struct {
	mu    sync.Mutex
	bases map[*gitrev.Repo]rulesAndDiff
}

// InCI reports whether the environment says the check runs in CI: CI,
// GITHUB_ACTIONS or another CI service's own variable set (gitrev.InCI).
func InCI(getenv func(string) string) bool { return gitrev.InCI(getenv) }

// New decides where this check reads repository-local rules from. asked
// is the --base of the command line (never one from the configuration
// file being decided about).
func New(l *gitrev.Locator, asked string, getenv func(string) string, trustWorkingTree bool) Boundary {
	b := Boundary{locator: l, asked: asked, getenv: getenv, bases: &baseCache{}}
	switch {
	case trustWorkingTree:
		b.why, b.reason = WhyTrusted, "the working tree is trusted on request"
	case InCI(getenv):
		b.fromBase, b.why, b.reason = true, WhyCI, "in CI the working tree is the change under review"
	case asked != "" && asked != gitrev.None:
		b.fromBase, b.why, b.reason = true, WhyBase, "the base revision "+asked+" was asked for"
	default:
		b.why, b.reason = WhyLocal, "not in CI and no base revision asked for: the working tree is your own"
	}
	return b
}

// Why is why a boundary reads the rules where it does.
type Why int

const (
	WhyTrusted Why = iota + 1 // the caller trusts the working tree
	WhyCI                     // in CI the working tree is the change under review
	WhyBase                   // a base revision was asked for
	WhyLocal                  // not in CI, no base asked for: the working tree is the user's own
)

// Worded makes b give reasons in the words of its caller's user, who
// knows each ask by how they made it (the command line: its flags). words
// returns "" to keep a reason as New words it.
func (b Boundary) Worded(words func(Why) string) Boundary {
	if w := words(b.why); w != "" {
		b.reason = w
	}
	return b
}

// AgainstHead makes b read the rules at HEAD, and tell what the working
// tree edits against HEAD, where it reads a revision at all: a commit of
// the index is checked against its parent (--staged).
func (b Boundary) AgainstHead() Boundary {
	b.againstHead = true
	return b
}

// AgainstRangeStart makes b read the rules at from, the revision a range of
// commits under review starts at (pre-commit run --from-ref from), where
// it reads a revision at all (in CI). HEAD is the range's last commit,
// written by the change itself.
func (b Boundary) AgainstRangeStart(from string) Boundary {
	b.rangeStart = from
	return b
}

// FromBase reports whether repository-local rules are read from a base
// revision.
func (b Boundary) FromBase() bool { return b.fromBase }

// Source records where one policy folder or configuration file was read
// from, for audit.json and the text report.
type Source struct {
	Path   string `json:"path"`
	Origin Origin `json:"origin"`
	Commit string `json:"commit,omitempty"` // the base, when Origin is Base
	// Ignored lists files (relative to Path) that exist only in the working
	// tree and were not used; "." when Path itself is such a file or folder.
	Ignored []string `json:"ignored,omitempty"`
	Reason  string   `json:"reason"`
	// Changes are the differences between what was read from the base and
	// what the working tree holds: the change under review edits the rules,
	// and its edits apply once it is merged.
	Changes []Change `json:"-"`
}

// Change is one difference between a rule or configuration file at the
// base and in the working tree.
type Change struct {
	Path string // as the user would write it: the source's Path joined with the file
	What string // lower-case, says what differs, e.g. "is only in the working tree"
}

// String is the text report's line: `policies/: commit 1a2b3c4d5e6f (…)`.
func (s Source) String() string {
	where := string(s.Origin)
	if s.Origin == Base {
		where = "commit " + gitrev.Short(s.Commit)
	}
	return fmt.Sprintf("%s: %s (%s)", s.Path, where, s.Reason)
}

// target is where a path is read from: the working tree, or a repository
// and commit with the path relative to its top.
type target struct {
	repo   *gitrev.Repo
	commit string // the rules are read from this commit
	// since is the commit the change under review is compared with to
	// tell what it edits: the history's base (on a pull request, the merge
	// base), or commit when the history has none.
	since  string
	rel    string
	reason string // when the working tree is read although a base is asked for
	from   string // which revision commit is and why it was chosen
}

// locate finds the base that p is read from. With no base in use, or
// outside any git work tree, the target has no repo.
func (b Boundary) locate(p string) (target, error) {
	if !b.fromBase {
		return target{}, nil
	}
	repo, rel, err := b.locator.RepoOf(p)
	if errors.Is(err, gitrev.ErrNotWorkTree) {
		return target{reason: "not inside a git work tree, so there is no base to read from"}, nil
	}
	if err != nil {
		return target{}, err
	}
	if rel == "" {
		return target{}, fmt.Errorf("%s is the top of the repository, not a file or folder in it", p)
	}
	bases, err := b.bases.get(repo, func() (rulesAndDiff, error) {
		if b.rangeStart != "" {
			sha, err := repo.Resolve(b.rangeStart)
			name := gitrev.Short(sha)
			if b.rangeStart != sha {
				name = b.rangeStart + " " + name
			}
			start := gitrev.Base{Commit: sha, From: name + " (where the range under review starts, PRE_COMMIT_FROM_REF)"}
			if err != nil {
				return rulesAndDiff{}, err
			}
			rules, err := gitrev.ConfineRulesBase(repo, start, b.getenv)
			// What the change edits is told against the revision the
			// rules come from when they do not come from the range.
			return rulesAndDiff{rules, rules}, err
		}
		if b.againstHead {
			head, err := gitrev.HeadBase(repo)
			return rulesAndDiff{head, head}, err
		}
		rules, err := gitrev.ChooseRulesBase(repo, b.asked, b.getenv)
		if err != nil {
			return rulesAndDiff{}, err
		}
		diff, err := gitrev.ChooseBase(repo, b.asked, b.getenv)
		if err != nil {
			return rulesAndDiff{}, err
		}
		return rulesAndDiff{rules, diff}, nil
	})
	if err != nil {
		return target{}, fmt.Errorf("cannot decide where to read %s from: %w", p, err)
	}
	if bases.rules.Commit == "" {
		return target{reason: bases.rules.Skip}, nil
	}
	t := target{repo: repo, commit: bases.rules.Commit, since: bases.diff.Commit, rel: rel, from: bases.rules.From}
	if t.since == "" {
		t.since = t.commit
	}
	return t, nil
}

// rulesAndDiff are a repository's two bases: the rules revision, and the
// revision the change is compared with.
type rulesAndDiff struct{ rules, diff gitrev.Base }

func (c *baseCache) get(repo *gitrev.Repo, choose func() (rulesAndDiff, error)) (rulesAndDiff, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if b, ok := c.bases[repo]; ok {
		return b, nil
	}
	b, err := choose()
	if err != nil {
		return b, err
	}
	if c.bases == nil {
		c.bases = map[*gitrev.Repo]rulesAndDiff{}
	}
	c.bases[repo] = b
	return b, nil
}

// MaxFileSize bounds a configuration or policy file, at the base and in
// the working tree alike.
const MaxFileSize = 1 << 20

// maxPolicyFiles bounds the files of one policy folder.
const maxPolicyFiles = 10000

// File reads a configuration file at p. exists is false when there is
// nothing to use (the caller falls back to its defaults, or refuses an
// explicit file): nothing at p where it is read from. At a base, a link
// or a folder at p, or a link on the way to it, is an error: the base's
// rules must be readable as a file, never silently missing.
func (b Boundary) File(p string) (data []byte, src Source, exists bool, err error) {
	src = Source{Path: p}
	t, err := b.locate(p)
	if err != nil {
		return nil, src, false, err
	}
	if t.repo == nil {
		src.Origin, src.Reason = WorkingTree, b.reasonFor(t)
		data, err := readRegular(p)
		if errors.Is(err, fs.ErrNotExist) {
			return nil, src, false, nil
		}
		return data, src, err == nil, err
	}
	src.Origin, src.Commit, src.Reason = Base, t.commit, b.reasonAt(t)
	data, found, err := readFileAt(t, t.commit)
	if err != nil {
		return nil, src, false, fmt.Errorf("%s: %w", p, err)
	}
	wt := workingFile(t.repo.Root, t.rel)
	since, sinceFound := data, found
	if t.since != t.commit {
		// What the change edits is told against its own base; content
		// that is not a plain file there differs from any file.
		if since, sinceFound, err = readFileAt(t, t.since); err != nil {
			since, sinceFound = nil, true
		}
	}
	if what := compareFile(sinceFound, since, wt); what != "" {
		src.Changes = []Change{{Path: p, What: what}}
	}
	if !found && wt.kind != absent {
		src.Ignored = []string{"."}
	}
	return data, src, found, nil
}

// readFileAt reads the file at t.rel in commit: found is false when
// nothing is there; a link, a folder, or a link on the way is an error.
func readFileAt(t target, commit string) (data []byte, found bool, err error) {
	e, found, err := t.repo.Lookup(commit, t.rel)
	if err != nil || !found {
		return nil, false, errAt(err, commit)
	}
	data, err = readBlob(t.repo, commit, t.rel, e)
	return data, err == nil, err
}

func errAt(err error, commit string) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("at base %s: %w", gitrev.Short(commit), err)
}

// reasonAt says why the rules were read at a revision, and which it is.
func (b Boundary) reasonAt(t target) string {
	if t.from == "" {
		return b.reason
	}
	return b.reason + "; read at " + t.from
}

// reasonFor says why the working tree is read.
func (b Boundary) reasonFor(t target) string {
	if t.reason != "" {
		return t.reason
	}
	if b.reason == "" {
		return "no base revision in use"
	}
	return b.reason
}

// readBlob reads a regular file's content at a base; any other entry (a
// link, a folder, a submodule) is an error.
func readBlob(repo *gitrev.Repo, commit, rel string, e gitrev.Entry) ([]byte, error) {
	at := gitrev.Short(commit)
	switch {
	case e.Mode == gitrev.ModeLink:
		return nil, fmt.Errorf("is a symbolic link at base %s; a rule or configuration file must be a regular file", at)
	case e.Mode == gitrev.ModeFolder:
		return nil, fmt.Errorf("is a folder at base %s, not a file", at)
	case e.Mode&0o170000 != 0o100000:
		return nil, fmt.Errorf("is not a regular file at base %s (mode %o)", at, e.Mode)
	}
	data, ok, err := repo.Read(commit, rel)
	switch {
	case err != nil:
		return nil, err
	case !ok:
		return nil, fmt.Errorf("vanished from base %s while it was read", at)
	case len(data) > MaxFileSize:
		return nil, fmt.Errorf("is larger than %d bytes at base %s", MaxFileSize, at)
	}
	return data, nil
}

// Dir gives the policy folder at p as a file system. exists is false when
// the folder is absent where it is read from. At a base, a link or a file
// at p, a link on the way to it, or a link inside it is an error.
func (b Boundary) Dir(p string) (fsys fs.FS, src Source, exists bool, err error) {
	src = Source{Path: p}
	t, err := b.locate(p)
	if err != nil {
		return nil, src, false, err
	}
	if t.repo == nil {
		src.Origin, src.Reason = WorkingTree, b.reasonFor(t)
		info, err := os.Stat(p)
		if errors.Is(err, fs.ErrNotExist) {
			return nil, src, false, nil
		}
		if err != nil {
			return nil, src, false, err
		}
		if !info.IsDir() {
			return nil, src, false, fmt.Errorf("%s is not a folder", p)
		}
		return os.DirFS(p), src, true, nil
	}
	src.Origin, src.Commit, src.Reason = Base, t.commit, b.reasonAt(t)
	base, found, err := readDirAt(t, t.commit)
	if err != nil {
		return nil, src, false, fmt.Errorf("%s %w", p, err)
	}
	since, sinceFound := base, found
	if t.since != t.commit {
		if since, sinceFound, err = readDirAt(t, t.since); err != nil {
			since, sinceFound = nil, true
		}
	}
	wt := workingFolder(t.repo.Root, t.rel)
	for _, c := range compareFolder(sinceFound, since, wt) {
		name := filepath.ToSlash(p)
		if c.file != "." {
			name = path.Join(name, c.file)
		}
		src.Changes = append(src.Changes, Change{Path: name, What: c.what})
	}
	for name := range wt {
		if _, ok := base[name]; !ok && found && name != "." {
			src.Ignored = append(src.Ignored, name)
		}
	}
	slices.Sort(src.Ignored)
	if !found {
		present := len(wt) > 0
		if top, ok := wt["."]; ok {
			present = top.kind != absent
		}
		if present {
			src.Ignored = []string{"."}
		}
		return nil, src, false, nil
	}
	return gitrev.MemFS(base), src, true, nil
}

// readDirAt reads every file of the folder at t.rel in commit, by its path
// relative to the folder: found is false when nothing is there; a link or
// a file there, a link on the way, or a link inside is an error.
func readDirAt(t target, commit string) (files map[string][]byte, found bool, err error) {
	at := gitrev.Short(commit)
	e, found, err := t.repo.Lookup(commit, t.rel)
	if err != nil || !found {
		return nil, false, errAt(err, commit)
	}
	switch {
	case e.Mode == gitrev.ModeLink:
		return nil, false, fmt.Errorf("is a symbolic link at base %s; a policy folder must be a folder", at)
	case e.Mode != gitrev.ModeFolder:
		return nil, false, fmt.Errorf("is a file at base %s, not a policy folder", at)
	}
	entries, err := t.repo.ListEntries(commit, t.rel)
	if err != nil {
		return nil, false, errAt(err, commit)
	}
	if len(entries) > maxPolicyFiles {
		return nil, false, fmt.Errorf("holds %d files at base %s, more than %d", len(entries), at, maxPolicyFiles)
	}
	files = map[string][]byte{}
	for full, fe := range entries {
		name := strings.TrimPrefix(full, t.rel+"/")
		data, err := readBlob(t.repo, commit, full, fe)
		if err != nil {
			return nil, false, fmt.Errorf("%s: %w", name, err)
		}
		files[name] = data
	}
	return files, true, nil
}

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

// entryKind is what the working tree holds at a path, found without
// following a link.
type entryKind int

const (
	absent entryKind = iota
	regular
	folder
	link    // the path itself is a link
	through // a folder on the way to the path is a link, or a file
	other   // a FIFO, socket or device
	tooBig
	unreadable
)

// wtEntry is one path of the working tree, with the content of a regular
// file.
type wtEntry struct {
	kind entryKind
	data []byte
	at   string // for through: the element that is not a folder
}

// workingFile describes the working tree at rel under root, following no
// link, and reads a regular file there.
func workingFile(root, rel string) wtEntry {
	cur := root
	parts := strings.Split(rel, "/")
	for i, el := range parts {
		cur = filepath.Join(cur, el)
		info, err := os.Lstat(cur)
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return wtEntry{kind: absent}
			}
			return wtEntry{kind: unreadable}
		}
		if i < len(parts)-1 {
			if !info.IsDir() {
				return wtEntry{kind: through, at: strings.Join(parts[:i+1], "/")}
			}
			continue
		}
		switch m := info.Mode(); {
		case m&fs.ModeSymlink != 0:
			return wtEntry{kind: link}
		case m.IsDir():
			return wtEntry{kind: folder}
		case !m.IsRegular():
			return wtEntry{kind: other}
		case info.Size() > MaxFileSize:
			return wtEntry{kind: tooBig}
		}
		data, err := readRegular(cur)
		if err != nil {
			return wtEntry{kind: unreadable}
		}
		return wtEntry{kind: regular, data: data}
	}
	return wtEntry{kind: absent}
}

// compareFile says how the working tree's entry differs from the base's
// file ("" when it does not).
func compareFile(atBase bool, base []byte, wt wtEntry) string {
	switch {
	case !atBase && wt.kind == absent:
		return ""
	case !atBase:
		return "is only in the working tree (" + kindText(wt) + ")"
	case wt.kind == regular && bytes.Equal(wt.data, base):
		return ""
	case wt.kind == regular:
		return "is edited in the working tree"
	case wt.kind == absent:
		return "is deleted in the working tree"
	}
	return "is replaced in the working tree by " + kindText(wt)
}

func kindText(wt wtEntry) string {
	switch wt.kind {
	case regular:
		return "a file"
	case folder:
		return "a folder"
	case link:
		return "a symbolic link"
	case through:
		return "a path through " + wt.at + ", which is a symbolic link or a file"
	case other:
		return "a special file"
	case tooBig:
		return fmt.Sprintf("a file over %d bytes", MaxFileSize)
	case unreadable:
		return "something that cannot be read"
	}
	return "nothing"
}

// workingFolder lists the working tree's folder at rel under root: each
// file below it by its path relative to the folder, with "." standing for
// the folder itself when it is not one.
func workingFolder(root, rel string) map[string]wtEntry {
	top := workingFile(root, rel)
	if top.kind != folder {
		return map[string]wtEntry{".": top}
	}
	dir := filepath.Join(root, filepath.FromSlash(rel))
	out := map[string]wtEntry{}
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if len(out) > maxPolicyFiles {
			return fs.SkipAll
		}
		r, rerr := filepath.Rel(dir, p)
		if rerr != nil || r == "." {
			return nil
		}
		r = filepath.ToSlash(r)
		if err != nil {
			out[r] = wtEntry{kind: unreadable}
			return nil
		}
		if d.IsDir() {
			return nil
		}
		out[r] = workingFile(dir, r)
		return nil
	})
	return out
}

type folderChange struct {
	file string // relative to the folder; "." for the folder itself
	what string
}

// maxChanges bounds the differences listed for one folder.
const maxChanges = 20

// compareFolder lists how the working tree's folder differs from the
// base's files, file by file, sorted.
func compareFolder(atBase bool, base map[string][]byte, wt map[string]wtEntry) []folderChange {
	if top, ok := wt["."]; ok {
		if !atBase {
			if top.kind == absent {
				return nil
			}
			return []folderChange{{file: ".", what: "is only in the working tree (" + kindText(top) + ")"}}
		}
		if top.kind == absent {
			return []folderChange{{file: ".", what: "is deleted in the working tree"}}
		}
		return []folderChange{{file: ".", what: "is replaced in the working tree by " + kindText(top)}}
	}
	if !atBase {
		return []folderChange{{file: ".", what: "is only in the working tree"}}
	}
	var out []folderChange
	for name, data := range base {
		e, ok := wt[name]
		if !ok {
			e = wtEntry{kind: absent}
		}
		if what := compareFile(true, data, e); what != "" {
			out = append(out, folderChange{file: name, what: what})
		}
	}
	for name, e := range wt {
		if _, ok := base[name]; !ok {
			out = append(out, folderChange{file: name, what: compareFile(false, nil, e)})
		}
	}
	slices.SortFunc(out, func(a, b folderChange) int { return strings.Compare(a.file, b.file) })
	if len(out) > maxChanges {
		rest := len(out) - maxChanges
		out = append(out[:maxChanges], folderChange{file: ".", what: fmt.Sprintf("has %d more files that differ from the base", rest)})
	}
	return out
}

// NamesBeside lists the names in the folder that holds the file p, where
// File(p) would read p: at the base, or in the working tree. Nothing when
// that folder is not there.
func (b Boundary) NamesBeside(p string) ([]string, error) {
	t, err := b.locate(p)
	if err != nil {
		return nil, err
	}
	if t.repo == nil {
		entries, err := os.ReadDir(filepath.Dir(p))
		if errors.Is(err, fs.ErrNotExist) {
			return nil, nil
		}
		if err != nil {
			return nil, err
		}
		names := make([]string, len(entries))
		for i, e := range entries {
			names[i] = e.Name()
		}
		return names, nil
	}
	dir := path.Dir(t.rel)
	if dir == "." {
		dir = ""
	}
	folders, err := t.repo.Folders(t.commit, []string{dir})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", p, errAt(err, t.commit))
	}
	if len(folders) == 0 || folders[0] == nil {
		return nil, nil
	}
	return slices.Sorted(maps.Keys(folders[0].Entries)), nil
}
