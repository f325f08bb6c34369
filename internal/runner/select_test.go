package runner

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestEveryPathHoldsARun: a full check of several paths refuses one that
// holds no run and lies in none, as it refuses a lone such path; it does
// not pass as though that path had been checked. A path inside a run, or
// one holding the same runs as another, is a path with a run.
func TestEveryPathHoldsARun(t *testing.T) {
	empty := t.TempDir()
	outside := filepath.Join(t.TempDir(), "notes.md")
	if err := os.WriteFile(outside, []byte("# notes\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	holder := t.TempDir() // a run in one folder, nothing in the other
	if err := os.MkdirAll(filepath.Join(holder, "nothing"), 0o755); err != nil {
		t.Fatal(err)
	}
	run := filepath.Join(exampleRuns, exampleID)
	for _, tc := range []struct {
		name  string
		paths []string
		empty []string // the paths the error names; none: the check runs
	}{
		{"a folder holding runs", []string{exampleRuns}, nil},
		{"an empty folder beside it", []string{exampleRuns, empty}, []string{empty}},
		{"an empty folder before it", []string{empty, exampleRuns}, []string{empty}},
		{"a file in no run beside it", []string{exampleRuns, outside}, []string{outside}},
		{"a folder inside the run", []string{exampleRuns, filepath.Join(run, "state")}, nil},
		{"a file inside the run", []string{run, filepath.Join(run, "state.json")}, nil},
		{"the same runs twice", []string{exampleRuns, run}, nil},
		{"a folder of the holder's that holds nothing", []string{exampleRuns, filepath.Join(holder, "nothing")}, []string{filepath.Join(holder, "nothing")}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Check(context.Background(), Options{Scope: Scope{Paths: tc.paths, Base: "none", Getenv: noEnv}})
			if len(tc.empty) == 0 {
				if err != nil {
					t.Fatalf("%v: %v", tc.paths, err)
				}
				return
			}
			if !errors.Is(err, ErrNoRuns) {
				t.Fatalf("%v: %v, want ErrNoRuns", tc.paths, err)
			}
			for _, p := range tc.empty {
				if !strings.Contains(err.Error(), "no run found in "+p) {
					t.Errorf("%v: %v, want it to name %s", tc.paths, err, p)
				}
			}
		})
	}
}
