package cli

import (
	"encoding/json"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/h3a-check/h3a-check/internal/audit"
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
	run := contractRun(t)
	target := filepath.Join(run, "rounds", "round-2", "audit.json")
	auditors, err := os.ReadFile(filepath.Join(casesDir, "ok", "contract_rounds", filepath.Base(run), "rounds", "round-2", "audit.json"))
	if err != nil {
		t.Fatal(err)
	}
	before := snapshot(t, run)

	// Without --write-audit, the judge's pass that no audit.json follows
	// (and no summary.json says the audit was disabled) was never audited.
	if code, _, stderr := checkJSON(t, run); code != ExitNeedsHuman || !maps.Equal(snapshot(t, run), before) {
		t.Fatalf("a plain check: exit %d (%s), want 3, or it changed the run", code, stderr)
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
	if v := set.Validate("contract_audit", doc); v != nil {
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

// contractRun copies the contract_rounds case (two rounds, an auditor's
// audit.json in the second) into a temporary folder, without the
// auditor's audit.json and summary.json, as the orchestrator has it when
// it asks for the audit.
func contractRun(t *testing.T) string {
	t.Helper()
	src, err := filepath.Glob(filepath.Join(casesDir, "ok", "contract_rounds", "TASK-*"))
	if err != nil || len(src) != 1 {
		t.Fatalf("contract run not found: %v %v", src, err)
	}
	run := filepath.Join(t.TempDir(), filepath.Base(src[0]))
	if err := os.CopyFS(run, os.DirFS(src[0])); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"rounds/round-2/audit.json", "summary.json"} {
		if err := os.Remove(filepath.Join(run, p)); err != nil {
			t.Fatal(err)
		}
	}
	return run
}

// TestWriteAuditNeverFollowsSymlinks: a rounds folder, or the last
// round's folder, that is a symbolic link to a folder outside the run is
// never written through, even to an audit.json the checker would replace.
func TestWriteAuditNeverFollowsSymlinks(t *testing.T) {
	for _, link := range []string{"rounds", "rounds/round-2"} {
		t.Run(link, func(t *testing.T) {
			run := contractRun(t)
			outside := filepath.Join(t.TempDir(), "outside")
			if err := os.Rename(filepath.Join(run, filepath.FromSlash(link)), outside); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(outside, filepath.Join(run, filepath.FromSlash(link))); err != nil {
				t.Fatal(err)
			}
			// A rounds folder that is a link may also keep the run from
			// being recognised at all; either way nothing is written.
			refusesToWrite(t, run, outside, "symbolic link|no run found")
		})
	}
}

// TestWriteAuditLastRound: the last round is the highest-numbered folder
// holding a round's documents; an empty folder with a higher number is
// not one, and two folders of the same number are an error.
func TestWriteAuditLastRound(t *testing.T) {
	t.Run("an empty round-99 is not the last round", func(t *testing.T) {
		run := contractRun(t)
		if err := os.Mkdir(filepath.Join(run, "rounds", "round-99"), 0o755); err != nil {
			t.Fatal(err)
		}
		if code, _, stderr := checkJSON(t, "--write-audit", run); code != ExitPass {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		if _, err := os.Stat(filepath.Join(run, "rounds", "round-2", "audit.json")); err != nil {
			t.Errorf("audit.json not written into round-2: %v", err)
		}
		if _, err := os.Stat(filepath.Join(run, "rounds", "round-99", "audit.json")); err == nil {
			t.Error("audit.json written into the empty round-99")
		}
		if code, _, stderr := checkJSON(t, run); code != ExitPass {
			t.Errorf("the check after the write: exit %d: %s", code, stderr)
		}
	})
	t.Run("round-2 and round-02 are ambiguous", func(t *testing.T) {
		run := contractRun(t)
		if err := os.CopyFS(filepath.Join(run, "rounds", "round-02"), os.DirFS(filepath.Join(run, "rounds", "round-2"))); err != nil {
			t.Fatal(err)
		}
		refusesToWrite(t, run, run, "rounds/round-02 and rounds/round-2 are the same round 2")
	})
}

// refusesToWrite: --write-audit on run exits 2 with a message matching
// why (a regular expression), and dir is left as it was.
func refusesToWrite(t *testing.T, run, dir, why string) {
	t.Helper()
	before := snapshot(t, dir)
	code, _, stderr := checkJSON(t, "--write-audit", run)
	if code != ExitError || !regexp.MustCompile(why).MatchString(stderr) {
		t.Errorf("exit %d, stderr %q; want 2 and %q", code, stderr, why)
	}
	if after := snapshot(t, dir); !maps.Equal(after, before) {
		t.Errorf("%s was written: %q", dir, slices.Sorted(maps.Keys(after)))
	}
}

// TestWriteAuditLeftover: what a checker killed during --write-audit
// leaves is reported as the checker's own (a warning, not an agent's
// interrupted write), and the next --write-audit removes it.
func TestWriteAuditLeftover(t *testing.T) {
	run := contractRun(t)
	ruleIDs := func(audits []*audit.Audit) []string {
		var ids []string
		for _, f := range audits[0].Findings {
			ids = append(ids, f.Rule)
		}
		slices.Sort(ids)
		return ids
	}
	_, audits, _ := checkJSON(t, run)
	without := ruleIDs(audits)
	leftover := filepath.Join(run, "rounds", "round-2", ".audit.json.h3a-check-0123456789abcdef.tmp")
	if err := os.WriteFile(leftover, []byte(`{"gate": "pa`), 0o644); err != nil {
		t.Fatal(err)
	}
	// The round's pass is not audited yet: needs-human, and the leftover
	// adds a warning only.
	code, audits, stderr := checkJSON(t, run)
	if code != ExitNeedsHuman {
		t.Fatalf("exit %d, want 3 (the unaudited pass, and a warning only): %s", code, stderr)
	}
	for _, f := range audits[0].Findings {
		if f.Rule == "h3a.structure.checker_tmp_leftover" && !strings.Contains(f.Details, "delete it") {
			t.Errorf("the warning does not say to delete the file: %q", f.Details)
		}
	}
	if want := slices.Sorted(slices.Values(append(slices.Clone(without), "h3a.structure.checker_tmp_leftover"))); !slices.Equal(ruleIDs(audits), want) {
		t.Errorf("findings %q, want %q: the checker's leftover warning and nothing else new", ruleIDs(audits), want)
	}
	if code, _, stderr := checkJSON(t, "--write-audit", run); code != ExitPass {
		t.Fatalf("--write-audit: exit %d: %s", code, stderr)
	}
	if _, err := os.Lstat(leftover); err == nil {
		t.Error("--write-audit left its own leftover in place")
	}
	// The audit written, the pass is audited.
	audited := slices.DeleteFunc(slices.Clone(without), func(id string) bool { return id == "h3a.gates.contract_needs_human" })
	code, audits, stderr = checkJSON(t, run)
	if code != ExitPass || !slices.Equal(ruleIDs(audits), audited) {
		t.Errorf("after --write-audit: exit %d, findings %q, want %q: %s", code, ruleIDs(audits), audited, stderr)
	}
}
