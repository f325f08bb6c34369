// The integrity stage: every logged artifact's entry checked and its hash
// queued on the shared pool while the other stages run, then compared.

package runner

import (
	"errors"
	"io"
	"strings"
	"time"
	"unique"

	"github.com/h3a-check/h3a-check/internal/evidence"
	"github.com/h3a-check/h3a-check/internal/finding"
	"github.com/h3a-check/h3a-check/internal/layout"
	"github.com/h3a-check/h3a-check/internal/rundir"
)

// loggedArtifact is one distinct path of the evidence log and the entry
// that must match it: the last one logged.
type loggedArtifact struct {
	path  string // cleaned, relative to the run
	last  layout.EvidenceRef
	token evidence.Token
	// earlier are the path's entries before the last, in log order: each
	// that logs other content than the file must be superseded.
	earlier []loggedEntry
	sum     string            // known without hashing (a document already read)
	hash    *evidence.Pending // nil when not hashed
	// status for the policy input
	exists, inside, verified bool
	// blank: the hashed file holds only white space, or nothing.
	blank bool
}

// loggedEntry is one evidence entry and its hash token.
type loggedEntry struct {
	ref   layout.EvidenceRef
	token evidence.Token
}

type pendingEvidence struct {
	artifacts []*loggedArtifact
}

type verifiedCount struct{ ok, total int }

// startEvidence checks every evidence entry's path and token and queues the
// hashes, so hashing runs while the other stages do.
func (c *checker) startEvidence(s *runState) *pendingEvidence {
	order := loggedArtifacts(s)
	for _, a := range order {
		c.startArtifact(s, a)
	}
	lookalikeArtifacts(s, order)
	return &pendingEvidence{artifacts: order}
}

// lookalikeArtifacts reports each file of the run that shows as a logged
// artifact's path but is another file (rundir.FoldPath: a space after its
// name, a character drawn as nothing or like another, another case): a
// second test_output_green.txt beside the logged one. The hash verified is
// the logged file's, while a reader listing the folder sees two files of
// one name and may open the other (one that shows failing tests, say).
func lookalikeArtifacts(s *runState, order []*loggedArtifact) {
	if len(order) == 0 {
		return
	}
	logged := make(map[string]bool, len(order))
	byFold := make(map[string]string, len(order))
	for _, a := range order {
		logged[a.path] = true
		byFold[rundir.FoldPath(a.path)] = a.path
	}
	variants := layout.CaseIndexOf(s.lay)
	for _, rel := range s.tree {
		if logged[rel] {
			continue
		}
		if _, ok := variants.Variant(rel); ok {
			continue // a variant of the layout's own file, reported as one
		}
		if p, ok := byFold[rundir.FoldPath(rel)]; ok {
			s.add(finding.NameCase.New(rel, "%q shows as %q, an artifact EVIDENCE_LOG.md logs, but is another file: the hash verified is the logged file's, so what this one holds is not checked, while a reader may open it: rename or remove it",
				rel, p))
		}
	}
}

// loggedArtifacts checks every evidence entry's path and token, and
// returns the distinct paths logged, in order, each with its last entry.
func loggedArtifacts(s *runState) []*loggedArtifact {
	refs := s.lay.Evidence(s.run)
	byPath := map[string]*loggedArtifact{}
	var order []*loggedArtifact
	for _, ref := range refs {
		clean, p := rundir.CleanRef(ref.Path)
		if p != nil {
			f := problemFinding(p, ref.LogFile, finding.MissingArtifact)
			f.Line, f.Column = ref.Line, ref.PathColumn
			s.add(f)
			continue
		}
		tok := evidence.ParseToken(ref.Hash)
		if !tok.Verifiable {
			rule := finding.HashUnverifiable
			if tok.Malformed {
				rule = finding.HashMalformed
			}
			f := rule.New(ref.LogFile, "%s (entry for %q)", tok.Reason, ref.Path)
			f.Line, f.Column = ref.Line, ref.HashColumn
			s.add(f)
		}
		if tok.Ellipsis != "" {
			f := finding.HashEllipsis.New(ref.LogFile, "hash %q ends with %q after its %d hex digits; the digits are verified, but the spec writes the hash without it (entry for %q)",
				ref.Hash, tok.Ellipsis, len(tok.Hex), ref.Path)
			f.Line, f.Column = ref.Line, ref.HashColumn
			s.add(f)
		}
		a := byPath[clean]
		if a == nil {
			a = &loggedArtifact{path: clean}
			byPath[clean] = a
			order = append(order, a)
		} else {
			a.earlier = append(a.earlier, loggedEntry{a.last, a.token})
		}
		a.last, a.token = ref, tok
	}
	return order
}

// startArtifact checks that the logged artifact a's hash is long enough,
// and queues its hash unless it is a document already read.
func (c *checker) startArtifact(s *runState, a *loggedArtifact) {
	// The last entry of a path is the one verified, so it is the one
	// that must be long enough: an artifact logged again with more
	// digits is fixed without rewriting the log.
	if a.token.ShorterThan(c.rules.MinHashDigits) {
		f := finding.HashTooShort.New(a.last.LogFile, "hash %q has %d hex digits; this repository requires at least %d (evidence: min-hash-digits in .h3a-check.yaml) (entry for %q)",
			a.last.Hash, len(a.token.Hex), c.rules.MinHashDigits, a.last.Path)
		f.Line, f.Column = a.last.Line, a.last.HashColumn
		s.add(f)
	}
	if doc := s.run.Docs[a.path]; doc != nil && doc.Present {
		a.sum, a.exists, a.inside = doc.SHA256, true, true
		return
	}
	if !a.token.Comparable() {
		// Not hashed, but its presence still counts. A token too short
		// to verify is hashed all the same: its digits can still be
		// wrong.
		if _, _, p := s.root.Stat(a.path); p != nil {
			s.artifactProblem(a, p)
			return
		}
		a.exists, a.inside = true, true
		return
	}
	// The worker's open is the existence check: one open per artifact,
	// and a refused or missing path comes back as the hash's error.
	root, path := s.root, a.path
	a.hash = c.hasher.Submit(func() (io.ReadCloser, error) {
		rc, _, p := root.OpenReader(path)
		if p != nil {
			return nil, p
		}
		return rc, nil
	})
}

// artifactProblem reports a logged artifact that cannot be used, at its
// evidence-log line.
func (s *runState) artifactProblem(a *loggedArtifact, p *rundir.Problem) {
	f := problemFinding(p, a.last.LogFile, finding.MissingArtifact)
	if p.Kind == rundir.Missing {
		f.Details = "logged artifact " + p.Detail + " in the run"
	}
	f.Line, f.Column = a.last.Line, a.last.PathColumn
	s.add(f)
	a.inside = p.Kind != rundir.Escape
}

// finishEvidence waits for the hashes and compares them with the log.
func (c *checker) finishEvidence(s *runState, pe *pendingEvidence) verifiedCount {
	var n verifiedCount
	for _, a := range pe.artifacts {
		n.total++
		if a.hash != nil {
			sum, err := a.hash.Wait()
			var p *rundir.Problem
			switch {
			case errors.As(err, &p):
				s.artifactProblem(a, p)
				continue
			case err != nil:
				a.exists, a.inside = true, true
				f := finding.Unreadable.New(a.last.LogFile, "cannot hash logged artifact %q: %v", a.path, err)
				f.Line, f.Column = a.last.Line, a.last.PathColumn
				s.add(f)
				continue
			}
			a.exists, a.inside = true, true
			a.sum, a.blank = sum.Hex, sum.Blank
		}
		if a.sum == "" {
			continue
		}
		// The path is a substring of the evidence log; the canonical copy
		// lets the log go with the run while the audit keeps its inputs,
		// and runs that log the same paths share one copy.
		s.inputs[unique.Make(a.path).Value()] = a.sum
		if a.token.Contradicts(a.sum) {
			f := finding.HashMismatch.New(a.last.LogFile, "%q: logged hash %s, file hashes to %s",
				a.path, a.token.Raw, a.sum[:max(len(a.token.Hex), 16)])
			f.Line, f.Column = a.last.Line, a.last.HashColumn
			s.add(f)
			continue
		}
		if stale := a.unsuperseded(a.sum); len(stale) > 0 {
			for _, f := range stale {
				s.add(f)
			}
			continue
		}
		if !a.token.Verifiable {
			continue
		}
		a.verified = true
		n.ok++
	}
	return n
}

// unsuperseded reports each earlier entry of a that logs other content
// than the file's (sum) and that no later entry supersedes. The log may
// update an artifact's hash after the file changed, and an update comes
// after what it updates: a later entry with a later time. Every later
// entry with a time that is the same or earlier leaves the stale hash as
// the log's last word on the artifact at its time; two entries of one
// time with different hashes contradict each other. Where a time cannot
// be read, log order decides, as it does for the last entry.
func (a *loggedArtifact) unsuperseded(sum string) []finding.Finding {
	var out []finding.Finding
	for i, e := range a.earlier {
		if !e.token.Contradicts(sum) {
			continue
		}
		at, ok := entryTime(e.ref.Time)
		if !ok || supersededAfter(a.earlier[i+1:], a.last, at) {
			continue
		}
		when := "an earlier time"
		if last, _ := entryTime(a.last.Time); last.Equal(at) {
			when = "the same time"
		}
		f := finding.EntryNotSuperseded.New(e.ref.LogFile, "%q: this entry logs hash %s at %s, the file hashes to %s, and no later entry supersedes it: the last entry (line %d) logs hash %s at %s; an updated hash is logged after the one it replaces, with a later time",
			a.path, e.token.Raw, e.ref.Time, sum[:max(len(e.token.Hex), 16)], a.last.Line, a.token.Raw, when)
		f.Line, f.Column = e.ref.Line, e.ref.HashColumn
		out = append(out, f)
	}
	return out
}

// supersededAfter reports whether an entry after one logged at time at
// (the entries between, then the last) carries a later time or one that
// cannot be read.
func supersededAfter(between []loggedEntry, last layout.EvidenceRef, at time.Time) bool {
	for _, e := range between {
		if t, ok := entryTime(e.ref.Time); !ok || t.After(at) {
			return true
		}
	}
	t, ok := entryTime(last.Time)
	return !ok || t.After(at)
}

// entryTime reads an evidence entry's time: RFC 3339, as the spec writes
// it ("2025-09-29T14:30:00Z").
func entryTime(s string) (time.Time, bool) {
	t, err := time.Parse(time.RFC3339, strings.TrimSpace(s))
	return t, err == nil
}
