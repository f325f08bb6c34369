package rundir

import (
	"errors"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// fileDetector recognises a directory holding a file named run; forced,
// one holding maybe is enough (with maybe "", only run).
type fileDetector struct{ id, run, maybe string }

func (d fileDetector) ID() string { return d.id }
func (d fileDetector) Detect(fsys fs.FS, dir string) bool {
	_, err := fs.Lstat(fsys, path.Join(dir, d.run))
	return err == nil
}
func (d fileDetector) Forced(fsys fs.FS, dir string) bool {
	if d.maybe != "" {
		if _, err := fs.Lstat(fsys, path.Join(dir, d.maybe)); err == nil {
			return true
		}
	}
	return d.Detect(fsys, dir)
}
func (d fileDetector) Defined() string { return "a " + d.id + " run holds " + d.run }

// The test layouts: marker and flag runs, and other runs, which with
// marker make a folder holding RUN.mark and OTHER claimed by two layouts.
var (
	markerDetector = fileDetector{"marker", "RUN.mark", "MAYBE.mark"}
	flagDetector   = fileDetector{"flag", "FLAG.mark", "MAYBE.mark"}
	otherDetector  = fileDetector{"other", "OTHER", ""}
)

func TestDiscover(t *testing.T) {
	root := t.TempDir()
	for _, d := range []string{"runs/b", "runs/a", "runs/c", "deep/x/y/run", "runs/a/artifacts/nested/x", ".git/r", "node_modules/m/run", "plain", "broken"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{"runs/b/RUN.mark", "runs/a/RUN.mark", "deep/x/y/run/RUN.mark", "runs/a/artifacts/nested/RUN.mark", ".git/r/RUN.mark", "node_modules/m/run/RUN.mark", "broken/MAYBE.mark", "runs/a/artifacts/f.txt", "runs/c/Run.MARK"} {
		if err := os.WriteFile(filepath.Join(root, f), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ds := []Detector{markerDetector}
	rel := func(runs []Run) []string {
		var out []string
		for _, r := range runs {
			p, _ := filepath.Rel(root, r.Dir)
			out = append(out, filepath.ToSlash(p))
		}
		return out
	}
	tests := []struct {
		name  string
		paths []string
		want  []string
	}{
		{"folder of runs, at any depth, inside runs and node_modules too, not .git", []string{root}, []string{"deep/x/y/run", "node_modules/m/run", "runs/a", "runs/a/artifacts/nested", "runs/b", "runs/c"}},
		{"a run whose defining name is in another case", []string{filepath.Join(root, "runs/c")}, []string{"runs/c"}},
		{"a run", []string{filepath.Join(root, "runs/b")}, []string{"runs/b"}},
		{"a run holding a run", []string{filepath.Join(root, "runs/a")}, []string{"runs/a", "runs/a/artifacts/nested"}},
		{"files inside a run collapse", []string{filepath.Join(root, "runs/a/RUN.mark"), filepath.Join(root, "runs/a/artifacts/f.txt")}, []string{"runs/a"}},
		{"a folder inside a run", []string{filepath.Join(root, "runs/a/artifacts")}, []string{"runs/a", "runs/a/artifacts/nested"}},
		{"a file inside a run inside a run", []string{filepath.Join(root, "runs/a/artifacts/nested/RUN.mark")}, []string{"runs/a", "runs/a/artifacts/nested"}},
		{"a folder inside a run inside a run", []string{filepath.Join(root, "runs/a/artifacts/nested/x")}, []string{"runs/a", "runs/a/artifacts/nested"}},
		{"duplicates collapse", []string{filepath.Join(root, "runs"), filepath.Join(root, "runs/a")}, []string{"runs/a", "runs/a/artifacts/nested", "runs/b", "runs/c"}},
		{"nothing", []string{filepath.Join(root, "plain")}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			runs, err := Discover(tc.paths, ds, "")
			if err != nil {
				t.Fatal(err)
			}
			if got := rel(runs); !slices.Equal(got, tc.want) {
				t.Errorf("got %v, want %v", got, tc.want)
			}
		})
	}
	runs, err := Discover([]string{filepath.Join(root, "runs")}, ds, "")
	if err != nil || len(runs) != 4 || !slices.Equal(runs[0].Holds, []string{"artifacts/nested"}) || runs[1].Holds != nil || runs[2].Holds != nil || runs[3].Holds != nil {
		t.Errorf("the outer run must list the run it holds: %+v %v", runs, err)
	}
	if _, err := Discover([]string{filepath.Join(root, "nope")}, ds, ""); err == nil || !IsNotExist(err) {
		t.Errorf("missing path: err %v", err)
	}
	runs, err = Discover([]string{filepath.Join(root, "broken")}, ds, "marker")
	if err != nil || len(runs) != 1 {
		t.Errorf("a forced layout takes a directory with some of its structure as a run: %v %v", runs, err)
	}
	var forced *ForcedLayoutError
	if _, err := Discover([]string{filepath.Join(root, "plain")}, ds, "marker"); !errors.As(err, &forced) || !strings.Contains(err.Error(), "a marker run holds RUN.mark") {
		t.Errorf("a forced layout on a folder without its structure: err %v, want a ForcedLayoutError naming what is missing", err)
	}
	if _, err := Discover([]string{root}, ds, "other"); err == nil {
		t.Error("unknown forced layout accepted")
	}
}

// TestDiscoverForcedAmongOtherLayouts: a forced layout chooses how the
// runs it claims are checked; a run below a path that only another
// layout claims is refused (OtherLayoutError), never passed over, and
// with no layout forced it is checked as its own.
func TestDiscoverForcedAmongOtherLayouts(t *testing.T) {
	root := t.TempDir()
	files := []string{
		"mixed/m1/RUN.mark", "mixed/f1/FLAG.mark", // a marker run beside a flag run
		"same/m1/RUN.mark", "same/m2/RUN.mark", // marker runs only
		"both/b/RUN.mark", "both/b/FLAG.mark", // a folder both layouts claim
		"nested/m/RUN.mark", "nested/m/inner/FLAG.mark", // a flag run inside a marker run
		"flagonly/f/FLAG.mark", "flagonly/f/MAYBE.mark", // a flag run with some marker structure
		"flagbroken/f/FLAG.mark", "flagbroken/f/MAYBE.mark", "flagbroken/f/sub/FLAG.mark", // and a flag run inside it
	}
	for _, f := range files {
		p := filepath.Join(root, filepath.FromSlash(f))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ds := []Detector{markerDetector, flagDetector}
	tests := []struct {
		name   string
		path   string
		forced string
		want   []string // run:layout, or nil for an error
		others []string // the runs an OtherLayoutError names (nil: a ForcedLayoutError)
	}{
		{"not forced: every layout", "mixed", "", []string{"mixed/f1:flag", "mixed/m1:marker"}, nil},
		{"forced among runs of another layout", "mixed", "marker", nil, []string{"mixed/f1 (flag)"}},
		{"forced, the other way round", "mixed", "flag", nil, []string{"mixed/m1 (marker)"}},
		{"forced where every run is of it", "same", "marker", []string{"same/m1:marker", "same/m2:marker"}, nil},
		{"forced on a folder both claim", "both", "flag", []string{"both/b:flag"}, nil},
		{"forced, a run of another layout inside one of it", "nested", "marker", nil, []string{"nested/m/inner (flag)"}},
		{"forced on a run of another layout named itself, with some of the forced structure", "flagonly/f", "marker", []string{"flagonly/f:marker"}, nil},
		{"forced on its folder: the run is not named itself", "flagonly", "marker", nil, nil}, // a ForcedLayoutError: nothing of the layout
		{"forced on a run of another layout named itself, holding another", "flagbroken/f", "marker", nil, []string{"flagbroken/f (flag)", "flagbroken/f/sub (flag)"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			for _, within := range []func(string) bool{nil, func(string) bool { return true }} {
				runs, err := DiscoverWithin([]string{filepath.Join(root, tc.path)}, ds, tc.forced, within)
				var other *OtherLayoutError
				if tc.want == nil && tc.others == nil {
					var forced *ForcedLayoutError
					if !errors.As(err, &forced) {
						t.Fatalf("runs %+v, err %v; want a ForcedLayoutError", runs, err)
					}
					continue
				}
				if tc.want == nil {
					if !errors.As(err, &other) {
						t.Fatalf("runs %+v, err %v; want an OtherLayoutError", runs, err)
					}
					var got []string
					for _, r := range other.Runs {
						rel, _ := filepath.Rel(root, r.Dir)
						got = append(got, filepath.ToSlash(rel)+" ("+r.Layout+")")
					}
					if !slices.Equal(got, tc.others) || !strings.Contains(err.Error(), "none of them would be checked") {
						t.Errorf("error names %v (%v), want %v", got, err, tc.others)
					}
					continue
				}
				if err != nil {
					t.Fatal(err)
				}
				var got []string
				for _, r := range runs {
					rel, _ := filepath.Rel(root, r.Dir)
					got = append(got, filepath.ToSlash(rel)+":"+r.Layout)
				}
				if !slices.Equal(got, tc.want) {
					t.Errorf("got %v, want %v", got, tc.want)
				}
			}
		})
	}
}

// TestDiscoverUnreadableFolder: a folder that cannot be listed could hold
// a run, so the search stops with an error naming it instead of passing
// over it.
// Root reads every folder, and CI runs as root: there the test runs itself
// again as an unprivileged user (see runUnprivileged) instead of skipping.
func TestDiscoverUnreadableFolder(t *testing.T) {
	if os.Geteuid() == 0 {
		runUnprivileged(t)
		return
	}
	root := t.TempDir()
	locked := filepath.Join(root, "runs", "locked")
	if err := os.MkdirAll(filepath.Join(locked, "r"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(locked, 0); err != nil {
		t.Fatal(err)
	}
	defer os.Chmod(locked, 0o755)
	_, err := Discover([]string{filepath.Join(root, "runs")}, []Detector{markerDetector}, "")
	if err == nil || !strings.Contains(err.Error(), "locked") {
		t.Errorf("err %v, want one naming the unreadable folder", err)
	}
}

func TestDiscoverDisplay(t *testing.T) {
	root := t.TempDir()
	os.MkdirAll(filepath.Join(root, "runs", "r"), 0o755)
	os.WriteFile(filepath.Join(root, "runs", "r", "RUN.mark"), nil, 0o644)
	t.Chdir(root)
	runs, err := Discover([]string{"runs"}, []Detector{markerDetector}, "")
	if err != nil || len(runs) != 1 || runs[0].Display != "runs/r" {
		t.Fatalf("relative path: %+v %v", runs, err)
	}
	runs, _ = Discover([]string{"runs/r/RUN.mark"}, []Detector{markerDetector}, "")
	if len(runs) != 1 || runs[0].Display != "runs/r" {
		t.Fatalf("file inside: %+v", runs)
	}
	runs, _ = Discover([]string{filepath.Join(root, "runs")}, []Detector{markerDetector}, "")
	if len(runs) != 1 || runs[0].Display != filepath.ToSlash(filepath.Join(root, "runs", "r")) {
		t.Fatalf("absolute path: %+v", runs)
	}
}

func TestCheckRunID(t *testing.T) {
	tests := []struct {
		name string
		ok   bool
	}{
		{"20250929-134215-8b6f8b9a-7c9f-4c5e-8c6a-2f0f0d2e9c1a", true},
		{"20250229-134215-8b6f8b9a-7c9f-4c5e-8c6a-2f0f0d2e9c1a", false}, // no 29 February in 2025
		{"20250929-256015-8b6f8b9a-7c9f-4c5e-8c6a-2f0f0d2e9c1a", false}, // hour 25
		{"20250929-134215-8b6f8b9a-7c9f-1c5e-8c6a-2f0f0d2e9c1a", false}, // version 1
		{"20250929-134215-8b6f8b9a-7c9f-4c5e-cc6a-2f0f0d2e9c1a", false}, // variant
		{"20250929-134215-8B6F8B9A-7C9F-4C5E-8C6A-2F0F0D2E9C1A", false}, // upper case
		{"20250929-134215-8b6f8b9a-...", false},
		{"not-a-run-id", false},
	}
	for _, tc := range tests {
		if got := CheckRunID(tc.name) == ""; got != tc.ok {
			t.Errorf("CheckRunID(%q) ok=%v, want %v (%s)", tc.name, got, tc.ok, CheckRunID(tc.name))
		}
	}
}

// TestDiscoverWithin: a folder within refuses is never listed (a run in it
// is not found, an unreadable one is no error), except inside a run found,
// whose held runs are all found for its Holds; SearchWithin lists only the
// folders within accepts, inside a run or not.
func TestDiscoverWithin(t *testing.T) {
	root := t.TempDir()
	for _, d := range []string{"runs/a/inner/held", "runs/b", "runs/c"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{"runs/a/RUN.mark", "runs/a/inner/held/RUN.mark", "runs/b/RUN.mark", "runs/c/RUN.mark"} {
		if err := os.WriteFile(filepath.Join(root, f), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	accepted := map[string]bool{"runs": true, "runs/a": true}
	var asked []string
	within := func(abs string) bool {
		rel, _ := filepath.Rel(root, abs)
		rel = filepath.ToSlash(rel)
		asked = append(asked, rel)
		return accepted[rel]
	}
	runs, err := DiscoverWithin([]string{root}, []Detector{markerDetector}, "", within)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range runs {
		rel, _ := filepath.Rel(root, r.Dir)
		got = append(got, filepath.ToSlash(rel)+" holds "+strings.Join(r.Holds, ","))
	}
	if want := []string{"runs/a holds inner/held", "runs/a/inner/held holds "}; !slices.Equal(got, want) {
		t.Errorf("DiscoverWithin found %q, want %q", got, want)
	}
	if slices.Contains(asked, "runs/a/inner") {
		t.Errorf("within was asked about %q, inside a run found: all of a run is searched", "runs/a/inner")
	}

	found, err := SearchWithin(os.DirFS(root), ".", []Detector{markerDetector}, func(dir string) bool { return accepted[dir] })
	if err != nil {
		t.Fatal(err)
	}
	if len(found) != 1 || found[0].Dir != "runs/a" {
		t.Errorf("SearchWithin found %v, want runs/a alone", found)
	}
}
