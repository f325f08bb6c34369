// Package history proves that a run's append-only files only grew since a
// base revision: state.json steps[], the handoff and report arrays, the gate
// events log, the evidence log, the roadmap's task queue, and every artifact
// the base evidence log names.
//
// Each layout declares its append-only files and how each may grow
// (layout.Layout.AppendOnly); every way of growing is implemented here. Head documents are the ones the checker already
// parsed; base versions are read through a Base and parsed with the same
// parsers. Every finding points at the first head line or element that
// diverges and quotes the base and head values.
package history

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"path"
	"slices"
	"strings"
	"sync"

	"github.com/h3a-check/h3a-check/internal/finding"
	"github.com/h3a-check/h3a-check/internal/gitrev"
	"github.com/h3a-check/h3a-check/internal/jsonpos"
	"github.com/h3a-check/h3a-check/internal/layout"
	"github.com/h3a-check/h3a-check/internal/ledger"
	"github.com/h3a-check/h3a-check/internal/rundir"
)

// Base gives the base version of a run's files; paths are relative to the
// run. exists is false for a file the base does not hold.
type Base interface {
	Read(path string) (data []byte, exists bool, err error)
	Stream(path string, fn func(io.Reader) error) (exists bool, err error)
	// List gives every file of the run at the base, relative to the run,
	// so a table entry that names a family of files (a pattern) is
	// expanded against what the base holds.
	List() ([]string, error)
	// Attributes gives the .gitattributes files that apply to a file of
	// the run at the base, from the repository's top down to the file's
	// folder, and the file's path relative to the top.
	Attributes(path string) (files []AttrFile, top string, err error)
}

// At is the base of the run at dir (relative to the repository's top level,
// "" for the top level itself) in commit of tree.
func At(tree gitrev.Tree, commit, dir string) Base {
	return &treeBase{tree: tree, commit: commit, dir: dir}
}

// treeIDer is a Tree that can name a folder's tree object (gitrev.Repo).
type treeIDer interface {
	TreeID(rev, dir string) (oid string, exists bool, err error)
}

// folderReader is a Tree that reads folders and contents by object name in
// batches, one round trip for many (gitrev.Repo).
type folderReader interface {
	Folders(rev string, dirs []string) ([]*gitrev.Folder, error)
	KeptFolder(commit, dir string) (*gitrev.Folder, error)
	Blobs(rev string, oids, names []string) ([]gitrev.Blob, error)
}

type treeBase struct {
	tree        gitrev.Tree
	commit, dir string

	once   sync.Once
	rev    string // what files are read relative to: a tree, or commit with dir
	prefix string
	absent bool // the run's folder does not exist at the base
	err    error
	// known holds the files settled by prepare, by path relative to the
	// run; other files are read one by one.
	known map[string]baseFile
}

// baseFile is what prepare learnt of one file at the base.
type baseFile struct {
	exists bool
	same   bool   // identical to the head's bytes: never read
	data   []byte // the content, when it differs from head
	err    error  // concerns this file only
}

// resolve reads files through the run folder's own tree when the reader
// can name it: one lookup from the top of the commit per run instead of
// one per file.
func (b *treeBase) resolve() error {
	b.once.Do(func() {
		b.rev, b.prefix = b.commit, b.dir
		t, ok := b.tree.(treeIDer)
		if !ok {
			return
		}
		oid, exists, err := t.TreeID(b.commit, b.dir)
		switch {
		case errors.Is(err, gitrev.ErrNotFile):
			b.absent = true // a file where the run's folder is: no run at the base
		case err != nil:
			b.err = err
		case !exists:
			b.absent = true
		default:
			b.rev, b.prefix = oid, ""
		}
	})
	return b.err
}

// prepare settles the base version of files (relative to the run) in two
// round trips whatever their number: one reads the folders that hold them,
// which names each file's content; the other reads the contents that
// differ from head (head[path] is the head's bytes, nil when head has no
// parsed version to compare, so only existence matters). A file whose
// content has the name of head's bytes is identical and is not read.
// Readers that cannot do this read file by file later, as before.
func (b *treeBase) prepare(files []string, head map[string][]byte) error {
	fr, ok := b.tree.(folderReader)
	if !ok {
		return nil
	}
	ran := false
	b.once.Do(func() {
		ran = true
		b.err = b.prepareFrom(fr, files, head)
	})
	if !ran {
		return nil // already resolved file by file
	}
	return b.err
}

func (b *treeBase) prepareFrom(fr folderReader, files []string, head map[string][]byte) error {
	b.rev, b.prefix = b.commit, b.dir
	// The run's folder is found in the folder that holds it, read once for
	// all its runs; then the run's folders are read from the run's own
	// tree, which git searches without walking the big folder again.
	root, rootDir := b.commit, b.dir
	if b.dir != "" {
		parent, name := path.Split(b.dir)
		holder, err := fr.KeptFolder(b.commit, strings.TrimSuffix(parent, "/"))
		switch {
		case gitrev.IsFileError(err):
			// An outsized folder: search from the commit.
		case err != nil:
			return err
		case holder == nil:
			b.absent = true
			return nil
		default:
			e, ok := holder.Entries[name]
			if !ok || e.Mode != 0o40000 {
				b.absent = true // nothing, or a file where the run's folder is
				return nil
			}
			root, rootDir = e.OID, ""
		}
	}
	// The run's folder first: its absence means no run at the base.
	dirs, index := []string{rootDir}, map[string]int{"": 0}
	for _, f := range files {
		d := path.Dir(f)
		if d == "." {
			d = ""
		}
		if _, ok := index[d]; !ok {
			index[d] = len(dirs)
			dirs = append(dirs, path.Join(rootDir, d))
		}
	}
	folders, err := fr.Folders(root, dirs)
	if gitrev.IsFileError(err) {
		return nil // an outsized folder: read file by file
	}
	if err != nil {
		return err
	}
	if folders[0] == nil {
		b.absent = true
		return nil
	}
	b.rev, b.prefix = folders[0].OID, ""
	b.known = map[string]baseFile{}
	var oids, names, reads []string
	for _, f := range files {
		if _, done := b.known[f]; done {
			continue
		}
		d := path.Dir(f)
		if d == "." {
			d = ""
		}
		folder := folders[index[d]]
		var e gitrev.Entry
		found := false
		if folder != nil {
			e, found = folder.Entries[path.Base(f)]
		}
		switch {
		case !found:
			b.known[f] = baseFile{}
		case !e.IsFile():
			kind := "tree"
			if e.Mode == 0o160000 {
				kind = "commit" // a submodule, as git's own answer names it
			}
			b.known[f] = baseFile{exists: true, err: fmt.Errorf("%s at %s is a %s: %w", f, gitrev.Short(b.commit), kind, gitrev.ErrNotFile)}
		case head[f] == nil:
			b.known[f] = baseFile{exists: true}
		case gitrev.BlobID(head[f], len(e.OID)) == e.OID:
			b.known[f] = baseFile{exists: true, same: true}
		default:
			b.known[f] = baseFile{exists: true}
			oids, names, reads = append(oids, e.OID), append(names, f), append(reads, f)
		}
	}
	if len(oids) == 0 {
		return nil
	}
	blobs, err := fr.Blobs(b.commit, oids, names)
	if err != nil {
		return err
	}
	for i, f := range reads {
		bf := baseFile{exists: blobs[i].Exists, data: blobs[i].Data, err: blobs[i].Err}
		if !bf.exists && bf.err == nil {
			// The folder named it, the object store does not have it: a
			// broken or partial clone, not a new file.
			return fmt.Errorf("%s at %s: object %s is missing from the repository", f, gitrev.Short(b.commit), oids[i])
		}
		b.known[f] = bf
	}
	return nil
}

func (b *treeBase) Read(p string) ([]byte, bool, error) {
	if err := b.resolve(); err != nil || b.absent {
		return nil, false, err
	}
	return b.tree.Read(b.rev, path.Join(b.prefix, p))
}

// lookup is what prepare settled about p; ok is false when p was not
// prepared (then Read reads it).
func (b *treeBase) lookup(p string) (baseFile, bool) {
	if err := b.resolve(); err != nil {
		return baseFile{}, false
	}
	if b.absent {
		return baseFile{}, true
	}
	k, ok := b.known[p]
	return k, ok
}

func (b *treeBase) Stream(p string, fn func(io.Reader) error) (bool, error) {
	if err := b.resolve(); err != nil || b.absent {
		return false, err
	}
	return b.tree.Stream(b.rev, path.Join(b.prefix, p), fn)
}

func (b *treeBase) Attributes(p string) ([]AttrFile, string, error) {
	top := path.Join(b.dir, p)
	var out []AttrFile
	for _, dir := range attrDirs(top) {
		data, exists, err := b.tree.Read(b.commit, path.Join(dir, ".gitattributes"))
		if err != nil && !gitrev.IsFileError(err) {
			return nil, top, err
		}
		if exists && err == nil {
			out = append(out, AttrFile{Dir: dir, Data: data})
		}
	}
	return out, top, nil
}

func (b *treeBase) List() ([]string, error) {
	if err := b.resolve(); err != nil || b.absent {
		return nil, err
	}
	files, err := b.tree.List(b.rev, b.prefix)
	if err != nil {
		return nil, err
	}
	out := make([]string, 0, len(files))
	for _, f := range files {
		if b.prefix != "" {
			var ok bool
			if f, ok = strings.CutPrefix(f, b.prefix+"/"); !ok {
				continue
			}
		}
		out = append(out, f)
	}
	return out, nil
}

// Head is the run as it is in the working tree.
type Head struct {
	Layout string
	// Run holds the documents the checker parsed; none is read again.
	Run *layout.Run
	// Open opens a file of the run, confined to it; exists is false when
	// nothing is there.
	Open func(path string) (r io.ReadCloser, exists bool, err error)
	// Sums holds the SHA-256 (hex) of files already hashed, by path, so an
	// unchanged artifact is not read twice.
	Sums map[string]string
	// Dir is the run's folder as reports name it, RepoDir its folder from
	// the repository's top level: a finding's remediation names the git
	// command that restores its file by them (see Restore).
	Dir, RepoDir string
	// BaseLayout is true when Layout is the run's layout at the base, not
	// the one it has in head (its documents were loaded under the base's
	// layout): no other check reports a required file of that layout
	// missing, so the comparison does.
	BaseLayout bool
}

// parsedBytes maps each of paths that head holds parsed to its bytes.
func (h Head) parsedBytes(paths []string) map[string][]byte {
	out := make(map[string][]byte, len(paths))
	if h.Run == nil {
		return out
	}
	for _, p := range paths {
		if d := h.Run.Docs[p]; d != nil && d.Present && d.Parsed && d.Data != nil {
			out[p] = d.Data
		}
	}
	return out
}

// Result is the comparison of one run with its base.
type Result struct {
	// New is true when the run does not exist at the base: nothing was
	// compared, and Findings holds the one info finding that says so.
	New      bool
	Findings []finding.Finding
	// NewEvents holds, for each gates ledger of the run (by path), the
	// head lines of its events that the base does not hold: all of them
	// for a new run, or when the base's version could not be compared.
	// Only these can be a decision made in the change under review.
	NewEvents map[string][]int
	// Held names the append-only files of the run (by path) that the base
	// holds. A file the base holds never changes (or it is a finding of
	// its own), so only the others can be written by the change.
	Held map[string]bool
}

// Compare checks every append-only file of the run against its base
// version. commit names the base in messages. An error means the base could
// not be read at all (the reader broke); a problem with one file is a
// finding.
func Compare(head Head, base Base, commit string) (Result, error) {
	lay := layout.ByID(head.Layout)
	if lay == nil {
		return Result{}, fmt.Errorf("unknown layout %q", head.Layout)
	}
	rules, err := rulesOf(lay)
	if err != nil {
		return Result{}, err
	}
	c := &comparison{head: head, base: base, commit: gitrev.Short(commit), compared: map[string]compared{}}
	type work struct {
		rule  fileRule
		files []layout.File
	}
	var todo []work
	var paths, ledgers []string
	// claimed: a file two patterns match is compared by the rules of the
	// first only (as layout.Expand lists it once); a file may still have
	// several rules of its own.
	claimed := map[string]string{}
	for _, rule := range rules {
		if rule.events {
			ledgers = append(ledgers, rule.Path)
		}
		spec, _ := layoutFile(lay, rule.Path)
		expanded, err := c.expand(spec)
		if err != nil {
			return Result{}, err
		}
		var files []layout.File
		for _, f := range expanded {
			if by, ok := claimed[f.Path]; !ok || by == spec.Path {
				claimed[f.Path] = spec.Path
				files = append(files, f)
			}
		}
		todo = append(todo, work{rule, files})
		for _, f := range files {
			paths = append(paths, f.Path)
		}
	}
	if tb, ok := base.(*treeBase); ok {
		if err := tb.prepare(paths, head.parsedBytes(paths)); err != nil {
			return Result{}, err
		}
	}
	found := false
	for _, w := range todo {
		rule := w.rule
		for _, file := range w.files {
			// A file with several rules is read and paired once, so a file
			// removed or unreadable is one finding, not one per rule.
			prev, paired := c.compared[file.Path]
			p, exists := prev.p, prev.exists
			if !paired {
				var err error
				if p, exists, err = c.pair(file); err != nil {
					return Result{}, err
				}
				c.compared[file.Path] = compared{p, exists}
			}
			found = found || exists
			if p == nil {
				if exists && rule.Artifacts != nil && !c.headHas(file.Path) {
					// The log is gone, the artifacts it logged at the base
					// are not: they still may never change.
					if err := c.artifactsOfRemovedLog(file, rule); err != nil {
						return Result{}, err
					}
				}
				continue
			}
			c.add(rule.Check(p)...)
			if rule.Artifacts != nil {
				if err := c.artifacts(rule.Artifacts(p.base.ledger), p); err != nil {
					return Result{}, err
				}
			}
		}
	}
	if !found {
		return Result{New: true, Findings: []finding.Finding{
			finding.NewRun.New("", "run is new since base %s: no history to compare", c.commit),
		}, NewEvents: c.newEvents(ledgers, true)}, nil
	}
	held := map[string]bool{}
	for p, cmp := range c.compared {
		if cmp.exists {
			held[p] = true
		}
	}
	return Result{Findings: c.findings, NewEvents: c.newEvents(ledgers, false), Held: held}, nil
}

type comparison struct {
	head     Head
	base     Base
	commit   string // abbreviated
	findings []finding.Finding
	// compared holds each file paired so far, so that a later rule can
	// read what an earlier file gained since the base.
	compared map[string]compared
}

// compared is one file's pairing: p is nil when there was nothing to
// compare, exists tells whether the base holds the file.
type compared struct {
	p      *pair
	exists bool
}

// add keeps findings, their remediations naming the base commit and the
// finding's file (an artifact's finding fills in the artifact first).
func (c *comparison) add(fs ...finding.Finding) {
	for i := range fs {
		fs[i].Remediation = c.restore(fs[i].Remediation, fs[i].File)
	}
	c.findings = append(c.findings, fs...)
}

func (c *comparison) restore(remediation, target string) string {
	return FillRestoreCommands(remediation, BaseVersion{Commit: c.commit, Dir: c.head.Dir, RepoDir: c.head.RepoDir, Target: target})
}

// version is one side of a file: its parsed JSON or ledger.
type version struct {
	json   *jsonpos.Document
	lines  *jsonpos.Lines // JSON Lines documents
	ledger any
}

// pair is one file at base and in head, both parsed, handed to a rule.
type pair struct {
	path       string
	commit     string
	base, head version
	c          *comparison // the run's comparison, for rules that read another file
}

// pair reads and parses the base version of file and pairs it with the
// head's. It returns nil when there is nothing to compare: the file is new,
// is missing in head (already a finding), or one side cannot be parsed (an
// info finding says so). exists reports whether the base holds the file.
func (c *comparison) pair(file layout.File) (p *pair, exists bool, err error) {
	var data []byte
	same, settled := false, false
	if tb, ok := c.base.(*treeBase); ok {
		var k baseFile
		if k, settled = tb.lookup(file.Path); settled {
			data, exists, err, same = k.data, k.exists, k.err, k.same
		}
	}
	if !settled {
		data, exists, err = c.base.Read(file.Path)
	}
	if err != nil {
		if !gitrev.IsFileError(err) {
			return nil, false, err
		}
		c.baseUnreadable(file.Path, "the base version cannot be read: %v", err)
		return nil, true, nil
	}
	if !exists {
		return nil, false, nil
	}
	hd := c.head.Run.Docs[file.Path]
	if (hd == nil || !hd.Present) && (c.head.BaseLayout || !(file.Required && !file.IsPattern())) {
		// A required file that is missing is already an error of its own;
		// an optional one, or one of a family, would go unnoticed.
		c.add(finding.FileRemoved.New(file.Path, "%s exists at base %s but not in head; files of a run are never deleted", file.Path, c.commit))
		return nil, true, nil
	}
	if hd == nil || !hd.Present || !hd.Parsed {
		return nil, true, nil // already an error of its own
	}
	p = &pair{path: file.Path, commit: c.commit, c: c}
	p.head = version{json: hd.JSON, lines: hd.Lines, ledger: hd.Ledger}
	if same {
		// The base holds head's very bytes, which the same parsers made
		// into head's documents: compare those rather than parse again.
		p.base = p.head
		return p, true, nil
	}
	switch file.Kind {
	case layout.JSON:
		doc, problems := jsonpos.Parse(data)
		if doc == nil {
			c.baseUnreadable(file.Path, "the base version at %s is not valid JSON", c.commit)
			return nil, true, nil
		}
		p.base.json = doc
		if !bytes.Equal(data, hd.Data) {
			c.duplicateKeys(file.Path, problems)
		}
	case layout.JSONLines:
		var problems []jsonpos.Problem
		p.base.lines, problems = jsonpos.ParseLines(data)
		if !bytes.Equal(data, hd.Data) {
			c.duplicateKeys(file.Path, problems)
		}
	case layout.Markdown:
		v, problems := file.ParseLedger(data)
		if v == nil {
			c.baseUnreadable(file.Path, "the base version at %s cannot be parsed", c.commit)
			return nil, true, nil
		}
		p.base.ledger = v
		c.unreadRecords(file.Path, data, hd.Data, problems)
	}
	return p, true, nil
}

// duplicateKeys: a member the base's version writes twice is compared by
// its later value only, as the parser keeps it, while a reader of the file
// sees both. A change that drops or rewrites the earlier one ("status":
// "failed" before "status": "passed" in a step) leaves the values compared
// as they were, yet changes what the base showed. So whenever head's bytes
// differ from such a base, a person compares (a head that still writes the
// member twice fails on its own duplicate key anyway).
func (c *comparison) duplicateKeys(file string, problems []jsonpos.Problem) {
	for _, d := range problems {
		if d.Kind != jsonpos.DuplicateKey {
			continue
		}
		c.baseUnreadable(file, "the base version at %s writes member %s twice (the second time at line %d), and only its later value is compared, so a change to the earlier one would go unseen",
			c.commit, quoteText(d.Pointer), d.Line)
	}
}

// unreadRecords: a line of the base's ledger written as a record but not
// read as one (a malformed gate event, evidence entry or task) is compared
// by its text, since the records compared leave it out: it must still be
// in head as it was. A change could otherwise rewrite it ("G2_validation
// FAILED validator" into a well-formed PASSED event) and pass as one that
// only appended. Whether head's version corrects it or rewrites it cannot
// be told, so a person compares.
func (c *comparison) unreadRecords(file string, base, head []byte, problems []ledger.Problem) {
	var lines []int
	for _, p := range problems {
		if ledger.UnreadRecord(p) && !slices.Contains(lines, p.Line) {
			lines = append(lines, p.Line)
		}
	}
	if len(lines) == 0 {
		return
	}
	left := map[string]int{}
	for _, l := range strings.Split(string(head), "\n") {
		left[strings.TrimSpace(l)]++
	}
	baseLines := strings.Split(string(base), "\n")
	slices.Sort(lines)
	for _, n := range lines {
		if n < 1 || n > len(baseLines) {
			continue
		}
		text := strings.TrimSpace(baseLines[n-1])
		if left[text] > 0 {
			left[text]--
			continue
		}
		c.baseUnreadable(file, "line %d of the base version at %s, %s, is written as a record but was not read as one there (malformed), and head no longer holds it as it was",
			n, c.commit, quoteText(text))
	}
}

// headHas reports whether head holds the file p of its layout.
func (c *comparison) headHas(p string) bool {
	hd := c.head.Run.Docs[p]
	return hd != nil && hd.Present
}

// artifactsOfRemovedLog compares the artifacts that the base version of an
// evidence log names, when head no longer holds the log.
func (c *comparison) artifactsOfRemovedLog(file layout.File, rule fileRule) error {
	if file.Kind != layout.Markdown || file.ParseLedger == nil {
		return nil
	}
	data, exists, err := c.base.Read(file.Path)
	if err != nil {
		if !gitrev.IsFileError(err) {
			return err
		}
		c.baseUnreadable(file.Path, "the base version cannot be read: %v", err)
		return nil
	}
	if !exists {
		return nil
	}
	v, _ := file.ParseLedger(data)
	if v == nil {
		c.baseUnreadable(file.Path, "the base version at %s cannot be parsed", c.commit)
		return nil
	}
	p := &pair{path: file.Path, commit: c.commit, c: c, base: version{ledger: v}}
	return c.artifacts(rule.Artifacts(v), p)
}

// expand lists the files a table entry names: the file itself, or for a
// pattern every file of the base that matches it (a file only head has is
// new, with no history).
func (c *comparison) expand(spec layout.File) ([]layout.File, error) {
	if !spec.IsPattern() {
		return []layout.File{spec}, nil
	}
	listed, err := c.base.List()
	if err != nil {
		if gitrev.IsFileError(err) {
			c.baseUnreadable(spec.Path, "the base's files cannot be listed: %v", err)
			return nil, nil
		}
		return nil, err
	}
	var files []layout.File
	for _, p := range listed {
		if ok, _ := path.Match(spec.Path, p); ok {
			f := spec
			f.Path = p
			files = append(files, f)
		}
	}
	return files, nil
}

func (c *comparison) notEvaluated(file, format string, args ...any) {
	c.add(finding.NotEvaluated.New(file, "append-only check of %s against base %s not evaluated: %s",
		file, c.commit, fmt.Sprintf(format, args...)))
}

// baseUnreadable: the base holds file (or what it names) but its version
// there could not be read or parsed, so whether head only grew cannot be
// shown. Unlike a check not evaluated for want of head's document (whose
// own finding fails the run), nothing else would say so, and a change that
// repairs the file could rewrite its history in the same edit: a person
// compares.
func (c *comparison) baseUnreadable(file, format string, args ...any) {
	f := finding.BaseUnreadable.New(file, "append-only check of %s against base %s not evaluated: %s; whether head only added to it cannot be shown, so a person must compare the two versions",
		file, c.commit, fmt.Sprintf(format, args...))
	f.NeedsHuman = true
	c.add(f)
}

func layoutFile(lay layout.Layout, p string) (layout.File, bool) {
	for _, f := range lay.Files() {
		if f.Path == p {
			return f, true
		}
	}
	return layout.File{}, false
}

// isLayoutFile reports whether p is one of the layout's own documents,
// which change under their own rules rather than never.
func isLayoutFile(lay layout.Layout, p string) bool {
	_, ok := layoutFile(lay, p)
	return ok
}

// OpenIn returns a Head.Open that reads through a confined run root.
func OpenIn(root *rundir.Root) func(string) (io.ReadCloser, bool, error) {
	return func(p string) (io.ReadCloser, bool, error) {
		f, _, prob := root.Open(p)
		if prob != nil {
			if prob.Kind == rundir.Missing {
				return nil, false, nil
			}
			return nil, true, prob
		}
		return f, true, nil
	}
}
