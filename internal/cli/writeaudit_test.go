package cli

import (
	"encoding/json"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/h3a-check/h3a-check/internal/schema"
)

// snapshot reads every file under dir, by relative path.
func snapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	files := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		rel, _ := filepath.Rel(dir, p)
		files[filepath.ToSlash(rel)] = string(data)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// TestWriteAudit: --write-audit writes the checker's audit.json into the
// last round, valid against the contract, and nothing else in the run; it
// replaces its own file but an auditor's only with --force.
func TestWriteAudit(t *testing.T) {
	src, err := filepath.Glob(filepath.Join(casesDir, "ok", "contract_rounds", "TASK-*"))
	if err != nil || len(src) != 1 {
		t.Fatalf("contract run not found: %v %v", src, err)
	}
	run := filepath.Join(t.TempDir(), filepath.Base(src[0]))
	if err := os.CopyFS(run, os.DirFS(src[0])); err != nil {
		t.Fatal(err)
	}
	target := filepath.Join(run, "rounds", "round-2", "audit.json")
	auditors, err := os.ReadFile(target)
	if err != nil {
		t.Fatal(err)
	}
	// The orchestrator asks for the audit before it writes the summary.
	for _, p := range []string{target, filepath.Join(run, "summary.json")} {
		if err := os.Remove(p); err != nil {
			t.Fatal(err)
		}
	}
	before := snapshot(t, run)

	if code, _, stderr := checkJSON(t, run); code != ExitPass || !maps.Equal(snapshot(t, run), before) {
		t.Fatalf("a plain check: exit %d (%s), or it changed the run", code, stderr)
	}

	code, _, stderr := checkJSON(t, "--write-audit", run)
	if code != ExitPass {
		t.Fatalf("exit %d, want 0: %s", code, stderr)
	}
	after := snapshot(t, run)
	written, ok := after["rounds/round-2/audit.json"]
	delete(after, "rounds/round-2/audit.json")
	if !ok || !maps.Equal(after, before) {
		t.Fatalf("the run changed beyond rounds/round-2/audit.json: %q", slices.Sorted(maps.Keys(after)))
	}
	var doc map[string]any
	if err := json.Unmarshal([]byte(written), &doc); err != nil {
		t.Fatalf("written audit.json is not JSON: %v", err)
	}
	set, err := schema.Default()
	if err != nil {
		t.Fatal(err)
	}
	if v := set.Validate(schema.ContractAudit, doc); v != nil {
		t.Errorf("written audit.json breaks the contract: %+v", v)
	}
	if doc["gate"] != "pass" || doc["task_id"] != "TASK-0042" || !strings.HasPrefix(doc["generator"].(string), "h3a-check ") {
		t.Errorf("written audit.json: gate %v, task_id %v, generator %v", doc["gate"], doc["task_id"], doc["generator"])
	}
	tr := doc["traceability"].(map[string]any)
	if tr["task_id_match"] != "pass" || tr["requirements_coverage"] != "pass" {
		t.Errorf("traceability %v, want task_id_match and requirements_coverage pass", tr)
	}

	// The run with the checker's audit in it still passes, and the checker
	// replaces its own file without --force.
	if code, _, stderr := checkJSON(t, "--write-audit", run); code != ExitPass {
		t.Fatalf("second --write-audit: exit %d: %s", code, stderr)
	}

	if err := os.WriteFile(target, auditors, 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, stderr = checkJSON(t, "--write-audit", run)
	if code != ExitError || !strings.Contains(stderr, "refusing to overwrite it (pass --force to replace it)") {
		t.Errorf("over an auditor's file: exit %d, stderr %q; want 2 and a refusal", code, stderr)
	}
	if got, _ := os.ReadFile(target); string(got) != string(auditors) {
		t.Error("the auditor's audit.json was changed without --force")
	}

	if code, _, stderr := checkJSON(t, "--write-audit", "--force", run); code != ExitPass {
		t.Fatalf("--force: exit %d: %s", code, stderr)
	}
	if got, _ := os.ReadFile(target); !strings.Contains(string(got), `"generator": "h3a-check `) {
		t.Errorf("--force did not replace the auditor's file:\n%s", got)
	}
	if names := slices.Sorted(maps.Keys(snapshot(t, run))); len(names) != len(before)+1 {
		t.Errorf("files left behind (temporary files?): %q", names)
	}
}
