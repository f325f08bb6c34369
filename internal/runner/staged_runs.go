// The runs a staged change touches: found in the snapshot, written to a
// private folder, the runs it deletes, and the submodules it moves.

package runner

import (
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
	"github.com/h3a-check/h3a-check/internal/rundir"
)

// collect adds the runs of snap under prefix (the PATH p) that the change
// touches (every run there in StagedAll), the runs it deletes, and the
// submodules it moves.
func (s *stagedScope) collect(l *gitrev.Locator, snap *snapshot, p, prefix string, detectors []rundir.Detector, depth int) error {
	found := map[string][]string{} // run -> the layouts that claim it
	holding := map[string]bool{}   // folders that lost a file
	if s.mode == StagedAll && depth == 0 {
		if err := allRuns(snap, prefix, detectors, found); err != nil {
			return err
		}
		for _, f := range snap.files {
			if _, ok := under(f.Path, prefix); ok && f.Mode == gitrev.ModeLinkText {
				if err := s.linkRun(snap, p, prefix, f.Path, f.Object, detectors); err != nil {
					return err
				}
			}
		}
	} else if err := s.touchedRuns(l, snap, p, prefix, detectors, depth, found, holding); err != nil {
		return err
	}
	if err := s.onlyForced(p, prefix, snap.repo, found); err != nil {
		return err
	}
	for rel, lay := range found {
		if err := s.addRun(snap, p, prefix, rel, lay, detectors); err != nil {
			return err
		}
	}
	if snap.base.Commit == "" {
		return nil
	}
	return s.deletedUnder(snap, p, prefix, holding, detectors)
}

// onlyForced makes each run found a run of the forced layout, when one is
// forced, and refuses the runs that layout does not claim.
func (s *stagedScope) onlyForced(p, prefix string, repo *gitrev.Repo, found map[string][]string) error {
	if s.forced == "" {
		return nil
	}
	var others []rundir.OtherRun
	for _, rel := range slices.Sorted(maps.Keys(found)) {
		if lay := found[rel]; !slices.Contains(lay, s.forced) {
			others = append(others, rundir.OtherRun{Dir: s.display(p, prefix, repo, rel), Layout: lay[0]})
			continue
		}
		found[rel] = []string{s.forced}
	}
	if len(others) > 0 {
		return &rundir.OtherLayoutError{Layout: s.forced, Runs: others}
	}
	return nil
}

// allRuns finds every run of snap under prefix, and every run prefix lies
// in: a run that holds another is broken by it, as discovery finds.
func allRuns(snap *snapshot, prefix string, detectors []rundir.Detector, found map[string][]string) error {
	if info, err := fs.Stat(snap.fsys, fsName(prefix)); err == nil && info.IsDir() {
		runs, err := rundir.Search(snap.fsys, fsName(prefix), detectors)
		if err != nil {
			return optionError(OptionStaged, "%w", err)
		}
		for _, r := range runs {
			found[relName(r.Dir)] = append([]string{r.Layout}, r.Also...)
		}
	}
	if _, self := found[prefix]; self || prefix == "" {
		return nil
	}
	for _, r := range rundir.EnclosingRuns(snap.fsys, snap.nearestFolder(prefix, ""), detectors) {
		if _, seen := found[relName(r.Dir)]; !seen {
			found[relName(r.Dir)] = append([]string{r.Layout}, r.Also...)
		}
	}
	return nil
}

// touchedRuns finds the runs of snap under prefix that a change touches,
// and the folders that lost a file, and follows the submodules it moves.
func (s *stagedScope) touchedRuns(l *gitrev.Locator, snap *snapshot, p, prefix string, detectors []rundir.Detector, depth int, found map[string][]string, holding map[string]bool) error {
	for _, c := range snap.changes {
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
		if c.NewMode == gitrev.ModeLinkText && !c.Deleted {
			if err := s.linkRun(snap, p, prefix, c.Path, c.NewObject, detectors); err != nil {
				return err
			}
		}
		dir := path.Dir(c.Path)
		if c.Deleted {
			dir = snap.nearestFolder(relName(dir), prefix)
			holding[relName(dir)] = true
		}
		// The file lies in every run above it, not only the nearest: a
		// run added inside a committed run changes that run too (it now
		// holds another), as a check of the whole tree would find.
		for _, r := range rundir.EnclosingRuns(snap.fsys, dir, detectors) {
			found[relName(r.Dir)] = append([]string{r.Layout}, r.Also...)
		}
	}
	return nil
}

// deletedUnder reports the runs the base holds in the folders that lost a
// file and the snapshot no longer does.
func (s *stagedScope) deletedUnder(snap *snapshot, p, prefix string, holding map[string]bool, detectors []rundir.Detector) error {
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
		if len(gone) > 0 {
			s.extra = append(s.extra, stagedExtra{gone: &goneRuns{listing: l, runs: gone}})
		}
	}
	return nil
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
	s.at[dir] = stagedRun{repo: snap.repo, rel: rel, base: snap.base, head: snap.fsys}
	return nil
}

// linkRun adds the symbolic link rel (its target in the object oid) as a
// run when it leads to a folder that is a run, or to a folder of runs out
// of the path searched: a run folder that is a link, and a link to runs
// reached through it alone, are errors a check of the working tree
// reports (h3a.structure.symlink), and the snapshot, where a link is a
// file holding its target, would never show them. Where it leads is
// looked up as a check of the working tree would: in the snapshot when
// the target stays in the repository, else on disk.
func (s *stagedScope) linkRun(snap *snapshot, p, prefix, rel, oid string, detectors []rundir.Detector) error {
	dir := filepath.Join(snap.repo.Root, filepath.FromSlash(rel))
	if _, dup := s.at[dir]; dup || slices.ContainsFunc(s.runs, func(r rundir.Run) bool { return r.Dir == dir }) {
		return nil
	}
	text, err := snap.repo.ReadObject(oid, maxDetectRead)
	if err != nil {
		return optionError(OptionStaged, "reading the symbolic link %s from git: %w", rel, err)
	}
	target := string(text)
	var layouts, through []string
	holds := func(found []rundir.Found) {
		if len(found) > 0 {
			layouts = []string{found[0].Layout}
		}
		for _, f := range found {
			through = append(through, f.Dir)
		}
	}
	if inRepo := path.Join(path.Dir(rel), target); !path.IsAbs(target) && fs.ValidPath(inRepo) {
		if run, lay, ok := rundir.Enclosing(snap.fsys, inRepo, detectors); ok && run == inRepo {
			layouts = lay
		} else if _, inside := under(inRepo, prefix); !inside {
			// A folder of runs the paths do not reach but through the link.
			found, err := rundir.Search(snap.fsys, inRepo, detectors)
			if err != nil {
				return optionError(OptionStaged, "%w", err)
			}
			for i := range found {
				found[i].Dir, _ = under(found[i].Dir, inRepo)
			}
			holds(found)
		}
	} else {
		abs := target
		if !filepath.IsAbs(abs) {
			abs = filepath.Join(filepath.Dir(dir), filepath.FromSlash(target))
		}
		if info, err := os.Stat(abs); err == nil && info.IsDir() {
			if _, lay, ok := rundir.Enclosing(os.DirFS(abs), ".", detectors); ok {
				layouts = lay
			} else {
				found, err := rundir.RunsThrough(filepath.Join(snap.repo.Root, filepath.FromSlash(prefix)), abs, detectors)
				if err != nil {
					return optionError(OptionStaged, "%s is a symbolic link to a folder that cannot be searched, so a run inside it could be missed: %w", rel, err)
				}
				holds(found)
			}
		}
	}
	if len(layouts) == 0 {
		return nil
	}
	if s.forced != "" {
		if !slices.Contains(layouts, s.forced) {
			return &rundir.OtherLayoutError{Layout: s.forced, Runs: []rundir.OtherRun{{Dir: s.display(p, prefix, snap.repo, rel), Layout: layouts[0]}}}
		}
		layouts = []string{s.forced}
	}
	s.runs = append(s.runs, rundir.Run{Dir: dir, Display: s.display(p, prefix, snap.repo, rel), Layout: layouts[0], Also: layouts[1:], Link: target, Through: through})
	return nil
}

// maxSubmoduleDepth bounds submodules inside submodules.
const maxSubmoduleDepth = 4

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
		s.extra = append(s.extra, stagedExtra{audit: &audit.Audit{Run: display, Findings: []finding.Finding{f}, Inputs: audit.Inputs{}, Notes: "submodule not checked"}})
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
