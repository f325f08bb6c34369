package history

import (
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/h3a-check/h3a-check/internal/jsonpos"
	"github.com/h3a-check/h3a-check/internal/layout"
	"github.com/h3a-check/h3a-check/internal/rundir"
	"github.com/h3a-check/h3a-check/internal/yamlpos"
)

const templateRun = "../../testdata/runs/ok/complete/20250929-134215-8b6f8b9a-7c9f-4c5e-8c6a-2f0f0d2e9c1a"

// FuzzCompare feeds arbitrary base versions of every append-only file to
// Compare against the example run: whatever the base holds, Compare must
// neither panic nor hang, and every finding must name its file.
func FuzzCompare(f *testing.F) {
	var paths []string
	head := map[string]string{}
	for _, r := range (layout.H3A{}).AppendOnly() {
		data, err := os.ReadFile(filepath.Join(templateRun, filepath.FromSlash(r.Path)))
		if err != nil {
			f.Fatal(err)
		}
		paths = append(paths, r.Path)
		head[r.Path] = string(data)
	}
	for i, p := range paths {
		f.Add(uint8(i), []byte(head[p]))
	}
	f.Add(uint8(0), []byte(`{"steps": [{"corrects": null}, 1e999999, [[[]]], {"task_id": "T001"}]}`))
	f.Add(uint8(5), []byte("## Gate Events Log\n[x] G0 - PASSED - a\n"))
	f.Add(uint8(7), []byte("## Task Queue\n- [x] T001: a\n- [x] T001: a\n"))
	f.Fuzz(func(t *testing.T, which uint8, data []byte) {
		p := paths[int(which)%len(paths)]
		_, b := fakeBase(map[string]string{p: string(data)})
		res, err := Compare(memHead(t, head, nil), b, commit)
		if err != nil {
			t.Fatal(err)
		}
		for _, fd := range res.Findings {
			if fd.File == "" && !res.New {
				t.Errorf("finding without a file: %+v", fd)
			}
		}
	})
}

// layoutTemplates are example runs of the other layouts, whose files the
// fuzzer below replaces at the base.
var layoutTemplates = map[string]string{
	"hybrid-os":  "../../testdata/runs/ok/hybrid_complete/greeter",
	"stigmergy":  "../../testdata/runs/ok/stigmergy_complete/greeter",
	"gate-state": "../../testdata/runs/ok/gate_state_complete/app",
}

// runOf loads a template run as the runner would, without the runner.
func runOf(t testing.TB, lay layout.Layout, dir string) *layout.Run {
	var present []string
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			rel, _ := filepath.Rel(dir, p)
			present = append(present, filepath.ToSlash(rel))
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	run := &layout.Run{Dir: dir, Files: layout.Expand(lay.Files(), present), Docs: map[string]*rundir.Document{}}
	for _, m := range run.Files {
		data, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(m.Path)))
		if err != nil {
			continue
		}
		doc := &rundir.Document{Path: m.Path, Present: true, Data: data}
		switch m.Spec.Kind {
		case layout.JSON:
			doc.JSON, _ = jsonpos.Parse(data)
			doc.Parsed = doc.JSON != nil
		case layout.JSONLines:
			doc.Lines, _ = jsonpos.ParseLines(data)
			doc.Parsed = true
		case layout.YAML:
			doc.YAML, _ = yamlpos.Parse(data)
			doc.Parsed = doc.YAML != nil
		}
		run.Docs[m.Path] = doc
	}
	return run
}

// FuzzCompareLayouts: the history rules of the hybrid-os, stigmergy and
// gate-state layouts survive any base version of any of their files.
func FuzzCompareLayouts(f *testing.F) {
	type target struct{ layout, path string }
	var targets []target
	heads := map[string]Head{}
	for _, id := range []string{"hybrid-os", "stigmergy", "gate-state"} {
		lay := layout.ByID(id)
		run := runOf(f, lay, layoutTemplates[id])
		heads[id] = Head{Layout: id, Run: run, Open: func(string) (io.ReadCloser, bool, error) { return nil, false, nil }}
		for _, m := range run.Files {
			if run.Docs[m.Path] == nil {
				continue // a file of the layout this run does not have
			}
			targets = append(targets, target{id, m.Path})
			f.Add(uint8(len(targets)-1), run.Docs[m.Path].Data)
		}
	}
	f.Add(uint8(0), []byte(`{"v": 1e999, "g": "x"}`))
	f.Add(uint8(1), []byte("{\"id\": 1}\nnot json\n"))
	f.Fuzz(func(t *testing.T, which uint8, data []byte) {
		tg := targets[int(which)%len(targets)]
		_, b := fakeBase(map[string]string{tg.path: string(data)})
		res, err := Compare(heads[tg.layout], b, commit)
		if err != nil {
			t.Fatal(err)
		}
		for _, fd := range res.Findings {
			if fd.File == "" && !res.New {
				t.Errorf("finding without a file: %+v", fd)
			}
		}
	})
}
