package policy_test

import (
	"context"
	"io"
	"testing"

	"github.com/h3a-check/h3a-check/internal/policy"
)

// forEveryLayout are the shipped rules written for the input of every
// layout: they read only what each layout's input has (input.secrets).
var forEveryLayout = map[string]bool{"h3a.security.secret": true}

// TestShippedRulesNameTheirLayouts: every other shipped rule is typed for
// the layouts it is written for, by the schemas annotation of its package
// ("# schemas:" then "#   - input: schema.input.<layout>"). Without it the
// rule's fields are not type-checked against the input schema, and the
// plan runs it on the runs of every layout.
func TestShippedRulesNameTheirLayouts(t *testing.T) {
	// Compiled from policies/, as --debug does: the plan says what its
	// last go generate read.
	e, err := policy.Load(context.Background(), policy.Options{Debug: io.Discard})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range e.Rules() {
		if len(r.Layouts) == 0 && !forEveryLayout[r.ID] {
			t.Errorf("%s: rule %s names no layout: give its package's # METADATA a schemas annotation (# schemas: / #   - input: schema.input.<layout>, as policies/gates.rego has), or list it in forEveryLayout", r.Location, r.ID)
		}
	}
	for id := range forEveryLayout {
		if r, ok := e.Rule(id); !ok || len(r.Layouts) > 0 {
			t.Errorf("forEveryLayout lists %s, which is no shipped rule written for every layout: remove it", id)
		}
	}
}
