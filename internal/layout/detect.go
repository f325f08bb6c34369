package layout

import (
	"encoding/json"
	"io"
	"io/fs"
	"path"
	"regexp"
)

// Detection runs over an fs.FS so that one piece of code recognises runs
// wherever they are: on disk (os.DirFS) and in a revision of a repository
// (the history stage lists the base's tree). dir is a slash path inside
// the file system, "." for its top. Links are never followed: a run's
// defining files are what the folder itself holds. A link where a
// defining folder would be counts as one (isDirOrLink), so that a run
// made of links is found and its links reported.

// entryMode is the type of dir/name without following a link; ok is false
// when nothing is there.
func entryMode(fsys fs.FS, dir, name string) (fs.FileMode, bool) {
	info, err := fs.Lstat(fsys, path.Join(dir, name))
	if err != nil {
		return 0, false
	}
	return info.Mode().Type(), true
}

// exists reports whether anything (a file, a folder, a link) is at dir/name.
func exists(fsys fs.FS, dir, name string) bool {
	_, ok := entryMode(fsys, dir, name)
	return ok
}

// isDirOrLink reports whether dir/name is a folder or a symbolic link
// (to anything). A defining folder replaced by a link still makes the
// folder a run: the check then reports the link, where skipping the run
// would pass it over in silence.
func isDirOrLink(fsys fs.FS, dir, name string) bool {
	m, ok := entryMode(fsys, dir, name)
	return ok && (m.IsDir() || m&fs.ModeSymlink != 0)
}

// isFile reports whether dir/name is something other than a folder.
func isFile(fsys fs.FS, dir, name string) bool {
	m, ok := entryMode(fsys, dir, name)
	return ok && !m.IsDir()
}

// maxDetectRead bounds what detection reads of a file: enough for any real
// state document, and a detector must not be made to read a huge file.
const maxDetectRead = 1 << 20

// hasKeys reports whether dir/name is a regular file holding a JSON object
// with every key. A FIFO or device is never opened, so it cannot stall
// detection. A symbolic link is followed to a regular file: a run whose
// defining document is a link is still a run, and its check reports the
// link, where passing over the folder would leave it unchecked.
func hasKeys(fsys fs.FS, dir, name string, keys ...string) bool {
	data, ok := detectionBytes(fsys, dir, name)
	return ok && objectHas(data, keys)
}

// detectionBytes reads up to maxDetectRead+1 bytes of dir/name when it is
// a regular file, or a symbolic link to one; ok is false otherwise.
func detectionBytes(fsys fs.FS, dir, name string) (data []byte, ok bool) {
	m, ok := entryMode(fsys, dir, name)
	if ok && m&fs.ModeSymlink != 0 {
		info, err := fs.Stat(fsys, path.Join(dir, name))
		ok = err == nil
		if ok {
			m = info.Mode()
		}
	}
	if !ok || !m.IsRegular() {
		return nil, false
	}
	f, err := fsys.Open(path.Join(dir, name))
	if err != nil {
		return nil, false
	}
	defer f.Close()
	data, err = io.ReadAll(io.LimitReader(f, maxDetectRead+1))
	return data, err == nil
}

// objectHas reports whether data, at most maxDetectRead bytes, is a JSON
// object with every key.
func objectHas(data []byte, keys []string) bool {
	if len(data) > maxDetectRead {
		return false
	}
	var obj map[string]json.RawMessage
	if json.Unmarshal(data, &obj) != nil {
		return false
	}
	for _, k := range keys {
		if _, ok := obj[k]; !ok {
			return false
		}
	}
	return true
}

// writesKeys reports whether dir/name holds a JSON object with every key,
// as hasKeys does, or is a file that a reader takes for one although it
// cannot be parsed here: larger than maxDetectRead, or not JSON (a
// trailing comma, a byte order mark, a cut-off end), with each key
// written as a member name ("key":) in what detection reads of it. Such a
// file is the check's to report (too large, a syntax error); were its
// folder no run, a search of the folder above would pass over the claims
// it makes in silence. Valid JSON that is no object, or lacks a key, is
// no such file.
func writesKeys(fsys fs.FS, dir, name string, keys ...string) bool {
	data, ok := detectionBytes(fsys, dir, name)
	switch {
	case !ok:
		return false
	case objectHas(data, keys):
		return true
	case len(data) > maxDetectRead:
		data = data[:maxDetectRead]
	case json.Valid(data):
		return false
	}
	for _, k := range keys {
		if !memberName(k).Match(data) {
			return false
		}
	}
	return true
}

// memberName matches key written as a JSON member name: quoted, then a colon.
func memberName(key string) *regexp.Regexp {
	return regexp.MustCompile(`"` + regexp.QuoteMeta(key) + `"\s*:`)
}
