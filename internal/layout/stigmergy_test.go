package layout

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/h3a-check/h3a-check/internal/jsonpos"
	"github.com/h3a-check/h3a-check/internal/rundir"
	"github.com/h3a-check/h3a-check/internal/yamlpos"
)

const stigmergyExample = "../../testdata/runs/ok/stigmergy_complete/greeter"

func loadStigmergy(t testing.TB, state, blueprint []byte) *Run {
	dir, _ := filepath.Abs(stigmergyExample)
	r := &Run{Dir: dir, Files: Expand(stigmergyFiles, []string{stigmergyState, stigmergyBlueprint}), Docs: map[string]*rundir.Document{}}
	sd := &rundir.Document{Path: stigmergyState, Present: true, Data: state}
	sd.JSON, _ = jsonpos.Parse(state)
	sd.Parsed = sd.JSON != nil
	bd := &rundir.Document{Path: stigmergyBlueprint, Present: true, Data: blueprint}
	bd.YAML, _ = yamlpos.Parse(blueprint)
	bd.Parsed = bd.YAML != nil
	r.Docs[stigmergyState], r.Docs[stigmergyBlueprint] = sd, bd
	return r
}

func readExample(t testing.TB, p string) []byte {
	b, err := os.ReadFile(filepath.Join(stigmergyExample, p))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestStigmergyExampleIsStrict(t *testing.T) {
	r := loadStigmergy(t, readExample(t, stigmergyState), readExample(t, stigmergyBlueprint))
	if !(Stigmergy{}).strict(r) {
		t.Error("the 3.0 example is not checked strictly")
	}
}

// TestStigmergySchemaByVersion: only a ledger declaring schema_version
// "3.0", as a string, is held to the schema.
func TestStigmergySchemaByVersion(t *testing.T) {
	for state, want := range map[string]string{
		`{"schema_version": "3.0"}`: "stigmergy_state",
		`{"schema_version": "2.0"}`: "",
		`{"schema_version": 3.0}`:   "",
		`{}`:                        "",
		`["3.0"]`:                   "",
	} {
		r := loadStigmergy(t, []byte(state), nil)
		if got := stigmergyFiles[0].SchemaFor(r.Docs[stigmergyState].Value()); got != want {
			t.Errorf("%s: schema %q, want %q", state, got, want)
		}
		if strict := (Stigmergy{}).strict(r); strict != (want != "") {
			t.Errorf("%s: strict = %v", state, strict)
		}
	}
}

func TestDependencyCycles(t *testing.T) {
	tasks := []stigTask{}
	byID := map[string]stigTask{}
	for i, tc := range []struct {
		id   string
		deps []any
	}{
		{"C", []any{"A"}}, {"A", []any{"B"}}, {"B", []any{"C"}}, // one cycle, found from C
		{"D", []any{"D"}},      // a task depending on itself
		{"E", []any{"A", "X"}}, // into a cycle, and unknown: no new cycle
	} {
		task := stigTask{id: tc.id, i: i, doc: map[string]any{"id": tc.id, "dependencies": tc.deps}}
		tasks = append(tasks, task)
		byID[tc.id] = task
	}
	got := dependencyCycles(tasks, byID)
	want := [][]string{{"A", "B", "C"}, {"D"}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("cycles = %q, want %q", got, want)
	}
}

// FuzzStigmergyCheck: whatever the state and the blueprint hold, the checks
// neither panic nor hang.
func FuzzStigmergyCheck(f *testing.F) {
	f.Add(readExample(f, stigmergyState), readExample(f, stigmergyBlueprint))
	f.Add([]byte(`{"project_manifest": {"tasks": [{"id": "A", "dependencies": ["A", "A"], "failure_count": 1e400, "status": []}]}, "history": [{"timestamp": 3}], "issue_log": [{"task_id_ref": null}]}`), []byte("- id: A\n- 3\n"))
	f.Add([]byte(`{"schema_version": "3.0", "project_status": "PROJECT_COMPLETE", "history": [{"timestamp": "2025-13-45T99:99Z"}]}`), []byte("tasks: {}\n"))
	f.Fuzz(func(t *testing.T, state, blueprint []byte) {
		r := loadStigmergy(t, state, blueprint)
		for _, fd := range (Stigmergy{}).Check(r) {
			if fd.Rule == "" || fd.Details == "" {
				t.Errorf("finding without rule or details: %+v", fd)
			}
		}
		(Stigmergy{}).Docs(r)
		(Stigmergy{}).Notes(r)
	})
}
