// Whose word a human decision recorded in a run is: the commit that added
// it, and git's word on its signature.

package runner

import (
	"bytes"
	"path"
	"slices"
	"strings"
	"sync"

	"github.com/h3a-check/h3a-check/internal/gitrev"
	"github.com/h3a-check/h3a-check/internal/history"
	"github.com/h3a-check/h3a-check/internal/layout"
	"github.com/h3a-check/h3a-check/internal/ledger"
)

// Humans says when a human decision recorded in a run is a person's. The
// gate framework reserves some acts for a human (gate_framework.md,
// Escalation Process: "Human reviews and provides guidance"): clearing an
// escalation, resetting iteration_count, licensing an attempt past the
// limit. A run's documents are written by the agents under review, so a
// line saying a human decided proves nothing by itself. It counts when
// the trusted base already holds it, when the commit that added it is
// signed by a key the trusted base names as a human's, or when the working
// tree is the person's own (Local). Otherwise it is claimed: a reviewer
// must confirm it.
type Humans struct {
	// Local is true when the working tree is the person's own (not in CI,
	// no --base): the person running the check is the human.
	Local bool
	// AllowedSigners is the content of a git allowed_signers file read
	// from the trusted base: the SSH keys of people. nil for none.
	AllowedSigners []byte
	// GPGFingerprints are the full fingerprints (upper-case hex) of
	// people's GPG keys, from the trusted base's configuration.
	GPGFingerprints []string

	mu      sync.Mutex
	signed  map[signedKey]bool
	blamed  map[blameKey]blameResult
	logs    map[blameKey][]ledger.Event // a gates ledger's events at a commit (base: the commit)
	verify  func(repo *gitrev.Repo, commit string, allowed []byte) (gitrev.Signature, error)
	blameFn func(repo *gitrev.Repo, base, rel string) ([]gitrev.BlamedLine, error)
}

type signedKey struct {
	repo   *gitrev.Repo
	commit string
}

type blameKey struct {
	repo       *gitrev.Repo
	base, file string
}

type blameResult struct {
	lines []gitrev.BlamedLine
	err   error
}

// The provenance of a gates ledger event in the policy input
// (schemas/input.h3a.schema.json, docs.gates_ledger.events[].provenance).
const (
	provenanceBase    = "base"    // the history base holds it
	provenanceSigned  = "signed"  // added by a commit a human's key signed
	provenanceLocal   = "local"   // the working tree is the person's own
	provenanceClaimed = "claimed" // written by the change under review
)

// eventProvenance gives, for each gates ledger of a run whose history was
// compared, the provenance of each event the base does not hold, by line.
// Only an event by agent "human" is looked up in git: any other event the
// change added is claimed, since no rule asks who wrote it.
func (h *Humans) eventProvenance(s *runState, rb runBase, res history.Result) map[string]map[int]string {
	out := map[string]map[int]string{}
	for file, lines := range res.NewEvents {
		prov := map[int]string{}
		out[file] = prov
		humans := humanEventLines(s, file)
		for _, l := range lines {
			prov[l] = provenanceClaimed
			if h.Local {
				prov[l] = provenanceLocal
			}
		}
		if h.Local || !h.hasKeys() || !slices.ContainsFunc(lines, func(l int) bool { return humans[l] }) {
			continue // nothing to look up in git
		}
		blamedPath := path.Join(rb.rel, file)
		blamed, err := h.blame(rb.repo, rb.base.Commit, blamedPath)
		if err != nil {
			continue // no commit shown to have added them: claimed
		}
		text := docLines(s, file)
		events := headEvents(s, file)
		for _, l := range lines {
			if !humans[l] || l < 1 || l > len(blamed) || l > len(text) {
				continue
			}
			// The working tree's line must be HEAD's line at the same
			// place: a line edited or moved since the last commit was
			// signed by nobody. A line git blames on the base was no
			// event there (the records say it is new): text moved into
			// the events log is no decision of the base's either. A line
			// git finds under another name in the commit that added it
			// was signed for another file (another run's ledger, say) and
			// came here by a rename that commit did not make.
			b := blamed[l-1]
			if strings.TrimSuffix(b.Text, "\r") != text[l-1] || b.Boundary || b.File != blamedPath {
				continue
			}
			// The person decided on the events above the line as
			// the signed commit left them: an event a later commit
			// inserted, reworded or dropped above it was never
			// before them.
			if h.signedByHuman(rb.repo, b.Commit) && h.decidedOn(rb.repo, b, events, l) {
				prov[l] = provenanceSigned
			}
		}
	}
	return out
}

// decidedOn reports whether the events above line l of the gates ledger
// (head, its events as checked) are the events the commit that added the
// line (b, as git blames it) left above it, in the same order.
func (h *Humans) decidedOn(repo *gitrev.Repo, b gitrev.BlamedLine, head []ledger.Event, l int) bool {
	signed, ok := h.eventsAt(repo, b.Commit, b.File)
	if !ok {
		return false
	}
	var was []ledger.Event
	found := false
	for _, e := range signed {
		if e.Line == b.OrigLine {
			found = true
			break
		}
		was = append(was, e)
	}
	var now []ledger.Event
	for _, e := range head {
		if e.Line < l {
			now = append(now, e)
		}
	}
	return found && slices.EqualFunc(was, now, func(a, b ledger.Event) bool {
		return a.Time == b.Time && a.Gate == b.Gate && a.Status == b.Status && a.Agent == b.Agent && a.Note == b.Note
	})
}

// eventsAt parses the gates ledger at file (relative to the top level) as
// commit holds it; ok is false when it cannot be read.
func (h *Humans) eventsAt(repo *gitrev.Repo, commit, file string) ([]ledger.Event, bool) {
	k := blameKey{repo, commit, file}
	h.mu.Lock()
	events, ok := h.logs[k]
	h.mu.Unlock()
	if ok {
		return events, events != nil
	}
	data, exists, err := repo.Read(commit, file)
	if err == nil && exists {
		g, _ := ledger.ParseGatesLedger(data)
		events = append([]ledger.Event{}, g.Events...)
	}
	h.mu.Lock()
	if h.logs == nil {
		h.logs = map[blameKey][]ledger.Event{}
	}
	h.logs[k] = events
	h.mu.Unlock()
	return events, events != nil
}

// headEvents gives the events of the gates ledger at file as checked.
func headEvents(s *runState, file string) []ledger.Event {
	d := s.run.Docs[file]
	if d == nil || !d.Parsed {
		return nil
	}
	g, ok := d.Ledger.(*ledger.GatesLedger)
	if !ok {
		return nil
	}
	return g.Events
}

// humanEventLines gives the lines of the events by agent "human" of the
// gates ledger at file.
func humanEventLines(s *runState, file string) map[int]bool {
	out := map[int]bool{}
	for _, e := range headEvents(s, file) {
		if strings.EqualFold(e.Agent, "human") {
			out[e.Line] = true
		}
	}
	return out
}

// docLines splits a document as the ledger parser numbers its lines.
func docLines(s *runState, file string) []string {
	d := s.run.Docs[file]
	if d == nil {
		return nil
	}
	lines := strings.Split(string(bytes.TrimSuffix(d.Data, []byte("\n"))), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimSuffix(l, "\r")
	}
	return lines
}

func (h *Humans) blame(repo *gitrev.Repo, base, file string) ([]gitrev.BlamedLine, error) {
	k := blameKey{repo, base, file}
	h.mu.Lock()
	r, ok := h.blamed[k]
	h.mu.Unlock()
	if ok {
		return r.lines, r.err
	}
	fn := h.blameFn
	if fn == nil {
		fn = (*gitrev.Repo).BlameSince
	}
	r.lines, r.err = fn(repo, base, file)
	h.mu.Lock()
	if h.blamed == nil {
		h.blamed = map[blameKey]blameResult{}
	}
	h.blamed[k] = r
	h.mu.Unlock()
	return r.lines, r.err
}

// hasKeys reports whether the configuration names any person's key: with
// none, no commit can carry a person's decision, and git is not asked.
func (h *Humans) hasKeys() bool { return len(h.AllowedSigners) > 0 || len(h.GPGFingerprints) > 0 }

// signedByHuman asks git whether commit is signed by a key of a person:
// an SSH key of the allowed signers (git reports G only when the signer is
// allowed), or a GPG key of the configured fingerprints whose signature
// git reports good. A commit git cannot verify is nobody's.
func (h *Humans) signedByHuman(repo *gitrev.Repo, commit string) bool {
	if !h.hasKeys() {
		return false
	}
	k := signedKey{repo, commit}
	h.mu.Lock()
	v, ok := h.signed[k]
	h.mu.Unlock()
	if ok {
		return v
	}
	fn := h.verify
	if fn == nil {
		fn = (*gitrev.Repo).Signature
	}
	sig, err := fn(repo, commit, h.AllowedSigners)
	v = err == nil && h.accepts(sig)
	h.mu.Lock()
	if h.signed == nil {
		h.signed = map[signedKey]bool{}
	}
	h.signed[k] = v
	h.mu.Unlock()
	return v
}

// accepts judges git's report of a signature. An SSH signature's
// fingerprint is "SHA256:…"; git checks it against the allowed signers
// given to it. A GPG signature's G or U only says the keyring knows the
// key, so its fingerprint must be one of the configured ones.
func (h *Humans) accepts(sig gitrev.Signature) bool {
	if strings.HasPrefix(sig.Fingerprint, "SHA256:") {
		return sig.Status == "G" && len(h.AllowedSigners) > 0
	}
	if sig.Status != "G" && sig.Status != "U" {
		return false
	}
	fp := strings.ToUpper(sig.Fingerprint)
	return fp != "" && (slices.Contains(h.GPGFingerprints, fp) || slices.Contains(h.GPGFingerprints, strings.ToUpper(sig.Primary)))
}

// noHumans is used when Options.Rules.Humans is nil: no decision the change
// under review adds counts.
var noHumans = &Humans{}

func (c *checker) humans() *Humans {
	if c.rules.Humans == nil {
		return noHumans
	}
	return c.rules.Humans
}

// markProvenance writes each gates ledger event's provenance into the
// policy input's docs (docs.<key>.events[].provenance).
func (c *checker) markProvenance(s *runState, docs map[string]any, hist historyOutcome) {
	for _, m := range s.run.Files {
		if m.Spec.DocKey == "" {
			continue
		}
		doc, ok := docs[m.Spec.DocKey].(map[string]any)
		if !ok {
			continue
		}
		d := s.run.Docs[m.Path]
		if d == nil {
			continue
		}
		if _, isLedger := d.Ledger.(*ledger.GatesLedger); !isLedger {
			continue
		}
		events, _ := doc["events"].([]any)
		prov, compared := hist.events[m.Path]
		for _, e := range events {
			ev, ok := e.(map[string]any)
			if !ok {
				continue
			}
			line, _ := ev["line"].(int)
			switch p, isNew := prov[line]; {
			case isNew:
				ev["provenance"] = p
			case compared:
				ev["provenance"] = provenanceBase
			case c.humans().Local:
				ev["provenance"] = provenanceLocal
			default:
				ev["provenance"] = provenanceClaimed
			}
		}
	}
}

// markRoundProvenance gives a contract run's input the provenance of each
// document of each round that follows a needs-human round (docs.provenance,
// by file): going on after the judge or the auditor asked for a person is
// that person's act (artifact-contract.md, verdict.json and audit.json
// Rules; loop-orchestrator SKILL.md: "`needs-human` -> final
// `needs-human`"). A document the base holds is the base's; one the change
// added counts when every line of it came in a commit signed by a human's
// key, or on the person's own working tree; else it is claimed.
func (c *checker) markRoundProvenance(s *runState, docs map[string]any, hist historyOutcome) {
	rounds, ok := docs["rounds"].([]any)
	if !ok || s.lay.ID() != "contract" {
		return
	}
	prov := map[string]any{}
	docs["provenance"] = prov
	h := c.humans()
	after := false // the round before this one asked for a person
	var earlier []map[string]any
	for _, r := range rounds {
		round, _ := r.(map[string]any)
		files, _ := round["files"].(map[string]any)
		if after {
			for _, f := range files {
				if file, ok := f.(string); ok {
					p, commits := h.documentProvenance(s, hist, file)
					// The person decided on the rounds before as the
					// signed commits left them: a round a later commit
					// edited was never before them.
					if p == provenanceSigned && !h.roundsAsSigned(s, hist, earlier, commits) {
						p = provenanceClaimed
					}
					prov[file] = p
				}
			}
		}
		earlier = append(earlier, round)
		after = asksForPerson(round)
	}
}

// roundsAsSigned reports whether the rounds before a round a person signed
// (earlier) are what each commit that added its lines (commits) held: the
// same folder of each round, the same file of each role and patch.diff of
// a flat run's round, and the same bytes of each document as checked. A
// round an unsigned commit of the change edited, added or removed after
// the person's commit (its verdict, its reasons, its patch) is not the
// round the person decided on.
func (h *Humans) roundsAsSigned(s *runState, hist historyOutcome, earlier []map[string]any, commits []string) bool {
	repo := hist.at.repo
	var paths, docs []string
	for _, round := range earlier {
		if dir, _ := round["dir"].(string); dir != "" {
			paths = append(paths, dir)
		} else {
			paths = append(paths, layout.ContractRoundFiles()...)
		}
		files, _ := round["files"].(map[string]any)
		for _, f := range files {
			if file, ok := f.(string); ok {
				docs = append(docs, file)
			}
		}
	}
	if len(commits) == 0 {
		return true
	}
	// What HEAD holds at each path, once for every signing commit.
	type object struct {
		entry gitrev.Entry
		ok    bool
	}
	atHead := make([]object, len(paths))
	for i, p := range paths {
		e, ok, err := repo.Lookup("HEAD", path.Join(hist.at.rel, p))
		if err != nil {
			return false
		}
		atHead[i] = object{e, ok}
	}
	for _, c := range commits {
		for i, p := range paths {
			at, okAt, err := repo.Lookup(c, path.Join(hist.at.rel, p))
			if err != nil || okAt != atHead[i].ok || at != atHead[i].entry {
				return false
			}
		}
		for _, file := range docs {
			d := s.run.Docs[file]
			data, ok, err := repo.Read(c, path.Join(hist.at.rel, file))
			if d == nil || err != nil || !ok || !bytes.Equal(data, d.Data) {
				return false
			}
		}
	}
	return true
}

// asksForPerson: the round's judge or auditor said needs-human.
func asksForPerson(round map[string]any) bool {
	v, _ := round["verdict"].(map[string]any)
	a, _ := round["audit"].(map[string]any)
	return v["verdict"] == "needs-human" || a["gate"] == "needs-human"
}

// documentProvenance is the provenance of one document of the run and,
// when it is signed, the commits that added its lines.
func (h *Humans) documentProvenance(s *runState, hist historyOutcome, file string) (string, []string) {
	switch {
	case hist.held[file]:
		return provenanceBase, nil
	case h.Local:
		return provenanceLocal, nil
	case hist.at.repo == nil || hist.at.base.Commit == "" || !h.hasKeys():
		return provenanceClaimed, nil
	}
	blamedPath := path.Join(hist.at.rel, file)
	blamed, err := h.blame(hist.at.repo, hist.at.base.Commit, blamedPath)
	text := docLines(s, file)
	if err != nil || len(blamed) != len(text) {
		return provenanceClaimed, nil // not committed as it is
	}
	// Every line came in a commit a person signed, into this file; a line
	// git blames on the base belongs to a file the base holds elsewhere (a
	// copy or a rename), and one git finds under another name in the
	// commit that added it was signed for another file: neither decided
	// anything about this round.
	var commits []string
	for i, b := range blamed {
		if strings.TrimSuffix(b.Text, "\r") != text[i] || b.Boundary || b.File != blamedPath || !h.signedByHuman(hist.at.repo, b.Commit) {
			return provenanceClaimed, nil
		}
		if !slices.Contains(commits, b.Commit) {
			commits = append(commits, b.Commit)
		}
	}
	return provenanceSigned, commits
}
