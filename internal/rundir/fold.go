package rundir

import (
	"errors"
	"io/fs"
	"path"
	"strings"
	"unicode"

	"github.com/h3a-check/h3a-check/internal/jsonpos"
)

// foldFS is the view detection has of one folder: a name below dir that
// is not there as written is looked up again ignoring ASCII case. A run
// whose defining folder is written State/ (or whose state.json is
// STATE.JSON) is a run all the same: on a file system that ignores case it
// is the very same run, and matched exactly only, one renamed folder would
// hide the whole run, its tampered artifacts and its gate claims, from
// every search. Found so, the run is checked by the names its layout
// defines: each file it holds under a variant is an error
// (h3a.structure.name_case), and each it lacks under its name is a
// finding that names the variant that is there (Root.statProblem).
//
// Only names below dir fold; dir itself and the folders above it are as
// written. Exact names are asked first, so a folder whose names are
// written as the layout writes them costs what it cost before; a missing
// name costs a scan of the folder's names that hold an upper-case letter,
// or one listing of a folder below it.
type foldFS struct {
	fs.FS
	dir      string
	listings map[string][]fs.DirEntry // folders listed to fold a name, by name
}

var (
	_ fs.ReadLinkFS = (*foldFS)(nil)
	_ fs.ReadDirFS  = (*foldFS)(nil)
	_ fs.StatFS     = (*foldFS)(nil)
)

// resolve gives the name of the entry name stands for: name itself when it
// is there as written or lies outside dir, else the entry whose elements
// match name's ignoring ASCII case (the first in sorted order when several
// do). ok is false when nothing matches.
func (f *foldFS) resolve(name string) (string, bool) {
	rel, below := f.below(name)
	if !below {
		return name, true
	}
	if _, err := fs.Lstat(f.FS, name); !errors.Is(err, fs.ErrNotExist) {
		return name, true // there, or an error the file system reports itself
	}
	cur, exact := f.dir, true
	for el, rest := range elements(rel) {
		next := path.Join(cur, el)
		// The whole name, written as asked, is known to be missing.
		if !(exact && rest == "") {
			if _, err := fs.Lstat(f.FS, next); err == nil {
				cur = next
				continue
			}
		}
		match, ok := foldMatch(f.list(cur), el)
		if !ok {
			return name, false
		}
		cur, exact = path.Join(cur, match), false
	}
	return cur, true
}

// elements yields each element of a slash path with what follows it.
func elements(rel string) func(yield func(el, rest string) bool) {
	return func(yield func(el, rest string) bool) {
		for {
			el, rest, more := strings.Cut(rel, "/")
			if !yield(el, rest) || !more {
				return
			}
			rel = rest
		}
	}
}

// below reports name's path relative to dir, when name lies below it.
func (f *foldFS) below(name string) (string, bool) {
	if f.dir == "." {
		return name, name != "."
	}
	return strings.CutPrefix(name, f.dir+"/")
}

// list lists folder once per view; a folder that cannot be listed holds
// no variant.
func (f *foldFS) list(folder string) []fs.DirEntry {
	if entries, ok := f.listings[folder]; ok {
		return entries
	}
	entries, _ := fs.ReadDir(f.FS, folder)
	if f.listings == nil {
		f.listings = map[string][]fs.DirEntry{}
	}
	f.listings[folder] = entries
	return entries
}

// missing is what every method answers for a name nothing matches.
func missing(op, name string) error {
	return &fs.PathError{Op: op, Path: name, Err: fs.ErrNotExist}
}

func (f *foldFS) Open(name string) (fs.File, error) {
	target, ok := f.resolve(name)
	if !ok {
		return nil, missing("open", name)
	}
	return f.FS.Open(target)
}

func (f *foldFS) Lstat(name string) (fs.FileInfo, error) {
	target, ok := f.resolve(name)
	if !ok {
		return nil, missing("lstat", name)
	}
	return fs.Lstat(f.FS, target)
}

func (f *foldFS) Stat(name string) (fs.FileInfo, error) {
	target, ok := f.resolve(name)
	if !ok {
		return nil, missing("stat", name)
	}
	return fs.Stat(f.FS, target)
}

func (f *foldFS) ReadLink(name string) (string, error) {
	target, ok := f.resolve(name)
	if !ok {
		return "", missing("readlink", name)
	}
	return fs.ReadLink(f.FS, target)
}

func (f *foldFS) ReadDir(name string) ([]fs.DirEntry, error) {
	target, ok := f.resolve(name)
	if !ok {
		return nil, missing("readdir", name)
	}
	return fs.ReadDir(f.FS, target)
}

// foldMatch is the first of entries whose name is name ignoring ASCII
// case, or that shows as name (sameShown). Asked for a name the entries do
// not hold as written, it is the variant that is there.
func foldMatch(entries []fs.DirEntry, name string) (string, bool) {
	for _, e := range entries {
		if sameShown(e.Name(), name) {
			return e.Name(), true
		}
	}
	return "", false
}

// equalFoldASCII reports whether a and b are equal ignoring the case of
// ASCII letters only: file systems that ignore case agree on those, and a
// wider folding (the Kelvin sign as k) would match names no file system
// takes for one another.
func equalFoldASCII(a, b string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := 0; i < len(a); i++ {
		x, y := a[i], b[i]
		if x == y {
			continue
		}
		if 'A' <= x && x <= 'Z' {
			x += 'a' - 'A'
		}
		if 'A' <= y && y <= 'Z' {
			y += 'a' - 'A'
		}
		if x != y {
			return false
		}
	}
	return true
}

// sameShown reports whether a and b are one name to a reader or to some
// file system: equal ignoring ASCII case (equalFoldASCII), or once each is
// written as it shows (FoldName). A state.json with a space after it, a
// state folder with a zero-width space in its name or a CURRENT_TASK.json
// written with a Cyrillic "С" is listed on GitHub as the layout's name, and
// Windows drops trailing dots and spaces from a name; read by the names
// the layout writes only, the variant's content (a failed gate, a second
// run) would be shown to a reviewer and checked by no one.
func sameShown(a, b string) bool {
	if plainName(a) && plainName(b) {
		return equalFoldASCII(a, b)
	}
	return FoldName(a) == FoldName(b)
}

// FoldName is a name (one element of a path) as it is matched against a
// name a layout defines: its ASCII letters in lower case, without the
// characters that show as nothing, with each one drawn like an ASCII
// character written as that one (jsonpos.ShownName), without white space
// at either end, and without dots at its end (which Windows drops).
func FoldName(name string) string {
	if !plainName(name) {
		name = jsonpos.ShownName(name)
		name = strings.TrimLeftFunc(name, unicode.IsSpace)
		name = strings.TrimRightFunc(name, func(r rune) bool { return r == '.' || unicode.IsSpace(r) })
	}
	for i := 0; i < len(name); i++ {
		if 'A' <= name[i] && name[i] <= 'Z' {
			b := []byte(name)
			for j := i; j < len(b); j++ {
				if 'A' <= b[j] && b[j] <= 'Z' {
					b[j] += 'a' - 'A'
				}
			}
			return string(b)
		}
	}
	return name
}

// plainName reports whether name is ASCII with no white space at either
// end and no dot at its end: a name FoldName only changes the case of.
func plainName(name string) bool {
	n := len(name)
	if n == 0 || asciiSpace(name[0]) || asciiSpace(name[n-1]) || name[n-1] == '.' {
		return n == 0
	}
	for i := 0; i < n; i++ {
		if name[i] >= 0x80 {
			return false
		}
	}
	return true
}

func asciiSpace(c byte) bool {
	return c == ' ' || '\t' <= c && c <= '\r'
}

// PlainPath reports whether every element of rel (slash-separated) is
// one FoldName only changes the case of: a variant of a layout's name
// found for such a path differs from it in case only.
func PlainPath(rel string) bool {
	for _, e := range strings.Split(rel, "/") {
		if !plainName(e) {
			return false
		}
	}
	return true
}

// FoldPath is rel, a slash-separated path, with each element folded as
// FoldName folds a name: two paths with one FoldPath show as one.
func FoldPath(rel string) string {
	if PlainPath(rel) {
		return FoldName(rel)
	}
	elems := strings.Split(rel, "/")
	for i, e := range elems {
		elems[i] = FoldName(e)
	}
	return strings.Join(elems, "/")
}
