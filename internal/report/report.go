// Package report renders check results. Every format is a pure function of
// the results and the options; nothing here decides a verdict.
package report

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/h3a-check/h3a-check/internal/audit"
)

// Input is everything a report may show.
type Input struct {
	Tool   audit.Tool
	Gate   string
	Audits []*audit.Audit
}

// Options tune presentation only.
type Options struct {
	Color bool // ANSI colour (text format only)
}

// Writer renders one format.
type Writer func(w io.Writer, in *Input, opts Options) error

// formats is the explicit list of output formats.
var formats = map[string]Writer{
	"text": Text,
	"json": JSON,
}

// Formats lists the format names, sorted.
func Formats() []string {
	names := make([]string, 0, len(formats))
	for n := range formats {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// Lookup returns the writer of a format.
func Lookup(name string) (Writer, error) {
	w, ok := formats[name]
	if !ok {
		return nil, fmt.Errorf("unknown format %q: expected one of %s", name, strings.Join(Formats(), ", "))
	}
	return w, nil
}

// WriteFileAtomic renders into a temporary file beside path and renames it
// into place, so a reader never sees a partial report.
func WriteFileAtomic(path string, render func(io.Writer) error) (err error) {
	dir := filepath.Dir(path)
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	if err = render(tmp); err != nil {
		return err
	}
	if err = tmp.Chmod(0o644); err != nil {
		return err
	}
	if err = tmp.Sync(); err != nil {
		return err
	}
	if err = tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}
