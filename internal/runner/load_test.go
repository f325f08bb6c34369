package runner

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/h3a-check/h3a-check/internal/finding"
)

// copyOK copies the ok case src (relative to testdata/runs/ok) into a
// temporary folder of the same name and returns its path.
func copyOK(t *testing.T, src string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), filepath.Base(src))
	if err := os.CopyFS(dir, os.DirFS(filepath.Join(testRuns, "ok", filepath.FromSlash(src)))); err != nil {
		t.Fatal(err)
	}
	return dir
}

// findingsOf checks the run at dir and returns its findings of rule.
func findingsOf(t *testing.T, dir string, rule finding.Rule) []finding.Finding {
	t.Helper()
	res, err := Check(context.Background(), Options{Paths: []string{dir}, Base: "none"})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Audits) != 1 {
		t.Fatalf("%d audits, want 1", len(res.Audits))
	}
	var out []finding.Finding
	for _, f := range res.Audits[0].Findings {
		if f.Rule == rule.ID {
			out = append(out, f)
		}
	}
	return out
}

// TestSchemaByVersion: the schema stage holds a stigmergy ledger that
// declares schema 3.0 to its schema, with the position of the fault, and
// any other version to none.
func TestSchemaByVersion(t *testing.T) {
	for _, tc := range []struct {
		version string
		want    int
	}{
		{`"3.0"`, 1},
		{`"2.0"`, 0},
	} {
		t.Run(tc.version, func(t *testing.T) {
			dir := copyOK(t, "stigmergy_complete/greeter")
			p := filepath.Join(dir, ".ai", "state.json")
			data, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			state := strings.Replace(string(data), `"schema_version": "3.0"`, `"schema_version": `+tc.version, 1)
			state = strings.Replace(state, `"project_status": "EXECUTION_IN_PROGRESS"`, `"project_status": 7`, 1)
			if err := os.WriteFile(p, []byte(state), 0o644); err != nil {
				t.Fatal(err)
			}
			got := findingsOf(t, dir, finding.SchemaViolation)
			if len(got) != tc.want {
				t.Fatalf("%d schema findings, want %d: %+v", len(got), tc.want, got)
			}
			if tc.want > 0 && (got[0].File != ".ai/state.json" || got[0].Pointer != "/project_status" || got[0].Line != 5) {
				t.Errorf("finding at %s%s line %d, want .ai/state.json/project_status line 5", got[0].File, got[0].Pointer, got[0].Line)
			}
		})
	}
}
