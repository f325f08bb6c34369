package history

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/h3a-check/h3a-check/internal/gitrev"
	"github.com/h3a-check/h3a-check/internal/gitrev/gittest"
)

// TestPreparedMatchesFileByFile: reading a run's base through its folders
// (files identical to head are not read) gives the findings that reading
// every file on its own gives, in every situation a base file can be in.
func TestPreparedMatchesFileByFile(t *testing.T) {
	const steps = `{"steps": [{"task_id": "T001"}]}`
	head := map[string]string{"state.json": steps, "state/ROADMAP.md": roadmapBase}
	tests := []struct {
		name  string
		base  map[string]string // under runs/r
		head  map[string]string
		reads int // file contents read from the base
	}{
		{"identical", head, head, 0},
		{"appended", map[string]string{"state.json": `{"steps": []}`, "state/ROADMAP.md": roadmapBase}, head, 1},
		{"rewritten", map[string]string{"state.json": `{"steps": [{"task_id": "T000"}]}`, "state/ROADMAP.md": roadmapBase}, head, 1},
		{"reformatted only", map[string]string{"state.json": `{ "steps":[ {"task_id":"T001"} ] }`, "state/ROADMAP.md": roadmapBase}, head, 1},
		{"removed in head", head, map[string]string{"state/ROADMAP.md": roadmapBase}, 0},
		{"optional file removed in head", map[string]string{"state.json": steps, "planner_report.json": `{"reports": []}`}, head, 0},
		{"head not parsed", head, map[string]string{"state.json": `{"steps": [`, "state/ROADMAP.md": roadmapBase}, 0},
		{"base not valid JSON", map[string]string{"state.json": `{"steps": [`}, head, 1},
		{"base file is a folder", map[string]string{"state.json/x": "{}"}, head, 0},
		{"base state is a file", map[string]string{"state.json": steps, "state": "x"}, head, 0},
		{"new run", nil, head, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			g := gittest.Init(t)
			files := map[string]string{"README.md": "x\n"}
			fake := map[string][]byte{}
			for p, d := range tc.base {
				files["runs/r/"+p] = d
				fake["runs/r/"+p] = []byte(d)
			}
			g.Write(files)
			sha := g.Commit("base")
			repo, err := gitrev.Open(g.Dir)
			if err != nil {
				t.Fatal(err)
			}
			defer repo.Close()

			got, err := Compare(memHead(t, tc.head, nil), At(repo, sha, "runs/r"), sha)
			if err != nil {
				t.Fatal(err)
			}
			want, err := Compare(memHead(t, tc.head, nil), At(&gitrev.Fake{Files: map[string]map[string][]byte{sha: fake}}, sha, "runs/r"), sha)
			if err != nil {
				t.Fatal(err)
			}
			if g, w := render(got), render(want); g != w {
				t.Errorf("through folders:\n%s\nfile by file:\n%s", g, w)
			}
			exchanges, contents := repo.Traffic()
			if contents != tc.reads {
				t.Errorf("%d contents read, want %d", contents, tc.reads)
			}
			// The folder holding the run, the run's folders, the contents
			// that differ.
			if exchanges > 3 {
				t.Errorf("%d exchanges with cat-file, want at most 3", exchanges)
			}
		})
	}
}

// TestPreparedLimits: the size bound holds for contents read in a batch,
// and the message names the file.
func TestPreparedLimits(t *testing.T) {
	g := gittest.Init(t)
	g.Write(map[string]string{"runs/r/state.json": `{"steps": [` + strings.Repeat(`{}, `, 500) + `{}]}`})
	sha := g.Commit("base")
	repo, err := gitrev.Open(filepath.Join(g.Dir, "runs"))
	if err != nil {
		t.Fatal(err)
	}
	defer repo.Close()
	repo.MaxRead = 100
	res, err := Compare(memHead(t, map[string]string{"state.json": `{"steps": []}`}, nil), At(repo, sha, "runs/r"), sha)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Findings) != 1 || !strings.Contains(res.Findings[0].Details, "state.json at") || !strings.Contains(res.Findings[0].Details, "over the limit of 100 bytes") {
		t.Fatalf("%+v", res.Findings)
	}
	// A reader that broke is an error for the whole comparison.
	repo.Close()
	if _, err := Compare(memHead(t, map[string]string{"state.json": `{}`}, nil), At(repo, sha, "runs/r"), sha); err == nil || errors.Is(err, gitrev.ErrNotFile) {
		t.Errorf("closed reader: %v", err)
	}
}

func render(r Result) string {
	var b strings.Builder
	fmt.Fprintf(&b, "new=%v\n", r.New)
	for _, f := range r.Findings {
		// A file-by-file reader names the file from the top level.
		fmt.Fprintf(&b, "%s %s %s %s\n", f.Rule, f.File, f.Pointer, strings.ReplaceAll(f.Details, "runs/r/", ""))
	}
	return b.String()
}

// TestListThroughFolders: a run's files at the base are listed through
// cat-file, level by level, as a file-by-file reader lists them.
func TestListThroughFolders(t *testing.T) {
	g := gittest.Init(t)
	files := map[string]string{"runs/r/state.json": "{}", "runs/r/plans/a/p.json": "{}", "runs/r/plans/b c/ü.json": "{}",
		"runs/r/logs/log_unit_1.jsonl": "", "runs/r/deep/1/2/3/x": "x", "runs/other/state.json": "{}"}
	g.Write(files)
	sha := g.Commit("base")
	fake := map[string][]byte{}
	for p, d := range files {
		fake[p] = []byte(d)
	}
	repo, err := gitrev.Open(g.Dir)
	if err != nil {
		t.Fatal(err)
	}
	defer repo.Close()
	got, err := At(repo, sha, "runs/r").List()
	if err != nil {
		t.Fatal(err)
	}
	want, err := At(&gitrev.Fake{Files: map[string]map[string][]byte{sha: fake}}, sha, "runs/r").List()
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(got, "|") != strings.Join(want, "|") || len(got) != 5 {
		t.Errorf("through folders %q, file by file %q", got, want)
	}
	// TreeID, then one exchange per level: the run, plans logs deep,
	// plans/a plans/b c deep/1, deep/1/2, deep/1/2/3.
	if exchanges, _ := repo.Traffic(); exchanges != 1+5 {
		t.Errorf("%d exchanges, want 6", exchanges)
	}
}
