package schema

import (
	"encoding/json"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"testing/fstest"
)

// withField returns a copy of the initialiser's CURRENT_TASK.json with one
// top-level member replaced.
func withField(t *testing.T, name string, key string, value any) any {
	t.Helper()
	doc := readJSON(t, "testdata/initialiser/"+name+".json").(map[string]any)
	doc[key] = value
	return doc
}

func TestRunIDShape(t *testing.T) {
	s := mustDefault(t)
	tests := []struct {
		runID string
		valid bool
	}{
		{"20250929-134215-8b6f8b9a-7c9f-4c5e-8c6a-2f0f0d2e9c1a", true},
		{"20250929-134215-8B6F8B9A-7C9F-4C5E-8C6A-2F0F0D2E9C1A", true},
		{"20250929-134215-8b6f8b9a-...", true}, // the specification's abbreviation
		{"20250929-134215-8b6f8b9a", true},
		{"...", false},
		{"", false},
		{"20250929-134215-", false},
		{"20250929-134215-xyz", false},
		{"20250929134215-8b6f8b9a", false},
		{"2025-09-29-134215-8b6f8b9a", false},
		{"20250929-134215-8b6f8b9a-..", false},
		{"20250929-134215-8b6f8b9a-.../x", false},
		{" 20250929-134215-8b6f8b9a", false},
	}
	for _, tt := range tests {
		got := s.Validate("state", withField(t, "state", "run_id", tt.runID))
		if valid := got == nil; valid != tt.valid {
			t.Errorf("run_id %q: valid = %v, want %v (%+v)", tt.runID, valid, tt.valid, got)
		}
	}
}

func TestTimestampFormat(t *testing.T) {
	s := mustDefault(t)
	tests := []struct {
		ts    string
		valid bool
	}{
		{"2025-09-29T13:42:15Z", true},
		{"2025-09-29T13:42:15.123Z", true},
		{"2025-09-29T20:42:15+07:00", true},
		{"2025-09-29T20:42:15.5+07:00", true},
		{"2025-09-29t13:42:15z", true}, // RFC 3339 allows lower-case separators
		{"2025-09-29 13:42:15Z", false},
		{"2025-09-29T13:42:15", false},
		{"2025-09-29", false},
		{"2025-13-01T00:00:00Z", false},
		{"2025-09-29T25:00:00Z", false},
		{"yesterday", false},
	}
	for _, tt := range tests {
		got := s.Validate("current_task", withField(t, "current_task", "created_at", tt.ts))
		if valid := got == nil; valid != tt.valid {
			t.Errorf("created_at %q: valid = %v, want %v (%+v)", tt.ts, valid, tt.valid, got)
		}
	}
}

// One field, one mistake, one message.
func TestMessages(t *testing.T) {
	s := mustDefault(t)
	tests := []struct {
		name   string
		schema string
		key    string
		value  string // JSON
		want   Violation
	}{
		{"type with value", "current_task", "iteration_count", `"1"`,
			Violation{Pointer: "/iteration_count", Keyword: "type", Message: `iteration_count is a string ("1"), expected an integer`}},
		{"fraction for integer", "current_task", "iteration_count", `1.5`,
			Violation{Pointer: "/iteration_count", Keyword: "type", Message: `iteration_count is a number (1.5), expected an integer`}},
		{"type union with null", "current_task", "goal", `["a"]`,
			Violation{Pointer: "/goal", Keyword: "type", Message: `goal is an array, expected a string or null`}},
		{"null where not allowed", "current_task", "status", `null`,
			Violation{Pointer: "/status", Keyword: "type", Message: `status is null, expected a string`}},
		{"enum", "current_task", "status", `"done"`,
			Violation{Pointer: "/status", Keyword: "enum", Message: `status "done" is not one of "awaiting_planner", "ready_for_execution", "in_progress", "awaiting_validation", "validation", "complete", "failed", "remediation_needed", "escalation_required"`}},
		{"enum with case slip", "current_task", "status", `"In-Progress"`,
			Violation{Pointer: "/status", Keyword: "enum", Message: `status "In-Progress" is not one of "awaiting_planner", "ready_for_execution", "in_progress", "awaiting_validation", "validation", "complete", "failed", "remediation_needed", "escalation_required" (did you mean "in_progress"?)`}},
		{"format", "current_task", "created_at", `"yesterday"`,
			Violation{Pointer: "/created_at", Keyword: "format", Message: `created_at "yesterday" is not a date-time (RFC 3339, e.g. 2025-09-29T13:42:15Z)`}},
		{"pattern with phrase", "current_task", "gate_status", `"G1"`,
			Violation{Pointer: "/gate_status", Keyword: "pattern", Message: `gate_status "G1" is not a gate status (G0 to G3, then _pending, _not_started, _in_progress, _passed or _failed, e.g. G1_passed)`}},
		{"minimum", "current_task", "max_iterations", `-2`,
			Violation{Pointer: "/max_iterations", Keyword: "minimum", Message: `max_iterations is -2, expected at least 1`}},
		{"long value is shortened", "current_task", "iteration_count", `"` + strings.Repeat("x", 100) + `"`,
			Violation{Pointer: "/iteration_count", Keyword: "type", Message: `iteration_count is a string ("` + strings.Repeat("x", 59) + `…"), expected an integer`}},
		{"const", "planner_report", "agent", `"Planner"`,
			Violation{Pointer: "/agent", Keyword: "const", Message: `agent is "Planner", expected "planner"`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := s.Validate(tt.schema, withField(t, tt.schema, tt.key, decodeJSON(t, []byte(tt.value))))
			if want := []Violation{tt.want}; !reflect.DeepEqual(got, want) {
				t.Errorf("got  %+v\nwant %+v", got, want)
			}
		})
	}
}

func TestMissingRequiredPointsAtTheMember(t *testing.T) {
	s := mustDefault(t)
	doc := readJSON(t, "testdata/initialiser/state.json").(map[string]any)
	delete(doc, "run_id")
	doc["runId"] = "20250929-134215-8b6f8b9a"
	got := s.Validate("state", doc)
	want := []Violation{{Pointer: "/run_id", Missing: true, Keyword: "required",
		Message: `missing required property "run_id" (is "runId" a misspelling?)`}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got  %+v\nwant %+v", got, want)
	}
}

// Keys holding "/" or "~" are escaped in pointers (RFC 6901) and quoted in
// messages when they are not plain names.
func TestPointerEscaping(t *testing.T) {
	s := mustDefault(t)
	doc := readJSON(t, "testdata/spec/planner_report.json").(map[string]any)
	doc["run_id"] = "20250929-134215-8b6f8b9a-..."
	report := doc["reports"].([]any)[0].(map[string]any)
	report["tdd_strategy"] = map[string]any{"a/b~c d": "x"}
	got := s.Validate("planner_report", doc)
	want := []Violation{{Pointer: "/reports/0/tdd_strategy/a~1b~0c d", Keyword: "type",
		Message: `tdd_strategy."a/b~c d" is a string ("x"), expected an object`}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got  %+v\nwant %+v", got, want)
	}
}

func TestNonJSONValue(t *testing.T) {
	s := mustDefault(t)
	got := s.Validate("current_task", withField(t, "current_task", "files_affected", []string{"a.go"}))
	want := []Violation{{Pointer: "/files_affected", Keyword: "type",
		Message: `files_affected holds a Go []string, which is not a JSON value`}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got  %+v\nwant %+v", got, want)
	}
}

// Alternatives (anyOf/oneOf) speak once: merged types when every branch
// rejected the type, else the branch that got furthest into the value.
func TestAlternativesCollapse(t *testing.T) {
	s := loadWithSchema(t, "alt", `{
		"plan": {"anyOf": [
			{"type": "string", "minLength": 1},
			{"type": "object", "required": ["steps"], "properties": {"steps": {"type": "array"}}}
		]},
		"one": {"oneOf": [{"type": "integer"}, {"type": "number", "minimum": 10}]},
		"when": {"anyOf": [{"type": "null"}, {"$ref": "defs.schema.json#/$defs/timestamp"}]},
		"either": {"type": "object", "anyOf": [{"required": ["agent"]}, {"required": ["agentName"]}]},
		"deep": {"anyOf": [{"required": ["a"]}, {"required": ["b"], "properties": {"c": {"type": "string"}}}]}
	}`)
	tests := []struct {
		name  string
		value string
		want  []Violation
	}{
		{"every branch rejects the type", `{"plan": 5}`,
			[]Violation{{Pointer: "/plan", Keyword: "type", Message: `plan is an integer (5), expected a string or an object`}}},
		{"object branch speaks", `{"plan": {"steps": "x"}}`,
			[]Violation{{Pointer: "/plan/steps", Keyword: "type", Message: `plan.steps is a string ("x"), expected an array`}}},
		{"object branch missing member", `{"plan": {}}`,
			[]Violation{{Pointer: "/plan/steps", Missing: true, Keyword: "required", Message: `missing required property "steps"`}}},
		{"string branch speaks", `{"plan": ""}`,
			[]Violation{{Pointer: "/plan", Keyword: "minLength", Message: `plan is an empty string, expected a non-empty string`}}},
		{"through a reference", `{"when": "soon"}`,
			[]Violation{{Pointer: "/when", Keyword: "format", Message: `when "soon" is not a date-time (RFC 3339, e.g. 2025-09-29T13:42:15Z)`}}},
		{"null or reference, wrong type", `{"when": true}`,
			[]Violation{{Pointer: "/when", Keyword: "type", Message: `when is a boolean (true), expected a string or null`}}},
		{"oneOf matches twice", `{"one": 12}`,
			[]Violation{{Pointer: "/one", Keyword: "oneOf", Message: `one matches more than one allowed shape (alternatives 1 and 2), expected exactly one`}}},
		{"either of two names missing", `{"either": {"agentname": "A"}}`,
			[]Violation{{Pointer: "/either/agent", Missing: true, Keyword: "required", Message: `missing required property "agent" or "agentName"`}}},
		{"either of two names present", `{"either": {"agentName": "A"}}`, nil},
		{"names merge only when missing is all the branches say", `{"deep": {"c": 1}}`,
			[]Violation{{Pointer: "/deep/a", Missing: true, Keyword: "required", Message: `missing required property "a"`}}},
		{"valid", `{"plan": "x", "one": 3, "when": null}`, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := s.Validate("alt", decodeJSON(t, []byte(tt.value)))
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got  %+v\nwant %+v", got, tt.want)
			}
		})
	}
}

// A bound crossed on a schema with x-expected is told by the phrase, which
// can name the scale; without one, by the bound.
func TestBoundPhrase(t *testing.T) {
	s := loadWithSchema(t, "bound", `{
		"ratio": {"type": "number", "minimum": 0, "exclusiveMaximum": 1, "x-expected": "a ratio from 0 up to 1"},
		"count": {"type": "integer", "exclusiveMinimum": 0, "maximum": 9}
	}`)
	for _, tt := range []struct{ value, pointer, keyword, message string }{
		{`{"ratio": -0.5}`, "/ratio", "minimum", `ratio -0.5 is not a ratio from 0 up to 1`},
		{`{"ratio": 1}`, "/ratio", "exclusiveMaximum", `ratio 1 is not a ratio from 0 up to 1`},
		{`{"count": 0}`, "/count", "exclusiveMinimum", `count is 0, expected more than 0`},
		{`{"count": 10}`, "/count", "maximum", `count is 10, expected at most 9`},
	} {
		got := s.Validate("bound", decodeJSON(t, []byte(tt.value)))
		want := []Violation{{Pointer: tt.pointer, Keyword: tt.keyword, Message: tt.message}}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s:\ngot  %+v\nwant %+v", tt.value, got, want)
		}
	}
}

// loadWithSchema loads the embedded schemas and one more, an object schema
// named name with the given properties.
func loadWithSchema(t *testing.T, name, properties string) *Set {
	t.Helper()
	fsys := embeddedFiles(t)
	fsys[name+fileSuffix] = &fstest.MapFile{Data: []byte(`{
		"$schema": "https://json-schema.org/draft/2020-12/schema",
		"$id": "` + baseURL + name + fileSuffix + `",
		"type": "object",
		"properties": ` + properties + `
	}`)}
	s, err := load(fsys)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestViolationsAreSortedAndDistinct(t *testing.T) {
	s := mustDefault(t)
	doc := decodeJSON(t, []byte(`{"steps": [{"gate": "x"}, 1, {"corrects": 2}], "gates": {}, "meta": []}`))
	got := s.Validate("state", doc)
	if len(got) < 10 {
		t.Fatalf("got %d violations, want many: %+v", len(got), got)
	}
	for i := 1; i < len(got); i++ {
		a, b := got[i-1], got[i]
		if a.Pointer > b.Pointer || a.Pointer == b.Pointer && a.Message >= b.Message {
			t.Errorf("violations %d and %d out of order or repeated: %+v, %+v", i-1, i, a, b)
		}
	}
}

func TestDisplay(t *testing.T) {
	tests := []struct {
		v    any
		want string
	}{
		{nil, "null"},
		{"a\"b\n", `"a\"b\n"`},
		{"Coverage ≥ 95%", `"Coverage ≥ 95%"`},
		{json.Number("1e3"), "1e3"},
		{true, "true"},
		{[]any{}, "an array"},
		{map[string]any{}, "an object"},
		{struct{}{}, "a Go struct {}"},
	}
	for _, tt := range tests {
		if got := display(tt.v); got != tt.want {
			t.Errorf("display(%#v) = %s, want %s", tt.v, got, tt.want)
		}
	}
}

// A machine-made object with very many keys still gets its violations, fast,
// without the misspelling search.
func TestLargeObject(t *testing.T) {
	s := mustDefault(t)
	doc := readJSON(t, "testdata/initialiser/state.json").(map[string]any)
	delete(doc, "run_id")
	for i := range 100_000 {
		doc["run_ie"+strconv.Itoa(i)] = i
	}
	steps := make([]any, 20_000)
	for i := range steps {
		steps[i] = map[string]any{"corrects": "T001"}
	}
	doc["steps"] = steps
	got := s.Validate("state", doc)
	if len(got) != 1+len(steps) {
		t.Fatalf("got %d violations, want %d", len(got), 1+len(steps))
	}
	want := Violation{Pointer: "/run_id", Missing: true, Keyword: "required", Message: `missing required property "run_id"`}
	if got[0] != want {
		t.Errorf("got[0] = %+v, want %+v", got[0], want)
	}
	if want := "/steps/0/reason"; got[1].Pointer != want {
		t.Errorf("got[1].Pointer = %q, want %q", got[1].Pointer, want)
	}
}
