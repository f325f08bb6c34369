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
				if err := s.linkRun(snap, p, prefix, f.Path, f.Object, detectors, false); err != nil {
					return err
				}
			}
		}
	} else {
		if err := s.touchedRuns(l, snap, p, prefix, detectors, depth, found, holding); err != nil {
			return err
		}
		// A link the change leaves alone shows what changed where it
		// leads: runs reached through it alone.
		for _, f := range snap.files {
			if _, ok := under(f.Path, prefix); ok && f.Mode == gitrev.ModeLinkText {
				if err := s.linkRun(snap, p, prefix, f.Path, f.Object, detectors, true); err != nil {
					return err
				}
			}
		}
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
		if !fs.ValidPath(c.Path) {
			// The snapshot, as the disk, cannot be read at such a name
			// (not UTF-8): the run it lies in would not be found, and
			// the commit would pass as touching none.
			return optionError(OptionStaged, "cannot read %s, so a run it lies in could be missed: the name is not valid UTF-8 (rename it)", c.Path)
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
			if err := s.linkRun(snap, p, prefix, c.Path, c.NewObject, detectors, false); err != nil {
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
// the target stays in the repository, else on disk, and through the
// links met there. With onlyChanged (a link the change leaves alone) it
// is added only when the change touches a run it leads to, or one out of
// the repository (whether that changed is not known).
func (s *stagedScope) linkRun(snap *snapshot, p, prefix, rel, oid string, detectors []rundir.Detector, onlyChanged bool) error {
	dir := filepath.Join(snap.repo.Root, filepath.FromSlash(rel))
	if _, dup := s.at[dir]; dup || slices.ContainsFunc(s.runs, func(r rundir.Run) bool { return r.Dir == dir }) {
		return nil
	}
	text, err := snap.repo.ReadObject(oid, maxDetectRead)
	if err != nil {
		return optionError(OptionStaged, "reading the symbolic link %s from git: %w", rel, err)
	}
	target := string(text)
	lead, err := s.leads(snap, prefix, rel, target, detectors, map[string]bool{})
	if err != nil {
		return err
	}
	layouts := lead.layouts
	var through []string
	if len(layouts) == 0 && len(lead.found) > 0 {
		layouts = []string{lead.found[0].Layout}
		for _, f := range lead.found {
			through = append(through, f.Dir)
		}
	}
	if len(layouts) == 0 {
		return nil
	}
	if onlyChanged && !lead.unplaced && !slices.ContainsFunc(lead.places, func(place string) bool {
		return slices.ContainsFunc(snap.changes, func(c gitrev.Change) bool { _, ok := under(c.Path, place); return ok })
	}) {
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

// linkLead is where a link leads: the run it is (layouts), or the runs
// out of the searched path reached through it (found, relative to the
// link), with the folder of each in the repository (places), unplaced
// when one lies out of it.
type linkLead struct {
	layouts  []string
	found    []rundir.Found
	places   []string
	unplaced bool
}

// leads finds where the link rel, to target, leads. seen holds the
// repository folders already searched through a link, each searched once.
func (s *stagedScope) leads(snap *snapshot, prefix, rel, target string, detectors []rundir.Detector, seen map[string]bool) (linkLead, error) {
	var lead linkLead
	if inRepo := path.Join(path.Dir(rel), target); !path.IsAbs(target) && fs.ValidPath(inRepo) {
		if run, lay, ok := rundir.Enclosing(snap.fsys, inRepo, detectors); ok && run == inRepo {
			return linkLead{layouts: lay, places: []string{inRepo}}, nil
		}
		if _, inside := under(inRepo, prefix); inside || seen[inRepo] {
			return lead, nil
		}
		if info, err := fs.Stat(snap.fsys, inRepo); err != nil || !info.IsDir() {
			return lead, nil // a file, or nothing: no folder of runs
		}
		// A folder of runs the paths do not reach but through the link.
		seen[inRepo] = true
		found, err := rundir.Search(snap.fsys, inRepo, detectors)
		if err != nil {
			return lead, optionError(OptionStaged, "%w", err)
		}
		for _, f := range found {
			lead.places = append(lead.places, relName(f.Dir))
			f.Dir, _ = under(f.Dir, inRepo)
			lead.found = append(lead.found, f)
		}
		// And the runs reached through the links below it, as a check of
		// the working tree looks through them.
		for _, f := range snap.files {
			below, ok := under(f.Path, inRepo)
			if !ok || below == "" || f.Mode != gitrev.ModeLinkText {
				continue
			}
			text, err := snap.repo.ReadObject(f.Object, maxDetectRead)
			if err != nil {
				return lead, optionError(OptionStaged, "reading the symbolic link %s from git: %w", f.Path, err)
			}
			more, err := s.leads(snap, prefix, f.Path, string(text), detectors, seen)
			if err != nil {
				return lead, err
			}
			lead.places = append(lead.places, more.places...)
			lead.unplaced = lead.unplaced || more.unplaced
			if len(more.layouts) > 0 {
				lead.found = append(lead.found, rundir.Found{Dir: below, Layout: more.layouts[0], Also: more.layouts[1:]})
			}
			for _, m := range more.found {
				m.Dir = path.Join(below, m.Dir)
				lead.found = append(lead.found, m)
			}
		}
		slices.SortFunc(lead.found, func(a, b rundir.Found) int { return strings.Compare(a.Dir, b.Dir) })
		return lead, nil
	}
	abs := target
	if !filepath.IsAbs(abs) {
		abs = filepath.Join(snap.repo.Root, filepath.FromSlash(path.Dir(rel)), filepath.FromSlash(target))
	}
	info, err := os.Stat(abs)
	if err != nil || !info.IsDir() {
		return lead, nil
	}
	place := func(dir string) {
		if r, err := snap.repo.Rel(dir); err == nil {
			lead.places = append(lead.places, r)
		} else {
			lead.unplaced = true
		}
	}
	if _, lay, ok := rundir.Enclosing(os.DirFS(abs), ".", detectors); ok {
		lead.layouts = lay
		place(abs)
		return lead, nil
	}
	found, err := rundir.RunsThrough(filepath.Join(snap.repo.Root, filepath.FromSlash(prefix)), abs, detectors)
	if err != nil {
		return lead, optionError(OptionStaged, "%s is a symbolic link to a folder that cannot be searched, so a run inside it could be missed: %w", rel, err)
	}
	for _, f := range found {
		place(filepath.Join(abs, filepath.FromSlash(f.Dir)))
	}
	lead.found = found
	return lead, nil
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
