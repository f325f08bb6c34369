package history

import (
	"path"
	"slices"
	"strings"
)

// skipDirs hold tooling, not runs; discovery does not search them either.
var skipDirs = map[string]bool{".git": true, "node_modules": true, "vendor": true}

// RunsAt returns the run directories among files, a list of every file
// under a folder at a revision (top-level-relative, as Lister gives them).
// Like discovery on disk, it does not look for runs inside a run.
func RunsAt(files []string) []string {
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

	candidates := map[string]bool{}
	for _, f := range files {
		for _, det := range runDetectors {
			for _, m := range det.markers {
				dir, ok := strings.CutSuffix(f, "/"+m)
				if !ok {
					if f != m {
						continue
					}
					dir = ""
				}
				if !candidates[dir] && !skipped(dir) && det.isRun(dir, has, hasUnder) {
					candidates[dir] = true
				}
			}
		}
	}
	runs := make([]string, 0, len(candidates))
	for d := range candidates {
		if !insideRun(d, candidates) {
			runs = append(runs, d)
		}
	}
	slices.Sort(runs)
	return runs
}

// insideRun reports whether a folder above dir is a run.
func insideRun(dir string, runs map[string]bool) bool {
	if dir == "" {
		return false
	}
	for d := path.Dir(dir); ; d = path.Dir(d) {
		if d == "." {
			return runs[""]
		}
		if runs[d] {
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
