package cli

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// throughLink is the first folder on the way to the file at path, below
// the working directory, that is a symbolic link ("" when there is none).
// The folders there are the repository's, which the change under review
// can turn into links: a report written through one lands wherever the
// change chose, inside a run or outside the repository. The folders above
// the working directory are the machine's (a home folder may be a link),
// and so is a path outside it.
func throughLink(path string) (string, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", err
	}
	wd, err := os.Getwd()
	if err != nil {
		return "", err
	}
	rel, err := filepath.Rel(wd, filepath.Dir(abs))
	if err != nil || rel == "." || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", nil
	}
	cur := wd
	for _, part := range strings.Split(rel, string(filepath.Separator)) {
		cur = filepath.Join(cur, part)
		info, err := os.Lstat(cur)
		if err != nil {
			return "", nil // nothing there: the write says why it cannot be made
		}
		if info.Mode()&fs.ModeSymlink != 0 {
			return cur, nil
		}
	}
	return "", nil
}

// noReportThroughLinks refuses a file the check would write (a report of
// --output, a profile) whose folder is reached through a symbolic link
// below the working directory.
func noReportThroughLinks(flag string, paths ...string) error {
	for _, p := range paths {
		if p == "" {
			continue
		}
		link, err := throughLink(p)
		if err != nil {
			return fmt.Errorf("%s %s: %w", flag, p, err)
		}
		if link != "" {
			to, _ := os.Readlink(link)
			return fmt.Errorf("%s %s: the folder %s is a symbolic link (to %s); a file is never written through a link, which the change under review could have made to lead into a run or out of the repository: write to a real folder", flag, p, link, to)
		}
	}
	return nil
}
