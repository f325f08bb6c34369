// Package rundir finds run directories and reads files inside them without
// ever leaving them.
package rundir

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Detector recognises the runs of one layout.
type Detector interface {
	ID() string
	// Detect reports whether dir (absolute) is the root of a run of this layout.
	Detect(dir string) bool
}

// Run is one run directory found by discovery.
type Run struct {
	Dir     string // absolute and clean
	Display string // as the user would write it: relative to the PATH it came from
	Layout  string
}

// skipDirs are never searched for runs: they hold tooling, not runs.
var skipDirs = map[string]bool{".git": true, "node_modules": true, "vendor": true}

// Discover maps each path to the runs it names: a run directory, a folder
// holding runs at any depth, or a file or folder inside a run. Results are
// sorted by directory and each run appears once. If forced is not empty only
// that layout is detected, and a directory given directly that holds no run
// is taken as a run of that layout, so a run broken beyond recognition is
// still checked. A path that cannot be read is an error; a path holding no
// run is not (the caller decides what an empty result means).
func Discover(paths []string, detectors []Detector, forced string) ([]Run, error) {
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
	for _, p := range paths {
		abs, err := filepath.Abs(p)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", p, err)
		}
		n0 := len(found)
		add := func(dir, layout string) {
			if _, ok := found[dir]; !ok {
				found[dir], display[dir] = layout, displayFrom(p, abs, dir)
			}
		}
		info, err := os.Stat(abs)
		if err != nil {
			return nil, fmt.Errorf("cannot read %s: %w", p, unwrapPathError(err))
		}
		switch {
		case !info.IsDir():
			if dir, layout, ok := enclosingRun(filepath.Dir(abs), detectors); ok {
				add(dir, layout)
			}
		default:
			if layout, ok := detect(abs, detectors); ok {
				add(abs, layout)
				break
			}
			if err := searchRuns(abs, detectors, add); err != nil {
				return nil, err
			}
			if len(found) > n0 {
				break
			}
			if dir, layout, ok := enclosingRun(filepath.Dir(abs), detectors); ok {
				add(dir, layout)
			} else if forced != "" {
				add(abs, forced)
			}
		}
	}
	runs := make([]Run, 0, len(found))
	for dir, layout := range found {
		runs = append(runs, Run{Dir: dir, Display: display[dir], Layout: layout})
	}
	slices.SortFunc(runs, func(a, b Run) int { return strings.Compare(a.Dir, b.Dir) })
	return runs, nil
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

func detect(dir string, detectors []Detector) (string, bool) {
	for _, d := range detectors {
		if d.Detect(dir) {
			return d.ID(), true
		}
	}
	return "", false
}

// searchRuns walks below root (not following symbolic links) and records
// every run; it does not descend into a run, whose artifacts may hold
// anything, including copies of other runs.
func searchRuns(root string, detectors []Detector, add func(dir, layout string)) error {
	return filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == root {
				return fmt.Errorf("cannot read %s: %w", root, unwrapPathError(err))
			}
			if d != nil && d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		if !d.IsDir() {
			return nil
		}
		if p != root && skipDirs[d.Name()] {
			return fs.SkipDir
		}
		if layout, ok := detect(p, detectors); ok {
			add(p, layout)
			return fs.SkipDir
		}
		return nil
	})
}

// enclosingRun finds the nearest ancestor of dir (dir included) that is a run.
func enclosingRun(dir string, detectors []Detector) (string, string, bool) {
	for {
		if layout, ok := detect(dir, detectors); ok {
			return dir, layout, true
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", "", false
		}
		dir = parent
	}
}

// IsNotExist reports whether err from Discover means a path does not exist.
func IsNotExist(err error) bool { return errors.Is(err, fs.ErrNotExist) }
