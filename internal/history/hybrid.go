package history

import (
	"fmt"

	"github.com/h3a-check/h3a-check/internal/finding"
	"github.com/h3a-check/h3a-check/internal/jsonpos"
)

// versionsRise is the optimistic-lock rule of Hybrid_AI_OS: every write
// raises a file's version, and the global counter only grows, so a value
// lower than at the base is a lost write or an older copy written back.
// severity lets the vX.2 generation, whose v was seen restarting on
// purpose, report a restart as a warning.
func versionsRise(severity finding.Severity, keys ...string) func(*pair) []finding.Finding {
	return func(p *pair) []finding.Finding {
		var out []finding.Finding
		for _, k := range keys {
			b, okB := intMember(p.base.json, k)
			h, okH := intMember(p.head.json, k)
			if !okB || !okH || h >= b {
				continue
			}
			f := finding.HybridVersionDecreased.New(p.path, "%s %s went down from %d at base %s to %d; a lower version is a lost write", p.path, k, b, p.commit, h)
			f.Severity = severity
			f.Pointer = "/" + k
			out = append(out, f)
		}
		return out
	}
}

func intMember(doc *jsonpos.Document, key string) (int64, bool) {
	if doc == nil {
		return 0, false
	}
	m, ok := doc.Value.(map[string]any)
	if !ok {
		return 0, false
	}
	n, ok := m[key].(interface{ Int64() (int64, error) })
	if !ok {
		return 0, false
	}
	v, err := n.Int64()
	return v, err == nil
}

// recordsPrefix: a log unit at head starts with every record of its base
// version, unchanged; records are only appended.
func recordsPrefix(p *pair) []finding.Finding {
	if p.base.lines == nil || p.head.lines == nil {
		return nil
	}
	base, head := p.base.lines.Value, p.head.lines.Value
	for i, b := range base {
		if i >= len(head) {
			f := finding.HybridLogShrunk.New(p.path, "%s has %s; base %s had %d: records were removed", p.path, entries(len(head)), p.commit, len(base))
			return []finding.Finding{f}
		}
		if _, _, _, differs := firstDiff(b, head[i], fmt.Sprintf("/%d", i)); differs {
			f := finding.HybridLogShrunk.New(p.path, "record %d of %s differs from base %s (base %s); log records are never rewritten", i+1, p.path, p.commit, quoteValue(b))
			f.Pointer = fmt.Sprintf("/%d", i)
			return []finding.Finding{f}
		}
	}
	return nil
}
