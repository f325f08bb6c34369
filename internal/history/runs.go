package history

import (
	"path"
	"slices"
	"strings"
)

// skipDirs hold tooling, not runs; discovery does not search them either.
var skipDirs = map[string]bool{".git": true, "node_modules": true, "vendor": true}

// RunAt is a run directory found in a revision's file list.
type RunAt struct {
	Dir    string // top-level-relative
	Layout string
}

// RunsAt returns the run directories among files, a list of every file
// under a folder at a revision (top-level-relative, as Lister gives them),
// sorted. Like discovery on disk, it does not look for runs inside a run.
func RunsAt(files []string) []RunAt {
	set := make(map[string]bool, len(files))
	dirs := map[string]bool{}
	for _, f := range files {
		set[f] = true
		for d := path.Dir(f); d != "." && !dirs[d]; d = path.Dir(d) {
			dirs[d] = true
		}
	}
	has := func(p string) bool { return set[p] }
	hasUnder := func(d string) bool { return dirs[d] }

	candidates := map[string]string{} // dir -> layout
	for _, f := range files {
		for _, det := range runDetectors {
			for _, m := range det.markers {
				dir, ok := markerDir(f, m)
				if !ok {
					continue
				}
				if _, ok := candidates[dir]; !ok && !skipped(dir) && det.isRun(dir, has, hasUnder) {
					candidates[dir] = det.layout
				}
			}
		}
	}
	runs := make([]RunAt, 0, len(candidates))
	for d, layout := range candidates {
		if !insideRun(d, candidates) {
			runs = append(runs, RunAt{Dir: d, Layout: layout})
		}
	}
	slices.SortFunc(runs, func(a, b RunAt) int { return strings.Compare(a.Dir, b.Dir) })
	return runs
}

// markerDir returns the folder a file marks as a run: the file is the
// marker (a literal path, or a path.Match pattern such as
// ".state/*-pipeline.json") below that folder.
func markerDir(f, marker string) (string, bool) {
	parts := strings.Split(f, "/")
	n := strings.Count(marker, "/") + 1
	if len(parts) < n {
		return "", false
	}
	tail := strings.Join(parts[len(parts)-n:], "/")
	if ok, _ := path.Match(marker, tail); !ok {
		return "", false
	}
	return strings.Join(parts[:len(parts)-n], "/"), true
}

// insideRun reports whether a folder above dir is a run.
func insideRun(dir string, runs map[string]string) bool {
	if dir == "" {
		return false
	}
	for d := path.Dir(dir); ; d = path.Dir(d) {
		if d == "." {
			_, ok := runs[""]
			return ok
		}
		if _, ok := runs[d]; ok {
			return true
		}
	}
}

func skipped(dir string) bool {
	for _, el := range strings.Split(dir, "/") {
		if skipDirs[el] {
			return true
		}
	}
	return false
}

func joinRel(dir, name string) string {
	if dir == "" {
		return name
	}
	return dir + "/" + name
}
