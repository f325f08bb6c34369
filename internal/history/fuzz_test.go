package history

import (
	"os"
	"path/filepath"
	"testing"
)

const templateRun = "../../testdata/runs/ok/complete/20250929-134215-8b6f8b9a-7c9f-4c5e-8c6a-2f0f0d2e9c1a"

// FuzzCompare feeds arbitrary base versions of every append-only file to
// Compare against the example run: whatever the base holds, Compare must
// neither panic nor hang, and every finding must name its file.
func FuzzCompare(f *testing.F) {
	var paths []string
	head := map[string]string{}
	for _, r := range Table {
		if r.Layout != "h3a" {
			continue // the template run is an h3a run
		}
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
