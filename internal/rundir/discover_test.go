package rundir

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// markerDetector recognises a directory holding a file named RUN.
type markerDetector struct{}

func (markerDetector) ID() string { return "marker" }
func (markerDetector) Detect(dir string) bool {
	_, err := os.Lstat(filepath.Join(dir, "RUN"))
	return err == nil
}

func TestDiscover(t *testing.T) {
	root := t.TempDir()
	for _, d := range []string{"runs/b", "runs/a", "deep/x/y/run", "runs/a/artifacts/nested", ".git/r", "plain"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, d := range []string{"runs/b", "runs/a", "deep/x/y/run", "runs/a/artifacts/nested", ".git/r"} {
		if err := os.WriteFile(filepath.Join(root, d, "RUN"), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	os.WriteFile(filepath.Join(root, "runs/a/artifacts/f.txt"), nil, 0o644)
	ds := []Detector{markerDetector{}}
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
		{"folder of runs, nested, sorted, not inside runs, not .git", []string{root}, []string{"deep/x/y/run", "runs/a", "runs/b"}},
		{"a run", []string{filepath.Join(root, "runs/b")}, []string{"runs/b"}},
		{"files inside a run collapse", []string{filepath.Join(root, "runs/a/RUN"), filepath.Join(root, "runs/a/artifacts/f.txt")}, []string{"runs/a"}},
		{"a folder inside a run", []string{filepath.Join(root, "runs/a/artifacts")}, []string{"runs/a/artifacts/nested"}},
		{"duplicates collapse", []string{filepath.Join(root, "runs"), filepath.Join(root, "runs/a")}, []string{"runs/a", "runs/b"}},
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
	if _, err := Discover([]string{filepath.Join(root, "nope")}, ds, ""); err == nil || !IsNotExist(err) {
		t.Errorf("missing path: err %v", err)
	}
	runs, err := Discover([]string{filepath.Join(root, "plain")}, ds, "marker")
	if err != nil || len(runs) != 1 {
		t.Errorf("forced layout takes the directory as a run: %v %v", runs, err)
	}
	if _, err := Discover([]string{root}, ds, "other"); err == nil {
		t.Error("unknown forced layout accepted")
	}
}

func TestDiscoverDisplay(t *testing.T) {
	root := t.TempDir()
	os.MkdirAll(filepath.Join(root, "runs", "r"), 0o755)
	os.WriteFile(filepath.Join(root, "runs", "r", "RUN"), nil, 0o644)
	t.Chdir(root)
	runs, err := Discover([]string{"runs"}, []Detector{markerDetector{}}, "")
	if err != nil || len(runs) != 1 || runs[0].Display != "runs/r" {
		t.Fatalf("relative path: %+v %v", runs, err)
	}
	runs, _ = Discover([]string{"runs/r/RUN"}, []Detector{markerDetector{}}, "")
	if len(runs) != 1 || runs[0].Display != "runs/r" {
		t.Fatalf("file inside: %+v", runs)
	}
	runs, _ = Discover([]string{filepath.Join(root, "runs")}, []Detector{markerDetector{}}, "")
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
