// Package rundir finds run directories and reads files inside them without
// ever leaving them.
package rundir

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// Detector recognises the runs of one layout. Detection works over an
// fs.FS, so the same code recognises runs on disk and in a revision of a
// repository; dir is a slash path inside fsys ("." for its top).
type Detector interface {
	ID() string
	// Detect reports whether dir is the root of a run of this layout, by
	// the layout's defining structure.
	Detect(fsys fs.FS, dir string) bool
	// Forced reports whether dir holds enough of that structure to be
	// checked as a run when the layout is forced (--layout): a run broken
	// beyond recognition is still checked, an unrelated folder is not.
	Forced(fsys fs.FS, dir string) bool
	// Defined says what makes a folder a run of this layout, for messages.
	Defined() string
}

// Run is one run directory found by discovery.
type Run struct {
	Dir     string // absolute and clean
	Display string // as the user would write it: relative to the PATH it came from
	Layout  string
	// Holds lists the runs found below this one, relative to it with
	// forward slashes. A run never holds another: each is checked on its
	// own, and the holder gets an error finding for each.
	Holds []string
	// Link is the target of the symbolic link that stands where the run's
	// folder would be ("" for a real folder). Such a run is not read: its
	// files are wherever the link leads, so it gets an error finding.
	Link string
	// Through lists the runs below the folder a Link leads to, relative
	// to the link, when the link is no run itself but a folder of runs
	// out of the searched path: reached only through the link, they would
	// not be checked at all.
	Through []string
	// Also lists the other layouts whose defining files the folder holds
	// besides Layout's (never with a forced layout). The folder is checked
	// as Layout only, so it gets an error finding for each.
	Also []string
}

// skipDirs are never searched for runs. Only a folder named .git: git
// refuses to carry any path through one, so nothing a change adds can be
// there. Any other folder, whatever its name (node_modules, vendor), can
// hold a run a change adds, and skipping it would pass that run unchecked.
var skipDirs = map[string]bool{".git": true}

// SkipDir reports whether a folder of this name is never searched for runs.
func SkipDir(name string) bool { return skipDirs[name] }

// ForcedLayoutError is a forced layout (--layout, or the configuration's
// layout) on a path that holds nothing of that layout: checking it would
// pass a folder that was never a run.
type ForcedLayoutError struct {
	Layout, Path, Defined string
}

func (e *ForcedLayoutError) Error() string {
	return fmt.Sprintf("layout %q is forced, but %s holds no %s run and is inside none: %s", e.Layout, e.Path, e.Layout, e.Defined)
}

// Discover maps each path to the runs it names: a run directory, a folder
// holding runs at any depth, or a file or folder inside a run. Every run
// below a searched folder is found, whatever lies beside or above it: a
// run is searched too, and the runs it holds are listed in its Holds.
// Results are sorted by directory and each run appears once. If forced is
// not empty only that layout is detected, and a directory given directly
// that holds no run of it is still taken as one when it has enough of the
// layout's structure (Detector.Forced); otherwise the path is a
// *ForcedLayoutError. A path that cannot be read is an error; a path
// holding no run is not (the caller decides what an empty result means).
func Discover(paths []string, detectors []Detector, forced string) ([]Run, error) {
	return DiscoverWithin(paths, detectors, forced, nil)
}

// OtherRun is a run of another layout than the forced one.
type OtherRun struct {
	Dir    string // as the user would write it
	Layout string
	top    bool // the path itself
}

// OtherLayoutError is a forced layout (--layout, or the configuration's
// layout) on a path below which runs of other layouts lie: checked as the
// forced layout they would be folders that were never runs of it, and
// left out they would pass unchecked.
type OtherLayoutError struct {
	Layout string
	Runs   []OtherRun
}

func (e *OtherLayoutError) Error() string {
	const shown = 5
	var names []string
	for i, r := range e.Runs {
		if i == shown {
			names = append(names, fmt.Sprintf("and %d more", len(e.Runs)-shown))
			break
		}
		names = append(names, fmt.Sprintf("%s (%s)", r.Dir, r.Layout))
	}
	return fmt.Sprintf("layout %q is forced, but runs of other layouts lie below the paths, and none of them would be checked: %s; check them without --layout (or the configuration's layout), or name only the %s runs",
		e.Layout, strings.Join(names, ", "), e.Layout)
}

// DiscoverWithin is Discover searching only the folders that within
// (given an absolute folder) accepts, and all of each run found there: a
// run's whole folder is searched, so that the runs it holds are all
// listed. A folder within refuses is not even listed; a symbolic link is
// looked at wherever it is (a run folder that is a link, or a link to runs
// out of the paths), so that the caller can tell by where it leads. Nil
// within accepts every folder.
func DiscoverWithin(paths []string, detectors []Detector, forced string, within func(absDir string) bool) ([]Run, error) {
	// every searches below each path: with a forced layout too, so that
	// a run of another layout found there is refused, not passed over.
	every := detectors
	if forced != "" {
		var only []Detector
		for _, d := range detectors {
			if d.ID() == forced {
				only = append(only, d)
			}
		}
		if len(only) == 0 {
			return nil, fmt.Errorf("unknown layout %q: expected one of %s", forced, detectorIDs(detectors))
		}
		detectors = only
	}
	found := map[string]string{}
	display := map[string]string{}
	also := map[string][]string{}
	through := map[string][]string{}
	var others []OtherRun
	for _, p := range paths {
		abs, err := filepath.Abs(p)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", p, err)
		}
		n0 := len(found)
		add := func(dir, layout string, others []string) {
			if _, ok := found[dir]; !ok {
				found[dir], display[dir], also[dir] = layout, displayFrom(p, abs, dir), others
			}
		}
		info, err := os.Stat(abs)
		if err != nil {
			return nil, fmt.Errorf("cannot read %s: %w", p, unwrapPathError(err))
		}
		fsys, name := diskFS(abs)
		// A path inside a run lies in every run above it, not only the
		// nearest: a run that holds the nearest one is broken by it (a
		// run never holds another), as a check of the outer run finds.
		addEnclosing := func(dir string) {
			for _, r := range EnclosingRuns(fsys, dir, detectors) {
				add(fromFS(abs, name, r.Dir), r.Layout, r.Also)
			}
		}
		if !info.IsDir() {
			addEnclosing(path.Dir(name))
			continue
		}
		var inFS func(string) bool
		if within != nil {
			inFS = func(dir string) bool { return within(fromFS(abs, name, dir)) }
		}
		runs, err := search(fsys, name, every, true, inFS, true)
		var unreadable *UnreadableError
		if errors.As(err, &unreadable) {
			return nil, fmt.Errorf("cannot read %s, so a run inside it could be missed: %w (check a folder that can be read)",
				displayFrom(p, abs, fromFS(abs, name, unreadable.Dir)), unreadable.Err)
		}
		if err != nil {
			return nil, err
		}
		var otherHere []OtherRun
		self := false
		for _, r := range runs {
			self = self || r.Dir == name
			dir := fromFS(abs, name, r.Dir)
			if r.Layout == "" {
				// A link to a folder that no layout claims.
				held, err := runsThrough(abs, dir, every)
				if err != nil {
					return nil, fmt.Errorf("%s is a symbolic link to a folder that cannot be searched, so a run inside it could be missed: %w (remove the link, or check the folder it leads to)",
						displayFrom(p, abs, dir), err)
				}
				if len(held) == 0 {
					continue
				}
				r.Layout, r.Also = held[0].Layout, nil
				for _, h := range held {
					through[dir] = append(through[dir], h.Dir)
				}
			}
			switch {
			case forced == "":
				add(dir, r.Layout, r.Also)
			case r.Layout == forced || slices.Contains(r.Also, forced):
				add(dir, forced, nil)
			default:
				otherHere = append(otherHere, OtherRun{Dir: displayFrom(p, abs, dir), Layout: r.Layout, top: r.Dir == name})
			}
		}
		if len(otherHere) == 1 && otherHere[0].top && len(found) == n0 && detectors[0].Forced(fsys, name) {
			// The path itself, named on purpose, is a run of another
			// layout that holds enough of the forced one: checked as it.
			otherHere = nil
		}
		others = append(others, otherHere...)
		if !self && name != "." {
			// A folder that is no run itself: the runs it lies in.
			addEnclosing(path.Dir(name))
		}
		if len(found) > n0 {
			continue
		}
		if forced != "" {
			d := detectors[0]
			if !d.Forced(fsys, name) {
				return nil, &ForcedLayoutError{Layout: forced, Path: p, Defined: d.Defined()}
			}
			add(abs, forced, nil)
		}
	}
	if len(others) > 0 {
		return nil, &OtherLayoutError{Layout: forced, Runs: others}
	}
	runs := make([]Run, 0, len(found))
	for dir, layout := range found {
		runs = append(runs, Run{Dir: dir, Display: display[dir], Layout: layout, Also: also[dir], Link: linkTarget(dir), Through: through[dir]})
	}
	slices.SortFunc(runs, func(a, b Run) int { return strings.Compare(a.Dir, b.Dir) })
	linkHolders(runs)
	return runs, nil
}

// maxThroughFolders bounds the folders searched through one link: a link
// can lead anywhere, the top of the file system included. A variable, so
// that a test can reach it.
var maxThroughFolders = 100000

// RunsThrough lists the runs below the folder that the link dir (found
// while searching top) leads to, when that folder lies out of top: a run
// there is reached through the link alone. A folder inside top is
// searched where it is, so a link to it hides nothing. A link below the
// folder is looked through in the same way (each folder once), since a
// run reached through two links is as hidden as one reached through one:
// a link to a run counts as a run, a link to a folder of runs out of top
// adds the runs there. Each Found names its run relative to the folder.
func RunsThrough(top, dir string, detectors []Detector) ([]Found, error) {
	return runsThrough(top, dir, detectors)
}

func runsThrough(top, dir string, detectors []Detector) ([]Found, error) {
	realTop, err := filepath.EvalSymlinks(top)
	if err != nil {
		realTop = ""
	}
	t := &throughSearch{realTop: realTop, detectors: detectors, seen: map[string]bool{}}
	runs, err := t.through(dir)
	if err != nil {
		return nil, err
	}
	if t.folders > maxThroughFolders {
		return nil, fmt.Errorf("it holds more than %d folders", maxThroughFolders)
	}
	return runs, nil
}

// throughSearch is one search through a link, and the links below it.
type throughSearch struct {
	realTop   string // "" when the searched folder cannot be resolved
	detectors []Detector
	seen      map[string]bool // the folders searched, resolved
	folders   int
}

// outside resolves the link dir, and reports whether it leads to a
// folder out of the searched tree.
func (t *throughSearch) outside(dir string) (string, bool) {
	target, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return "", false // a dangling link holds nothing
	}
	if t.realTop != "" {
		if rel, err := filepath.Rel(t.realTop, target); err == nil && filepath.IsLocal(rel) {
			return "", false
		}
	}
	return target, true
}

func (t *throughSearch) through(dir string) ([]Found, error) {
	target, ok := t.outside(dir)
	if !ok || t.seen[target] {
		return nil, nil
	}
	t.seen[target] = true
	fsys, name := diskFS(target)
	found, err := search(fsys, name, t.detectors, true, func(string) bool {
		t.folders++
		return t.folders <= maxThroughFolders
	}, false)
	if err != nil {
		return nil, err
	}
	var runs []Found
	for _, r := range found {
		abs := fromFS(target, name, r.Dir)
		rel, _ := filepath.Rel(target, abs)
		r.Dir = filepath.ToSlash(rel)
		if r.Dir != "." && linkTarget(abs) != "" {
			// A link below the folder: what it leads to, when that lies
			// out of the searched tree, is reached through links alone.
			if r.Layout != "" {
				if _, out := t.outside(abs); out {
					runs = append(runs, r)
				}
				continue
			}
			held, err := t.through(abs)
			if err != nil {
				return nil, err
			}
			for _, h := range held {
				h.Dir = path.Join(r.Dir, h.Dir)
				runs = append(runs, h)
			}
			continue
		}
		runs = append(runs, r)
	}
	slices.SortFunc(runs, func(a, b Found) int { return strings.Compare(a.Dir, b.Dir) })
	return runs, nil
}

// linkTarget is where dir leads when dir itself is a symbolic link, ""
// when it is a real folder. Only the last element counts: a link higher
// up (a home folder, /tmp on some systems) moves the whole tree at once
// and hides nothing.
func linkTarget(dir string) string {
	info, err := os.Lstat(dir)
	if err != nil || info.Mode()&fs.ModeSymlink == 0 {
		return ""
	}
	target, err := os.Readlink(dir)
	if err != nil || target == "" {
		return "?"
	}
	return target
}

// linkHolders fills each run's Holds from the sorted list: the runs below
// a run follow it.
func linkHolders(runs []Run) {
	for i := range runs {
		prefix := runs[i].Dir + string(filepath.Separator)
		if strings.HasSuffix(runs[i].Dir, string(filepath.Separator)) {
			prefix = runs[i].Dir
		}
		for _, r := range runs[i+1:] {
			rest, ok := strings.CutPrefix(r.Dir, prefix)
			if !ok {
				continue
			}
			runs[i].Holds = append(runs[i].Holds, filepath.ToSlash(rest))
		}
	}
}

// diskFS gives the file system holding abs and abs's name in it: the
// volume's top, so that detection can look above a path as well as below.
func diskFS(abs string) (fs.FS, string) {
	vol := filepath.VolumeName(abs)
	top := vol + string(filepath.Separator)
	rel := strings.TrimPrefix(filepath.ToSlash(strings.TrimPrefix(abs, vol)), "/")
	if rel == "" {
		rel = "."
	}
	return os.DirFS(top), rel
}

// fromFS turns a name found in the file system of abs (whose name there is
// absName) back into an absolute path.
func fromFS(abs, absName, name string) string {
	if name == absName {
		return abs
	}
	vol := filepath.VolumeName(abs)
	return filepath.Join(vol+string(filepath.Separator), filepath.FromSlash(name))
}

// displayFrom names dir the way the user named arg: relative paths stay
// relative, absolute ones absolute.
func displayFrom(arg, absArg, dir string) string {
	if filepath.IsAbs(arg) {
		return filepath.ToSlash(dir)
	}
	rel, err := filepath.Rel(absArg, dir)
	if err != nil {
		return filepath.ToSlash(dir)
	}
	return filepath.ToSlash(filepath.Join(arg, rel))
}

func detectorIDs(ds []Detector) string {
	ids := make([]string, len(ds))
	for i, d := range ds {
		ids[i] = fmt.Sprintf("%q", d.ID())
	}
	return strings.Join(ids, ", ")
}

// LooseDetector is a Detector that also knows a run by signs weaker than
// its defining structure: files only this layout names, left where the
// defining folder was deleted. A loose claim never outranks another
// layout's defining structure: it comes after every such claim, so the
// folder is checked as that layout, and the loose claim is reported
// beside it (Run.Also).
type LooseDetector interface {
	Detector
	DetectLoose(fsys fs.FS, dir string) bool
}

// detect lists the layouts that claim dir, in detector order: every one,
// since a folder two layouts claim must not be checked as one of them in
// silence. Claims by defining structure come first, then loose ones. The
// names a layout defines are matched whatever their case (foldFS).
func detect(fsys fs.FS, dir string, detectors []Detector) []string {
	return detectListed(fsys, dir, detectors, nil)
}

// detectListed is detect; listed (nil when there is none) is fsys's own
// listing of dir, which tells whether a name asked there could be in
// another case: only then is the folder asked again ignoring case.
func detectListed(fsys fs.FS, dir string, detectors []Detector, listed *listedFS) []string {
	ids := claims(fsys, dir, detectors, nil)
	if listed != nil && !listed.mayFold() {
		return ids
	}
	folded := &foldFS{FS: fsys, dir: dir}
	// Only a folder no layout claims as written is asked again ignoring
	// case: a variant beside a run's own names is a stray entry, as any
	// other file would be, and must not add a layout to the run's.
	if len(ids) == 0 {
		return claims(folded, dir, detectors, nil)
	}
	return looseClaims(folded, dir, detectors, ids)
}

// claims appends to ids the layouts whose defining structure fsys shows
// at dir, then the loose claims of the others (looseClaims).
func claims(fsys fs.FS, dir string, detectors []Detector, ids []string) []string {
	for _, d := range detectors {
		if d.Detect(fsys, dir) {
			ids = append(ids, d.ID())
		}
	}
	return looseClaims(fsys, dir, detectors, ids)
}

// looseClaims appends to ids each layout not in them that claims dir
// loosely (LooseDetector).
func looseClaims(fsys fs.FS, dir string, detectors []Detector, ids []string) []string {
	for _, d := range detectors {
		if l, ok := d.(LooseDetector); ok && !slices.Contains(ids, d.ID()) && l.DetectLoose(fsys, dir) {
			ids = append(ids, d.ID())
		}
	}
	return ids
}

// Found is a run found by Search: its folder in the searched file system
// and its layout.
type Found struct {
	Dir, Layout string
	Also        []string // other layouts that claim the folder too
}

// Search finds every run at or below root (a slash path in fsys, "." for
// its top), sorted by folder. It does not follow links, and it skips the
// folders SkipDir names; it does search inside runs, since a run that
// holds another must not hide it. A folder that cannot be read is an
// error: a run could be inside it.
func Search(fsys fs.FS, root string, detectors []Detector) ([]Found, error) {
	return search(fsys, root, detectors, false, nil, false)
}

// SearchWithin is Search limited to the folders within accepts: a folder
// it refuses is not listed, inside a run or not.
func SearchWithin(fsys fs.FS, root string, detectors []Detector, within func(dir string) bool) ([]Found, error) {
	return search(fsys, root, detectors, false, within, false)
}

// search is Search; with links, a symbolic link to a folder that is a run
// is found as a run too (at the link's place), so that discovery can
// report it rather than pass over it, and a link to any other folder is
// found with no layout, so that discovery can look for runs through it,
// whether within accepts its place or not. Only the folders within accepts are
// listed (nil: all); with wholeRuns, all of a run found is.
func search(fsys fs.FS, root string, detectors []Detector, links bool, within func(string) bool, wholeRuns bool) ([]Found, error) {
	var out []Found
	listed := &listedFS{}
	var walk func(dir string, whole bool) error
	walk = func(dir string, whole bool) error {
		entries, err := fs.ReadDir(fsys, dir)
		if err != nil {
			return &UnreadableError{Dir: dir, Err: unwrapPathError(err)}
		}
		listed.reset(fsys, dir, entries)
		if layouts := detectListed(listed, dir, detectors, listed); len(layouts) > 0 {
			out = append(out, Found{Dir: dir, Layout: layouts[0], Also: layouts[1:]})
			whole = whole || wholeRuns // the runs a run holds are all listed in its Holds
		}
		for _, e := range entries {
			// With links, a link is always looked at, within or not: what
			// it leads to, not its place, says whether it hides a run
			// the caller wants (a link to a folder where runs changed).
			isLink := e.Type()&fs.ModeSymlink != 0
			if within != nil && !whole && (e.IsDir() || isLink && !links) && !within(path.Join(dir, e.Name())) {
				continue
			}
			if links && isLink && !skipDirs[e.Name()] {
				name := path.Join(dir, e.Name())
				if info, err := fs.Stat(fsys, name); err == nil && info.IsDir() {
					if layouts := detect(fsys, name, detectors); len(layouts) > 0 {
						out = append(out, Found{Dir: name, Layout: layouts[0], Also: layouts[1:]})
					} else {
						out = append(out, Found{Dir: name}) // no run: the caller looks through it
					}
				}
				continue
			}
			if !e.IsDir() || skipDirs[e.Name()] {
				continue
			}
			if err := walk(path.Join(dir, e.Name()), whole); err != nil {
				return err
			}
		}
		return nil
	}
	if err := walk(root, within == nil); err != nil {
		return nil, err
	}
	slices.SortFunc(out, func(a, b Found) int { return strings.Compare(a.Dir, b.Dir) })
	return out, nil
}

// listedFS answers Lstat about the entries of one folder from the listing
// the search has just read, so that detecting a layout in a folder that
// holds none costs no system call. Anything else goes to the file system.
// It notes the names asked and not found, so that the folder is asked
// again ignoring case only when one of them could be there in another.
type listedFS struct {
	fs.FS
	dir     string
	entries []fs.DirEntry // sorted by name, as fs.ReadDir gives them
	missed  []string      // names of entries asked for and not listed
	deeper  bool          // a name below an entry was asked for and not found
}

var (
	_ fs.ReadLinkFS = (*listedFS)(nil)
	_ fs.ReadDirFS  = (*listedFS)(nil)
)

// reset makes l the listing of dir, keeping its storage.
func (l *listedFS) reset(fsys fs.FS, dir string, entries []fs.DirEntry) {
	l.FS, l.dir, l.entries, l.missed, l.deeper = fsys, dir, entries, l.missed[:0], false
}

func (l *listedFS) Lstat(name string) (fs.FileInfo, error) {
	if path.Dir(name) != l.dir || name == l.dir {
		info, err := fs.Lstat(l.FS, name)
		if errors.Is(err, fs.ErrNotExist) {
			l.deeper = true
		}
		return info, err
	}
	base := path.Base(name)
	i, found := slices.BinarySearchFunc(l.entries, base, func(e fs.DirEntry, n string) int { return strings.Compare(e.Name(), n) })
	if !found {
		if !slices.Contains(l.missed, base) {
			l.missed = append(l.missed, base)
		}
		return nil, errNotListed
	}
	return entryInfo{l.entries[i]}, nil
}

// errNotListed is what listedFS answers for a name its folder does not
// hold: one value, since detection asks for many names no folder has and
// only tests the answer.
var errNotListed error = &fs.PathError{Op: "lstat", Path: "(an entry the folder does not list)", Err: fs.ErrNotExist}

// mayFold reports whether a name detection asked for and did not find
// could be there in another case: an entry of the folder that matches a
// missed name ignoring case, or any missed name below an entry (rare: a
// defining folder that lacks its files), which only a listing would tell.
func (l *listedFS) mayFold() bool {
	if l.deeper {
		return true
	}
	// A missed name is not listed as written, so any match is a variant.
	return slices.ContainsFunc(l.missed, func(n string) bool {
		_, ok := foldMatch(l.entries, n)
		return ok
	})
}

func (l *listedFS) ReadLink(name string) (string, error) { return fs.ReadLink(l.FS, name) }

// ReadDir answers for the listed folder from its listing.
func (l *listedFS) ReadDir(name string) ([]fs.DirEntry, error) {
	if name == l.dir {
		return l.entries, nil
	}
	return fs.ReadDir(l.FS, name)
}

// entryInfo is what a listing knows of an entry: its name and type. Its
// size and time are unknown (zero); detection asks only for the type.
type entryInfo struct{ e fs.DirEntry }

func (i entryInfo) Name() string       { return i.e.Name() }
func (i entryInfo) Size() int64        { return 0 }
func (i entryInfo) Mode() fs.FileMode  { return i.e.Type() }
func (i entryInfo) ModTime() time.Time { return time.Time{} }
func (i entryInfo) IsDir() bool        { return i.e.IsDir() }
func (i entryInfo) Sys() any           { return nil }

// UnreadableError is a folder Search could not list.
type UnreadableError struct {
	Dir string // in the searched file system
	Err error
}

func (e *UnreadableError) Error() string {
	return fmt.Sprintf("cannot read folder %s: %v", e.Dir, e.Err)
}
func (e *UnreadableError) Unwrap() error { return e.Err }

// enclosingRun finds the nearest ancestor of dir (dir included) that is a run.
func enclosingRun(fsys fs.FS, dir string, detectors []Detector) (string, []string, bool) {
	for {
		if layouts := detect(fsys, dir, detectors); len(layouts) > 0 {
			return dir, layouts, true
		}
		if dir == "." {
			return "", nil, false
		}
		dir = path.Dir(dir)
	}
}

// EnclosingRuns lists every run at or above dir (a slash path in fsys),
// the nearest first, each with the layouts that claim it: a path inside a
// run lies in every run above it, and a run that holds another is broken
// by it.
func EnclosingRuns(fsys fs.FS, dir string, detectors []Detector) []Found {
	var out []Found
	for {
		run, layouts, ok := enclosingRun(fsys, dir, detectors)
		if !ok {
			return out
		}
		out = append(out, Found{Dir: run, Layout: layouts[0], Also: layouts[1:]})
		if run == "." {
			return out
		}
		dir = path.Dir(run)
	}
}

// IsNotExist reports whether err from Discover means a path does not exist.
func IsNotExist(err error) bool { return errors.Is(err, fs.ErrNotExist) }

// Enclosing finds the nearest folder at or above dir (a slash path in
// fsys) that is a run of one of detectors: the run a file in dir belongs
// to, and the layouts that claim it (more than one when the folder holds
// the defining files of several). ok is false when dir is inside no run.
func Enclosing(fsys fs.FS, dir string, detectors []Detector) (run string, layouts []string, ok bool) {
	return enclosingRun(fsys, dir, detectors)
}

// Only keeps the detector of layout forced ("" keeps all); an unknown
// layout is an error.
func Only(detectors []Detector, forced string) ([]Detector, error) {
	if forced == "" {
		return detectors, nil
	}
	for _, d := range detectors {
		if d.ID() == forced {
			return []Detector{d}, nil
		}
	}
	return nil, fmt.Errorf("unknown layout %q: expected one of %s", forced, detectorIDs(detectors))
}
