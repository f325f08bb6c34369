package layout

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/h3a-check/h3a-check/internal/finding"
	"github.com/h3a-check/h3a-check/internal/rundir"
)

func TestGateStateSynonymScore(t *testing.T) {
	gd := normaliseGate(map[string]any{"validationResult": map[string]any{"score": jsonNumber("0.57")}, "agentName": "A"})
	val, _ := gd.doc["validation"].(map[string]any)
	if s, _ := jsonFloat(val["score"]); s != 57 || gd.doc["agent"] != "A" {
		t.Errorf("normalised %+v, want agent A and score 57", gd.doc)
	}
	if !slices.Equal(gd.variants, []string{"agentName", "validationResult"}) {
		t.Errorf("variants %q", gd.variants)
	}
	// A finding about a field points where the file holds it.
	for field, want := range map[string]string{"validation": "/validationResult", "agent": "/agentName", "output": "/output"} {
		if got := gd.pointer(field); got != want {
			t.Errorf("pointer(%q) = %q, want %q", field, got, want)
		}
	}
}

func jsonNumber(s string) any { return json.Number(s) }

// TestGateStateSynonymScoreExact: a 0–1 score is scaled exactly, so a score
// just below 0.7 never reads as the threshold 70.
func TestGateStateSynonymScoreExact(t *testing.T) {
	for in, want := range map[string]string{
		"0.7": "70", "0.87": "87", "1": "100", "0": "0", "-0": "0", "0.57": "57",
		"0.6999999999": "69.99999999", "0.69999999999999999": "69.999999999999999",
		"7e-1": "70", "7E-1": "70", "0.007e2": "70", "0.00001": "0.001", "1.0": "100",
	} {
		gd := normaliseGate(map[string]any{"validationResult": map[string]any{"score": jsonNumber(in)}})
		val, _ := gd.doc["validation"].(map[string]any)
		if got := val["score"]; got != json.Number(want) {
			t.Errorf("score %s read as %v, want %s", in, got, want)
		}
	}
}

// TestGateStateSynonymConflicts: a field written under both names with
// different values is listed, so the value not read is not lost; the same
// value (a validationResult score on the 0–1 scale) is not. The guide's
// own validation keeps its 0–100 score when validationResult is beside it.
func TestGateStateSynonymConflicts(t *testing.T) {
	val := func(score string, passed bool) map[string]any {
		return map[string]any{"score": jsonNumber(score), "issues": []any{}, "passed": passed}
	}
	for _, tc := range []struct {
		name      string
		raw       map[string]any
		conflicts []string
		score     float64
	}{
		{"guide names only", map[string]any{"agent": "A", "validation": val("87", true)}, nil, 87},
		{"same validation, 0–1 scale", map[string]any{"validation": val("87", true), "validationResult": val("0.87", true)}, nil, 87},
		{"same agent", map[string]any{"agent": "A", "agentName": "A"}, nil, -1},
		{"failed validationResult", map[string]any{"validation": val("87", true), "validationResult": val("0.2", false)}, []string{"validation"}, 87},
		{"other passed", map[string]any{"validation": val("87", true), "validationResult": val("0.87", false)}, []string{"validation"}, 87},
		{"guide score below 1 stays", map[string]any{"validation": val("0.5", false), "validationResult": val("0.5", false)}, []string{"validation"}, 0.5},
		{"other agent and output", map[string]any{"agent": "A", "agentName": "B", "output": map[string]any{}, "outputData": map[string]any{"x": jsonNumber("1")}}, []string{"agent", "output"}, -1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			gd := normaliseGate(tc.raw)
			if !slices.Equal(gd.conflicts, tc.conflicts) {
				t.Errorf("conflicts %q, want %q", gd.conflicts, tc.conflicts)
			}
			if tc.score >= 0 {
				v, _ := gd.doc["validation"].(map[string]any)
				if s, _ := jsonFloat(v["score"]); s != tc.score {
					t.Errorf("score %v, want %v", s, tc.score)
				}
			}
		})
	}
}

// gateStateRun loads docs (path -> JSON text) the way the runner does.
func gateStateRun(docs map[string]string) *Run { return loadedRun(GateState{}, "/x/app", docs) }

// TestGateStateEveryOutputReadOrReported: every file the gate output
// pattern matches is read as its gate's output or is a finding at that
// file; none is dropped in silence.
func TestGateStateEveryOutputReadOrReported(t *testing.T) {
	const (
		p       = ".state/demoqa_com-student_registration"
		failed  = `{"gate": 1, "status": "FAILED"}`
		success = `{"gate": 1, "status": "SUCCESS"}`
	)
	tests := []struct {
		name     string
		files    map[string]string
		read     map[string]string // prefix/gate -> the file read as its output
		reported map[string]string // file -> a fragment of its finding
	}{
		{"one file per gate", map[string]string{p + "-gate1-output.json": success, p + "-gate2-output.json": success},
			map[string]string{"demoqa_com-student_registration/1": p + "-gate1-output.json", "demoqa_com-student_registration/2": p + "-gate2-output.json"}, nil},
		{"gate01 beside gate1: gate1 is read, gate01 reported naming it",
			map[string]string{p + "-gate1-output.json": success, p + "-gate01-output.json": failed},
			map[string]string{"demoqa_com-student_registration/1": p + "-gate1-output.json"},
			map[string]string{p + "-gate01-output.json": "second output file for gate 1 of pipeline demoqa_com-student_registration: " + p + "-gate1-output.json is read"}},
		{"gate01 and gate001: the first in path order is read",
			map[string]string{p + "-gate01-output.json": success, p + "-gate001-output.json": failed},
			map[string]string{"demoqa_com-student_registration/1": p + "-gate001-output.json"},
			map[string]string{p + "-gate01-output.json": "second output file for gate 1"}},
		{"gate01 alone is gate 1", map[string]string{p + "-gate01-output.json": failed},
			map[string]string{"demoqa_com-student_registration/1": p + "-gate01-output.json"}, nil},
		{"a gate number past int64",
			map[string]string{p + "-gate99999999999999999999-output.json": failed},
			nil, map[string]string{p + "-gate99999999999999999999-output.json": `gate number "99999999999999999999" in the file name is too large to read`}},
		{"a very long gate number is shortened",
			map[string]string{p + "-gate" + strings.Repeat("9", 40) + "-output.json": failed},
			nil, map[string]string{p + "-gate" + strings.Repeat("9", 40) + "-output.json": `"99999999999999999999…" (40 digits)`}},
		{"no gate number", map[string]string{p + "-gateA-output.json": failed, p + "-gate-output.json": failed},
			nil, map[string]string{p + "-gateA-output.json": `no gate number after "gate"`, p + "-gate-output.json": `no gate number after "gate"`}},
		{"the guide's short names: no prefix",
			map[string]string{".state/gate1-output.json": success, ".state/gate2-output.json": failed, ".state/pipeline.json": `{"status": "FAILED"}`},
			map[string]string{"/1": ".state/gate1-output.json", "/2": ".state/gate2-output.json"}, nil},
		{"a short name beside the same gate with an empty prefix",
			map[string]string{".state/gate1-output.json": success, ".state/-gate1-output.json": failed},
			map[string]string{"/1": ".state/gate1-output.json"},
			map[string]string{".state/-gate1-output.json": "second output file for gate 1 of pipeline (no name prefix): .state/gate1-output.json is read"}},
		{"a prefix starting with gate is read once",
			map[string]string{".state/gateway_io-login-gate1-output.json": failed},
			map[string]string{"gateway_io-login/1": ".state/gateway_io-login-gate1-output.json"}, nil},
		{"a short name without a gate number", map[string]string{".state/gatekeeper-output.json": failed},
			nil, map[string]string{".state/gatekeeper-output.json": `no gate number after "gate"`}},
		{"a line break in the name is read, under its own prefix",
			map[string]string{".state/demoqa_com-student_registration\n-gate1-output.json": failed},
			map[string]string{"demoqa_com-student_registration\n/1": ".state/demoqa_com-student_registration\n-gate1-output.json"}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := gateStateRun(tc.files)
			pipelines, problems := gateStatePipelines(r)
			read := map[string]string{}
			for _, pl := range pipelines {
				for n, g := range pl.gates {
					read[fmt.Sprintf("%s/%d", pl.prefix, n)] = g.path
				}
			}
			if !maps.Equal(read, tc.read) {
				t.Errorf("read %q, want %q", read, tc.read)
			}
			reported := map[string]string{}
			for _, f := range (GateState{}).Check(r) {
				if f.Rule != finding.GateStateOutputUnread.ID || f.Severity != finding.Error {
					t.Errorf("finding %+v, want an error of %s", f, finding.GateStateOutputUnread.ID)
				}
				reported[f.File] = f.Details
			}
			if len(reported) != len(problems) {
				t.Errorf("Check gave %d findings, gateStatePipelines %d", len(reported), len(problems))
			}
			for file, want := range tc.reported {
				if !strings.Contains(reported[file], want) {
					t.Errorf("finding at %q is %q, want it to hold %q", file, reported[file], want)
				}
			}
			if len(reported) != len(tc.reported) {
				t.Errorf("findings %q, want only at %q", reported, slices.Sorted(maps.Keys(tc.reported)))
			}
			// The invariant: each matched output file is read or reported.
			for _, m := range r.Files {
				if m.Spec.DocKey != "gates" {
					continue
				}
				if _, ok := reported[m.Path]; !ok && !slices.Contains(slices.Collect(maps.Values(read)), m.Path) {
					t.Errorf("%q is neither read nor reported", m.Path)
				}
			}
		})
	}
}

// TestGateStateShortNames: the guide's own short names (.state/pipeline.json,
// .state/gate1-output.json) make a gate-state run, one pipeline with the
// prefix "", and an absent .state/pipeline.json makes no pipeline.
func TestGateStateShortNames(t *testing.T) {
	detect := []struct {
		name  string
		files []string
		want  bool
	}{
		{"short pipeline file", []string{".state/pipeline.json"}, true},
		{"short gate output", []string{".state/gate1-output.json"}, true},
		{"prefixed names", []string{".state/a-b-gate1-output.json"}, true},
		{"other files in .state", []string{".state/cache.json", ".state/gatekeeper.json"}, false},
		{"no .state", []string{"pipeline.json", "gate1-output.json"}, false},
	}
	for _, tc := range detect {
		fsys := fstest.MapFS{}
		for _, f := range tc.files {
			fsys[f] = &fstest.MapFile{Data: []byte("{}")}
		}
		if got := (GateState{}).Detect(fsys, "."); got != tc.want {
			t.Errorf("%s: Detect = %v, want %v", tc.name, got, tc.want)
		}
	}

	r := gateStateRun(map[string]string{
		".state/pipeline.json":     `{"status": "FAILED", "currentGate": 2, "completedGates": [1]}`,
		".state/gate1-output.json": `{"gate": 1, "status": "SUCCESS"}`,
		".state/gate2-output.json": `{"gate": 2, "status": "FAILED"}`,
	})
	pipelines := (GateState{}).Docs(r)["pipelines"].([]any)
	if len(pipelines) != 1 {
		t.Fatalf("pipelines %v, want one", pipelines)
	}
	p := pipelines[0].(map[string]any)
	gates := p["gates"].(map[string]any)
	if p["prefix"] != "" || p["path"] != ".state/pipeline.json" || p["pipeline"] == nil || len(gates) != 2 {
		t.Errorf("pipeline %v, want prefix \"\", .state/pipeline.json read, gates 1 and 2", p)
	}
	if got := (GateState{}).Notes(r); got != "gate-state pipelines recognised: (no name prefix)" {
		t.Errorf("Notes = %q", got)
	}

	// .state/pipeline.json is listed whether or not it exists; absent, it
	// makes no pipeline of its own.
	r = gateStateRun(map[string]string{".state/a-b-gate1-output.json": `{"gate": 1}`})
	r.Docs[".state/pipeline.json"] = &rundir.Document{Path: ".state/pipeline.json"}
	all, _ := gateStatePipelines(r)
	if len(all) != 1 || all[0].prefix != "a-b" {
		t.Errorf("pipelines %+v, want only a-b", all)
	}
}
