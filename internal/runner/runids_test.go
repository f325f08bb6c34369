package runner

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/h3a-check/h3a-check/internal/finding"
)

// TestSharedRunIDs: every h3a run of a check that shares its run id
// (state.json's run_id, or its folder's name when that is a run id), or
// the UUID of its run id, with another gets an error naming the others, in
// whatever order the runs are read; a run whose id cannot be read, and
// runs of other layouts, get none.
// fired is a finding of the rule: the run (as the test's dir), the
// finding's file and the runs it names.
type fired struct {
	run, file string
	others    []string
}

func TestSharedRunIDs(t *testing.T) {
	const other = "20251001-090000-1b2c3d4e-5f60-4718-8a9b-0c1d2e3f4a5b"
	later := "20251005-120000-" + exampleID[len("YYYYMMDD-HHMMSS-"):] // the same UUID
	h3a := filepath.Join(exampleRuns, exampleID)
	hybrid := filepath.Join(testRuns, "ok", "hybrid_complete")
	type run struct {
		dir   string // under the check's folder
		from  string // the run copied there
		runID string // state.json's run_id written over ("" keeps it; "-" deletes it)
	}
	for _, tc := range []struct {
		name string
		runs []run
		want []fired
	}{
		{"a run and its copy in another folder",
			[]run{{"runs/" + exampleID, h3a, ""}, {"archive/" + exampleID, h3a, ""}},
			[]fired{{"archive/" + exampleID, "state.json", []string{"runs/" + exampleID}}, {"runs/" + exampleID, "state.json", []string{"archive/" + exampleID}}}},
		{"two repositories",
			[]run{{"a/runs/" + exampleID, h3a, ""}, {"b/runs/" + exampleID, h3a, ""}},
			[]fired{{"a/runs/" + exampleID, "state.json", []string{"b/runs/" + exampleID}}, {"b/runs/" + exampleID, "state.json", []string{"a/runs/" + exampleID}}}},
		{"three runs",
			[]run{{"a/" + exampleID, h3a, ""}, {"b/" + exampleID, h3a, ""}, {"c/" + exampleID, h3a, ""}},
			[]fired{{"a/" + exampleID, "state.json", []string{"b/" + exampleID, "c/" + exampleID}},
				{"b/" + exampleID, "state.json", []string{"a/" + exampleID, "c/" + exampleID}},
				{"c/" + exampleID, "state.json", []string{"a/" + exampleID, "b/" + exampleID}}}},
		{"the same run_id in folders of other names",
			[]run{{"runs/" + exampleID, h3a, ""}, {"runs/" + other, h3a, exampleID}},
			[]fired{{"runs/" + exampleID, "state.json", []string{"runs/" + other}}, {"runs/" + other, "state.json", []string{"runs/" + exampleID}}}},
		{"the same folder name, other run_ids",
			[]run{{"a/" + exampleID, h3a, other}, {"b/" + exampleID, h3a, ""}},
			[]fired{{"a/" + exampleID, "", []string{"b/" + exampleID}}, {"b/" + exampleID, "state.json", []string{"a/" + exampleID}}}},
		{"the same UUID at another time",
			[]run{{"runs/" + exampleID, h3a, ""}, {"archive/" + later, h3a, later}},
			[]fired{{"archive/" + later, "state.json", []string{"runs/" + exampleID}}, {"runs/" + exampleID, "state.json", []string{"archive/" + later}}}},
		{"the same UUID in capitals",
			[]run{{"runs/" + exampleID, h3a, ""}, {"archive/copy", h3a, strings.ToUpper(exampleID)}},
			[]fired{{"archive/copy", "state.json", []string{"runs/" + exampleID}}, {"runs/" + exampleID, "state.json", []string{"archive/copy"}}}},
		{"a folder named with another time than its run_id",
			[]run{{"runs/" + later, h3a, ""}}, nil},
		{"different ids",
			[]run{{"runs/" + exampleID, h3a, ""}, {"runs/" + other, h3a, other}}, nil},
		{"no run_id and folders named alike that are no run ids",
			[]run{{"a/run", h3a, "-"}, {"b/run", h3a, "-"}}, nil},
		{"an empty run_id",
			[]run{{"a/run", h3a, `"`}, {"b/run", h3a, `"`}}, nil},
		{"runs of a layout whose ids are not unique",
			[]run{{"a/greeter", hybrid, ""}, {"b/greeter", hybrid, ""}}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			for _, r := range tc.runs {
				dir := filepath.Join(root, filepath.FromSlash(r.dir))
				if err := os.CopyFS(dir, os.DirFS(r.from)); err != nil {
					t.Fatal(err)
				}
				if r.runID != "" {
					setRunID(t, filepath.Join(dir, "state.json"), r.runID)
				}
			}
			var first []fired
			for _, workers := range []int{1, 4} {
				res, err := Check(context.Background(), Options{Scope: Scope{Paths: []string{root}, Base: "none", Getenv: noEnv}, Workers: workers})
				if err != nil {
					t.Fatal(err)
				}
				var got []fired
				for _, a := range res.Audits {
					for _, f := range a.Findings {
						if f.Rule != finding.DuplicateRunID.ID {
							continue
						}
						if f.Severity != finding.Error {
							t.Errorf("%s: %s, want an error", a.Run, f.Severity)
						}
						// The runs are named as found under the path given.
						run := filepath.ToSlash(strings.TrimPrefix(a.Run, root+string(filepath.Separator)))
						var others []string
						for _, r := range tc.runs {
							rel, err := filepath.Rel(filepath.Join(root, filepath.FromSlash(run)), filepath.Join(root, filepath.FromSlash(r.dir)))
							if err != nil {
								t.Fatal(err)
							}
							if r.dir != run && strings.Contains(f.Details, `"`+filepath.ToSlash(rel)+`"`) {
								others = append(others, r.dir)
							}
						}
						got = append(got, fired{run, f.File, others})
					}
				}
				if !slices.EqualFunc(got, tc.want, sameFired) {
					t.Errorf("with %d workers: %+v, want %+v", workers, got, tc.want)
				}
				if first == nil {
					first = got
				} else if !slices.EqualFunc(got, first, sameFired) {
					t.Errorf("with %d workers: %+v, with 1: %+v", workers, got, first)
				}
			}
		})
	}
}

func sameFired(a, b fired) bool {
	return a.run == b.run && a.file == b.file && slices.Equal(a.others, b.others)
}

// setRunID writes id as state.json's run_id; "-" deletes the member, `"`
// makes it empty.
func setRunID(t *testing.T, path, id string) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	old := `"run_id": "` + exampleID + `",`
	var with string
	switch id {
	case "-":
		with = ""
	case `"`:
		with = `"run_id": "",`
	default:
		with = `"run_id": "` + id + `",`
	}
	if !strings.Contains(string(data), old) {
		t.Fatalf("%s has no %s", path, old)
	}
	if err := os.WriteFile(path, []byte(strings.Replace(string(data), old, with, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
}
