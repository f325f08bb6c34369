package waiver

import (
	"errors"
	"fmt"
	"path"
	"strings"
)

// A path pattern is slash-separated and relative. Each segment is a
// path.Match pattern (*, ?, [class]); a segment that is exactly "**"
// stands for any number of segments, none included.

// CheckPattern reports why p cannot be used as a waiver path, or nil.
func CheckPattern(p string) error {
	switch {
	case p == "":
		return errors.New("empty path pattern")
	case strings.HasPrefix(p, "/"):
		return fmt.Errorf("path pattern %q is absolute: expected a path relative to the configuration file", p)
	case strings.Contains(p, `\`):
		return fmt.Errorf("path pattern %q contains a backslash: use forward slashes", p)
	}
	for _, seg := range strings.Split(p, "/") {
		switch seg {
		case "", ".", "..":
			return fmt.Errorf("path pattern %q has an empty, \".\" or \"..\" segment: expected a clean relative path", p)
		case "**":
			continue
		}
		if strings.Contains(seg, "**") {
			return fmt.Errorf("path pattern %q: \"**\" must be a whole segment, as in \"runs/**/artifacts/*\"", p)
		}
		if _, err := path.Match(seg, ""); err != nil {
			return fmt.Errorf("path pattern %q: malformed segment %q", p, seg)
		}
	}
	return nil
}

// CheckRulePattern reports why p cannot be used as a waiver rule, or nil.
func CheckRulePattern(p string) error {
	if p == "" {
		return errors.New("empty rule")
	}
	if _, err := path.Match(p, ""); err != nil {
		return fmt.Errorf("rule pattern %q is malformed", p)
	}
	return nil
}

// matchPath reports whether the slash-separated name matches pattern.
func matchPath(pattern, name string) bool {
	return globSegments(strings.Split(pattern, "/"), segments(name), false)
}

// coversDir reports whether pattern can match dir itself or something
// below it: the run a waiver is about.
func coversDir(pattern, dir string) bool {
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
