package config

import (
	"encoding/json"
	"io/fs"
	"slices"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/h3a-check/h3a-check/internal/finding"
	"github.com/h3a-check/h3a-check/internal/layout"
	"github.com/h3a-check/h3a-check/internal/schema"
	"github.com/h3a-check/h3a-check/schemas"
)

// TestSchemaFollowsTheReader keeps schemas/config.schema.json, which editors
// validate .h3a-check.yaml with, in step with this strict reader: the same
// keys and values, and the same verdict on files right and wrong in every
// way the schema can express. (What it cannot, such as whether a rule id
// exists, the reader alone judges.)
func TestSchemaFollowsTheReader(t *testing.T) {
	b, err := fs.ReadFile(schemas.FS, "config.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	var raw struct {
		Properties map[string]struct {
			Enum []string `json:"enum"`
		} `json:"properties"`
		AdditionalProperties bool `json:"additionalProperties"`
		Defs                 struct {
			Severity struct {
				Enum []string `json:"enum"`
			} `json:"severity"`
			Waiver struct {
				Properties           map[string]any `json:"properties"`
				Required             []string       `json:"required"`
				AdditionalProperties bool           `json:"additionalProperties"`
			} `json:"waiver"`
		} `json:"$defs"`
	}
	if err := json.Unmarshal(b, &raw); err != nil {
		t.Fatal(err)
	}
	sameSet := func(what string, got, want []string) {
		t.Helper()
		got, want = slices.Sorted(slices.Values(got)), slices.Sorted(slices.Values(want))
		if !slices.Equal(got, want) {
			t.Errorf("%s: the schema has %q, the reader %q", what, got, want)
		}
	}
	var keys []string
	for k := range raw.Properties {
		keys = append(keys, k)
	}
	sameSet("top-level keys", keys, Keys)
	var waiverKeys []string
	for k := range raw.Defs.Waiver.Properties {
		waiverKeys = append(waiverKeys, k)
	}
	sameSet("waiver keys", waiverKeys, WaiverKeys)
	sameSet("required waiver keys", raw.Defs.Waiver.Required, []string{"rule", "path", "reason", "expires"})
	if raw.AdditionalProperties || raw.Defs.Waiver.AdditionalProperties {
		t.Error("the schema allows keys the reader refuses: additionalProperties must be false")
	}
	var layouts []string
	for _, l := range layout.All() {
		layouts = append(layouts, l.ID())
	}
	sameSet("layouts", raw.Properties["layout"].Enum, layouts)
	sameSet("fail levels", raw.Properties["fail-level"].Enum, []string{finding.Error.String(), finding.Warning.String()})
	sameSet("severities", raw.Defs.Severity.Enum, []string{finding.Error.String(), finding.Warning.String(), finding.Info.String()})

	set, err := schema.Default()
	if err != nil {
		t.Fatal(err)
	}
	checks := Checks{Layout: func(id string) string {
		if layout.ByID(id) == nil {
			return "unknown layout"
		}
		return ""
	}}
	const waiver = "waivers:\n  - {rule: h3a.integrity.*, path: runs/*/state/EVIDENCE_LOG.md, reason: vendor tool, expires: 2025-06-30%s}\n"
	tests := []struct {
		yaml  string
		valid bool
	}{
		{full, true},
		{"{}", true},
		{"paths: [runs, other/runs]\npolicies: [policies/team]\nbase: none\n", true},
		{"paths: runs\n", false},
		{"paths: ['']\n", false},
		{"policies: ['  ']\n", false},
		{"base: ' '\n", false},
		{"layout: gate-state\n", true},
		{"layout: h3b\n", false},
		{"fail-level: warning\n", true},
		{"fail-level: info\n", false},
		{"severity: {h3a.gates.order: info, acme.x: warning}\n", true},
		{"severity: {h3a.gates.order: loud}\n", false},
		{"severity: [h3a.gates.order]\n", false},
		{"params: {max_iterations: 3, team: {names: [a, b], strict: true, ratio: 0.5, none: null}}\n", true},
		{"params: {max_iterations: 0}\n", false},
		{"params: {max_iterations: 2.5}\n", false},
		{"params: [max_iterations]\n", false},
		{"params: {max_retries: 5}\n", true},
		{"params: {max_retries: 0}\n", false},
		{"params: {max_retries: 2.5}\n", false},
		{strings.Replace(waiver, "%s", "", 1), true},
		{strings.Replace(waiver, "%s", ", task: T001", 1), true},
		{strings.Replace(waiver, "%s", ", task: ''", 1), false},
		{strings.Replace(waiver, "%s", ", owner: me", 1), false},
		{strings.Replace(waiver, "2025-06-30%s", "2025-13-01", 1), false},
		{strings.Replace(waiver, ", expires: 2025-06-30%s", "", 1), false},
		{strings.Replace(waiver, "reason: vendor tool", "reason: ' '", 1), false},
		{"waivers: {rule: x}\n", false},
		{"waiver: []\n", false},
		{"max-waiver-days: 90\n", true},
		{"max-waiver-days: 0\n", false},
		{"max-waiver-days: 3651\n", false},
		{"max-waiver-days: '90'\n", false},
		{"max-waiver-days: 1.5\n", false},
		{"evidence: {min-hash-digits: 16}\n", true},
		{"evidence: {min-hash-digits: 64}\n", true},
		{"evidence: {min-hash-digits: 15}\n", false},
		{"evidence: {min-hash-digits: 65}\n", false},
		{"evidence: {min-hash-digits: 20.5}\n", false},
		{"evidence: {min-hash-digits: '20'}\n", false},
		{"evidence: {min-digits: 20}\n", false},
		{"evidence: 20\n", false},
		{"humans: {allowed-signers: .github/h3a-humans.allowed_signers}\n", true},
		{"humans: {gpg-fingerprints: ['0123 4567 89AB CDEF 0123  4567 89AB CDEF 0123 4567']}\n", true},
		{"humans: {gpg-fingerprints: [0123456789ABCDEF]}\n", false},
		{"humans: {allowed-signers: ' '}\n", false},
		{"humans: {allowed-signers: [a]}\n", false},
		{"humans: {signers: a}\n", false},
		{"humans: [a]\n", false},
	}
	for _, tc := range tests {
		_, perr := Parse("c.yaml", []byte(tc.yaml), checks)
		violations := set.Validate("config", yamlValue(t, tc.yaml))
		if (perr == nil) != tc.valid || (len(violations) == 0) != tc.valid {
			t.Errorf("%q: want valid %v; the reader says %v, the schema %+v", tc.yaml, tc.valid, perr, violations)
		}
	}
}

// yamlValue decodes YAML into JSON values as the reader reads them: a date
// stays the text written.
func yamlValue(t *testing.T, src string) any {
	t.Helper()
	var n yaml.Node
	if err := yaml.Unmarshal([]byte(src), &n); err != nil {
		t.Fatal(err)
	}
	var conv func(n *yaml.Node) any
	conv = func(n *yaml.Node) any {
		switch n.Kind {
		case yaml.DocumentNode:
			return conv(n.Content[0])
		case yaml.MappingNode:
			m := map[string]any{}
			for i := 0; i+1 < len(n.Content); i += 2 {
				m[n.Content[i].Value] = conv(n.Content[i+1])
			}
			return m
		case yaml.SequenceNode:
			l := []any{}
			for _, c := range n.Content {
				l = append(l, conv(c))
			}
			return l
		}
		switch n.ShortTag() {
		case "!!null":
			return nil
		case "!!bool", "!!int", "!!float":
			var v any
			if err := json.Unmarshal([]byte(n.Value), &v); err != nil {
				t.Fatalf("%q: %v", n.Value, err)
			}
			return v
		}
		return n.Value
	}
	return conv(&n)
}
