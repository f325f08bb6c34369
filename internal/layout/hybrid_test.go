package layout

import (
	"io/fs"
	"os"
	"testing"
	"testing/fstest"

	"github.com/h3a-check/h3a-check/internal/rundir"
)

const hybridExample = "../../testdata/runs/ok/hybrid_complete/greeter"

func TestHybridDetect(t *testing.T) {
	for _, tc := range []struct {
		dir  string
		want bool
	}{
		{hybridExample, true},
		{"../../testdata/runs/ok/hybrid_x2/app", true},
		{"../../testdata/runs/ok/complete/20250929-134215-8b6f8b9a-7c9f-4c5e-8c6a-2f0f0d2e9c1a", false},
		{"../../testdata/runs/ok/hybrid_complete/greeter/plans", false},
	} {
		if got := (Hybrid{}).Detect(os.DirFS(tc.dir), "."); got != tc.want {
			t.Errorf("Detect(%s) = %v, want %v", tc.dir, got, tc.want)
		}
	}
}

// TestHybridStateEntry: only an H3A run's defining structure (a state/
// folder with its state files, or beside a state.json) takes a folder
// from the hybrid-os layout. Anything else named state, such as an empty
// file or an empty folder beside a vX.2 state.txt, is a stray entry: the
// root is still a hybrid-os run, detected and when forced, so that the
// entry cannot make it no run of either layout and hide it from a search.
func TestHybridStateEntry(t *testing.T) {
	const v14 = `{"v": 1, "g": 0, "ph": "A", "st": "BLK_MAX"}`
	const x2 = `{"v": 1, "g": 0, "st": "BLK_MAX"}`
	file := func(s string) *fstest.MapFile { return &fstest.MapFile{Data: []byte(s), Mode: 0o644} }
	folder := &fstest.MapFile{Mode: fs.ModeDir | 0o755}
	link := &fstest.MapFile{Data: []byte("elsewhere"), Mode: fs.ModeSymlink | 0o777}
	for _, tc := range []struct {
		name   string
		fsys   fstest.MapFS
		hybrid bool // Hybrid.Detect and Hybrid.Forced
		h3a    bool // H3A.Detect
	}{
		{"v1.4 root", fstest.MapFS{"state.json": file(v14), "plan_summary.json": file(`{}`)}, true, false},
		{"v1.4 root and an empty file named state",
			fstest.MapFS{"state.json": file(v14), "plan_summary.json": file(`{}`), "state": file("")}, true, false},
		{"v1.4 root and a file named state with content",
			fstest.MapFS{"state.json": file(v14), "logs/log_unit_1.jsonl": file("{}\n"), "state": file("READY\n")}, true, false},
		{"vX.2 root and an empty file named state", fstest.MapFS{"state.txt": file(x2), "state": file("")}, true, false},
		// An empty state/ folder and no state.json: no H3A run, so no
		// reason to stop being a hybrid-os one.
		{"vX.2 root and an empty state folder", fstest.MapFS{"state.txt": file(x2), "state": folder}, true, false},
		// The documented precedence: a state/ folder beside state.json,
		// or holding a state file, makes the folder an H3A run.
		{"v1.4 root and a state folder", fstest.MapFS{"state.json": file(v14), "plan_summary.json": file(`{}`), "state": folder}, false, true},
		{"vX.2 root and a state folder with a state file", fstest.MapFS{"state.txt": file(x2), "state/ROADMAP.md": file("# Roadmap\n")}, false, true},
		// A link where state/ would be counts as the folder (the H3A
		// check reports the link).
		{"v1.4 root and a link named state", fstest.MapFS{"state.json": file(v14), "plan_summary.json": file(`{}`), "state": link}, false, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := (Hybrid{}).Detect(tc.fsys, "."); got != tc.hybrid {
				t.Errorf("Hybrid.Detect = %v, want %v", got, tc.hybrid)
			}
			if got := (Hybrid{}).Forced(tc.fsys, "."); got != tc.hybrid {
				t.Errorf("Hybrid.Forced = %v, want %v", got, tc.hybrid)
			}
			if got := (H3A{}).Detect(tc.fsys, "."); got != tc.h3a {
				t.Errorf("H3A.Detect = %v, want %v", got, tc.h3a)
			}
		})
	}
}

// TestHybridDetectBrokenState: a root is a hybrid-os run by the files only
// this layout names, whatever its state holds. A truncated state.json, one
// that lost ph, or a truncated vX.2 state.txt is the check's to report; were
// such a root no run, a search of the folder above would pass over it and
// check its neighbours alone.
func TestHybridDetectBrokenState(t *testing.T) {
	file := func(s string) *fstest.MapFile { return &fstest.MapFile{Data: []byte(s), Mode: 0o644} }
	const noPh = `{"v": 9, "g": 8, "st": "ERROR", "err": "boom"}`
	const truncated = `{"v": 9, "g": 8, "ph": "C", "st": "ERR`
	for _, tc := range []struct {
		name string
		fsys fstest.MapFS
		want bool
	}{
		{"truncated state.json beside plan_summary.json", fstest.MapFS{"state.json": file(truncated), "plan_summary.json": file(`{}`)}, true},
		{"truncated state.json beside registry_summary.json", fstest.MapFS{"state.json": file(truncated), "registry_summary.json": file(`{}`)}, true},
		{"truncated state.json beside known_issues.json", fstest.MapFS{"state.json": file(truncated), "known_issues.json": file(`{}`)}, true},
		{"empty state.json beside plan_summary.json", fstest.MapFS{"state.json": file(""), "plan_summary.json": file(`{}`)}, true},
		{"state.json without ph beside plan_summary.json", fstest.MapFS{"state.json": file(noPh), "plan_summary.json": file(`{}`)}, true},
		{"state.json without ph beside logs", fstest.MapFS{"state.json": file(noPh), "logs/log_unit_1.jsonl": file("{}\n")}, true},
		{"truncated state.txt beside registry_map.txt", fstest.MapFS{"state.txt": file(truncated), "registry_map.txt": file(`{}`)}, true},
		{"truncated state.txt beside issues_summary.txt", fstest.MapFS{"state.txt": file(truncated), "issues_summary.txt": file(`{}`)}, true},
		// Generic names alone say nothing of the layout.
		{"truncated state.json beside logs", fstest.MapFS{"state.json": file(truncated), "logs/log_unit_1.jsonl": file("{}\n")}, false},
		{"other state.json beside plans", fstest.MapFS{"state.json": file(`{"status": "done"}`), "plans/a.md": file("x")}, false},
		{"truncated state.txt alone", fstest.MapFS{"state.txt": file(truncated)}, false},
		{"plan_summary.json without a state", fstest.MapFS{"plan_summary.json": file(`{}`)}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := (Hybrid{}).Detect(tc.fsys, "."); got != tc.want {
				t.Errorf("Hybrid.Detect = %v, want %v", got, tc.want)
			}
			// From the folder above, the root is found as a run.
			above := fstest.MapFS{}
			for name, f := range tc.fsys {
				above["runs/a/"+name] = f
			}
			found, err := rundir.Search(above, ".", Detectors())
			if err != nil {
				t.Fatal(err)
			}
			if got := len(found) == 1 && found[0].Dir == "runs/a" && found[0].Layout == "hybrid-os"; got != tc.want {
				t.Errorf("Search from the folder above found %v, want the root as a hybrid-os run: %v", found, tc.want)
			}
		})
	}
}

// TestAnnotatedType: an artifact type is read by its words, so a code,
// config or doc artifact is held to the annotation rules however its writer
// names the kind.
func TestAnnotatedType(t *testing.T) {
	for _, tc := range []struct {
		typ  string
		want bool
	}{
		{"code", true},
		{"CODE", true},
		{"docs", true},
		{"source_code", true},
		{"sourceCode", true},
		{"environment_config", true},
		{"documentation", true},
		{"setup-documentation", true},
		{"python script", true},
		{"data", false},
		{"directory_structure", false},
		{"codec", false},
		{"docker_image", false},
		{"", false},
	} {
		if got := annotatedType(tc.typ); got != tc.want {
			t.Errorf("annotatedType(%q) = %v, want %v", tc.typ, got, tc.want)
		}
	}
}
