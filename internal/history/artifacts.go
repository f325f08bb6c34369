package history

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"strings"

	"github.com/h3a-check/h3a-check/internal/evidence"
	"github.com/h3a-check/h3a-check/internal/finding"
	"github.com/h3a-check/h3a-check/internal/gitrev"
	"github.com/h3a-check/h3a-check/internal/layout"
	"github.com/h3a-check/h3a-check/internal/ledger"
	"github.com/h3a-check/h3a-check/internal/rundir"
)

// artifacts: every file the base evidence log names, and the base holds,
// has the same content in head. The content is compared, not the log, so
// a file rewritten together with its log line is still caught. The
// layout's own documents are skipped: they change under their own rules.
func (c *comparison) artifacts(logged []string, log *pair) error {
	lay := layout.ByID(c.head.Layout)
	baseEntries := entriesByPath(log.base.ledger)
	headEntries := entriesByPath(log.head.ledger)
	done := map[string]bool{}
	for _, l := range logged {
		clean, prob := rundir.CleanRef(l)
		if prob != nil || done[clean] || isLayoutFile(lay, clean) {
			continue // a bad reference is the integrity check's finding
		}
		done[clean] = true
		at := func(line int, rule finding.Rule, format string, args ...any) {
			f := rule.New(log.path, "%s", fmt.Sprintf(format, args...))
			f.Line = line
			f.Remediation = c.restore(f.Remediation, clean) // the artifact, not the log
			c.add(f)
		}
		firstLine := 0
		if es := headEntries[clean]; len(es) > 0 {
			firstLine = es[0].Line
		}
		var base digest
		exists, err := c.base.Stream(clean, func(r io.Reader) error {
			var err error
			base, err = digestOf(r)
			return err
		})
		if err != nil {
			if !gitrev.IsFileError(err) {
				return err
			}
			c.baseUnreadable(log.path, "logged artifact %q at the base: %v", clean, err)
			continue
		}
		if !exists {
			continue // logged but never committed: nothing to compare
		}
		if sum, ok := c.head.Sums[clean]; ok && sum == base.raw {
			continue
		}
		head, exists, err := c.headDigest(clean)
		var refused *rundir.Problem
		switch {
		case errors.As(err, &refused):
			// Refused by confinement: the integrity check reports why.
			continue
		case err != nil:
			c.notEvaluated(log.path, "logged artifact %q cannot be read in head: %v", clean, err)
			continue
		case !exists:
			at(firstLine, finding.ArtifactDeleted, "logged artifact %q exists at base %s and is gone; logged artifacts are never deleted", clean, c.commit)
			continue
		}
		if head.lfsOID != "" && base.lfsOID == "" {
			tracked, err := c.lfsTracked(clean)
			if err != nil {
				return err
			}
			if !tracked {
				at(lastLine(headEntries[clean]), finding.ArtifactLFSPointer, "logged artifact %q was committed at base %s with its content (sha256 %s) and is now a Git LFS pointer (to sha256 %s), but .gitattributes at the base does not track it with LFS: the content is not in the repository",
					clean, c.commit, base.raw[:16], head.lfsOID[:16])
				continue
			}
		}
		if base.same(head) {
			continue
		}
		if e, ok := relogged(baseEntries[clean], headEntries[clean], head); ok {
			at(e.Line, finding.ArtifactRelogged, "logged artifact %q was rewritten and logged again since base %s: base sha256 %s, head %s; a re-run step may rewrite its output, but say why in the change",
				clean, c.commit, base.raw[:16], head.raw[:16])
			continue
		}
		at(firstLine, finding.ArtifactChanged, "logged artifact %q changed since base %s: base sha256 %s, head %s; a logged artifact never changes",
			clean, c.commit, base.raw[:16], head.raw[:16])
	}
	return nil
}

// entriesByPath groups an evidence log's entries by their cleaned path,
// in log order.
func entriesByPath(v any) map[string][]ledger.Entry {
	out := map[string][]ledger.Entry{}
	log, ok := v.(*ledger.EvidenceLog)
	if !ok {
		return out
	}
	for _, e := range log.Entries {
		if clean, p := rundir.CleanRef(e.Path); p == nil {
			out[clean] = append(out[clean], e)
		}
	}
	return out
}

// relogged finds the entry that logs a rewritten artifact again: head
// holds more entries for it than the base, and the last one's hash is the
// new content's. The base's entries themselves are the evidence log's own
// append-only rule.
func relogged(base, head []ledger.Entry, d digest) (ledger.Entry, bool) {
	if len(head) <= len(base) {
		return ledger.Entry{}, false
	}
	last := head[len(head)-1]
	return last, evidence.ParseToken(last.Hash).Matches(d.raw)
}

func lastLine(es []ledger.Entry) int {
	if len(es) == 0 {
		return 0
	}
	return es[len(es)-1].Line
}

// lfsTracked reports whether .gitattributes at the base gives the run's
// file p the LFS filter, so that a pointer in its place is what a checkout
// without LFS holds.
func (c *comparison) lfsTracked(p string) (bool, error) {
	files, top, err := c.base.Attributes(p)
	if err != nil {
		return false, err
	}
	return lfsTracked(files, top), nil
}

func (c *comparison) headDigest(p string) (digest, bool, error) {
	r, exists, err := c.head.Open(p)
	if err != nil || !exists {
		return digest{}, exists, err
	}
	defer r.Close()
	d, err := digestOf(r)
	return d, true, err
}

// digest identifies content: its SHA-256, the SHA-256 with CRLF line ends
// read as LF (a checkout with core.autocrlf rewrites them), and for a Git
// LFS pointer the SHA-256 of the object it stands for.
type digest struct {
	raw, lf, lfsOID string
}

// same: equal bytes, equal but for line endings, or an LFS pointer on one
// side for the content on the other.
func (d digest) same(o digest) bool {
	return d.raw == o.raw || d.lf == o.lf || (d.lfsOID != "" && d.lfsOID == o.raw) || (o.lfsOID != "" && o.lfsOID == d.raw)
}

const lfsPointerMax = 1024

func digestOf(r io.Reader) (digest, error) {
	raw, lf := sha256.New(), sha256.New()
	norm := &crlfWriter{w: lf}
	head := &prefixBuffer{max: lfsPointerMax + 1}
	if _, err := io.Copy(io.MultiWriter(raw, norm, head), r); err != nil {
		return digest{}, err
	}
	norm.flush()
	d := digest{raw: hex.EncodeToString(raw.Sum(nil)), lf: hex.EncodeToString(lf.Sum(nil))}
	if head.buf.Len() <= lfsPointerMax {
		d.lfsOID = lfsOID(head.buf.Bytes())
	}
	return d, nil
}

// lfsOID returns the sha256 of a Git LFS pointer file, "" for other content.
func lfsOID(b []byte) string {
	const version = "version https://git-lfs.github.com/spec/v1\n"
	if !bytes.HasPrefix(b, []byte(version)) {
		return ""
	}
	for _, line := range strings.Split(string(b), "\n") {
		if oid, ok := strings.CutPrefix(line, "oid sha256:"); ok && len(oid) == 64 {
			return strings.ToLower(oid)
		}
	}
	return ""
}

// crlfWriter writes what it is given with every CR that precedes an LF
// removed, across write boundaries.
type crlfWriter struct {
	w       hash.Hash
	pending bool // the last byte seen was a CR, not yet written
}

func (c *crlfWriter) Write(p []byte) (int, error) {
	n := len(p)
	if c.pending && len(p) > 0 {
		if p[0] != '\n' {
			c.w.Write([]byte{'\r'})
		}
		c.pending = false
	}
	for len(p) > 0 {
		i := bytes.IndexByte(p, '\r')
		if i < 0 {
			c.w.Write(p)
			break
		}
		c.w.Write(p[:i])
		if i == len(p)-1 {
			c.pending = true
			break
		}
		if p[i+1] != '\n' {
			c.w.Write([]byte{'\r'})
		}
		p = p[i+1:]
	}
	return n, nil
}

func (c *crlfWriter) flush() {
	if c.pending {
		c.w.Write([]byte{'\r'})
		c.pending = false
	}
}

// prefixBuffer keeps the first max bytes written to it.
type prefixBuffer struct {
	buf bytes.Buffer
	max int
}

func (b *prefixBuffer) Write(p []byte) (int, error) {
	if room := b.max - b.buf.Len(); room > 0 {
		b.buf.Write(p[:min(len(p), room)])
	}
	return len(p), nil
}
