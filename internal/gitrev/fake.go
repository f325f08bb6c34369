package gitrev

import (
	"bytes"
	"fmt"
	"io"
	"path"
	"slices"
	"strings"
	"sync"
)

// Fake is an in-memory Tree for unit tests: Files[rev][path] is a file's
// content at rev. Err, when set, is returned by every call, as a broken
// reader would.
type Fake struct {
	Files map[string]map[string][]byte
	Err   error

	mu    sync.Mutex
	reads int
}

var _ Tree = (*Fake)(nil)

// Reads counts Read and Stream calls.
func (f *Fake) Reads() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.reads
}

func (f *Fake) lookup(rev, p string) ([]byte, bool, error) {
	f.mu.Lock()
	f.reads++
	f.mu.Unlock()
	if f.Err != nil {
		return nil, false, f.Err
	}
	if err := CheckRev(rev); err != nil {
		return nil, false, err
	}
	files, ok := f.Files[rev]
	if !ok {
		return nil, false, &MissingCommitError{Rev: rev}
	}
	c := path.Clean("/" + p)[1:]
	if data, ok := files[c]; ok {
		return data, true, nil
	}
	for name := range files {
		if strings.HasPrefix(name, c+"/") {
			return nil, true, fmt.Errorf("%s at %s is a tree: %w", c, short(rev), ErrNotFile)
		}
	}
	return nil, false, nil
}

func (f *Fake) Read(rev, p string) ([]byte, bool, error) {
	data, ok, err := f.lookup(rev, p)
	if err != nil || !ok {
		return nil, ok, err
	}
	return slices.Clone(data), true, nil
}

func (f *Fake) Stream(rev, p string, fn func(io.Reader) error) (bool, error) {
	data, ok, err := f.lookup(rev, p)
	if err != nil || !ok {
		return ok, err
	}
	return true, fn(bytes.NewReader(data))
}

func (f *Fake) List(rev, dir string) ([]string, error) {
	if f.Err != nil {
		return nil, f.Err
	}
	files, ok := f.Files[rev]
	if !ok {
		return nil, &MissingCommitError{Rev: rev}
	}
	d := path.Clean("/" + dir)[1:]
	var out []string
	for name := range files {
		if d == "" || strings.HasPrefix(name, d+"/") {
			out = append(out, name)
		}
	}
	slices.Sort(out)
	return out, nil
}
