package runner

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/h3a-check/h3a-check/internal/schema"
)

const testRuns = "../../testdata/runs"

// inputOf returns the policy input document of the runs under dir.
func inputOf(t *testing.T, dir string) []map[string]any {
	t.Helper()
	res, err := Check(context.Background(), Options{Paths: []string{dir}, KeepInputs: true})
	if err != nil {
		t.Fatalf("%s: %v", dir, err)
	}
	return res.Inputs
}

// TestInputMatchesSchema: the input of every testdata run, ok and err alike,
// is what schemas/input.h3a.schema.json documents, so user policies can rely
// on the schema.
func TestInputMatchesSchema(t *testing.T) {
	set, err := schema.Default()
	if err != nil {
		t.Fatal(err)
	}
	dirs, err := filepath.Glob(filepath.Join(testRuns, "*", "*"))
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, dir := range dirs {
		if info, err := os.Stat(dir); err != nil || !info.IsDir() {
			continue
		}
		for _, in := range inputOf(t, dir) {
			if in == nil {
				continue
			}
			n++
			for _, v := range set.Validate("input.h3a", in) {
				t.Errorf("%s: %s (at %q)", dir, v.Message, v.Pointer)
			}
		}
	}
	if n < 10 {
		t.Fatalf("validated %d inputs, expected every testdata run", n)
	}
}

// TestInputHasFacts: the facts the shipped policies read are in the input.
func TestInputHasFacts(t *testing.T) {
	in := inputOf(t, filepath.Join(testRuns, "ok", "complete"))[0]
	run := in["run"].(map[string]any)
	if run["dir_is_run_id"] != true {
		t.Errorf("run.dir_is_run_id = %v, want true", run["dir_is_run_id"])
	}
	tree, _ := in["tree"].([]any)
	if !strings.Contains(fmt.Sprint(tree), "artifacts/executor/test_output_red.txt") {
		t.Errorf("tree lacks the artifacts: %v", tree)
	}
	files := in["files"].(map[string]any)
	if got := files["state.json"].(map[string]any)["doc"]; got != "state" {
		t.Errorf(`files["state.json"].doc = %v, want "state"`, got)
	}
}
