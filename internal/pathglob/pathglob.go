// Package pathglob matches slash-separated relative paths against
// patterns whose segments are path.Match patterns (*, ?, [class]) and
// where a segment that is exactly "**" stands for any number of
// segments, none included. Waiver paths and .gitattributes patterns use
// it.
package pathglob

import (
	"path"
	"strings"
)

// Match reports whether the slash-separated name matches pattern.
func Match(pattern, name string) bool {
	return globSegments(strings.Split(pattern, "/"), segments(name), false)
}

// Covers reports whether pattern can match dir itself or something
// below it.
func Covers(pattern, dir string) bool {
	return globSegments(strings.Split(pattern, "/"), segments(dir), true)
}

// segments splits a clean slash path; "." (the base itself) has none.
func segments(name string) []string {
	if name == "." || name == "" {
		return nil
	}
	return strings.Split(name, "/")
}

// globSegments matches pattern segments against name segments by dynamic
// programming over (pattern, name) positions, so a pattern with many "**"
// stays linear in the product of the lengths. With prefix set, the name
// may stop anywhere in the pattern: it names a directory that something
// matching the rest of the pattern could lie below.
func globSegments(pat, name []string, prefix bool) bool {
	// reach[j] means: pat[:i] can consume name[:j].
	reach := make([]bool, len(name)+1)
	reach[0] = true
	for i := 0; i < len(pat); i++ {
		if prefix && reach[len(name)] {
			return true
		}
		next := make([]bool, len(name)+1)
		if pat[i] == "**" {
			seen := false
			for j := range reach {
				seen = seen || reach[j]
				next[j] = seen
			}
		} else {
			for j := 0; j < len(name); j++ {
				if reach[j] {
					if ok, _ := path.Match(pat[i], name[j]); ok {
						next[j+1] = true
					}
				}
			}
		}
		reach = next
	}
	return reach[len(name)]
}
