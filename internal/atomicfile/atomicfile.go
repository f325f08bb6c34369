// Package atomicfile writes a file so that a reader sees the old content
// or the whole new content, never a part: into a temporary file beside the
// target, renamed over it once complete. Every file the checker writes
// (reports, profiles, a run's audit.json) is written this way.
//
// The temporary files have one recognisable name, ".<target>.h3a-check-
// <random>.tmp", so that what an interrupted checker left behind is known
// as its own: Create removes such leftovers of the same target, and a check
// reports one found in a run as the checker's, not as an agent's
// interrupted write.
package atomicfile

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// tempInfix and tempSuffix frame the random part of a temporary name.
const (
	tempInfix  = ".h3a-check-"
	tempSuffix = ".tmp"
)

// IsTemp reports whether name (a base name) is one of the checker's
// temporary files, and names the target it was written for.
func IsTemp(name string) (target string, ok bool) {
	if !strings.HasPrefix(name, ".") || !strings.HasSuffix(name, tempSuffix) {
		return "", false
	}
	i := strings.LastIndex(name, tempInfix)
	if i <= 1 {
		return "", false
	}
	random := name[i+len(tempInfix) : len(name)-len(tempSuffix)]
	if len(random) != 16 || strings.Trim(random, "0123456789abcdef") != "" {
		return "", false
	}
	return name[1:i], true
}

func tempName(target string) string {
	b := make([]byte, 8)
	rand.Read(b) // never fails (crypto/rand)
	return "." + target + tempInfix + hex.EncodeToString(b) + tempSuffix
}

// File is a file being written; Commit puts it in place, Abort drops it.
type File struct {
	*os.File
	dir    *os.Root
	owned  bool // dir was opened by Create and is closed with the file
	tmp    string
	target string
	done   bool
}

// Create starts writing path. The new file gets the mode of the file it
// replaces, or the usual mode under the umask when there is none.
func Create(path string) (*File, error) {
	dir, err := os.OpenRoot(filepath.Dir(path))
	if err != nil {
		return nil, err
	}
	f, err := CreateIn(dir, filepath.Base(path))
	if err != nil {
		dir.Close()
		return nil, err
	}
	f.owned = true
	return f, nil
}

// CreateIn starts writing name inside dir; nothing outside dir is
// touched, and a symbolic link at name is replaced, never followed. dir
// must stay open until Commit or Abort.
func CreateIn(dir *os.Root, name string) (*File, error) {
	if name == "" || name == "." || strings.ContainsRune(name, '/') {
		return nil, fmt.Errorf("%q is not a file name", name)
	}
	mode := fs.FileMode(0o666) // the umask applies
	keep := false
	switch info, err := dir.Lstat(name); {
	case err == nil && info.Mode().IsRegular():
		mode, keep = info.Mode().Perm(), true
	case err == nil && info.IsDir():
		return nil, fmt.Errorf("%s is a directory", name)
	case err != nil && !errors.Is(err, fs.ErrNotExist):
		return nil, err
	}
	if err := removeLeftovers(dir, name); err != nil {
		return nil, err
	}
	tmp := tempName(name)
	// O_EXCL: a name that exists, a planted symbolic link included, is
	// never opened.
	f, err := dir.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode)
	if err != nil {
		return nil, err
	}
	if keep {
		if err := f.Chmod(mode); err != nil {
			f.Close()
			dir.Remove(tmp)
			return nil, err
		}
	}
	return &File{File: f, dir: dir, tmp: tmp, target: name}, nil
}

// removeLeftovers deletes what interrupted checkers left while writing
// name in dir.
func removeLeftovers(dir *os.Root, name string) error {
	d, err := dir.Open(".")
	if err != nil {
		return err
	}
	defer d.Close()
	names, err := d.Readdirnames(-1)
	if err != nil {
		return err
	}
	for _, n := range names {
		if target, ok := IsTemp(n); ok && target == name {
			if err := dir.Remove(n); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return fmt.Errorf("removing the leftover %s: %w", n, err)
			}
		}
	}
	return nil
}

// Commit flushes the file to disk and renames it over the target.
func (f *File) Commit() error {
	if f.done {
		return errors.New("file already committed or aborted")
	}
	err := f.Sync()
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = f.dir.Rename(f.tmp, f.target)
	}
	if err != nil {
		f.dir.Remove(f.tmp)
	}
	f.finish()
	return err
}

// Abort drops the file; the target stays as it was. It does nothing after
// Commit.
func (f *File) Abort() {
	if f.done {
		return
	}
	f.Close()
	f.dir.Remove(f.tmp)
	f.finish()
}

func (f *File) finish() {
	f.done = true
	if f.owned {
		f.dir.Close()
	}
}

// WriteIn writes data to name inside dir atomically.
func WriteIn(dir *os.Root, name string, data []byte) error {
	f, err := CreateIn(dir, name)
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Abort()
		return err
	}
	return f.Commit()
}

// WriteFile writes data to path atomically.
func WriteFile(path string, data []byte) error {
	dir, err := os.OpenRoot(filepath.Dir(path))
	if err != nil {
		return err
	}
	defer dir.Close()
	return WriteIn(dir, filepath.Base(path), data)
}
