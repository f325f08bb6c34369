// What a run held at its base, for the waivers: a base waiver was a
// person's decision about the findings that existed when it was written.

package runner

import (
	"context"
	"crypto/sha1"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
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
// policies, and returns what that check finds, each with the text of the
// line it names. The history is not compared: what the history stage finds
// is never the base's (newSinceBase). The copy is written to a private
// folder, through the same confinement as a staged check's runs, and
// removed after.
//
// same is true, and nothing is checked, when the run's files are the ones
// the base records there, byte for byte: the check would find what the
// run's own did.
func (c *checker) findingsAtBase(ctx context.Context, s *runState, display string, repo *gitrev.Repo, commit, rel string) (found []keyedFinding, same bool, err error) {
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
func (c *checker) checkAtBase(ctx context.Context, s *runState, display string, repo *gitrev.Repo, files []gitrev.SnapshotFile, commit, rel string) ([]keyedFinding, error) {
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
	lines := fileLines(func(name string) ([]byte, bool) { return readRunFile(bs, name) })
	out := make([]keyedFinding, len(bs.findings))
	for i, f := range bs.findings {
		out[i] = keyedFinding{f, keyOf(f, lines)}
	}
	return out, nil
}

// keyedFinding is a finding with what tells it from the others of its run
// in another version of the run.
type keyedFinding struct {
	finding.Finding
	key findingKey
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

// fileLines gives line n of a run's file by read, each file read once.
func fileLines(read func(name string) ([]byte, bool)) func(file string, n int) (string, bool) {
	files := map[string][]byte{}
	ok := map[string]bool{}
	return func(file string, n int) (string, bool) {
		data, seen := files[file]
		if !seen {
			data, ok[file] = read(file)
			files[file] = data
		}
		if !ok[file] {
			return "", false
		}
		line, found := lineAt(data, n)
		return string(line), found
	}
}

// readRunFile is a file of the run as its check read it: a parsed
// document's bytes, else the file read through the run's root (bounded).
func readRunFile(s *runState, name string) ([]byte, bool) {
	if d := s.run.Docs[name]; d != nil && d.Present {
		return d.Data, true
	}
	data, err := readBounded(s.root, name)
	return data, err == nil
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
// object name, in the repository's hash (SHA-1, or SHA-256 for a name of
// 64 digits), is oid.
func sameObject(root *rundir.Root, name, oid string) bool {
	f, info, p := root.Open(name)
	if p != nil {
		return false
	}
	defer f.Close()
	if !info.Mode().IsRegular() || info.Size() > maxCompared {
		return false
	}
	var h hash.Hash
	switch len(oid) {
	case sha1.Size * 2:
		h = sha1.New()
	case sha256.Size * 2:
		h = sha256.New()
	default:
		return false
	}
	fmt.Fprintf(h, "blob %d\x00", info.Size())
	n, err := io.Copy(h, io.LimitReader(f, info.Size()+1))
	return err == nil && n == info.Size() && hex.EncodeToString(h.Sum(nil)) == oid
}
