package layout

import (
	"os"
	"path/filepath"
	"reflect"
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
// makes it an H3A run (checked as one, so still reported).
func TestNoStrayEntryHidesARun(t *testing.T) {
	const runs = "../../testdata/runs/ok/"
	names := []string{
		"state", "state.json", "state.txt", "plan_summary.json", "registry_summary.json", "known_issues.json",
		"logs", "plans", "registry", ".ai", ".stigmergy", ".state", "rounds", "handoff.json", "verdict.json",
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
					found, err := rundir.Search(os.DirFS(dir), ".", Detectors())
					if err != nil {
						t.Fatal(err)
					}
					got := "no run"
					for _, f := range found {
						if f.Dir == "." {
							got = f.Layout
						}
					}
					if got != want {
						t.Errorf("with a stray %s the run is found as %q, want %q (the search found %v)", entry, got, want, found)
					}
				})
			}
		}
	}
}
