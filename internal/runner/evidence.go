// The integrity stage: every logged artifact's entry checked and its hash
// queued on the shared pool while the other stages run, then compared.

package runner

import (
	"errors"
	"io"
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
	sum   string            // known without hashing (a document already read)
	hash  *evidence.Pending // nil when not hashed
	// status for the policy input
	exists, inside, verified bool
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
	return &pendingEvidence{artifacts: order}
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
	if !a.token.Verifiable {
		// Not hashed, but its presence still counts.
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
			a.sum = sum.Hex
		}
		if a.sum == "" {
			continue
		}
		// The path is a substring of the evidence log; the canonical copy
		// lets the log go with the run while the audit keeps its inputs,
		// and runs that log the same paths share one copy.
		s.inputs[unique.Make(a.path).Value()] = a.sum
		if !a.token.Verifiable {
			continue
		}
		if !a.token.Matches(a.sum) {
			f := finding.HashMismatch.New(a.last.LogFile, "%q: logged hash %s, file hashes to %s",
				a.path, a.token.Raw, a.sum[:max(len(a.token.Hex), 16)])
			f.Line, f.Column = a.last.Line, a.last.HashColumn
			s.add(f)
			continue
		}
		a.verified = true
		n.ok++
	}
	return n
}
