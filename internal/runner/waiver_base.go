// What a run held at its base, for the waivers: a base waiver was a
// person's decision about the findings that existed when it was written.

package runner

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"

	"github.com/h3a-check/h3a-check/internal/finding"
	"github.com/h3a-check/h3a-check/internal/gitrev"
	"github.com/h3a-check/h3a-check/internal/layout"
	"github.com/h3a-check/h3a-check/internal/rundir"
)

// baseTrees lists, once per repository and commit, the files a base
// records: the runs a check compares with one base share one listing.
type baseTrees struct {
	mu    sync.Mutex
	lists map[baseTreeKey]*baseTree
}

type baseTreeKey struct {
	repo   *gitrev.Repo
	commit string
}

type baseTree struct {
	once  sync.Once
	files []gitrev.SnapshotFile
	err   error
}

func (t *baseTrees) files(repo *gitrev.Repo, commit string) ([]gitrev.SnapshotFile, error) {
	t.mu.Lock()
	if t.lists == nil {
		t.lists = map[baseTreeKey]*baseTree{}
	}
	k := baseTreeKey{repo, commit}
	bt := t.lists[k]
	if bt == nil {
		bt = &baseTree{}
		t.lists[k] = bt
	}
	t.mu.Unlock()
	bt.once.Do(func() { bt.files, bt.err = repo.CommitFiles(commit) })
	return bt.files, bt.err
}

// findingsAtBase checks the run as commit records it at rel (its folder
// there, relative to the repository's top) with the same layout, rules and
// policies, and returns the key of each finding that check makes (keyOf,
// with the text of the line it names). The history is not compared: what the history stage finds
// is never the base's (newSinceBase). The copy is written to a private
// folder, through the same confinement as a staged check's runs, and
// removed after.
//
// same is true, and nothing is checked, when the run's files are the ones
// the base records there, byte for byte: the check would find what the
// run's own did.
func (c *checker) findingsAtBase(ctx context.Context, s *runState, display string, repo *gitrev.Repo, commit, rel string) (found []findingKey, same bool, err error) {
	files, err := c.atBase.files(repo, commit)
	if err != nil {
		return nil, false, fmt.Errorf("listing base %s: %w", gitrev.Short(commit), err)
	}
	if sameAsBase(s, files, rel) {
		return nil, true, nil
	}
	found, err = c.checkAtBase(ctx, s, display, repo, files, commit, rel)
	return found, false, err
}

// checkAtBase is findingsAtBase's check, of the run's files at the base
// written to a private folder.
func (c *checker) checkAtBase(ctx context.Context, s *runState, display string, repo *gitrev.Repo, files []gitrev.SnapshotFile, commit, rel string) ([]findingKey, error) {
	dest, err := os.MkdirTemp("", "h3a-check-base-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dest)
	if err := repo.Materialize(files, rel, dest); err != nil {
		return nil, fmt.Errorf("reading %s at base %s: %w", rel, gitrev.Short(commit), err)
	}
	root, err := rundir.OpenRoot(dest)
	if err != nil {
		return nil, err
	}
	defer root.Close()
	bc := &checker{
		rules: c.rules, record: c.record, workers: c.workers, maxJSONSize: c.maxJSONSize,
		policyLoad: c.policyLoad, hasher: c.hasher,
		hist: &historyPlan{outside: "the run as its base holds it"},
	}
	bs := &runState{lay: s.lay, root: root, run: &layout.Run{Dir: s.run.Dir, Docs: map[string]*rundir.Document{}}, inputs: map[string]string{}}
	run := rundir.Run{Dir: s.run.Dir, Display: display, Layout: s.lay.ID()}
	// What the run's folder held at the base: the runs inside it, and the
	// other layouts whose files it had, as discovery finds them.
	found, err := rundir.Search(os.DirFS(dest), ".", layout.Detectors())
	if err != nil {
		return nil, err
	}
	for _, f := range found {
		if f.Dir != "." {
			run.Holds = append(run.Holds, f.Dir)
			continue
		}
		for _, id := range append([]string{f.Layout}, f.Also...) {
			if id != run.Layout {
				run.Also = append(run.Also, id)
			}
		}
	}
	bc.placement(bs, run)
	if _, ok := bc.runStages(ctx, bs, run); !ok {
		return nil, errors.New("the policies did not compile")
	}
	if err := bc.fatal.get(); err != nil {
		return nil, err
	}
	bc.resolvePositions(bs)
	lines := fileLines(bs)
	out := make([]findingKey, len(bs.findings))
	for i, f := range bs.findings {
		out[i] = keyOf(f, lines)
	}
	return out, nil
}

// findingKey is what a finding is the same finding by in two versions of
// a run: its rule, where it is (file, pointer, and the text of its line,
// not the line's number, which moves when a file grows above it), and
// what it is about (gate, task). A finding that names no place is told by
// its details too.
type findingKey struct {
	rule, file, pointer, gate, task, text string
	noLine                                bool
}

func keyOf(f finding.Finding, lines func(file string, n int) (string, bool)) findingKey {
	k := findingKey{rule: f.Rule, file: f.File, pointer: f.Pointer, gate: f.Gate, task: f.TaskID}
	if f.Line > 0 && f.File != "" {
		if text, ok := lines(f.File, f.Line); ok {
			k.text = text
			return k
		}
	}
	k.noLine = true
	if f.Pointer == "" {
		k.text = f.Details
	}
	return k
}

// fileLines gives line n of a file of the run in s (readRunFile), each
// file read once; not ok when the file or the line cannot be read.
func fileLines(s *runState) func(file string, n int) (string, bool) {
	type read struct {
		data []byte
		err  error
	}
	files := map[string]read{}
	return func(file string, n int) (string, bool) {
		r, seen := files[file]
		if !seen {
			r.data, r.err = readRunFile(s, file)
			files[file] = r
		}
		if r.err != nil {
			return "", false
		}
		line, found := lineAt(r.data, n)
		return string(line), found
	}
}

// readRunFile is a file of the run as its check read it: a parsed
// document's bytes, else the file read through the run's root
// (readBounded; errMissing when there is none).
func readRunFile(s *runState, name string) ([]byte, error) {
	if d := s.run.Docs[name]; d != nil && d.Present {
		return d.Data, nil
	}
	return readBounded(s.root, name)
}

// sameAsBase tells whether the run's files are exactly the regular files
// files records under rel (relative to the repository's top, "" the top):
// the same names, and contents whose git object names are the recorded
// ones. Anything else (a link, a submodule, a file too large to compare,
// one that cannot be read) is not shown to be the same.
func sameAsBase(s *runState, files []gitrev.SnapshotFile, rel string) bool {
	atBase := map[string]gitrev.SnapshotFile{}
	for _, f := range files {
		name := f.Path
		if rel != "" {
			var ok bool
			if name, ok = strings.CutPrefix(f.Path, rel+"/"); !ok {
				continue
			}
		}
		atBase[name] = f
	}
	if len(atBase) != len(s.tree) {
		return false
	}
	for _, name := range s.tree {
		f, ok := atBase[name]
		if !ok || f.Mode != "100644" && f.Mode != "100755" || !sameObject(s.root, name, f.Object) {
			return false
		}
	}
	return true
}

// sameObject tells whether the run's file name is the blob oid: its git
// object name (gitrev.BlobIDOf), in the repository's hash (SHA-1, or
// SHA-256 for a name of 64 digits), is oid.
func sameObject(root *rundir.Root, name, oid string) bool {
	f, info, p := root.Open(name)
	if p != nil {
		return false
	}
	defer f.Close()
	if !info.Mode().IsRegular() || info.Size() > maxCompared || len(oid) != 40 && len(oid) != 64 {
		return false
	}
	id, err := gitrev.BlobIDOf(f, info.Size(), len(oid))
	return err == nil && id == oid
}
