package runner

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/h3a-check/h3a-check/internal/audit/audittest"
	"github.com/h3a-check/h3a-check/internal/finding"
	"github.com/h3a-check/h3a-check/internal/layout"
	"github.com/h3a-check/h3a-check/internal/rundir"
)

// copyOK copies the ok case src (relative to testdata/runs/ok) into a
// temporary folder of the same name and returns its path.
func copyOK(t *testing.T, src string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), filepath.Base(src))
	if err := os.CopyFS(dir, os.DirFS(filepath.Join(testRuns, "ok", filepath.FromSlash(src)))); err != nil {
		t.Fatal(err)
	}
	return dir
}

// copyCase writes the case name ("ok/X" or "err/X", an err case written
// out from its patch) into a temporary folder of the same base name.
func copyCase(t *testing.T, name string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), filepath.Base(name))
	if err := audittest.MaterialiseCase(testRuns, filepath.Join(testRuns, filepath.FromSlash(name)), dir); err != nil {
		t.Fatal(err)
	}
	return dir
}

// findingsOf checks the run at dir and returns its findings of rule.
func findingsOf(t *testing.T, dir string, rule finding.Rule) []finding.Finding {
	t.Helper()
	res, err := Check(context.Background(), Options{Scope: Scope{Paths: []string{dir}, Base: "none"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Audits) != 1 {
		t.Fatalf("%d audits, want 1", len(res.Audits))
	}
	var out []finding.Finding
	for _, f := range res.Audits[0].Findings {
		if f.Rule == rule.ID {
			out = append(out, f)
		}
	}
	return out
}

// TestSchemaByVersion: the schema stage holds a stigmergy ledger that
// declares schema 3.0 to its schema, with the position of the fault, and
// any other version to none.
func TestSchemaByVersion(t *testing.T) {
	for _, tc := range []struct {
		version string
		want    int
	}{
		{`"3.0"`, 1},
		{`"2.0"`, 0},
	} {
		t.Run(tc.version, func(t *testing.T) {
			dir := copyOK(t, "stigmergy_complete/greeter")
			p := filepath.Join(dir, ".ai", "state.json")
			data, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			state := strings.Replace(string(data), `"schema_version": "3.0"`, `"schema_version": `+tc.version, 1)
			state = strings.Replace(state, `"project_status": "EXECUTION_IN_PROGRESS"`, `"project_status": 7`, 1)
			if err := os.WriteFile(p, []byte(state), 0o644); err != nil {
				t.Fatal(err)
			}
			got := findingsOf(t, dir, finding.SchemaViolation)
			if len(got) != tc.want {
				t.Fatalf("%d schema findings, want %d: %+v", len(got), tc.want, got)
			}
			if tc.want > 0 && (got[0].File != ".ai/state.json" || got[0].Pointer != "/project_status" || got[0].Line != 5) {
				t.Errorf("finding at %s%s line %d, want .ai/state.json/project_status line 5", got[0].File, got[0].Pointer, got[0].Line)
			}
		})
	}
}

// layoutView is everything a layout says of a loaded run.
type layoutView struct {
	Docs, Meanings    map[string]any
	Check             []finding.Finding
	Evidence          []layout.EvidenceRef
	RunID, TaskID     string
	Notes             string
	RequirementsKnown bool
}

func viewOf(lay layout.Layout, r *layout.Run) layoutView {
	v := layoutView{Docs: lay.Docs(r), Check: lay.Check(r), Evidence: lay.Evidence(r), RunID: lay.RunID(r), TaskID: lay.TaskID(r)}
	if m, ok := lay.(layout.StatusMeanings); ok {
		v.Meanings = m.Meanings(r)
	}
	if n, ok := lay.(layout.Noter); ok {
		v.Notes = n.Notes(r)
	}
	if k, ok := lay.(layout.RequirementsKnower); ok {
		v.RequirementsKnown = k.RequirementsKnown(r)
	}
	return v
}

// TestLayoutsReadOnlyTheLoadedRun: once the load stage has read a run,
// its layout reads no file: every run of the ok cases of each layout (and
// a contract run inside its repository) is loaded, its folder (and the
// repository) removed, and the layout says of it exactly what it said
// while the files were there.
func TestLayoutsReadOnlyTheLoadedRun(t *testing.T) {
	cases := []string{
		"ok/complete", "ok/hybrid_complete", "ok/hybrid_x2", "ok/stigmergy_complete", "ok/stigmergy_halted",
		"ok/gate_state_complete", "ok/contract_rounds", "ok/contract_flat", "err/contract_files_touched",
	}
	for _, name := range cases {
		t.Run(name, func(t *testing.T) {
			top := copyCase(t, name)
			runs, err := rundir.Discover([]string{top}, layout.Detectors(), "")
			if err != nil || len(runs) == 0 {
				t.Fatalf("no run found in %s: %v", name, err)
			}
			c := &checker{maxJSONSize: DefaultMaxJSONSize}
			var states []*runState
			var want []layoutView
			for _, run := range runs {
				lay := layout.ByID(run.Layout)
				s := &runState{lay: lay, run: &layout.Run{Dir: run.Dir, Docs: map[string]*rundir.Document{}}, inputs: map[string]string{}}
				if s.root, err = rundir.OpenRoot(run.Dir); err != nil {
					t.Fatal(err)
				}
				s.tree = c.listRun(s)
				s.run.Files = layout.Expand(lay.Files(), s.tree)
				c.load(s)
				s.root.Close()
				states = append(states, s)
				want = append(want, viewOf(lay, s.run))
			}
			if err := os.RemoveAll(top); err != nil {
				t.Fatal(err)
			}
			for i, s := range states {
				if got := viewOf(s.lay, s.run); !reflect.DeepEqual(got, want[i]) {
					t.Errorf("%s: the %s layout says something else of the run once its files are gone: it read them itself\n got %+v\nwant %+v",
						s.run.Dir, s.lay.ID(), got, want[i])
				}
			}
		})
	}
}

// TestNeedsAreConfined: a file a layout's check needs besides its own
// files is read through the run's confined root and within the size the
// check allows: one that is there but cannot be read is a finding where
// the run names it, never a check skipped in silence; a stage document
// that leads out of the run is not one.
func TestNeedsAreConfined(t *testing.T) {
	const (
		hybrid   = "hybrid_complete/greeter"
		contract = "err/contract_files_touched"
		round2   = ".orchestrator/runs/TASK-0042-20260216-130000/rounds/round-2"
	)
	outside := filepath.Join(t.TempDir(), "outside.txt")
	if err := os.WriteFile(outside, []byte("Purpose: elsewhere\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	oversize := func(size int64) func(t *testing.T, p string) {
		return func(t *testing.T, p string) {
			if err := os.Truncate(p, size); err != nil {
				t.Fatal(err)
			}
		}
	}
	linkOut := func(t *testing.T, p string) {
		if err := os.Remove(p); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(outside, p); err != nil {
			t.Skipf("no symbolic links here: %v", err)
		}
	}
	aFolder := func(t *testing.T, p string) {
		if err := os.Remove(p); err != nil {
			t.Fatal(err)
		}
		if err := os.Mkdir(p, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		name, src, file string
		change          func(t *testing.T, p string)
		rule            finding.Rule
		at, pointer     string
	}{
		{"an annotated artifact over its limit", hybrid, "src/greet.py", oversize(4<<20 + 1), finding.TooLarge, "registry/code/a_greet.json", "/loc"},
		{"an annotated artifact leading out of the run", hybrid, "src/greet.py", linkOut, finding.PathEscape, "registry/code/a_greet.json", "/loc"},
		{"an annotated artifact that is a folder", hybrid, "src/greet.py", aFolder, finding.NotRegular, "registry/code/a_greet.json", "/loc"},
		{"a patch over its limit", contract, round2 + "/patch.diff", oversize(16<<20 + 1), finding.TooLarge, "rounds/round-2/patch.diff", ""},
		{"a patch leading out of the run", contract, round2 + "/patch.diff", linkOut, finding.PathEscape, "rounds/round-2/patch.diff", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var dir string
			if tc.src == contract {
				dir = filepath.Join(copyCase(t, contract), "repo")
			} else {
				dir = copyOK(t, tc.src)
			}
			tc.change(t, filepath.Join(dir, filepath.FromSlash(tc.file)))
			got := findingsOf(t, dir, tc.rule)
			if len(got) != 1 || got[0].File != tc.at || got[0].Pointer != tc.pointer {
				t.Fatalf("%s findings %+v, want one at %s%s", tc.rule.ID, got, tc.at, tc.pointer)
			}
			if base := filepath.Base(tc.file); !strings.Contains(got[0].Details, base) {
				t.Errorf("the finding does not name %s: %s", base, got[0].Details)
			}
		})
	}
	t.Run("a stage document leading out of the run", func(t *testing.T) {
		dir := copyOK(t, "stigmergy_complete/greeter")
		linkOut(t, filepath.Join(dir, "docs", "brief.md"))
		res, err := Check(context.Background(), Options{Scope: Scope{Paths: []string{dir}, Base: "none"}, Output: Output{KeepInputs: true}})
		if err != nil {
			t.Fatal(err)
		}
		docs := res.Inputs[0]["docs"].(map[string]any)["documents"].(map[string]any)
		if docs["docs/brief.md"] != false || docs["docs/prd.md"] != true {
			t.Errorf("documents %v, want docs/brief.md false (a link out of the run) and docs/prd.md true", docs)
		}
	})
}

// TestTextWithinTheBudget: a text a check needs is read only within what
// is left of the run's memory budget; past it, it is a too_large finding
// and is not read.
func TestTextWithinTheBudget(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "notes.md"), []byte(strings.Repeat("x", 100)), 0o644); err != nil {
		t.Fatal(err)
	}
	root, err := rundir.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	need := layout.Need{Path: "notes.md", Want: layout.Text, Limit: 1 << 20, NamedBy: "registry/x.json", Pointer: "/loc"}
	for _, tc := range []struct {
		budget int
		read   bool
	}{{100, true}, {99, false}, {-5, false}} {
		s := &runState{root: root, run: &layout.Run{Dir: dir}}
		took := (&checker{}).readText(s, need, tc.budget)
		found := s.run.Text("notes.md")
		if found.OK != tc.read || (tc.read && (took != 100 || len(found.Data) != 100)) {
			t.Errorf("budget %d: read %v (%d bytes, took %d), want read %v", tc.budget, found.OK, len(found.Data), took, tc.read)
		}
		if tc.read != (len(s.findings) == 0) || (!tc.read && (s.findings[0].Rule != finding.TooLarge.ID || s.findings[0].File != "registry/x.json")) {
			t.Errorf("budget %d: findings %+v", tc.budget, s.findings)
		}
	}
}
