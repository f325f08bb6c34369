package history

import (
	"errors"
	"io/fs"

	"github.com/h3a-check/h3a-check/internal/layout"
	"github.com/h3a-check/h3a-check/internal/rundir"
)

// RunAt is a run directory found in a revision.
type RunAt struct {
	Dir    string // top-level-relative
	Layout string
}

// RunsAt returns the run directories at or below dir in fsys, a revision's
// files (gitrev.FilesFS), sorted. It is discovery's own search with the
// layouts' own detection, so a revision and the working tree agree on what
// a run is: every run is found, including one inside another.
func RunsAt(fsys fs.FS, dir string) ([]RunAt, error) {
	if dir == "" {
		dir = "."
	}
	if _, err := fs.Stat(fsys, dir); errors.Is(err, fs.ErrNotExist) {
		return nil, nil // the revision has no such folder: it held no run
	}
	found, err := rundir.Search(fsys, dir, layout.Detectors())
	if err != nil {
		return nil, err
	}
	runs := make([]RunAt, 0, len(found))
	for _, f := range found {
		d := f.Dir
		if d == "." {
			d = ""
		}
		runs = append(runs, RunAt{Dir: d, Layout: f.Layout})
	}
	return runs, nil
}
