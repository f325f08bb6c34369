// The policy input document of a run, built from what the earlier stages
// loaded.

package runner

import (
	"maps"
	"path/filepath"

	"github.com/h3a-check/h3a-check/internal/layout"
	"github.com/h3a-check/h3a-check/internal/rundir"
)

// DefaultParams are the policy parameters used when the configuration sets none:
// the retry limits of the h3a layout (max_iterations) and of hybrid-os
// (max_retries), which a run's own files can only lower.
func DefaultParams() map[string]any {
	return map[string]any{"max_iterations": 2, "max_retries": 3}
}

// buildInput assembles the policy input document of a run from what the
// earlier stages already loaded: no file is read again (the layout's
// Docs reads only the Run, whose extra files the load stage read).
func (c *checker) buildInput(s *runState, pe *pendingEvidence, hist historyOutcome) map[string]any {
	files := map[string]any{}
	for _, m := range s.run.Files {
		f := m.Spec
		d := s.run.Docs[m.Path]
		entry := map[string]any{"present": false, "parsed": false, "schema_valid": false, "sha256": nil, "doc": f.DocKey}
		if d != nil && d.Present {
			entry["present"] = true
			entry["parsed"] = d.Parsed
			entry["schema_valid"] = d.Parsed && (f.Schema == "" || d.SchemaValid)
			entry["sha256"] = d.SHA256
		}
		files[m.Path] = entry
	}
	ev := map[string]any{}
	for _, a := range pe.artifacts {
		st := map[string]any{
			"logged":     true,
			"exists":     a.exists,
			"inside_run": a.inside,
			"hash_ok":    a.verified,
		}
		if a.verified && a.blank {
			st["blank"] = true
		}
		ev[a.path] = st
	}
	params := DefaultParams()
	maps.Copy(params, c.rules.Params)
	tree := make([]any, len(s.tree))
	for i, p := range s.tree {
		tree[i] = p
	}
	docs := s.lay.Docs(s.run)
	c.markProvenance(s, docs, hist)
	c.markRoundProvenance(s, docs, hist)
	dir := filepath.Base(s.run.Dir)
	in := map[string]any{
		"run": map[string]any{
			"id":            s.lay.RunID(s.run),
			"layout":        s.lay.ID(),
			"dir":           dir,
			"dir_is_run_id": rundir.CheckRunID(dir) == "",
		},
		"tree":     tree,
		"files":    files,
		"docs":     docs,
		"evidence": ev,
		"history":  hist.input(),
		"params":   params,
		"secrets":  scanSecrets(s.run),
	}
	if m, ok := s.lay.(layout.StatusMeanings); ok {
		in["meanings"] = m.Meanings(s.run)
	}
	return in
}
