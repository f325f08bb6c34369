package layout

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/h3a-check/h3a-check/internal/jsonpos"
	"github.com/h3a-check/h3a-check/internal/rundir"
)

const gateStateExample = "../../testdata/runs/ok/gate_state_complete/app"

// loadGateState builds a run from file names under .state/ and their bytes.
func loadGateState(t testing.TB, files map[string][]byte) *Run {
	dir, _ := filepath.Abs(gateStateExample)
	var present []string
	r := &Run{Dir: dir, Docs: map[string]*rundir.Document{}}
	for name, data := range files {
		p := gateStateDir + "/" + name
		present = append(present, p)
		d := &rundir.Document{Path: p, Present: true, Data: data}
		d.JSON, _ = jsonpos.Parse(data)
		d.Parsed = d.JSON != nil
		r.Docs[p] = d
	}
	r.Files = Expand(gateStateFiles, present)
	return r
}

func gateStateExampleFiles(t testing.TB) map[string][]byte {
	entries, err := os.ReadDir(filepath.Join(gateStateExample, gateStateDir))
	if err != nil {
		t.Fatal(err)
	}
	files := map[string][]byte{}
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(gateStateExample, gateStateDir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		files[e.Name()] = b
	}
	return files
}

func TestGateStateExampleIsClean(t *testing.T) {
	r := loadGateState(t, gateStateExampleFiles(t))
	if fs := (GateState{}).Check(r); len(fs) != 0 {
		t.Errorf("findings on the ok example: %+v", fs)
	}
	if got := (GateState{}).Notes(r); !strings.Contains(got, "demoqa_com-student_registration") {
		t.Errorf("notes %q do not name the pipeline", got)
	}
}

func TestGateStateCurrentGate(t *testing.T) {
	const md = `"metadata": {"domain": "d", "feature": "f"}`
	gate := func(n string) []byte {
		return []byte(`{"gate": ` + n + `, "agent": "A", "status": "SUCCESS", ` + md + `, "output": {}, "validation": {"score": 90, "issues": [], "passed": true}}`)
	}
	for _, tc := range []struct {
		name      string
		current   string
		completed string
		fires     bool
	}{
		{"fresh at gate 0", "0", "[]", false},
		{"fresh at gate 1", "1", "[]", false},
		{"fresh at gate 2", "2", "[]", true},
		{"last completed", "2", "[1, 2]", false},
		{"next gate running", "3", "[1, 2]", false},
		{"behind", "1", "[1, 2]", true},
		{"ahead", "4", "[1, 2]", true},
		{"repeated gate", "2", "[1, 1, 2]", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			files := map[string][]byte{
				"d-f-pipeline.json":     []byte(`{"status": "IN_PROGRESS", "currentGate": ` + tc.current + `, "completedGates": ` + tc.completed + `, ` + md + `}`),
				"d-f-gate1-output.json": gate("1"),
				"d-f-gate2-output.json": gate("2"),
			}
			var rules []string
			for _, f := range (GateState{}).Check(loadGateState(t, files)) {
				rules = append(rules, f.Rule)
			}
			if got := slices.Contains(rules, "h3a.gates.gate_state_current_gate"); got != tc.fires {
				t.Errorf("current gate rule fired = %v, want %v (findings %q)", got, tc.fires, rules)
			}
		})
	}
}

func TestGateStateSynonymScore(t *testing.T) {
	gd := normaliseGate(map[string]any{"validationResult": map[string]any{"score": jsonNumber("0.57")}, "agentName": "A"})
	val, _ := gd.doc["validation"].(map[string]any)
	if s, _ := jsonFloat(val["score"]); s != 57 || gd.doc["agent"] != "A" {
		t.Errorf("normalised %+v, want agent A and score 57", gd.doc)
	}
	if !slices.Equal(gd.variants, []string{"agentName", "validationResult"}) {
		t.Errorf("variants %q", gd.variants)
	}
}

// FuzzGateStateCheck: whatever the files hold, the checks neither panic nor
// hang, and every finding has a rule and details.
func FuzzGateStateCheck(f *testing.F) {
	ex := gateStateExampleFiles(f)
	f.Add(ex["demoqa_com-student_registration-pipeline.json"], ex["demoqa_com-student_registration-gate1-output.json"])
	f.Add([]byte(`{"currentGate": 1e400, "completedGates": [-1, 2.5, "3", 9999999999], "status": []}`), []byte(`{"gate": 1, "validationResult": {"score": 1e400}, "validation": 3}`))
	f.Fuzz(func(t *testing.T, pipeline, gate1 []byte) {
		r := loadGateState(t, map[string][]byte{"a-b-pipeline.json": pipeline, "a-b-gate1-output.json": gate1, "a-b-gate3-output.json": gate1})
		for _, fd := range (GateState{}).Check(r) {
			if fd.Rule == "" || fd.Details == "" {
				t.Errorf("finding without rule or details: %+v", fd)
			}
		}
		(GateState{}).Docs(r)
		(GateState{}).Notes(r)
	})
}

func jsonNumber(s string) any { return json.Number(s) }

func TestGateStateNamedFor(t *testing.T) {
	doc := map[string]any{"metadata": map[string]any{"domain": "shop_com", "feature": "checkout"}}
	withID := map[string]any{"requestId": "shop_com-req42", "metadata": map[string]any{"domain": "shop_com", "feature": "checkout"}}
	for _, tc := range []struct {
		prefix string
		doc    map[string]any
		ok     bool
	}{
		{"shop_com-checkout", doc, true},
		{"shop_com-login", doc, false},             // same domain, another feature
		{"req-7f3a", doc, true},                    // the older request-id naming
		{"shop_com-req42", withID, true},           // a request id the document names
		{"shop_com-checkout-v2", doc, false},       // close is not equal
		{"x", map[string]any{"metadata": 3}, true}, // no metadata: a shape problem, not a name one
	} {
		if _, got := namedFor(tc.prefix, tc.doc); got != tc.ok {
			t.Errorf("namedFor(%q) = %v, want %v", tc.prefix, got, tc.ok)
		}
	}
}

// The shapes are the schema's to check; the rules read what they can of a
// document that breaks them, and still fire on the parts they understand.
func TestGateStateRulesReadPastShapeErrors(t *testing.T) {
	files := map[string][]byte{
		"d-f-pipeline.json":     []byte(`{"status": 7, "currentGate": 4, "completedGates": [1, "2", 2], "metadata": "d-f"}`),
		"d-f-gate1-output.json": []byte(`{"gate": "1", "status": "SUCCESS", "metadata": {"domain": "d", "feature": "f"}, "validation": "x"}`),
		"d-f-gate2-output.json": []byte(`{"gate": 2, "status": "PARTIAL", "agentName": 5, "validationResult": {"score": 0.9, "passed": "no"}}`),
	}
	var rules []string
	for _, f := range (GateState{}).Check(loadGateState(t, files)) {
		rules = append(rules, f.Rule)
	}
	for _, want := range []string{"h3a.gates.gate_state_current_gate", "h3a.gates.gate_state_score", "h3a.schema.gate_state_variant"} {
		if !slices.Contains(rules, want) {
			t.Errorf("rule %s did not fire (findings %q)", want, rules)
		}
	}
	for _, r := range rules {
		if strings.HasPrefix(r, "h3a.schema.") && r != "h3a.schema.gate_state_variant" {
			t.Errorf("the layout reported shape rule %s, which is the schema's to report", r)
		}
	}
}
