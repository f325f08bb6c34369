package layout

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/h3a-check/h3a-check/internal/jsonpos"
	"github.com/h3a-check/h3a-check/internal/rundir"
)

const hybridExample = "../../testdata/runs/ok/hybrid_complete/greeter"

// loadHybrid reads the example run the way the runner does, with the
// document at replace (if any) swapped for data.
func loadHybrid(t testing.TB, replace string, data []byte) *Run {
	var present []string
	err := filepath.WalkDir(hybridExample, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			rel, _ := filepath.Rel(hybridExample, p)
			present = append(present, filepath.ToSlash(rel))
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	dir, _ := filepath.Abs(hybridExample)
	r := &Run{Dir: dir, Files: Expand(hybridFiles, present), Docs: map[string]*rundir.Document{}}
	for _, m := range r.Files {
		b, err := os.ReadFile(filepath.Join(hybridExample, m.Path))
		if m.Path == replace {
			b, err = data, nil
		}
		if err != nil {
			continue
		}
		doc := &rundir.Document{Path: m.Path, Present: true, Data: b}
		if m.Spec.Kind == JSONLines {
			doc.Lines, _ = jsonpos.ParseLines(b)
			doc.Parsed = true
		} else {
			doc.JSON, _ = jsonpos.Parse(b)
			doc.Parsed = doc.JSON != nil
		}
		r.Docs[m.Path] = doc
	}
	return r
}

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

func TestHybridExampleIsClean(t *testing.T) {
	r := loadHybrid(t, "", nil)
	if fs := (Hybrid{}).Check(r); len(fs) != 0 {
		t.Errorf("findings on the ok example: %+v", fs)
	}
	if g := (Hybrid{}).Generation(r); g != "v1.4" {
		t.Errorf("generation %q, want v1.4", g)
	}
}

// FuzzHybridCheck: whatever a state, summary, plan, artifact or log unit
// holds, the consistency scan neither panics nor hangs.
func FuzzHybridCheck(f *testing.F) {
	targets := []string{"state.json", "plan_summary.json", "registry_summary.json", "known_issues.json",
		"plans/core/p_greet.json", "registry/code/a_greet.json", "logs/log_unit_1.jsonl", "logs/log_unit_2.jsonl"}
	for i, p := range targets {
		data, err := os.ReadFile(filepath.Join(hybridExample, p))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(uint8(i), data)
	}
	f.Add(uint8(0), []byte(`{"v": 1e999, "g": -1, "ln": "x", "max": 0, "rt": {"t1": 99999999999999999999}, "cp": [], "ct": {}}`))
	f.Add(uint8(1), []byte(`{"v": 1, "map": {"p": {"path": "/etc/passwd"}, "q": {"path": "../x"}, "r": 3}}`))
	f.Add(uint8(5), []byte(`{"v": 1, "id": "a", "loc": "../../../../etc/passwd", "type": "code", "dep": [1, null], "ki": "x"}`))
	f.Add(uint8(6), []byte("{\"id\": 1, \"ph\": \"Z\"}\n[]\nnull\n{\"id\": 1e400}\n"))
	f.Fuzz(func(t *testing.T, which uint8, data []byte) {
		r := loadHybrid(t, targets[int(which)%len(targets)], data)
		for _, fd := range (Hybrid{}).Check(r) {
			if fd.Rule == "" || fd.Details == "" {
				t.Errorf("finding without rule or details: %+v", fd)
			}
		}
		(Hybrid{}).Docs(r)
	})
}

// TestFileInRun: summaries and stage documents count as present only when
// they are regular files inside the run, as the loader would read them.
func TestFileInRun(t *testing.T) {
	outside := t.TempDir()
	if err := os.WriteFile(filepath.Join(outside, "secret.json"), []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	run := t.TempDir()
	if err := os.MkdirAll(filepath.Join(run, "plans"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(run, "plans", "p.json"), []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(outside, "secret.json"), filepath.Join(run, "plans", "out.json")); err != nil {
		t.Skipf("no symbolic links here: %v", err)
	}
	for p, want := range map[string]bool{
		"plans/p.json":                        true,
		"plans/x.json":                        false,
		"plans":                               false, // a folder
		"../secret.json":                      false,
		filepath.Join(outside, "secret.json"): false,
		"plans/out.json":                      false, // a link leaving the run
	} {
		if got := fileInRun(run, p); got != want {
			t.Errorf("fileInRun(%q) = %v, want %v", p, got, want)
		}
	}
}
