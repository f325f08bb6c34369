package runner

import (
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/h3a-check/h3a-check/internal/audit"
	"github.com/h3a-check/h3a-check/internal/finding"
	"github.com/h3a-check/h3a-check/internal/gitrev"
	"github.com/h3a-check/h3a-check/internal/history"
	"github.com/h3a-check/h3a-check/internal/layout"
	"github.com/h3a-check/h3a-check/internal/rundir"
)

// StagedMode says what a staged check looked at.
type StagedMode int

const (
	// StagedIndex: the commit in progress, the index against HEAD.
	StagedIndex StagedMode = iota
	// StagedAll: nothing is staged while pre-commit or CI runs the check
	// ("pre-commit run --all-files"): every run, as the index records it.
	StagedAll
	// StagedRange: pre-commit's --from-ref/--to-ref
	// (PRE_COMMIT_FROM_REF, PRE_COMMIT_TO_REF): the runs changed between
	// the two, as of the second.
	StagedRange
)

// stagedScope is what a staged check reads: the runs a commit (of the
// index, or the commit at the end of a range) touches, each written from
// the git objects into a private folder, so that the check reads what the
// commit records whatever the working tree holds; the runs it deletes;
// and the submodules it moves whose runs could not be checked.
type stagedScope struct {
	mode   StagedMode
	what   string // what was read, for messages
	tmp    string
	runs   []rundir.Run
	source map[string]string    // run folder -> private folder its files are read from
	at     map[string]stagedRun // run folder -> its repository, path there and base
	extra  []*audit.Audit       // deleted runs, submodules not checked
	// changes counts the files the change touches, runs or not.
	changes int
}

type stagedRun struct {
	repo *gitrev.Repo
	rel  string
	base gitrev.Base
}

// snapshot is one repository as a commit records it.
type snapshot struct {
	repo    *gitrev.Repo
	files   []gitrev.SnapshotFile
	fsys    *gitrev.FilesFS
	changes []gitrev.Change
	base    gitrev.Base
}

// maxSubmoduleDepth bounds submodules inside submodules.
const maxSubmoduleDepth = 4

func newSnapshot(repo *gitrev.Repo, files []gitrev.SnapshotFile, changes []gitrev.Change, base gitrev.Base) *snapshot {
	objects := make(map[string]string, len(files))
	var names []string
	for _, f := range files {
		if f.Mode == gitrev.ModeSubmodule {
			continue
		}
		objects[f.Path] = f.Object
		names = append(names, f.Path)
	}
	fsys := gitrev.NewFilesFS(names, func(name string) ([]byte, error) {
		oid, ok := objects[name]
		if !ok {
			return nil, fs.ErrNotExist
		}
		return repo.ReadObject(oid, maxDetectRead)
	})
	return &snapshot{repo: repo, files: files, fsys: fsys, changes: changes, base: base}
}

// commitRange is pre-commit's --from-ref and --to-ref, from the variables
// it sets for hooks (the older names too); empty when not set. Values
// from the environment never reach git as options.
func commitRange(getenv func(string) string) (from, to string, err error) {
	from, to = getenv("PRE_COMMIT_FROM_REF"), getenv("PRE_COMMIT_TO_REF")
	names := "PRE_COMMIT_FROM_REF and PRE_COMMIT_TO_REF"
	if from == "" && to == "" {
		from, to = getenv("PRE_COMMIT_ORIGIN"), getenv("PRE_COMMIT_SOURCE")
		names = "PRE_COMMIT_ORIGIN and PRE_COMMIT_SOURCE"
	}
	if (from == "") != (to == "") {
		return "", "", optionError(OptionStaged, "%s must be set together (pre-commit run --from-ref REF --to-ref REF sets both)", names)
	}
	if from == "" {
		return "", "", nil
	}
	for _, rev := range []string{from, to} {
		if err := gitrev.CheckRev(rev); err != nil {
			return "", "", optionError(OptionStaged, "%s: %w", names, err)
		}
	}
	return from, to, nil
}

// findStaged reads what the commit records under each path and finds the
// runs it touches. Only those are checked, so a commit that touches no
// run costs a git diff and nothing more.
func findStaged(l *gitrev.Locator, paths []string, getenv func(string) string, forced string) (s *stagedScope, err error) {
	detectors, err := rundir.Only(layout.Detectors(), forced)
	if err != nil {
		return nil, err
	}
	from, to, err := commitRange(getenv)
	if err != nil {
		return nil, err
	}
	s = &stagedScope{source: map[string]string{}, at: map[string]stagedRun{}, what: "the index, against HEAD"}
	if from != "" {
		s.mode = StagedRange
		s.what = fmt.Sprintf("the runs changed from %s to %s (PRE_COMMIT_FROM_REF, PRE_COMMIT_TO_REF), as of %s", from, to, to)
	}
	type target struct {
		path, prefix string
		snap         *snapshot
	}
	var targets []target
	snaps := map[*gitrev.Repo]*snapshot{}
	staged := 0
	for _, p := range paths {
		if _, err := os.Stat(p); err != nil {
			return nil, fmt.Errorf("cannot read %s: %w", p, unwrapPath(err))
		}
		repo, err := l.Repo(p)
		if err != nil {
			return nil, optionError(OptionStaged, "%w", err)
		}
		prefix, err := repo.Rel(p)
		if err != nil {
			return nil, optionError(OptionStaged, "%w", err)
		}
		snap := snaps[repo]
		if snap == nil {
			if s.mode == StagedRange {
				snap, err = rangeSnapshot(repo, from, to)
			} else {
				snap, err = indexSnapshot(repo, hookIndex(repo, getenv))
			}
			if err != nil {
				return nil, err
			}
			snaps[repo] = snap
			staged += len(snap.changes)
		}
		targets = append(targets, target{p, prefix, snap})
	}
	s.changes = staged
	if s.mode == StagedIndex && staged == 0 && (isSet(getenv("CI")) || isSet(getenv("PRE_COMMIT"))) {
		s.mode = StagedAll
		s.what = "every run, as the index records it (nothing is staged: pre-commit run --all-files, or CI)"
	}
	if s.tmp, err = os.MkdirTemp("", "h3a-check-staged-"); err != nil {
		return nil, err
	}
	scope := s
	defer func() {
		if err != nil {
			scope.close() // s is nil by then
		}
	}()
	for _, t := range targets {
		if err := s.collect(l, t.snap, t.path, t.prefix, detectors, 0); err != nil {
			return nil, err
		}
	}
	slices.SortFunc(s.runs, func(a, b rundir.Run) int { return strings.Compare(a.Dir, b.Dir) })
	return s, nil
}

// isSet reads a flag variable such as CI: set unless empty, "0" or "false".
func isSet(v string) bool {
	return v != "" && v != "0" && !strings.EqualFold(v, "false")
}

func (s *stagedScope) close() {
	if s != nil && s.tmp != "" {
		os.RemoveAll(s.tmp)
	}
}

// indexSnapshot is the index a commit in progress records, against HEAD.
func indexSnapshot(repo *gitrev.Repo, index string) (*snapshot, error) {
	changes, err := repo.Staged(index)
	if err != nil {
		return nil, optionError(OptionStaged, "listing the staged changes: %w", err)
	}
	files, err := repo.IndexFiles(index)
	if err != nil {
		return nil, optionError(OptionStaged, "reading the index: %w", err)
	}
	// A commit of the index is checked against its parent, in CI too.
	base, err := gitrev.HeadBase(repo)
	if err != nil {
		return nil, err
	}
	return newSnapshot(repo, files, changes, base), nil
}

// rangeSnapshot is commit to, with what changed since where it left from
// (their merge base: from itself when to descends from it), the base its
// history is compared with.
func rangeSnapshot(repo *gitrev.Repo, fromRef, toRef string) (*snapshot, error) {
	from, err := repo.Resolve(fromRef)
	if err != nil {
		return nil, optionError(OptionStaged, "PRE_COMMIT_FROM_REF: %w", err)
	}
	to, err := repo.Resolve(toRef)
	if err != nil {
		return nil, optionError(OptionStaged, "PRE_COMMIT_TO_REF: %w", err)
	}
	base := gitrev.Base{Commit: from, From: fromRef}
	if mb, found, err := repo.MergeBase(from, to); err != nil {
		return nil, err
	} else if found && mb != from {
		base = gitrev.Base{Commit: mb, From: "the merge base of " + fromRef + " and " + toRef}
	}
	changes, err := repo.Between(base.Commit, to)
	if err != nil {
		return nil, optionError(OptionStaged, "listing the changes from %s to %s: %w", fromRef, toRef, err)
	}
	files, err := repo.CommitFiles(to)
	if err != nil {
		return nil, optionError(OptionStaged, "listing %s: %w", toRef, err)
	}
	return newSnapshot(repo, files, changes, base), nil
}

// fsName turns a top-level-relative folder into its name in a snapshot.
func fsName(rel string) string {
	if rel == "" {
		return "."
	}
	return rel
}

func relName(name string) string {
	if name == "." {
		return ""
	}
	return name
}

// collect adds the runs of snap under prefix (the PATH p) that the change
// touches (every run there in StagedAll), the runs it deletes, and the
// submodules it moves.
func (s *stagedScope) collect(l *gitrev.Locator, snap *snapshot, p, prefix string, detectors []rundir.Detector, depth int) error {
	found := map[string][]string{} // run -> the layouts that claim it
	holding := map[string]bool{}
	if s.mode == StagedAll && depth == 0 {
		if info, err := fs.Stat(snap.fsys, fsName(prefix)); err == nil && info.IsDir() {
			runs, err := rundir.Search(snap.fsys, fsName(prefix), detectors)
			if err != nil {
				return optionError(OptionStaged, "%w", err)
			}
			for _, r := range runs {
				found[relName(r.Dir)] = append([]string{r.Layout}, r.Also...)
			}
		}
		if len(found) == 0 {
			if run, lay, ok := rundir.Enclosing(snap.fsys, snap.nearestFolder(prefix, ""), detectors); ok {
				found[relName(run)] = lay
			}
		}
	}
	for _, c := range snap.changes {
		if s.mode == StagedAll && depth == 0 {
			break
		}
		if _, ok := under(c.Path, prefix); !ok {
			continue
		}
		if c.Submodule() {
			if err := s.submodule(l, snap, c, s.display(p, prefix, snap.repo, c.Path), detectors, depth); err != nil {
				return err
			}
			if c.NewMode == gitrev.ModeSubmodule || c.Deleted {
				continue
			}
		}
		dir := path.Dir(c.Path)
		if c.Deleted {
			dir = snap.nearestFolder(relName(dir), prefix)
			holding[relName(dir)] = true
		}
		if run, lay, ok := rundir.Enclosing(snap.fsys, dir, detectors); ok {
			found[relName(run)] = lay
		}
	}
	for rel, lay := range found {
		if err := s.addRun(snap, p, prefix, rel, lay, detectors); err != nil {
			return err
		}
	}
	if snap.base.Commit == "" {
		return nil
	}
	folders := slices.Sorted(maps.Keys(holding))
	for _, h := range folders {
		if slices.ContainsFunc(folders, func(o string) bool { _, in := under(h, o); return o != h && in }) {
			continue // an outer folder reports it
		}
		present, err := rundir.Search(snap.fsys, fsName(h), detectors)
		if err != nil {
			return optionError(OptionStaged, "%w", err)
		}
		head := map[string]bool{}
		for _, r := range present {
			head[relName(r.Dir)] = true
		}
		atBase, err := runsAtBase(snap.repo, snap.base.Commit, h)
		if err != nil {
			return fmt.Errorf("listing the runs of %s at base %s: %w", h, gitrev.Short(snap.base.Commit), err)
		}
		var gone []history.RunAt
		for _, r := range atBase {
			if !head[r.Dir] {
				gone = append(gone, r)
			}
		}
		l := baseListing{repo: snap.repo, base: snap.base, rel: h, display: s.display(p, prefix, snap.repo, h), runs: atBase}
		if a := deletedRuns(l, gone); a != nil {
			s.extra = append(s.extra, a)
		}
	}
	return nil
}

// nearestFolder is dir, or the nearest folder above it that the snapshot
// holds, never above stop.
func (snap *snapshot) nearestFolder(dir, stop string) string {
	for {
		if dir == stop || dir == "" {
			return fsName(dir)
		}
		if info, err := fs.Stat(snap.fsys, dir); err == nil && info.IsDir() {
			return dir
		}
		dir = relName(path.Dir(dir))
	}
}

// display names the repository path rel the way the PATH p (at prefix)
// names it.
func (s *stagedScope) display(p, prefix string, repo *gitrev.Repo, rel string) string {
	if filepath.IsAbs(p) {
		return filepath.ToSlash(filepath.Join(repo.Root, filepath.FromSlash(rel)))
	}
	r, err := filepath.Rel(filepath.FromSlash("/"+prefix), filepath.FromSlash("/"+rel))
	if err != nil {
		return filepath.ToSlash(filepath.Join(repo.Root, filepath.FromSlash(rel)))
	}
	return filepath.ToSlash(filepath.Join(p, r))
}

// addRun writes the run at rel, as the snapshot records it, into a
// private folder, and adds it to the runs to check under its own name.
func (s *stagedScope) addRun(snap *snapshot, p, prefix, rel string, layouts []string, detectors []rundir.Detector) error {
	dir := filepath.Join(snap.repo.Root, filepath.FromSlash(rel))
	if _, dup := s.at[dir]; dup {
		return nil
	}
	dest := filepath.Join(s.tmp, strconv.Itoa(len(s.at)))
	if err := os.Mkdir(dest, 0o700); err != nil {
		return err
	}
	if err := snap.repo.Materialize(snap.files, rel, dest); err != nil {
		return optionError(OptionStaged, "reading %s from git: %w", rel, err)
	}
	inner, err := rundir.Search(snap.fsys, fsName(rel), detectors)
	if err != nil {
		return optionError(OptionStaged, "%w", err)
	}
	run := rundir.Run{Dir: dir, Display: s.display(p, prefix, snap.repo, rel), Layout: layouts[0], Also: layouts[1:]}
	for _, r := range inner {
		if r.Dir != fsName(rel) {
			rest, _ := under(relName(r.Dir), rel)
			run.Holds = append(run.Holds, rest)
		}
	}
	s.runs = append(s.runs, run)
	s.source[dir] = dest
	s.at[dir] = stagedRun{repo: snap.repo, rel: rel, base: snap.base}
	return nil
}

// submodule checks the runs a moved submodule's new commit changes, when
// the submodule is checked out here and holds both commits; otherwise it
// says that they were not checked.
func (s *stagedScope) submodule(l *gitrev.Locator, snap *snapshot, c gitrev.Change, display string, detectors []rundir.Detector, depth int) error {
	notChecked := func(why string) {
		commit := c.NewObject
		if c.NewMode != gitrev.ModeSubmodule {
			commit = c.OldObject
		}
		f := finding.SubmoduleNotChecked.New("", "the runs inside submodule %q at %s were not checked: %s", c.Path, gitrev.Short(commit), why)
		s.extra = append(s.extra, &audit.Audit{Run: display, Findings: []finding.Finding{f}, Inputs: audit.Inputs{}, Notes: "submodule not checked"})
	}
	switch {
	case c.NewMode != gitrev.ModeSubmodule:
		notChecked("the change removes the submodule")
		return nil
	case depth >= maxSubmoduleDepth:
		notChecked("submodules are nested too deep")
		return nil
	}
	dir := filepath.Join(snap.repo.Root, filepath.FromSlash(c.Path))
	if _, err := os.Lstat(filepath.Join(dir, ".git")); err != nil {
		notChecked("it is not checked out here (git submodule update --init)")
		return nil
	}
	sub, err := l.Repo(dir)
	if err != nil || sub.Root != dir {
		notChecked("it is not checked out here (git submodule update --init)")
		return nil
	}
	if !sub.HasCommit(c.NewObject) {
		notChecked("its clone does not hold that commit (git submodule update)")
		return nil
	}
	files, err := sub.CommitFiles(c.NewObject)
	if err != nil {
		return optionError(OptionStaged, "listing submodule %s: %w", c.Path, err)
	}
	var changes []gitrev.Change
	base := gitrev.Base{Skip: "the submodule " + c.Path + " is new in this change"}
	if c.OldMode == gitrev.ModeSubmodule {
		if !sub.HasCommit(c.OldObject) {
			notChecked(fmt.Sprintf("its clone does not hold the previous commit %s to compare with (git fetch in the submodule)", gitrev.Short(c.OldObject)))
			return nil
		}
		base = gitrev.Base{Commit: c.OldObject, From: "the submodule's previous commit"}
		if changes, err = sub.Between(c.OldObject, c.NewObject); err != nil {
			return optionError(OptionStaged, "comparing submodule %s: %w", c.Path, err)
		}
	} else {
		for _, f := range files {
			changes = append(changes, gitrev.Change{Path: f.Path, NewMode: f.Mode, NewObject: f.Object})
		}
	}
	return s.collect(l, newSnapshot(sub, files, changes, base), display, "", detectors, depth+1)
}

func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// hookIndex is the index a commit in progress records: git hands a hook
// its own in GIT_INDEX_FILE ("git commit -a" and "git commit PATH" build a
// temporary one), relative to the top level where git runs the hook. It
// applies only to the repository whose top level is the working
// directory; any other repository's own index is read.
func hookIndex(repo *gitrev.Repo, getenv func(string) string) string {
	index := getenv("GIT_INDEX_FILE")
	if index == "" {
		return ""
	}
	wd, err := os.Getwd()
	if err != nil {
		return ""
	}
	if resolved, err := filepath.EvalSymlinks(wd); err == nil {
		wd = resolved
	}
	if wd != repo.Root {
		return ""
	}
	if !filepath.IsAbs(index) {
		index = filepath.Join(wd, index)
	}
	return index
}

// under returns file relative to the folder prefix (both top-level
// relative; "" is the top level), and whether file lies under it.
func under(file, prefix string) (string, bool) {
	if prefix == "" {
		return file, true
	}
	if file == prefix {
		return "", true
	}
	rest, ok := strings.CutPrefix(file, prefix+"/")
	return rest, ok
}
