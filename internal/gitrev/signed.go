package gitrev

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// BlamedLine is one line of a file at HEAD and the commit that added it
// since a base.
type BlamedLine struct {
	Text   string // the line, without its newline
	Commit string // full object name
	// Boundary is true for a line the base already holds (git blames it on
	// the boundary commit of the range).
	Boundary bool
	// File is the file's path in Commit, as git's "filename" says: another
	// path than the one blamed when the line came into this file by a
	// rename or copy in a later commit, which Commit did not make.
	File string
	// OrigLine is the line's number (1-based) in File as Commit left it.
	OrigLine int
}

// noReplace is added to the environment of every git command that reads
// commits of the change under review: a replace object (refs/replace/) in
// the clone must not stand in for the commit that actually added a line,
// nor for its signature.
const noReplace = "GIT_NO_REPLACE_OBJECTS=1"

// BlameSince gives, for each line of the file rel (relative to the top
// level) at HEAD, the commit that added it among the commits from base to
// HEAD: git blame --line-porcelain base..HEAD.
func (r *Repo) BlameSince(base, rel string) ([]BlamedLine, error) {
	if !isObjectName(base) {
		return nil, fmt.Errorf("blame: base %q is not a full object name", base)
	}
	cmd := gitCommand(r.Root, "blame", "--line-porcelain", base+"..HEAD", "--", rel)
	cmd.Env = append(cmd.Env, noReplace)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &limitWriter{w: &errb, n: 4096}
	if err := cmd.Run(); err != nil {
		return nil, &commandError{args: cmd.Args[3:], err: err, stderr: strings.TrimSpace(errb.String())}
	}
	return parseBlame(out.Bytes())
}

// parseBlame reads git blame --line-porcelain: per line a header
// "<commit> <orig> <final> [<n>]", header lines, then "\t<text>".
func parseBlame(data []byte) ([]BlamedLine, error) {
	var lines []BlamedLine
	cur := BlamedLine{}
	inHeader := false
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 64*1024), 16<<20)
	for sc.Scan() {
		l := sc.Text()
		switch {
		case strings.HasPrefix(l, "\t"):
			if !inHeader {
				return nil, fmt.Errorf("blame: a line's text with no header before it")
			}
			cur.Text = l[1:]
			lines = append(lines, cur)
			cur, inHeader = BlamedLine{}, false
		case !inHeader:
			f := strings.Fields(l)
			if len(f) < 3 || !isObjectName(f[0]) {
				return nil, fmt.Errorf("blame: unexpected header %q", l)
			}
			orig, err := strconv.Atoi(f[1])
			if err != nil || orig < 1 {
				return nil, fmt.Errorf("blame: unexpected header %q", l)
			}
			cur, inHeader = BlamedLine{Commit: f[0], OrigLine: orig}, true
		case l == "boundary":
			cur.Boundary = true
		case strings.HasPrefix(l, "filename "):
			cur.File = unquoteCPath(strings.TrimPrefix(l, "filename "))
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("blame: %w", err)
	}
	return lines, nil
}

// unquoteCPath undoes git's quoting of a path with special characters
// ("\"a\\tb\"", octal escapes for other bytes), which Go's unquoting
// reads; a path it cannot read stays as written, so it matches no path.
func unquoteCPath(p string) string {
	if !strings.HasPrefix(p, `"`) {
		return p
	}
	if u, err := strconv.Unquote(p); err == nil {
		return u
	}
	return p
}

// Signature is what git says of a commit's signature.
type Signature struct {
	// Status is git's %G?: G good (and, for SSH, the signer is allowed),
	// U good with an unknown validity, N none, B bad, and so on.
	Status      string
	Fingerprint string // %GF
	Signer      string // %GS
	Primary     string // %GP: a GPG signing subkey's primary key
}

// Signature asks git to verify commit's signature, SSH signatures against
// allowedSigners (the content of a file in git's allowed_signers format).
// No cryptography happens here: git (and gpg or ssh-keygen) decide.
func (r *Repo) Signature(commit string, allowedSigners []byte) (Signature, error) {
	if !isObjectName(commit) {
		return Signature{}, fmt.Errorf("signature: %q is not a full object name", commit)
	}
	dir, err := os.MkdirTemp("", "h3a-check-signers-")
	if err != nil {
		return Signature{}, err
	}
	defer os.RemoveAll(dir)
	signers := filepath.Join(dir, "allowed_signers")
	if err := os.WriteFile(signers, allowedSigners, 0o600); err != nil {
		return Signature{}, err
	}
	cmd := gitCommand(r.Root, "-c", "gpg.ssh.allowedSignersFile="+signers,
		"log", "-1", "--no-walk", "--format=%G?%x00%GF%x00%GS%x00%GP", "--end-of-options", commit, "--")
	cmd.Env = append(cmd.Env, noReplace)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &limitWriter{w: &errb, n: 4096}
	if err := cmd.Run(); err != nil {
		return Signature{}, &commandError{args: cmd.Args[3:], err: err, stderr: strings.TrimSpace(errb.String())}
	}
	parts := strings.SplitN(strings.TrimRight(out.String(), "\n"), "\x00", 4)
	for len(parts) < 4 {
		parts = append(parts, "")
	}
	return Signature{Status: parts[0], Fingerprint: parts[1], Signer: parts[2], Primary: parts[3]}, nil
}
