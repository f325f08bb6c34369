// Credentials written into a run's documents, as facts for the policies.

package runner

import (
	"cmp"
	"slices"

	"github.com/h3a-check/h3a-check/internal/layout"
	"github.com/h3a-check/h3a-check/internal/ledger"
	"github.com/h3a-check/h3a-check/internal/secrets"
)

// secretFact is one credential found in a document of the run, where it
// sits and how it is sorted into input.secrets.
type secretFact struct {
	file      string
	line, col int // 0 when the document has no positions
	hit       secrets.Hit
	inLedger  bool // located by line, not by pointer
}

// scanSecrets lists the credentials in every document the layout loaded,
// by file and then position, for input.secrets. It runs while the run's
// documents are held: the policies see the facts, never walk the
// documents for them. Structured documents are scanned as the file writes
// them, so a pointer names each member as written.
func scanSecrets(r *layout.Run) []any {
	var facts []secretFact
	seen := map[string]bool{}
	for _, m := range r.Files {
		d := r.Docs[m.Path]
		if seen[m.Path] || d == nil || !d.Parsed {
			continue
		}
		seen[m.Path] = true
		if d.Ledger != nil {
			n := 0
			for _, t := range ledgerTexts(d.Ledger) {
				for _, h := range secrets.Text(t.text) {
					if n == secrets.MaxHits {
						break
					}
					n++
					facts = append(facts, secretFact{file: m.Path, line: t.line, hit: h, inLedger: true})
				}
			}
			continue
		}
		for _, h := range secrets.Scan(d.Value()) {
			f := secretFact{file: m.Path, hit: h}
			f.line, f.col, _ = d.Position(h.Pointer)
			facts = append(facts, f)
		}
	}
	slices.SortStableFunc(facts, func(a, b secretFact) int {
		return cmp.Or(cmp.Compare(a.file, b.file), cmp.Compare(a.line, b.line), cmp.Compare(a.col, b.col))
	})
	out := make([]any, 0, len(facts))
	for _, f := range facts {
		entry := map[string]any{"file": f.file, "kind": f.hit.Kind, "masked": f.hit.Masked}
		if f.inLedger {
			entry["line"] = f.line
		} else {
			entry["pointer"] = f.hit.Pointer
		}
		if f.hit.Kind == secrets.KindMember {
			entry["member"] = f.hit.Member
		}
		out = append(out, entry)
	}
	return out
}

// lineText is the free text of one ledger record and its line.
type lineText struct {
	text string
	line int
}

// ledgerTexts lists the free text written into a Markdown ledger, record
// by record: task descriptions, event notes and evidence descriptions.
func ledgerTexts(v any) []lineText {
	var out []lineText
	switch l := v.(type) {
	case *ledger.Roadmap:
		for _, t := range l.Tasks {
			out = append(out, lineText{t.Text, t.Line})
		}
	case *ledger.GatesLedger:
		for _, e := range l.Events {
			out = append(out, lineText{e.Note, e.Line})
		}
	case *ledger.EvidenceLog:
		for _, e := range l.Entries {
			out = append(out, lineText{e.Description, e.Line})
		}
	}
	return out
}
