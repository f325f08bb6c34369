package history

import (
	"fmt"
	"slices"

	"github.com/h3a-check/h3a-check/internal/finding"
	"github.com/h3a-check/h3a-check/internal/layout"
	"github.com/h3a-check/h3a-check/internal/ledger"
)

// fileRule is how one append-only file of a layout is compared with its
// base version.
type fileRule struct {
	Path string // relative to the run; a file of the layout, or a pattern of its Files
	// Check compares the two parsed versions and returns findings about
	// head, at the first line or element that diverges.
	Check func(p *pair) []finding.Finding
	// Artifacts, for an evidence log, lists the paths its base version
	// logs, as written; each artifact must hash the same in head. nil for
	// other files.
	Artifacts func(baseLedger any) []string
	// events is true for a gates ledger: the events it gained since the
	// base are reported (Result.NewEvents).
	events bool
}

// rulesOf gives the comparison of each append-only file the layout
// declares (layout.Layout.AppendOnly), in its order. Every way a file may
// grow is implemented here; a layout only names them.
func rulesOf(lay layout.Layout) ([]fileRule, error) {
	var out []fileRule
	for _, a := range lay.AppendOnly() {
		if _, ok := layoutFile(lay, a.Path); !ok {
			return nil, fmt.Errorf("layout %s declares %q append-only, which is not one of its files", lay.ID(), a.Path)
		}
		r := fileRule{Path: a.Path}
		switch g := a.Grows.(type) {
		case layout.ArrayPrefix:
			r.Check = arrayPrefix(g.Pointer, g.Corrections)
		case layout.VersionsRise:
			r.Check = versionsRise(g.Severity, g.Keys...)
		case layout.RecordsPrefix:
			r.Check = recordsPrefix
		case layout.Frozen:
			r.Check = frozen(g.Why, g.WhenStatus)
		case layout.GateEvents:
			r.Check, r.events = gateEvents, true
		case layout.EvidenceEntries:
			r.Check, r.Artifacts = evidenceEntries, loggedArtifacts
		case layout.RoadmapTasks:
			r.Check = roadmapTasks
		case layout.IterationCount:
			r.Check = iterationCount(g.Ledger)
		case layout.RetriesKept:
			r.Check = retriesKept
		case layout.NeedsHumanStays:
			r.Check = needsHumanStays(g.Member)
		case layout.FailedStays:
			r.Check = failedStays(g.What)
		case layout.OpenIssuesStay:
			r.Check = openIssuesStay
		case layout.ManifestTasksStay:
			r.Check = manifestTasksStay
		case layout.HaltStays:
			r.Check = haltStays
		case layout.ResolvedIssuesStay:
			r.Check = resolvedIssuesStay
		case layout.SchemaKept:
			f, _ := layoutFile(lay, a.Path)
			if f.Versioned == nil {
				return nil, fmt.Errorf("layout %s declares the schema of %s kept, but its schema is not chosen by a version", lay.ID(), a.Path)
			}
			r.Check = schemaKept(f)
		default:
			return nil, fmt.Errorf("layout %s declares %s append-only as %T, which the history stage does not implement", lay.ID(), a.Path, a.Grows)
		}
		out = append(out, r)
	}
	return out, nil
}

// frozen reports the first difference between a JSON file and its base
// version: the file never changes once committed. With whenStatus, only a
// file whose base version has one of those statuses is held to it.
func frozen(why string, whenStatus []string) func(*pair) []finding.Finding {
	return func(p *pair) []finding.Finding {
		if len(whenStatus) > 0 {
			base, _ := p.base.json.Value.(map[string]any)
			// In any case or spacing, as the base showed it ("success").
			if !slices.Contains(whenStatus, spelledStatus(base["status"])) {
				return nil
			}
		}
		at, b, h, differs := firstDiff(p.base.json.Value, p.head.json.Value, "")
		if !differs {
			return nil
		}
		where := at
		if where == "" {
			where = "the document"
		}
		f := finding.FrozenChanged.New(p.path, "%s changed since base %s at %s: base %s, head %s; %s",
			p.path, p.commit, where, quoteValue(b), quoteValue(h), why)
		f.Pointer = at
		return []finding.Finding{f}
	}
}

// loggedArtifacts lists the paths an evidence log logs, as written.
func loggedArtifacts(v any) []string {
	log, ok := v.(*ledger.EvidenceLog)
	if !ok {
		return nil
	}
	out := make([]string, 0, len(log.Entries))
	for _, e := range log.Entries {
		out = append(out, e.Path)
	}
	return out
}

// schemaKept reports a versioned file held to a schema at the base whose
// version in head holds it to another schema, or to none.
func schemaKept(file layout.File) func(*pair) []finding.Finding {
	member := file.Versioned.Member
	return func(p *pair) []finding.Finding {
		if p.base.json == nil || p.head.json == nil {
			return nil
		}
		base := file.SchemaFor(p.base.json.Value)
		if base == "" {
			return nil
		}
		head := file.SchemaFor(p.head.json.Value)
		if head == base {
			return nil
		}
		headSchema := "none"
		if head != "" {
			headSchema = "schema " + head
		}
		f := finding.SchemaVersionChanged.New(p.path, "%s declares %s at base %s, which holds it to schema %s, and %s in head, which holds it to %s: a file keeps the schema its base version is held to",
			p.path, versionText(member, p.base.json.Value), p.commit, base, versionText(member, p.head.json.Value), headSchema)
		if m, ok := p.head.json.Value.(map[string]any); ok {
			if _, ok := m[member]; ok {
				f.Pointer = "/" + member
			}
		}
		return []finding.Finding{f}
	}
}

// versionText names the version member of a document for a message.
func versionText(member string, v any) string {
	m, _ := v.(map[string]any)
	x, ok := m[member]
	if !ok {
		return "no " + member
	}
	return member + " " + quoteValue(x)
}
