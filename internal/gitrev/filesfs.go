package gitrev

import (
	"bytes"
	"io"
	"io/fs"
	"path"
	"slices"
	"time"
)

// FilesFS is a read-only fs.FS over a listing of a revision's files
// (slash paths, as a Lister gives them): its folders are implied by the
// names, and a file's content is read on demand. It lets code that works
// on folders, such as run detection, run on a revision as it runs on disk.
// Every listed name is a regular file: git keeps a link as a file whose
// content is the link's target.
type FilesFS struct {
	files map[string]bool
	links map[string]bool     // files that are symbolic links (WithLinks)
	sizes map[string]int64    // when the content is known up front
	dirs  map[string][]string // folder -> sorted child names ("." for the top)
	read  func(name string) ([]byte, error)
}

var (
	_ fs.StatFS     = (*FilesFS)(nil)
	_ fs.ReadDirFS  = (*FilesFS)(nil)
	_ fs.ReadLinkFS = (*FilesFS)(nil)
)

// WithLinks marks the listed files names as symbolic links, as git's
// mode 120000 says they are: Lstat and ReadDir show them as links, as a
// work tree does, so that detection, which takes a link where a run's
// folder would be for that folder, finds the runs a check of the work
// tree finds. Stat and Open still give the file git keeps, the target.
func (f *FilesFS) WithLinks(names []string) *FilesFS {
	for _, name := range names {
		name = path.Clean("/" + name)[1:]
		if f.files[name] {
			if f.links == nil {
				f.links = map[string]bool{}
			}
			f.links[name] = true
		}
	}
	return f
}

// Lstat is Stat, but shows a link as a link.
func (f *FilesFS) Lstat(name string) (fs.FileInfo, error) {
	info, err := f.Stat(name)
	if err == nil && f.links[name] {
		return listedInfo{name: path.Base(name), size: f.sizes[name], link: true}, nil
	}
	return info, err
}

// ReadLink gives a link's target.
func (f *FilesFS) ReadLink(name string) (string, error) {
	if !fs.ValidPath(name) {
		return "", &fs.PathError{Op: "readlink", Path: name, Err: fs.ErrInvalid}
	}
	if !f.links[name] || f.read == nil {
		return "", &fs.PathError{Op: "readlink", Path: name, Err: fs.ErrInvalid}
	}
	data, err := f.read(name)
	if err != nil {
		return "", &fs.PathError{Op: "readlink", Path: name, Err: err}
	}
	return string(data), nil
}

// NewFilesFS builds the file system of files; read returns a file's
// content (nil read: every file reads as empty).
func NewFilesFS(files []string, read func(name string) ([]byte, error)) *FilesFS {
	f := &FilesFS{files: make(map[string]bool, len(files)), dirs: map[string][]string{".": nil}, read: read}
	for _, name := range files {
		name = path.Clean("/" + name)[1:]
		if name == "" || f.files[name] {
			continue
		}
		f.files[name] = true
		for child := name; ; {
			parent := path.Dir(child)
			_, known := f.dirs[parent]
			f.dirs[parent] = append(f.dirs[parent], path.Base(child))
			if known || parent == "." {
				break
			}
			child = parent
		}
	}
	for d, children := range f.dirs {
		slices.Sort(children)
		f.dirs[d] = slices.Compact(children)
	}
	return f
}

// MemFS is a FilesFS over contents already read: name → content.
func MemFS(files map[string][]byte) *FilesFS {
	names := make([]string, 0, len(files))
	sizes := make(map[string]int64, len(files))
	for n, data := range files {
		names = append(names, n)
		sizes[path.Clean("/" + n)[1:]] = int64(len(data))
	}
	f := NewFilesFS(names, func(name string) ([]byte, error) { return files[name], nil })
	f.sizes = sizes
	return f
}

func (f *FilesFS) Stat(name string) (fs.FileInfo, error) {
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: "stat", Path: name, Err: fs.ErrInvalid}
	}
	if f.files[name] {
		return listedInfo{name: path.Base(name), size: f.sizes[name]}, nil
	}
	if _, ok := f.dirs[name]; ok {
		return listedInfo{name: path.Base(name), dir: true}, nil
	}
	return nil, &fs.PathError{Op: "stat", Path: name, Err: fs.ErrNotExist}
}

func (f *FilesFS) ReadDir(name string) ([]fs.DirEntry, error) {
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: "readdir", Path: name, Err: fs.ErrInvalid}
	}
	children, ok := f.dirs[name]
	if !ok {
		return nil, &fs.PathError{Op: "readdir", Path: name, Err: fs.ErrNotExist}
	}
	entries := make([]fs.DirEntry, len(children))
	for i, c := range children {
		full := path.Join(name, c)
		_, isDir := f.dirs[full]
		entries[i] = fs.FileInfoToDirEntry(listedInfo{name: c, dir: isDir, size: f.sizes[full], link: f.links[full]})
	}
	return entries, nil
}

func (f *FilesFS) Open(name string) (fs.File, error) {
	info, err := f.Stat(name)
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
	}
	if info.IsDir() {
		entries, err := f.ReadDir(name)
		if err != nil {
			return nil, err
		}
		return &listedDir{info: info.(listedInfo), entries: entries}, nil
	}
	var data []byte
	if f.read != nil {
		if data, err = f.read(name); err != nil {
			return nil, &fs.PathError{Op: "open", Path: name, Err: err}
		}
	}
	return &listedFile{info: listedInfo{name: path.Base(name), size: int64(len(data))}, r: bytes.NewReader(data)}, nil
}

type listedInfo struct {
	name string
	size int64
	dir  bool
	link bool
}

func (i listedInfo) Name() string { return i.name }
func (i listedInfo) Size() int64  { return i.size }
func (i listedInfo) Mode() fs.FileMode {
	if i.dir {
		return fs.ModeDir | 0o555
	}
	if i.link {
		return fs.ModeSymlink | 0o777
	}
	return 0o444
}
func (i listedInfo) ModTime() time.Time { return time.Time{} }
func (i listedInfo) IsDir() bool        { return i.dir }
func (i listedInfo) Sys() any           { return nil }

type listedFile struct {
	info listedInfo
	r    *bytes.Reader
}

func (f *listedFile) Stat() (fs.FileInfo, error) { return f.info, nil }
func (f *listedFile) Read(p []byte) (int, error) { return f.r.Read(p) }
func (f *listedFile) Close() error               { return nil }

type listedDir struct {
	info    listedInfo
	entries []fs.DirEntry
	off     int
}

func (d *listedDir) Stat() (fs.FileInfo, error) { return d.info, nil }
func (d *listedDir) Read([]byte) (int, error) {
	return 0, &fs.PathError{Op: "read", Path: d.info.name, Err: fs.ErrInvalid}
}
func (d *listedDir) Close() error { return nil }

func (d *listedDir) ReadDir(n int) ([]fs.DirEntry, error) {
	rest := d.entries[d.off:]
	if n <= 0 {
		d.off = len(d.entries)
		return rest, nil
	}
	if len(rest) == 0 {
		return nil, io.EOF
	}
	k := min(n, len(rest))
	d.off += k
	return rest[:k], nil
}
