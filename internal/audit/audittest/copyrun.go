package audittest

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// CopyRunAs copies the h3a run at src to dst as a run of its own: every
// file outside artifacts/ that names the run id from names to instead, and
// the evidence log's hash of each file so rewritten follows it. Tests that
// check several copies of a run at once use it, as a run id is globally
// unique (h3a.traceability.duplicate_run_id).
func CopyRunAs(src, dst, from, to string) error {
	if err := os.CopyFS(dst, os.DirFS(src)); err != nil {
		return err
	}
	var hashes []string // old, new: the logged hashes of the files rewritten
	err := filepath.WalkDir(dst, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if d.Name() == "artifacts" && filepath.Dir(p) == dst {
				return fs.SkipDir // no artifact names its run
			}
			return nil
		}
		if !d.Type().IsRegular() {
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil || !bytes.Contains(data, []byte(from)) {
			return err
		}
		edited := bytes.ReplaceAll(data, []byte(from), []byte(to))
		hashes = append(hashes, "[hash:"+loggedHash(data)+"]", "[hash:"+loggedHash(edited)+"]")
		return os.WriteFile(p, edited, 0o644)
	})
	if err != nil || len(hashes) == 0 {
		return err
	}
	logPath := filepath.Join(dst, "state", "EVIDENCE_LOG.md")
	log, err := os.ReadFile(logPath)
	if err != nil {
		return err
	}
	return os.WriteFile(logPath, []byte(strings.NewReplacer(hashes...).Replace(string(log))), 0o644)
}

// loggedHash is the hash an evidence log gives b: the first 16 hex digits
// of its SHA-256.
func loggedHash(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])[:16]
}
