package gitrev

import (
	"bytes"
	"crypto/sha1"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"hash"
	"io"
	"path"
	"strconv"
)

// Entry is one name in a folder at a revision, as its tree object holds it.
type Entry struct {
	Mode uint32 // git's file mode: 0o100644, 0o100755, 0o120000 (link), 0o40000 (folder), 0o160000 (submodule)
	OID  string // object name, lower-case hex
}

// IsFile reports whether the entry is a file or a symbolic link: something
// with content that Read returns (a folder or a submodule has none).
func (e Entry) IsFile() bool {
	return e.Mode&0o170000 == 0o100000 || e.Mode == 0o120000
}

// Folder is one folder at a revision: its tree's object name and entries.
type Folder struct {
	OID     string
	Entries map[string]Entry
}

// maxTree bounds a folder's tree object. An entry takes at least 22 bytes,
// so this is more than 700,000 names, beyond any run folder.
const maxTree = 16 << 20

// Folders reads the folders dirs (relative to the top level, "" for the
// top) at rev in one exchange with the cat-file process. A folder rev does
// not have (absent, or a file there) is nil. Reading a folder's entries
// tells which of its files exist and what their content is called, so
// that a file identical to a known content needs no read at all.
func (r *Repo) Folders(rev string, dirs []string) ([]*Folder, error) {
	if err := CheckRev(rev); err != nil {
		return nil, err
	}
	objects := make([]string, len(dirs))
	for i, d := range dirs {
		objects[i] = rev + "^{tree}"
		if c := path.Clean("/" + d)[1:]; c != "" {
			objects[i] = rev + ":" + c
		}
	}
	return r.trees(rev, objects, dirs)
}

// trees reads tree objects in one exchange; dirs[i] names objects[i] in
// messages. An object that is not a tree gives a nil folder.
func (r *Repo) trees(rev string, objects, dirs []string) ([]*Folder, error) {
	out := make([]*Folder, len(objects))
	err := r.cat.requestAll(objects, func(i int, h header, body io.Reader) error {
		if h.typ != "tree" {
			return nil // a file or submodule where a folder was expected: no folder
		}
		if h.size > maxTree {
			return fmt.Errorf("folder %s at %s is a tree of %d bytes, over the limit of %d bytes: %w", dirs[i], short(rev), h.size, maxTree, ErrTooLarge)
		}
		data := make([]byte, h.size)
		if _, err := io.ReadFull(body, data); err != nil {
			return err
		}
		entries, err := parseTree(data, len(h.oid)/2)
		if err != nil {
			return fmt.Errorf("folder %s at %s: %w", dirs[i], short(rev), err)
		}
		out[i] = &Folder{OID: h.oid, Entries: entries}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// maxKept bounds the folders KeptFolder remembers.
const maxKept = 256

// KeptFolder is Folders for one folder that many reads start from (the
// folder that holds the runs), read once per revision and remembered, so
// that each run's own folder is then named by its object name and git
// does not search the big folder again for every run. Only for revisions
// that are commit names (a branch may move). nil when rev has no folder
// there.
func (r *Repo) KeptFolder(commit, dir string) (*Folder, error) {
	if !isObjectName(commit) {
		return nil, fmt.Errorf("%q is not a commit name", commit)
	}
	key := commit + ":" + path.Clean("/" + dir)[1:]
	r.keptMu.Lock()
	defer r.keptMu.Unlock()
	if f, ok := r.kept[key]; ok {
		return f, nil
	}
	folders, err := r.Folders(commit, []string{dir})
	if err != nil {
		return nil, err
	}
	if r.kept == nil {
		r.kept = map[string]*Folder{}
	}
	if len(r.kept) < maxKept {
		r.kept[key] = folders[0]
	}
	return folders[0], nil
}

// parseTree reads a tree object: entries of "<octal mode> <name>\0" and
// the raw object name of oidLen bytes.
func parseTree(data []byte, oidLen int) (map[string]Entry, error) {
	entries := map[string]Entry{}
	for len(data) > 0 {
		sp := bytes.IndexByte(data, ' ')
		nul := bytes.IndexByte(data, 0)
		if sp <= 0 || nul < sp+2 || len(data) < nul+1+oidLen {
			return nil, fmt.Errorf("malformed tree object")
		}
		mode, err := strconv.ParseUint(string(data[:sp]), 8, 32)
		if err != nil {
			return nil, fmt.Errorf("malformed tree object: mode %q", data[:sp])
		}
		name := string(data[sp+1 : nul])
		entries[name] = Entry{Mode: uint32(mode), OID: hex.EncodeToString(data[nul+1 : nul+1+oidLen])}
		data = data[nul+1+oidLen:]
	}
	return entries, nil
}

// Blob is the answer to one object of Blobs.
type Blob struct {
	Data   []byte
	Exists bool
	Err    error // concerns this object only (too large, not a file)
}

// Blobs reads objects by name in one exchange. names[i] says, for
// messages, which file oids[i] is (a path at rev). The MaxRead bound
// applies to each.
func (r *Repo) Blobs(rev string, oids, names []string) ([]Blob, error) {
	out := make([]Blob, len(oids))
	for _, oid := range oids {
		if !isObjectName(oid) {
			return nil, fmt.Errorf("%q is not an object name", oid)
		}
	}
	r.cat.mu.Lock()
	r.cat.contents += len(oids)
	r.cat.mu.Unlock()
	err := r.cat.requestAll(oids, func(i int, h header, body io.Reader) error {
		out[i].Exists = true
		if h.typ != "blob" {
			out[i].Err = fmt.Errorf("%s at %s is a %s: %w", names[i], short(rev), h.typ, ErrNotFile)
			return nil
		}
		if r.MaxRead > 0 && h.size > r.MaxRead {
			out[i].Err = fmt.Errorf("%s at %s is %d bytes, over the limit of %d bytes: %w", names[i], short(rev), h.size, r.MaxRead, ErrTooLarge)
			return nil
		}
		out[i].Data = make([]byte, h.size)
		_, err := io.ReadFull(body, out[i].Data)
		return err
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// BlobID is the object name git gives content: the hash of
// "blob <size>\0" and the bytes, SHA-1 (40 hex digits) or SHA-256 (64)
// as the repository uses. Equal names mean equal content.
func BlobID(data []byte, hexLen int) string {
	h := blobHash(int64(len(data)), hexLen)
	h.Write(data)
	return hex.EncodeToString(h.Sum(nil))
}

// BlobIDOf is BlobID of the size bytes r holds, read as a stream so that
// a large file is not held in memory; an error when r holds other than
// size bytes.
func BlobIDOf(r io.Reader, size int64, hexLen int) (string, error) {
	h := blobHash(size, hexLen)
	n, err := io.Copy(h, io.LimitReader(r, size+1))
	if err == nil && n != size {
		err = fmt.Errorf("read %d bytes where %d were expected", n, size)
	}
	return hex.EncodeToString(h.Sum(nil)), err
}

// blobHash is the hash of a blob of size bytes, its header written.
func blobHash(size int64, hexLen int) hash.Hash {
	h := sha1.New()
	if hexLen == 64 {
		h = sha256.New()
	}
	io.WriteString(h, "blob "+strconv.FormatInt(size, 10)+"\x00")
	return h
}
