package schema

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite testdata/invalid/*.want.json from the current output")

// substitution replaces a value the specification elides with "...".
type substitution struct {
	pointer  string // a top-level member, e.g. "/run_id"
	was, now string
}

// specSubstitutions lists every change made to a specification example before
// it is validated; everything else is validated exactly as the specification
// prints it.
var specSubstitutions = map[string][]substitution{
	// The report examples elide the whole run id as "..."; the other examples
	// of the same specification spell it "20250929-134215-8b6f8b9a-...".
	"planner_report":   {{pointer: "/run_id", was: "...", now: "20250929-134215-8b6f8b9a-..."}},
	"executor_report":  {{pointer: "/run_id", was: "...", now: "20250929-134215-8b6f8b9a-..."}},
	"validator_report": {{pointer: "/run_id", was: "...", now: "20250929-134215-8b6f8b9a-..."}},
}

func applySubstitutions(t *testing.T, doc any, subs []substitution) {
	t.Helper()
	obj, ok := doc.(map[string]any)
	if !ok {
		t.Fatal("example is not an object")
	}
	for _, sub := range subs {
		key := strings.TrimPrefix(sub.pointer, "/")
		if got := obj[key]; got != sub.was {
			t.Fatalf("substitution at %s: value is %v, want %q (has the example changed?)", sub.pointer, got, sub.was)
		}
		obj[key] = sub.now
	}
}

// The specification's own examples are valid, after the listed substitutions.
func TestSpecificationExamples(t *testing.T) {
	s := mustDefault(t)
	for _, name := range documentSchemas {
		t.Run(name, func(t *testing.T) {
			doc := readJSON(t, filepath.Join("testdata", "spec", name+".json"))
			subs := specSubstitutions[name]
			if len(subs) > 0 {
				// Each substitution must be needed: the example as printed
				// fails exactly where it is substituted.
				var want []string
				for _, sub := range subs {
					want = append(want, sub.pointer)
				}
				if got := pointers(s.Validate(name, doc)); !slices.Equal(got, want) {
					t.Errorf("example as printed: violations at %q, want exactly %q", got, want)
				}
			}
			applySubstitutions(t, doc, subs)
			if got := s.Validate(name, doc); got != nil {
				t.Errorf("Validate(%s) = %+v, want no violations", name, got)
			}
		})
	}
}

// The specification's correction entry, appended to its state.json example,
// is a valid history entry.
func TestSpecificationCorrectionEntry(t *testing.T) {
	s := mustDefault(t)
	doc := readJSON(t, filepath.Join("testdata", "spec", "state.json")).(map[string]any)
	correction := readJSON(t, filepath.Join("testdata", "spec", "correction_step.json"))
	doc["steps"] = append(doc["steps"].([]any), correction)
	if got := s.Validate("state", doc); got != nil {
		t.Errorf("state with correction entry: %+v, want no violations", got)
	}
}

// The handoff contracts' H1, H2 and H3 payloads are SESSION_HANDOFF.json
// documents too.
func TestHandoffContractExamples(t *testing.T) {
	s := mustDefault(t)
	files, err := filepath.Glob(filepath.Join("testdata", "upstream", "session_handoff_*.json"))
	if err != nil || len(files) != 3 {
		t.Fatalf("want 3 handoff contract examples, found %d (%v)", len(files), err)
	}
	for _, file := range files {
		if got := s.Validate("session_handoff", readJSON(t, file)); got != nil {
			t.Errorf("%s: %+v, want no violations", file, got)
		}
	}
}

// A freshly initialised run (nulls, empty lists, "unknown" git metadata) is
// valid. The artifact contract has no initialiser: its files are written
// whole by each role.
func TestInitialiserDocuments(t *testing.T) {
	s := mustDefault(t)
	for _, name := range []string{"current_task", "executor_report", "planner_report", "session_handoff", "state", "validator_report"} {
		t.Run(name, func(t *testing.T) {
			doc := readJSON(t, filepath.Join("testdata", "initialiser", name+".json"))
			if got := s.Validate(name, doc); got != nil {
				t.Errorf("Validate(%s) = %+v, want no violations", name, got)
			}
		})
	}
}

// wantViolation mirrors Violation for the .want.json files.
type wantViolation struct {
	Pointer string `json:"pointer"`
	Missing bool   `json:"missing,omitempty"`
	Keyword string `json:"keyword"`
	Message string `json:"message"`
}

// Each testdata/invalid/<schema>.<case>.json yields exactly the violations in
// <schema>.<case>.want.json.
func TestInvalidDocuments(t *testing.T) {
	s := mustDefault(t)
	files, err := filepath.Glob(filepath.Join("testdata", "invalid", "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	var cases int
	for _, file := range files {
		if strings.HasSuffix(file, ".want.json") {
			continue
		}
		cases++
		base := strings.TrimSuffix(filepath.Base(file), ".json")
		name, _, ok := strings.Cut(base, ".")
		if !ok || !s.Has(name) {
			t.Errorf("%s: name the file <schema>.<case>.json with a known schema", file)
			continue
		}
		t.Run(base, func(t *testing.T) {
			got := toWant(s.Validate(name, readJSON(t, file)))
			wantFile := strings.TrimSuffix(file, ".json") + ".want.json"
			if *update {
				if err := os.WriteFile(wantFile, marshalWant(t, got), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			data, err := os.ReadFile(wantFile)
			if err != nil {
				t.Fatalf("read expected violations: %v", err)
			}
			var want []wantViolation
			if err := json.Unmarshal(data, &want); err != nil {
				t.Fatalf("%s: %v", wantFile, err)
			}
			if len(want) == 0 {
				t.Fatalf("%s lists no violations; an invalid case must have some", wantFile)
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("violations differ from %s; got:\n%s", wantFile, marshalWant(t, got))
			}
		})
	}
	if cases < 10 {
		t.Errorf("found %d invalid cases, want at least 10", cases)
	}
}

// marshalWant writes violations the way a person reads them: indented, with
// <, > and & left alone.
func marshalWant(t *testing.T, vs []wantViolation) []byte {
	t.Helper()
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(vs); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func toWant(vs []Violation) []wantViolation {
	out := []wantViolation{}
	for _, v := range vs {
		out = append(out, wantViolation(v))
	}
	return out
}

func pointers(vs []Violation) []string {
	var out []string
	for _, v := range vs {
		out = append(out, v.Pointer)
	}
	return out
}
