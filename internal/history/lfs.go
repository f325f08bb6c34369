package history

import (
	"path"
	"strings"

	"github.com/h3a-check/h3a-check/internal/pathglob"
)

// AttrFile is one .gitattributes file: the folder it sits in (relative to
// the repository's top, "" for the top) and its content.
type AttrFile struct {
	Dir  string
	Data []byte
}

// lfsTracked reports whether git gives the file at p (relative to the
// repository's top) the attribute filter=lfs by these files, outermost
// first: every line whose pattern matches p sets, unsets or leaves the
// attribute, and the last such line decides, as git decides. Only the
// filter attribute is read: lfs is what "git lfs track" writes.
func lfsTracked(files []AttrFile, p string) bool {
	tracked := false
	for _, f := range files {
		rel := p
		if f.Dir != "" {
			var ok bool
			if rel, ok = strings.CutPrefix(p, f.Dir+"/"); !ok {
				continue
			}
		}
		for _, line := range strings.Split(string(f.Data), "\n") {
			fields := strings.Fields(strings.TrimSuffix(line, "\r"))
			if len(fields) < 2 || strings.HasPrefix(fields[0], "#") || strings.HasPrefix(fields[0], "!") {
				continue // blank, comment, or a negative pattern (which git refuses)
			}
			if !attrPatternMatches(fields[0], rel) {
				continue
			}
			for _, attr := range fields[1:] {
				switch {
				case attr == "filter=lfs":
					tracked = true
				case strings.HasPrefix(attr, "filter=") || attr == "-filter" || attr == "!filter":
					tracked = false
				}
			}
		}
	}
	return tracked
}

// attrPatternMatches applies a .gitattributes pattern to a path relative
// to the file's folder: a pattern without a slash matches the file's name
// at any depth; one with a slash matches from the folder (a leading slash
// only anchors it).
func attrPatternMatches(pattern, rel string) bool {
	if !strings.Contains(strings.TrimSuffix(pattern, "/"), "/") {
		return pathglob.Match(pattern, path.Base(rel))
	}
	return pathglob.Match(strings.TrimPrefix(pattern, "/"), rel)
}

// attrDirs lists the folders whose .gitattributes apply to p (relative to
// the repository's top): the top and every folder down to p's own.
func attrDirs(p string) []string {
	dirs := []string{""}
	parts := strings.Split(path.Dir(p), "/")
	if path.Dir(p) == "." {
		return dirs
	}
	for i := range parts {
		dirs = append(dirs, strings.Join(parts[:i+1], "/"))
	}
	return dirs
}
