package gitrev

import (
	"bytes"
	"io/fs"
	"maps"
	"path"
	"slices"
)

// TreeFS is a revision's files read folder by folder as they are asked
// for, where FilesFS takes the listing of a whole folder up front: a
// search that looks at a few folders of a repository that may hold
// thousands of runs lists only those. As in FilesFS, every name is a
// regular file (git keeps a link as a file whose content is its target)
// and a submodule is nothing; a file's content is read on demand.
type TreeFS struct {
	repo    *Repo
	commit  string
	folders map[string]*Folder // by top-level-relative name ("." for the top)
	read    func(name string) ([]byte, error)
}

var (
	_ fs.StatFS    = (*TreeFS)(nil)
	_ fs.ReadDirFS = (*TreeFS)(nil)
)

// NewTreeFS is the file system of commit in repo; read returns a file's
// content.
func NewTreeFS(repo *Repo, commit string, read func(name string) ([]byte, error)) *TreeFS {
	return &TreeFS{repo: repo, commit: commit, folders: map[string]*Folder{}, read: read}
}

// folder is the folder name at the commit, nil when there is none.
func (t *TreeFS) folder(name string) (*Folder, error) {
	if f, ok := t.folders[name]; ok {
		return f, nil
	}
	dir := name
	if dir == "." {
		dir = ""
	}
	got, err := t.repo.Folders(t.commit, []string{dir})
	if err != nil {
		return nil, err
	}
	t.folders[name] = got[0]
	return got[0], nil
}

func (t *TreeFS) Stat(name string) (fs.FileInfo, error) {
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: "stat", Path: name, Err: fs.ErrInvalid}
	}
	if name == "." {
		return listedInfo{name: ".", dir: true}, nil
	}
	parent, err := t.folder(path.Dir(name))
	if err != nil {
		return nil, &fs.PathError{Op: "stat", Path: name, Err: err}
	}
	if parent != nil {
		if e, ok := parent.Entries[path.Base(name)]; ok {
			switch {
			case e.Mode == ModeFolder:
				return listedInfo{name: path.Base(name), dir: true}, nil
			case e.IsFile():
				return listedInfo{name: path.Base(name)}, nil
			}
		}
	}
	return nil, &fs.PathError{Op: "stat", Path: name, Err: fs.ErrNotExist}
}

func (t *TreeFS) ReadDir(name string) ([]fs.DirEntry, error) {
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: "readdir", Path: name, Err: fs.ErrInvalid}
	}
	f, err := t.folder(name)
	if err != nil {
		return nil, &fs.PathError{Op: "readdir", Path: name, Err: err}
	}
	if f == nil {
		return nil, &fs.PathError{Op: "readdir", Path: name, Err: fs.ErrNotExist}
	}
	var out []fs.DirEntry
	for _, n := range slices.Sorted(maps.Keys(f.Entries)) {
		switch e := f.Entries[n]; {
		case e.Mode == ModeFolder:
			out = append(out, fs.FileInfoToDirEntry(listedInfo{name: n, dir: true}))
		case e.IsFile():
			out = append(out, fs.FileInfoToDirEntry(listedInfo{name: n}))
		}
	}
	return out, nil
}

func (t *TreeFS) Open(name string) (fs.File, error) {
	info, err := t.Stat(name)
	if err != nil {
		return nil, err
	}
	if info.IsDir() {
		entries, err := t.ReadDir(name)
		if err != nil {
			return nil, err
		}
		return &listedDir{info: info.(listedInfo), entries: entries}, nil
	}
	data, err := t.read(name)
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: name, Err: err}
	}
	return &listedFile{info: listedInfo{name: path.Base(name), size: int64(len(data))}, r: bytes.NewReader(data)}, nil
}
