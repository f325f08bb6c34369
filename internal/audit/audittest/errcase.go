package audittest

// An err case (testdata/runs/err/<case>/) is a patch over an ok case: its
// folder holds CASE.md (the prose), expect (the expectation above) and
// patch.txtar, which Materialise turns back into the case folder the
// checker is run on. The patch's comment holds directives, one a line
// (blank lines and lines starting with # ignored), applied in this order:
//
//	base: ok/CASE          the ok case folder copied first (required, once)
//	move: PATH NEW         renames PATH (after the copy, in the order given)
//	copy: PATH NEW         copies the file or folder PATH to NEW
//	delete: PATH           removes PATH, which must exist
//	then the sections, below
//	symlink: PATH -> TARGET  makes PATH a symbolic link to TARGET, as written
//	mkdir: PATH            an empty folder (git cannot hold one)
//	size: PATH N           extends or cuts PATH to N bytes (a sparse file)
//	mode: PATH 0NNN        sets PATH's permission bits (0000: unreadable)
//
// PATHs are slash-separated and relative to the case folder (a run is
// "<run-id>/state/X.json"); none may be absolute or contain "..", though a
// symlink TARGET may (cases about links need one). Sections:
//
//	-- PATH --          the file's bytes, as they are (a new or replaced file)
//	-- PATH.edit --     blocks "<<<<\nOLD\n====\nNEW\n>>>>\n" (as in the
//	                    history cases): OLD, without the line break before
//	                    "====", must occur once in the file; NEW may be empty
//	-- PATH.base64 --   the file's bytes in standard base64 (line breaks
//	                    ignored): for what a txtar section cannot hold
//	                    verbatim (no final line break, CR, a BOM, bytes that
//	                    are not UTF-8, a line like a section marker)
//
// Once every file is in place, "{{hash PATH}}" in the text of a plain or
// edited section becomes the first 16 hex digits of the SHA-256 of PATH (as
// the evidence log writes it), so an edit to a logged file needs no hash
// copied by hand.

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/h3a-check/h3a-check/internal/txtar"
)

// PatchFile is the name of an err case's patch in its folder.
const PatchFile = "patch.txtar"

// Patch is a parsed patch.txtar.
type Patch struct {
	file       string // for messages
	Base       string
	Steps      []PatchStep // move and copy, in order
	Deletes    []string
	Sections   []txtar.File
	Symlinks   [][2]string // path, target
	Mkdirs     []string
	Sizes      []PatchSize
	Modes      []PatchMode
	directives int
}

// PatchStep is a move or copy directive.
type PatchStep struct{ Op, From, To string }

// PatchSize is a size directive.
type PatchSize struct {
	Path string
	Size int64
}

// PatchMode is a mode directive.
type PatchMode struct {
	Path string
	Mode fs.FileMode
}

// ReadPatch reads and checks a patch file; every error names the file and
// line.
func ReadPatch(file string) (*Patch, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	return ParsePatch(file, data)
}

// ParsePatch parses the patch text; file is used in messages only.
func ParsePatch(file string, data []byte) (*Patch, error) {
	ar := txtar.Parse(data)
	p := &Patch{file: file}
	for i, line := range strings.Split(strings.TrimSuffix(ar.Comment, "\n"), "\n") {
		at := fmt.Sprintf("%s:%d", file, i+1)
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		key, rest, ok := strings.Cut(line, ": ")
		if !ok {
			return nil, fmt.Errorf("%s: %q is not a directive (want base:, move:, copy:, delete:, symlink:, mkdir:, size: or mode:, then -- PATH -- sections)", at, line)
		}
		rest = strings.TrimSpace(rest)
		fields := strings.Fields(rest)
		switch key {
		case "base":
			if p.Base != "" {
				return nil, fmt.Errorf("%s: a second base: (the first is %q)", at, p.Base)
			}
			if !strings.HasPrefix(rest, "ok/") || len(fields) != 1 || !safePath(rest) {
				return nil, fmt.Errorf("%s: base: %q: want an ok case, e.g. base: ok/complete", at, rest)
			}
			p.Base = rest
		case "move", "copy":
			if len(fields) != 2 || !safePath(fields[0]) || !safePath(fields[1]) {
				return nil, fmt.Errorf("%s: %s: want two relative paths, got %q", at, key, rest)
			}
			p.Steps = append(p.Steps, PatchStep{key, fields[0], fields[1]})
		case "delete", "mkdir":
			if len(fields) != 1 || !safePath(rest) {
				return nil, fmt.Errorf("%s: %s: want one relative path without \"..\", got %q", at, key, rest)
			}
			if key == "delete" {
				p.Deletes = append(p.Deletes, rest)
			} else {
				p.Mkdirs = append(p.Mkdirs, rest)
			}
		case "symlink":
			from, to, ok := strings.Cut(rest, " -> ")
			if !ok || !safePath(from) || to == "" {
				return nil, fmt.Errorf("%s: symlink: want \"PATH -> TARGET\", got %q", at, rest)
			}
			p.Symlinks = append(p.Symlinks, [2]string{from, to})
		case "size":
			n, err := strconv.ParseInt(fieldOr(fields, 1), 10, 64)
			if len(fields) != 2 || !safePath(fields[0]) || err != nil || n < 0 {
				return nil, fmt.Errorf("%s: size: want \"PATH BYTES\", got %q", at, rest)
			}
			p.Sizes = append(p.Sizes, PatchSize{fields[0], n})
		case "mode":
			m, err := strconv.ParseUint(fieldOr(fields, 1), 8, 32)
			if len(fields) != 2 || !safePath(fields[0]) || err != nil || m > 0o777 {
				return nil, fmt.Errorf("%s: mode: want \"PATH 0NNN\" (octal), got %q", at, rest)
			}
			p.Modes = append(p.Modes, PatchMode{fields[0], fs.FileMode(m)})
		default:
			return nil, fmt.Errorf("%s: unknown directive %q (want base:, move:, copy:, delete:, symlink:, mkdir:, size: or mode:)", at, key+":")
		}
		p.directives++
	}
	if p.Base == "" {
		return nil, fmt.Errorf("%s: no base: line (e.g. base: ok/complete)", file)
	}
	for _, f := range ar.Files {
		name := strings.TrimSuffix(strings.TrimSuffix(f.Name, ".edit"), ".base64")
		if !safePath(name) {
			return nil, fmt.Errorf("%s: section %q: want a relative path without \"..\"", file, f.Name)
		}
		if strings.HasSuffix(f.Name, ".base64") {
			if _, err := decodeBase64(f.Data); err != nil {
				return nil, fmt.Errorf("%s: section %q: %v", file, f.Name, err)
			}
		}
		if strings.HasSuffix(f.Name, ".edit") && !editBlock.MatchString(f.Data) {
			return nil, fmt.Errorf("%s: section %q holds no <<<< ==== >>>> block", file, f.Name)
		}
	}
	p.Sections = ar.Files
	if p.directives == 1 && len(p.Sections) == 0 {
		return nil, fmt.Errorf("%s: the patch changes nothing in %s", file, p.Base)
	}
	return p, nil
}

func fieldOr(fields []string, i int) string {
	if i < len(fields) {
		return fields[i]
	}
	return ""
}

// safePath: relative, slash-separated, clean, and not leaving the case.
func safePath(p string) bool {
	return p != "" && !path.IsAbs(p) && !strings.Contains(p, "\\") && path.Clean(p) == p &&
		p != ".." && !strings.HasPrefix(p, "../") && !strings.Contains(p, "/../") && p != "."
}

func decodeBase64(s string) ([]byte, error) {
	return base64.StdEncoding.DecodeString(strings.Join(strings.Fields(s), ""))
}

// IsErrCase reports whether dir is an err case folder (it holds a patch).
func IsErrCase(dir string) bool {
	_, err := os.Stat(filepath.Join(dir, PatchFile))
	return err == nil
}

// MaterialiseCase writes the err case folder caseDir as a full case folder
// dst (which must not exist yet). runsDir is the folder holding ok/ (the
// case's base is looked up there). A folder without a patch is copied as
// it is.
func MaterialiseCase(runsDir, caseDir, dst string) error {
	if !IsErrCase(caseDir) {
		if _, err := os.Lstat(dst); err == nil {
			return fmt.Errorf("materialise %s: %s already exists", caseDir, dst)
		}
		return copyTree(caseDir, dst)
	}
	p, err := ReadPatch(filepath.Join(caseDir, PatchFile))
	if err != nil {
		return err
	}
	if err := p.Apply(runsDir, dst); err != nil {
		return err
	}
	// The case's own files (CASE.md, expect) replace the base's, so the
	// folder is the case as it was before it became a patch.
	ents, err := os.ReadDir(caseDir)
	if err != nil {
		return err
	}
	for _, e := range ents {
		if e.Name() == PatchFile {
			continue
		}
		if err := copyTree(filepath.Join(caseDir, e.Name()), filepath.Join(dst, e.Name())); err != nil {
			return err
		}
	}
	return nil
}

// Apply writes the patched case to dst, which must not exist yet.
func (p *Patch) Apply(runsDir, dst string) error {
	base := filepath.Join(runsDir, filepath.FromSlash(p.Base))
	if info, err := os.Stat(base); err != nil || !info.IsDir() {
		return fmt.Errorf("%s: base: %s: no such case under %s", p.file, p.Base, runsDir)
	}
	if _, err := os.Lstat(dst); err == nil {
		return fmt.Errorf("materialise %s: %s already exists", p.file, dst)
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	if err := copyTree(base, dst); err != nil {
		return fmt.Errorf("%s: copying base %s: %w", p.file, p.Base, err)
	}
	at := func(rel string) string { return filepath.Join(dst, filepath.FromSlash(rel)) }
	fail := func(what string, err error) error { return fmt.Errorf("%s: %s: %w", p.file, what, err) }
	for _, s := range p.Steps {
		what := s.Op + ": " + s.From + " " + s.To
		if _, err := os.Lstat(at(s.To)); err == nil {
			return fail(what, fmt.Errorf("%s already exists", s.To))
		}
		var err error
		if s.Op == "move" {
			if err := os.MkdirAll(filepath.Dir(at(s.To)), 0o755); err != nil {
				return fail(what, err)
			}
			err = os.Rename(at(s.From), at(s.To))
		} else {
			err = copyTree(at(s.From), at(s.To))
		}
		if err != nil {
			return fail(what, err)
		}
	}
	for _, d := range p.Deletes {
		if _, err := os.Lstat(at(d)); err != nil {
			return fail("delete: "+d, errors.New("not in the base (a stale patch?)"))
		}
		if err := os.RemoveAll(at(d)); err != nil {
			return fail("delete: "+d, err)
		}
	}
	var templated []string
	for _, f := range p.Sections {
		name, data := f.Name, []byte(f.Data)
		switch {
		case strings.HasSuffix(name, ".base64"):
			name = strings.TrimSuffix(name, ".base64")
			data, _ = decodeBase64(f.Data) // checked by ParsePatch
		case strings.HasSuffix(name, ".edit"):
			name = strings.TrimSuffix(name, ".edit")
			old, err := os.ReadFile(at(name))
			if err != nil {
				return fail("section "+f.Name, err)
			}
			edited, err := applyEdits(string(old), f.Data)
			if err != nil {
				return fail("section "+f.Name, err)
			}
			data = []byte(edited)
		}
		if err := os.MkdirAll(filepath.Dir(at(name)), 0o755); err != nil {
			return fail("section "+f.Name, err)
		}
		if err := os.WriteFile(at(name), data, 0o644); err != nil {
			return fail("section "+f.Name, err)
		}
		if !strings.HasSuffix(f.Name, ".base64") && strings.Contains(string(data), "{{hash ") {
			templated = append(templated, name)
		}
	}
	for _, l := range p.Symlinks {
		if err := os.MkdirAll(filepath.Dir(at(l[0])), 0o755); err != nil {
			return fail("symlink: "+l[0], err)
		}
		if err := os.Symlink(filepath.FromSlash(l[1]), at(l[0])); err != nil {
			return fail("symlink: "+l[0], err)
		}
	}
	for _, d := range p.Mkdirs {
		if err := os.MkdirAll(at(d), 0o755); err != nil {
			return fail("mkdir: "+d, err)
		}
	}
	for _, name := range templated {
		if err := expandHashes(dst, name); err != nil {
			return fail("section "+name, err)
		}
	}
	for _, s := range p.Sizes {
		if err := os.Truncate(at(s.Path), s.Size); err != nil {
			return fail("size: "+s.Path, err)
		}
	}
	for _, m := range p.Modes {
		if err := os.Chmod(at(m.Path), m.Mode); err != nil {
			return fail("mode: "+m.Path, err)
		}
	}
	return nil
}

var hashRef = regexp.MustCompile(`\{\{hash ([^}]+)\}\}`)

func expandHashes(dst, name string) error {
	full := filepath.Join(dst, filepath.FromSlash(name))
	data, err := os.ReadFile(full)
	if err != nil {
		return err
	}
	var bad error
	out := hashRef.ReplaceAllFunc(data, func(m []byte) []byte {
		ref := string(hashRef.FindSubmatch(m)[1])
		if !safePath(ref) {
			bad = fmt.Errorf("{{hash %s}}: want a path relative to the case folder", ref)
			return m
		}
		target, err := os.ReadFile(filepath.Join(dst, filepath.FromSlash(ref)))
		if err != nil {
			bad = fmt.Errorf("{{hash %s}}: %w", ref, err)
			return m
		}
		sum := sha256.Sum256(target)
		return []byte(hex.EncodeToString(sum[:])[:16])
	})
	if bad != nil {
		return bad
	}
	return os.WriteFile(full, out, 0o644)
}

var editBlock = regexp.MustCompile(`(?s)<<<<\n(.*?)\n====\n(?:(.*?)\n)??>>>>\n`)

// applyEdits applies edit blocks to content: each OLD must occur once.
func applyEdits(content, edits string) (string, error) {
	blocks := editBlock.FindAllStringSubmatch(edits, -1)
	if len(blocks) == 0 {
		return "", errors.New("no <<<< ==== >>>> block")
	}
	if rest := editBlock.ReplaceAllString(edits, ""); strings.TrimSpace(rest) != "" {
		return "", fmt.Errorf("text outside a <<<< ==== >>>> block: %q", firstLine(rest))
	}
	for _, b := range blocks {
		old, replacement := b[1], b[2]
		if n := strings.Count(content, old); n != 1 {
			return "", fmt.Errorf("%q occurs %d times, want once", firstLine(old), n)
		}
		content = strings.Replace(content, old, replacement, 1)
	}
	return content, nil
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i] + "…"
	}
	return s
}

// copyTree copies a file or folder, keeping symbolic links as links and
// permission bits. It lists src before copying, so dst may lie inside it (a
// run copied into its own archive/).
func copyTree(src, dst string) error {
	var rels []string
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		rels = append(rels, rel)
		return nil
	})
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	for _, rel := range rels {
		if err := copyOne(filepath.Join(src, rel), filepath.Join(dst, rel)); err != nil {
			return err
		}
	}
	return nil
}

func copyOne(from, to string) error {
	info, err := os.Lstat(from)
	if err != nil {
		return err
	}
	switch {
	case info.Mode()&fs.ModeSymlink != 0:
		target, err := os.Readlink(from)
		if err != nil {
			return err
		}
		return os.Symlink(target, to)
	case info.IsDir():
		return os.MkdirAll(to, info.Mode().Perm()|0o700)
	case info.Mode().IsRegular():
		data, err := os.ReadFile(from)
		if err != nil {
			return err
		}
		return os.WriteFile(to, data, info.Mode().Perm())
	default:
		return fmt.Errorf("%s: not a file, folder or link", from)
	}
}

// PlainText reports whether data can be a verbatim section: it survives the
// archive byte for byte and is text an editor shows as it is (UTF-8, no CR,
// no BOM, no control bytes but tab and line break).
func PlainText(data []byte) bool {
	if !utf8.Valid(data) || !txtar.CanHold(string(data)) {
		return false
	}
	for _, r := range string(data) {
		if r == '\uFEFF' || r == '\r' || (r < 0x20 && r != '\t' && r != '\n') || r == 0x7f {
			return false
		}
	}
	return true
}

// WriteCases writes the whole case tree runsDir out into dst (which must
// not exist yet): ok/ and every other folder copied as they are, each err
// case written out in full. For tests that check every case at once.
func WriteCases(runsDir, dst string) error {
	return WriteSomeCases(runsDir, dst, nil)
}

// WriteSomeCases is WriteCases with only the err cases that keepErr keeps
// (nil: all); keepErr gets each case folder's name and its index among
// the case folders, in name order. Writing out hundreds of cases to
// delete most of them is most of what a test of a sample costs.
func WriteSomeCases(runsDir, dst string, keepErr func(i int, name string) bool) error {
	ents, err := os.ReadDir(runsDir)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dst, 0o755); err != nil {
		return err
	}
	for _, e := range ents {
		if e.Name() != "err" || !e.IsDir() {
			if err := copyTree(filepath.Join(runsDir, e.Name()), filepath.Join(dst, e.Name())); err != nil {
				return err
			}
			continue
		}
		cases, err := os.ReadDir(filepath.Join(runsDir, "err"))
		if err != nil {
			return err
		}
		if err := os.MkdirAll(filepath.Join(dst, "err"), 0o755); err != nil {
			return err
		}
		folders := 0
		for _, c := range cases {
			src, to := filepath.Join(runsDir, "err", c.Name()), filepath.Join(dst, "err", c.Name())
			switch {
			case !c.IsDir():
				err = copyTree(src, to)
			case keepErr != nil && !keepErr(folders, c.Name()):
				folders++
				continue
			default:
				folders++
				err = MaterialiseCase(runsDir, src, to)
			}
			if err != nil {
				return err
			}
		}
	}
	return nil
}
