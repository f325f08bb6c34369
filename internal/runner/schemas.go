// The schema stage: which schemas the layouts found need, and each parsed
// document held to its own. The validation itself is internal/schema's.

package runner

import (
	"fmt"
	"slices"

	"github.com/h3a-check/h3a-check/internal/finding"
	"github.com/h3a-check/h3a-check/internal/layout"
	"github.com/h3a-check/h3a-check/internal/rundir"
	"github.com/h3a-check/h3a-check/internal/schema"
)

// prepareSchemas starts compiling the schemas of the layouts of runs, and
// only those.
func prepareSchemas(runs []rundir.Run) error {
	schemas, err := schema.Default()
	if err != nil {
		return fmt.Errorf("embedded schemas: %w", err)
	}
	schemas.Prepare(schemaNames(runs)...)
	return nil
}

// schemaNames lists the schemas of the layouts of runs.
func schemaNames(runs []rundir.Run) []string {
	var names []string
	seen := map[string]bool{}
	for _, run := range runs {
		if seen[run.Layout] {
			continue
		}
		seen[run.Layout] = true
		for _, f := range layout.ByID(run.Layout).Files() {
			for _, name := range f.SchemaNames() {
				if !slices.Contains(names, name) {
					names = append(names, name)
				}
			}
		}
	}
	return names
}

// validateSchemas holds each parsed document to the schema its file names,
// or to the one the version it declares names (layout.Versioned).
func (c *checker) validateSchemas(s *runState) {
	schemas, err := schema.Default()
	if err != nil {
		return // Check reports it as the tool's failure
	}
	for _, m := range s.run.Files {
		f, path := m.Spec, m.Path
		doc := s.run.Docs[path]
		if (f.Schema == "" && f.Versioned == nil) || doc == nil || !doc.Present {
			continue
		}
		if !doc.Parsed {
			// A versioned document that did not parse declares no
			// version: its syntax finding says all there is to say.
			if f.Schema != "" {
				s.add(finding.NotEvaluated.New(path, "schema check not evaluated: %s is not valid JSON", path))
			}
			continue
		}
		name := f.SchemaFor(doc.Value())
		if name == "" {
			continue
		}
		vs := schemas.Validate(name, doc.Value())
		doc.SchemaValid = len(vs) == 0
		for _, v := range vs {
			fd := finding.SchemaViolation.New(path, "%s", v.Message)
			fd.Pointer = v.Pointer
			if v.Missing {
				// Point at the object that lacks the member.
				fd.Line, fd.Column, _ = doc.Position(v.Pointer)
			}
			s.add(fd)
		}
	}
}
