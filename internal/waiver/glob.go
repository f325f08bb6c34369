package waiver

import (
	"errors"
	"fmt"
	"path"
	"strings"

	"github.com/h3a-check/h3a-check/internal/pathglob"
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
func matchPath(pattern, name string) bool { return pathglob.Match(pattern, name) }

// coversDir reports whether pattern can match dir itself or something
// below it: the run a waiver is about.
func coversDir(pattern, dir string) bool { return pathglob.Covers(pattern, dir) }
