package schema

import (
	"bytes"
	"io/fs"
	"os"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/h3a-check/h3a-check/schemas"
)

// documentSchemas are the names the contract promises; Names must list exactly
// these (plus any schema added to package schemas later, see TestLoadExtraSchema).
var documentSchemas = []string{"contract_audit", "contract_handoff", "contract_summary", "contract_verdict", "current_task", "executor_report", "planner_report", "session_handoff", "state", "validator_report"}

// inputSchemas document the policy input of each layout, not a run
// document; they are compiled and offered like the others.
var inputSchemas = []string{"input.contract", "input.h3a"}

// toolSchemas describe files of h3a-check itself: the configuration file,
// which editors validate with it.
var toolSchemas = []string{"config"}

// layoutSchemas are the document and input schemas of the other layouts;
// their examples are checked by the content tests like every schema's.
// (contract_eval_results and contract_audit_results are the contract's
// optional results, which artifact-contract.md gives no example of.)
var layoutSchemas = []string{"contract_audit_results", "contract_eval_results", "hybrid_artifact", "hybrid_known_issues", "hybrid_log", "hybrid_plan", "hybrid_state", "hybrid_summary", "input.hybrid-os", "stigmergy_state", "input.stigmergy", "gate_state_gate_output", "gate_state_pipeline", "input.gate-state"}

func mustDefault(t testing.TB) *Set {
	t.Helper()
	s, err := Default()
	if err != nil {
		t.Fatalf("Default() error: %v", err)
	}
	return s
}

func decodeJSON(t testing.TB, data []byte) any {
	t.Helper()
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		t.Fatalf("decode: %v", err)
	}
	return v
}

func readJSON(t testing.TB, path string) any {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return decodeJSON(t, data)
}

func TestLoadNamesAndHas(t *testing.T) {
	s, err := Load()
	if err != nil {
		t.Fatalf("Load() error: %v", err)
	}
	want := slices.Concat(documentSchemas, layoutSchemas, inputSchemas, toolSchemas)
	slices.Sort(want)
	if got := s.Names(); !slices.Equal(got, want) {
		for _, name := range got {
			if !slices.Contains(want, name) {
				t.Errorf("schemas/%s.schema.json is in no list of internal/schema/schema_test.go: add it to layoutSchemas (a layout's document or input schema) or the list it belongs to", name)
			}
		}
		for _, name := range want {
			if !slices.Contains(got, name) {
				t.Errorf("%s is listed here but not embedded: is schemas/%s.schema.json there, and go generate ./internal/schema run?", name, name)
			}
		}
		if !t.Failed() {
			t.Errorf("Names() = %q, want %q", got, want)
		}
	}
	for _, name := range want {
		if !s.Has(name) {
			t.Errorf("Has(%q) = false, want true", name)
		}
	}
	for _, name := range []string{"defs", "", "State", "state.schema.json", "input"} {
		if s.Has(name) {
			t.Errorf("Has(%q) = true, want false", name)
		}
	}
}

func TestDefaultIsCompiledOnce(t *testing.T) {
	a, errA := Default()
	b, errB := Default()
	if errA != nil || errB != nil {
		t.Fatalf("Default() errors: %v, %v", errA, errB)
	}
	if a != b {
		t.Error("Default() returned two different sets, want one shared set")
	}
}

func TestValidateUnknownSchema(t *testing.T) {
	got := mustDefault(t).Validate("roadmap", map[string]any{})
	names := mustDefault(t).Names()
	quoted := make([]string, len(names))
	for i, n := range names {
		quoted[i] = strconv.Quote(n)
	}
	want := []Violation{{
		Keyword: "schema",
		Message: `no schema named "roadmap", expected one of ` + strings.Join(quoted, ", "),
	}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Validate(unknown) = %+v, want %+v", got, want)
	}
}

// embeddedFiles copies the embedded schemas into a map file system that a
// test can extend or break.
func embeddedFiles(t *testing.T) fstest.MapFS {
	t.Helper()
	out := fstest.MapFS{}
	files, err := fs.Glob(schemas.FS, "*.schema.json")
	if err != nil || len(files) == 0 {
		t.Fatalf("glob embedded schemas: %v (%d files)", err, len(files))
	}
	for _, f := range files {
		data, err := fs.ReadFile(schemas.FS, f)
		if err != nil {
			t.Fatal(err)
		}
		out[f] = &fstest.MapFile{Data: data}
	}
	return out
}

// An extra schema file (the policy input schema will be one) is compiled and
// offered by name, and may use the shared definitions.
func TestLoadExtraSchema(t *testing.T) {
	fsys := embeddedFiles(t)
	fsys["input.h3a.schema.json"] = &fstest.MapFile{Data: []byte(`{
		"$schema": "https://json-schema.org/draft/2020-12/schema",
		"$id": "https://github.com/h3a-check/h3a-check/schemas/input.h3a.schema.json",
		"type": "object",
		"required": ["run"],
		"properties": {"run": {"type": "object", "properties": {"id": {"$ref": "defs.schema.json#/$defs/runId"}}}}
	}`)}
	fsys["README.md"] = &fstest.MapFile{Data: []byte("not a schema")}
	s, err := load(fsys)
	if err != nil {
		t.Fatalf("load with extra schema: %v", err)
	}
	if !s.Has("input.h3a") {
		t.Fatalf("Has(input.h3a) = false; names %q", s.Names())
	}
	if got, want := len(s.Names()), len(documentSchemas)+len(layoutSchemas)+len(inputSchemas)+len(toolSchemas); got != want {
		t.Errorf("len(Names()) = %d, want %d (the embedded input.h3a replaced)", got, want)
	}
	got := s.Validate("input.h3a", map[string]any{"run": map[string]any{"id": "nope"}})
	want := []Violation{{Pointer: "/run/id", Keyword: "pattern",
		Message: `run.id "nope" is not a run id (YYYYMMDD-HHMMSS-<uuid4>, e.g. 20250929-134215-8b6f8b9a-7c9f-4c5e-8c6a-2f0f0d2e9c1a)`}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Validate(input.h3a) = %+v, want %+v", got, want)
	}
}

func TestLoadErrors(t *testing.T) {
	tests := []struct {
		name    string
		file    string
		content string
		wantErr []string // substrings of the error
	}{
		{
			name:    "remote reference is never fetched",
			file:    "remote.schema.json",
			content: `{"$schema": "https://json-schema.org/draft/2020-12/schema", "$ref": "https://example.com/remote.json"}`,
			wantErr: []string{"remote.schema.json", "https://example.com/remote.json"},
		},
		{
			name:    "relative reference to a missing file",
			file:    "broken.schema.json",
			content: `{"$schema": "https://json-schema.org/draft/2020-12/schema", "$ref": "missing.schema.json#/$defs/x"}`,
			wantErr: []string{"broken.schema.json", "missing.schema.json"},
		},
		{
			name:    "file reference is never read",
			file:    "local.schema.json",
			content: `{"$schema": "https://json-schema.org/draft/2020-12/schema", "$ref": "file:///etc/passwd"}`,
			wantErr: []string{"local.schema.json", "file:///etc/passwd"},
		},
		{
			name:    "syntax error names the file",
			file:    "bad.schema.json",
			content: `{"type": "object",}`,
			wantErr: []string{"parse schema bad.schema.json"},
		},
		{
			name:    "invalid schema names the file",
			file:    "wrong.schema.json",
			content: `{"$schema": "https://json-schema.org/draft/2020-12/schema", "type": "text"}`,
			wantErr: []string{"compile schema wrong.schema.json"},
		},
		{
			name:    "keyword the compiler does not know",
			file:    "unknown.schema.json",
			content: `{"$schema": "https://json-schema.org/draft/2020-12/schema", "properties": {"a": {"type": "array", "uniqueItems": true}}}`,
			wantErr: []string{"compile schema unknown.schema.json", "/properties/a/uniqueItems", "not supported"},
		},
		{
			name:    "keyword in an unused definition",
			file:    "unused.schema.json",
			content: `{"$schema": "https://json-schema.org/draft/2020-12/schema", "$defs": {"x": {"not": {}}}}`,
			wantErr: []string{"compile schema unused.schema.json", "/$defs/x/not", "not supported"},
		},
		{
			name:    "format the compiler does not assert",
			file:    "email.schema.json",
			content: `{"$schema": "https://json-schema.org/draft/2020-12/schema", "format": "email"}`,
			wantErr: []string{"compile schema email.schema.json", "format \"email\" is not supported"},
		},
		{
			name:    "another draft",
			file:    "draft7.schema.json",
			content: `{"$schema": "http://json-schema.org/draft-07/schema#", "type": "object"}`,
			wantErr: []string{"compile schema draft7.schema.json", "only https://json-schema.org/draft/2020-12/schema"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fsys := embeddedFiles(t)
			fsys[tt.file] = &fstest.MapFile{Data: []byte(tt.content)}
			_, err := load(fsys)
			if err == nil {
				t.Fatal("load() succeeded, want an error")
			}
			for _, want := range tt.wantErr {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("load() error %q does not mention %q", err, want)
				}
			}
		})
	}
	t.Run("no schema files", func(t *testing.T) {
		if _, err := load(fstest.MapFS{"notes.txt": {Data: []byte("x")}}); err == nil {
			t.Error("load(empty) succeeded, want an error")
		}
	})
}
