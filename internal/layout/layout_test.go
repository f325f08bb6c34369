package layout

import (
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/h3a-check/h3a-check/internal/rundir"
	"github.com/h3a-check/h3a-check/internal/schema"
)

func TestExpand(t *testing.T) {
	files := []File{
		{Path: "summary.json"},
		{Path: "rounds/round-*/verdict.json"},
		{Path: "logs/log_unit_*.jsonl"},
		{Path: "state.json"},
	}
	present := []string{
		"rounds/round-2/verdict.json", "rounds/round-1/verdict.json", "rounds/round-1/nested/x/verdict.json",
		"logs/log_unit_1.jsonl", "logs/old/log_unit_0.jsonl", "state.json", "other.json",
	}
	var got []string
	for _, m := range Expand(files, present) {
		got = append(got, m.Spec.Path+" -> "+m.Path)
	}
	want := []string{
		"summary.json -> summary.json", // literal files are listed present or not
		"rounds/round-*/verdict.json -> rounds/round-1/verdict.json",
		"rounds/round-*/verdict.json -> rounds/round-2/verdict.json",
		"logs/log_unit_*.jsonl -> logs/log_unit_1.jsonl", // "*" does not cross "/"
		"state.json -> state.json",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Expand:\n got %q\nwant %q", got, want)
	}
}

// TestExpandListsAFileOnce: a file two patterns match is listed once, for
// the first, so it is read, validated and compared once.
func TestExpandListsAFileOnce(t *testing.T) {
	var got []string
	for _, m := range Expand(GateState{}.Files(), []string{
		".state/gateway_io-login-gate1-output.json", ".state/gate2-output.json", ".state/a-gate3-output.json",
	}) {
		got = append(got, m.Spec.Path+" -> "+m.Path)
	}
	want := []string{
		".state/*-gate*-output.json -> .state/a-gate3-output.json",
		".state/*-gate*-output.json -> .state/gateway_io-login-gate1-output.json",
		".state/gate*-output.json -> .state/gate2-output.json",
		".state/pipeline.json -> .state/pipeline.json",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Expand:\n got %q\nwant %q", got, want)
	}
}

// TestH3AFilesAreLiteral: the H3A layout names fixed files; a pattern there
// would change what "required" means.
func TestH3AFilesAreLiteral(t *testing.T) {
	for _, f := range (H3A{}).Files() {
		if f.IsPattern() {
			t.Errorf("%s is a pattern", f.Path)
		}
	}
}

// TestDetectionOrder: a folder that several layouts would recognise is
// claimed by the most specific one; a contract artifact name beside a
// hybrid-os, stigmergy, gate-state or h3a run does not make it a contract run.
func TestDetectionOrder(t *testing.T) {
	const runs = "../../testdata/runs/ok/"
	for _, tc := range []struct {
		src   string
		extra bool // add a flat contract run's handoff.json and verdict.json
		want  string
	}{
		{"complete/20250929-134215-8b6f8b9a-7c9f-4c5e-8c6a-2f0f0d2e9c1a", true, "h3a"},
		{"hybrid_complete/greeter", true, "hybrid-os"},
		{"hybrid_x2/app", true, "hybrid-os"},
		{"stigmergy_complete/greeter", true, "stigmergy"},
		{"gate_state_complete/app", true, "gate-state"},
		{"contract_flat/flat-run", false, "contract"},
		{"contract_rounds/TASK-0042-20260216-130000", false, "contract"},
	} {
		dir := t.TempDir()
		if err := os.CopyFS(dir, os.DirFS(filepath.FromSlash(runs+tc.src))); err != nil {
			t.Fatal(err)
		}
		if tc.extra {
			for _, name := range []string{"handoff.json", "verdict.json"} {
				if err := os.WriteFile(filepath.Join(dir, name), []byte(`{"task_id": "T1"}`), 0o644); err != nil {
					t.Fatal(err)
				}
			}
		}
		got := ""
		for _, l := range All() {
			if l.Detect(os.DirFS(dir), ".") {
				got = l.ID()
				break
			}
		}
		if got != tc.want {
			t.Errorf("%s (contract files added: %v): detected as %q, want %q", tc.src, tc.extra, got, tc.want)
		}
	}
}

// TestSchemasAreEmbedded: every schema a layout names is an embedded
// document schema, and every embedded document schema is some layout's
// (the others describe the policy input, the configuration and shared
// definitions).
func TestSchemasAreEmbedded(t *testing.T) {
	set, err := schema.Default()
	if err != nil {
		t.Fatal(err)
	}
	used := map[string]bool{}
	for _, l := range All() {
		for _, f := range l.Files() {
			for _, name := range f.SchemaNames() {
				used[name] = true
				if !set.Has(name) {
					t.Errorf("layout %s: %s names schema %q, which is not embedded (schemas/%s.schema.json)", l.ID(), f.Path, name, name)
				}
			}
		}
	}
	for _, name := range set.Names() {
		if name == "defs" || name == "config" || strings.HasPrefix(name, "input.") {
			continue
		}
		if !used[name] {
			t.Errorf("schemas/%s.schema.json is the schema of no layout's file", name)
		}
	}
}

// TestIDsAreUnique: the list every other list of layouts derives from
// names each once.
func TestIDsAreUnique(t *testing.T) {
	seen := map[string]bool{}
	for _, l := range All() {
		if seen[l.ID()] {
			t.Errorf("layout %s is listed twice", l.ID())
		}
		seen[l.ID()] = true
		if ByID(l.ID()) == nil || l.Defined() == "" {
			t.Errorf("layout %s: not found by its id, or says nothing of what makes a run", l.ID())
		}
	}
}

// TestNoStrayEntryHidesARun: an empty file or an empty folder named after
// an entry some layout's detection looks at, dropped beside a run's own
// files, never makes the run vanish from a search (docs/usage.md: "No file
// can hide a run"). Each layout's run keeps its layout, except where the
// entry completes another layout's defining structure that the detection
// order puts first: a state/ folder beside a hybrid-os root's state.json
// makes it an H3A run (checked as one, so still reported). An H3A
// agent's report beside another layout's run makes the folder one that
// H3A claims loosely too: checked as its own layout, with a finding that
// says so.
func TestNoStrayEntryHidesARun(t *testing.T) {
	const runs = "../../testdata/runs/ok/"
	names := []string{
		"state", "state.json", "state.txt", "plan_summary.json", "registry_summary.json", "known_issues.json",
		"logs", "plans", "registry", ".ai", ".stigmergy", ".state", "rounds", "handoff.json", "verdict.json",
		"planner_report.json", "executor_report.json", "validator_report.json",
	}
	for _, tc := range []struct {
		src, layout string
		becomes     map[string]string // "name/" for a folder, "name" for a file: the layout it then takes
	}{
		{"complete/20250929-134215-8b6f8b9a-7c9f-4c5e-8c6a-2f0f0d2e9c1a", "h3a", nil},
		{"hybrid_complete/greeter", "hybrid-os", map[string]string{"state/": "h3a"}},
		{"hybrid_stopped/greeter", "hybrid-os", map[string]string{"state/": "h3a"}},
		{"hybrid_x2/app", "hybrid-os", nil},
		{"stigmergy_complete/greeter", "stigmergy", nil},
		{"gate_state_complete/app", "gate-state", nil},
		{"contract_flat/flat-run", "contract", nil},
		{"contract_rounds/TASK-0042-20260216-130000", "contract", nil},
	} {
		for _, name := range names {
			for _, asFolder := range []bool{false, true} {
				entry := name
				if asFolder {
					entry += "/"
				}
				src := filepath.FromSlash(runs + tc.src)
				if _, err := os.Lstat(filepath.Join(src, name)); err == nil {
					continue // the run's own entry, not a stray one
				}
				t.Run(tc.src+"+"+entry, func(t *testing.T) {
					dir := t.TempDir()
					if err := os.CopyFS(dir, os.DirFS(src)); err != nil {
						t.Fatal(err)
					}
					var err error
					if asFolder {
						err = os.Mkdir(filepath.Join(dir, name), 0o755)
					} else {
						err = os.WriteFile(filepath.Join(dir, name), nil, 0o644)
					}
					if err != nil {
						t.Fatal(err)
					}
					want := tc.layout
					if l, ok := tc.becomes[entry]; ok {
						want = l
					}

					top, found := searchTop(t, dir)
					if strings.HasSuffix(name, "_report.json") && tc.layout != "h3a" && !slices.Contains(top.Also, "h3a") {
						t.Errorf("with a stray %s the run is found as %q only, not also as h3a", entry, top.Layout)
					}
					if top.Layout != want {
						t.Errorf("with a stray %s the run is found as %q, want %q (the search found %v)", entry, top.Layout, want, found)
					}
				})
			}
		}
	}
}

// TestDefiningNamesInAnyCase: a run whose defining names are written in
// another case (State/ for state/, .AI/ for .ai/) is still found, as the
// layout it is; a search that matched them exactly only would pass over
// the whole run, its gate claims and its artifacts, when one folder was
// renamed. Its check then reports each file missing under its name.
func TestDefiningNamesInAnyCase(t *testing.T) {
	const runs = "../../testdata/runs/ok/"
	for _, tc := range []struct{ src, layout string }{
		{"complete/20250929-134215-8b6f8b9a-7c9f-4c5e-8c6a-2f0f0d2e9c1a", "h3a"},
		{"hybrid_complete/greeter", "hybrid-os"},
		{"hybrid_x2/app", "hybrid-os"},
		{"stigmergy_complete/greeter", "stigmergy"},
		{"gate_state_complete/app", "gate-state"},
		{"contract_flat/flat-run", "contract"},
		{"contract_rounds/TASK-0042-20260216-130000", "contract"},
	} {
		src := filepath.FromSlash(runs + tc.src)
		entries, err := os.ReadDir(src)
		if err != nil {
			t.Fatal(err)
		}
		// Each top-level entry renamed on its own, then every name in the
		// run at once.
		var renames [][]string
		for _, e := range entries {
			renames = append(renames, []string{e.Name()})
		}
		renames = append(renames, nil)
		for _, only := range renames {
			name := "every name"
			if only != nil {
				name = only[0]
			}
			t.Run(tc.src+"/"+name, func(t *testing.T) {
				dir := t.TempDir()
				if err := os.CopyFS(dir, os.DirFS(src)); err != nil {
					t.Fatal(err)
				}
				if only != nil {
					if err := os.Rename(filepath.Join(dir, only[0]), filepath.Join(dir, strings.ToUpper(only[0]))); err != nil {
						t.Fatal(err)
					}
				} else {
					upperCaseAll(t, dir)
				}
				top, found := searchTop(t, dir)
				if top.Layout != tc.layout {
					t.Errorf("found as %q, want %q (the search found %v)", top.Layout, tc.layout, found)
				}
			})
		}
	}
}

// upperCaseAll renames every file and folder below dir to its upper-case
// name, deepest first.
func upperCaseAll(t *testing.T, dir string) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		p := filepath.Join(dir, e.Name())
		if e.IsDir() {
			upperCaseAll(t, p)
		}
		if err := os.Rename(p, filepath.Join(dir, strings.ToUpper(e.Name()))); err != nil {
			t.Fatal(err)
		}
	}
}

func TestCaseIndexVariant(t *testing.T) {
	for _, tc := range []struct {
		layout, rel, want string // want "" for no variant
	}{
		{"h3a", "state/GATES_LEDGER.md", ""},
		{"h3a", "State/GATES_LEDGER.md", "state/GATES_LEDGER.md"},
		{"h3a", "state/gates_ledger.md", "state/GATES_LEDGER.md"},
		{"h3a", "STATE.JSON", "state.json"},
		{"h3a", "artifacts/executor/Test.log", ""},
		{"h3a", "State/notes.md", ""},
		{"contract", "ROUNDS/ROUND-1/verdict.json", "rounds/round-*/verdict.json"},
		{"contract", "rounds/round-1/verdict.json", ""},
		{"contract", "Summary.json", "summary.json"},
		{"stigmergy", ".AI/state.json", ".ai/state.json"},
		{"gate-state", ".STATE/login-gate1-output.json", ".state/*-gate*-output.json"},
		{"gate-state", ".state/Login-gate1-output.json", ""}, // the prefix is free
	} {
		x := CaseIndexOf(ByID(tc.layout))
		got, ok := x.Variant(tc.rel)
		if ok != (tc.want != "") || got != tc.want {
			t.Errorf("%s %q: variant of %q (%v), want %q", tc.layout, tc.rel, got, ok, tc.want)
		}
	}
}

// TestLooseH3A: a folder that lost its state/ folder is still an H3A run
// when it holds a file only that layout names, and claims nothing a run
// of another layout holds by its defining structure.
func TestLooseH3A(t *testing.T) {
	for _, tc := range []struct {
		name  string
		files map[string]string
		want  bool
	}{
		{"a planner report", map[string]string{"planner_report.json": "{}"}, true},
		{"a validator report in another case", map[string]string{"VALIDATOR_REPORT.json": "{}"}, true},
		{"a state.json with a run_id and gates", map[string]string{"state.json": `{"run_id": "x", "gates": {}}`}, true},
		{"a state.json with a run_id alone, as other tools write", map[string]string{"state.json": `{"run_id": "x"}`}, false},
		// One a reader takes for the layout's, though it does not parse or
		// is past what detection reads: the check reports why; were the
		// folder no run, its gate claims would pass unread beside other runs.
		{"a state.json with a run_id and gates and a trailing comma", map[string]string{"state.json": "{\"run_id\": \"x\", \"gates\": {\"G3_deployment\": \"passed\"},}"}, true},
		{"a state.json with a run_id and gates after a byte order mark", map[string]string{"state.json": "\ufeff{\"run_id\": \"x\", \"gates\": {}}"}, true},
		{"a state.json with a run_id and gates, cut off", map[string]string{"state.json": `{"run_id": "x", "gates": {"G0_planning": "pas`}, true},
		{"a state.json with a run_id and gates past the detection bound", map[string]string{"state.json": `{"run_id": "x", "gates": {}, "notes": "` + strings.Repeat("x", maxDetectRead) + `"}`}, true},
		{"a broken state.json with a run_id alone", map[string]string{"state.json": `{"run_id": "x",}`}, false},
		{"a JSON array naming a run_id and gates", map[string]string{"state.json": `["\"run_id\": 1", "\"gates\": 2"]`}, false},
		{"a state.json without one", map[string]string{"state.json": `{"v": 1}`}, false},
		{"nothing of the layout", map[string]string{"README.md": "hi"}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			for name, content := range tc.files {
				if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			top, found := searchTop(t, dir)
			if got := len(found) == 1 && top.Layout == "h3a"; got != tc.want {
				t.Errorf("found %v, want an h3a run: %v", found, tc.want)
			}
		})
	}
}

// searchTop searches dir for runs with every layout and gives the run at
// its top (Layout "no run" when there is none) and all it found.
func searchTop(t *testing.T, dir string) (rundir.Found, []rundir.Found) {
	t.Helper()
	found, err := rundir.Search(os.DirFS(dir), ".", Detectors())
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range found {
		if f.Dir == "." {
			return f, found
		}
	}
	return rundir.Found{Layout: "no run"}, found
}
