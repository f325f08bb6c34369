package runner

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/h3a-check/h3a-check/internal/audit"
	"github.com/h3a-check/h3a-check/internal/finding"
	"github.com/h3a-check/h3a-check/internal/gitrev"
	"github.com/h3a-check/h3a-check/internal/gitrev/gittest"
)

const (
	exampleRuns = "../../testdata/runs/ok/complete"
	exampleID   = "20250929-134215-8b6f8b9a-7c9f-4c5e-8c6a-2f0f0d2e9c1a"
)

func noEnv(string) string { return "" }

// copyExample puts the complete example run at dir.
func copyExample(t *testing.T, dir string) {
	t.Helper()
	if err := os.CopyFS(dir, os.DirFS(filepath.Join(exampleRuns, exampleID))); err != nil {
		t.Fatal(err)
	}
}

func rulesOf(a *audit.Audit) []string {
	var out []string
	for _, f := range a.Findings {
		out = append(out, f.Rule)
	}
	return out
}

// TestHistoryInMonorepo: runs deep in a larger repository, under folders
// with spaces and non-ASCII names, checked from a directory outside the
// repository with relative and absolute paths alike.
func TestHistoryInMonorepo(t *testing.T) {
	g := gittest.Init(t)
	g.Write(map[string]string{"services/api/main.go": "package main\n", "README.md": "monorepo\n"})
	runs := filepath.Join(g.Dir, "services", "agent work", "rüns")
	copyExample(t, filepath.Join(runs, exampleID))
	base := g.Commit("runs")
	// Head rewrites a gate event.
	ledger := filepath.Join(runs, exampleID, "state", "GATES_LEDGER.md")
	data, _ := os.ReadFile(ledger)
	os.WriteFile(ledger, []byte(strings.Replace(string(data), "G0_planning - PASSED", "G0_planning - FAILED", 1)), 0o644)

	elsewhere := t.TempDir()
	t.Chdir(elsewhere)
	rel, err := filepath.Rel(elsewhere, runs)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{runs, rel, filepath.Join(runs, exampleID, "state.json")} {
		res, err := Check(context.Background(), Options{Scope: Scope{Paths: []string{p}, Getenv: noEnv}, Output: Output{KeepInputs: true}})
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		a := res.Audits[0]
		if a.Base == nil || *a.Base != base {
			t.Errorf("%s: base %v, want %s", p, a.Base, base)
		}
		var appendOnly []string
		for _, f := range a.Findings {
			if f.Category == finding.CategoryAppendOnly {
				appendOnly = append(appendOnly, f.Rule)
			}
		}
		// The rewritten event also upsets the gate policies; only the
		// history finding is this test's business.
		if got := strings.Join(appendOnly, ","); got != finding.GateEventRewritten.ID {
			t.Errorf("%s: rules %s, want only the rewritten gate event", p, got)
		}
		if a.Policy["append_only"] != audit.AreaFail {
			t.Errorf("%s: policy append_only %q", p, a.Policy["append_only"])
		}
		hist := res.Inputs[0]["history"].(map[string]any)
		if hist["base"] != base || hist["checked"] != true || len(hist["violations"].([]any)) != 1 {
			t.Errorf("%s: input history %v", p, hist)
		}
		if res.CatFileProcesses != 1 {
			t.Errorf("%s: %d cat-file processes, want 1", p, res.CatFileProcesses)
		}
	}
}

// TestHistoryNotCompared: without a base there is one info finding per run
// that says why, and the audit records no base and append_only as not
// evaluated.
func TestHistoryNotCompared(t *testing.T) {
	outside := t.TempDir()
	copyExample(t, filepath.Join(outside, "runs", exampleID))
	gittest.Isolate(t)

	g := gittest.Init(t)
	copyExample(t, filepath.Join(g.Dir, "runs", exampleID))
	// A repository with no commit yet is not compared either.

	tests := []struct {
		name, path, base, reason string
		catFiles                 int // processes: the one that finds no HEAD
	}{
		{"base none", filepath.Join(g.Dir, "runs"), "none", "--base none was given", 0},
		{"not a work tree", filepath.Join(outside, "runs"), "", "not inside a git work tree", 0},
		{"no commit yet", filepath.Join(g.Dir, "runs"), "", "has no commit yet", 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res, err := Check(context.Background(), Options{Scope: Scope{Paths: []string{tc.path}, Base: tc.base, Getenv: noEnv}})
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Audits) != 1 {
				t.Fatalf("%d audits", len(res.Audits))
			}
			a := res.Audits[0]
			var infos []finding.Finding
			for _, f := range a.Findings {
				if f.Category == finding.CategoryAppendOnly {
					infos = append(infos, f)
				}
			}
			if len(infos) != 1 || infos[0].Rule != finding.HistoryNotCompared.ID || infos[0].Severity != finding.Info ||
				!strings.Contains(infos[0].Details, tc.reason) {
				t.Fatalf("append_only findings %+v, want one not_compared info saying %q", infos, tc.reason)
			}
			if a.Base != nil || a.Policy["append_only"] != audit.AreaNotEvaluated || a.Gate != audit.Pass {
				t.Errorf("base %v, policy %q, gate %s", a.Base, a.Policy["append_only"], a.Gate)
			}
			if res.CatFileProcesses != tc.catFiles {
				t.Errorf("%d cat-file processes without a base, want %d", res.CatFileProcesses, tc.catFiles)
			}
		})
	}
	t.Run("explicit base outside a work tree", func(t *testing.T) {
		_, err := Check(context.Background(), Options{Scope: Scope{Paths: []string{filepath.Join(outside, "runs")}, Base: "HEAD", Getenv: noEnv}})
		if err == nil || !strings.Contains(err.Error(), "not inside a git work tree") {
			t.Fatalf("err %v", err)
		}
	})
}

func TestHistoryBaseErrors(t *testing.T) {
	g := gittest.Init(t)
	copyExample(t, filepath.Join(g.Dir, "runs", exampleID))
	g.Commit("runs")
	dir := filepath.Join(g.Dir, "runs")
	var missing *gitrev.MissingCommitError
	if _, err := Check(context.Background(), Options{Scope: Scope{Paths: []string{dir}, Base: "no-such-branch", Getenv: noEnv}}); !errors.As(err, &missing) {
		t.Errorf("unknown base: %v", err)
	}
	if _, err := Check(context.Background(), Options{Scope: Scope{Paths: []string{dir}, Base: "-x", Getenv: noEnv}}); err == nil || !strings.Contains(err.Error(), `starts with "-"`) {
		t.Errorf("option-like base: %v", err)
	}
	// Deleting every run is reported, not mistaken for "no run found".
	g.Remove("runs/" + exampleID)
	os.MkdirAll(dir, 0o755)
	res, err := Check(context.Background(), Options{Scope: Scope{Paths: []string{dir}, Getenv: noEnv}})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Audits) != 1 || res.Audits[0].Gate != audit.Fail || rulesOf(res.Audits[0])[0] != finding.RunDeleted.ID {
		t.Fatalf("audits %+v", res.Audits)
	}
	if a := res.Audits[0]; a.Run != dir || a.Layout != "h3a" || a.Base == nil {
		t.Errorf("deleted-run audit: run %q, layout %q, base %v; want the folder, h3a and the base", a.Run, a.Layout, a.Base)
	}
	if _, err := Check(context.Background(), Options{Scope: Scope{Paths: []string{dir}, Base: "none"}}); !errors.Is(err, ErrNoRuns) {
		t.Errorf("no run and no base: %v, want ErrNoRuns", err)
	}
}

func TestTrustWorkingTreeRecorded(t *testing.T) {
	res, err := Check(context.Background(), Options{Scope: Scope{Paths: []string{exampleRuns}, Base: "none"}, Record: Record{TrustWorkingTree: true}})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Audits[0].TrustWorkingTree {
		t.Error("--trust-working-tree not recorded in the audit")
	}
}

// TestHistoryReadsOnlyWhatChanged: a file whose bytes are the base's (the
// same git object name) is not read from the base; only a file that
// changed is. The folder holding the runs is read once; then each run
// costs one exchange with cat-file for its folders, plus one for the
// contents that differ.
func TestHistoryReadsOnlyWhatChanged(t *testing.T) {
	g := gittest.Init(t)
	runs := filepath.Join(g.Dir, "runs")
	ids := []string{exampleID, strings.Replace(exampleID, "2f0f0d2e9c1a", "000000000001", 1), strings.Replace(exampleID, "2f0f0d2e9c1a", "000000000002", 1)}
	for _, id := range ids {
		dir := filepath.Join(runs, id)
		copyExample(t, dir)
		// No logged artifacts: their hashes are compared apart from the
		// history files.
		os.WriteFile(filepath.Join(dir, "state", "EVIDENCE_LOG.md"), []byte("# H3A Evidence Log\n\n## Artifact Index\n"), 0o644)
	}
	g.Commit("runs")
	ledger := filepath.Join(runs, ids[1], "state", "GATES_LEDGER.md")
	data, err := os.ReadFile(ledger)
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(ledger, append(data, "[2025-09-30T09:00:00Z] G3_production_ready - STARTED - system - deploy checks\n"...), 0o644)

	var loc gitrev.Locator
	defer loc.Close()
	res, err := Check(context.Background(), Options{Scope: Scope{Paths: []string{runs}, Getenv: noEnv, Locator: &loc}})
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range res.Audits {
		if a.Base == nil {
			t.Fatalf("%s: history not compared", a.Run)
		}
		for _, f := range a.Findings {
			if f.Category == finding.CategoryAppendOnly {
				t.Errorf("%s: %s %s", a.Run, f.Rule, f.Details)
			}
		}
	}
	repo, err := loc.Repo(g.Dir)
	if err != nil {
		t.Fatal(err)
	}
	exchanges, contents := repo.Traffic()
	if got := contents; got != 1 {
		t.Errorf("%d file contents read from the base, want 1 (the changed gate events log)", got)
	}
	// The base commit; the runs at the base, listed for deleted ones, one
	// exchange per level of folders (runs/, the runs, state/ and
	// artifacts/, the artifacts' subfolders); the folder holding the runs;
	// one per run; one more for the changed run.
	if want := 1 + 4 + 1 + len(ids) + 1; exchanges != want {
		t.Errorf("%d exchanges with cat-file, want %d", exchanges, want)
	}
	if repo.Processes() != 1 {
		t.Errorf("%d cat-file processes, want 1", repo.Processes())
	}
}

// TestDeletedRunBehindAFakeRun: a change that deletes a run and makes the
// folder that held it look like a run (a contract run's two files) is
// still reported: deleted runs are looked for under every folder searched,
// run or not, and at the base a run inside a run is found too.
func TestDeletedRunBehindAFakeRun(t *testing.T) {
	g := gittest.Init(t)
	copyExample(t, filepath.Join(g.Dir, "runs", exampleID))
	copyExample(t, filepath.Join(g.Dir, "runs", "held", exampleID))
	g.Write(map[string]string{"runs/held/handoff.json": `{"task_id": "T1"}`, "runs/held/verdict.json": `{"task_id": "T1"}`})
	g.Commit("runs, one inside a contract run")
	g.Remove("runs/" + exampleID)
	g.Remove("runs/held/" + exampleID)
	g.Write(map[string]string{"runs/handoff.json": `{"task_id": "T1"}`, "runs/verdict.json": `{"task_id": "T1"}`})
	res, err := Check(context.Background(), Options{Scope: Scope{Paths: []string{filepath.Join(g.Dir, "runs")}, Getenv: noEnv}})
	if err != nil {
		t.Fatal(err)
	}
	var deleted []string
	for _, a := range res.Audits {
		for _, f := range a.Findings {
			if f.Rule == finding.RunDeleted.ID {
				deleted = append(deleted, f.Details)
			}
		}
	}
	all := strings.Join(deleted, "\n")
	if len(deleted) != 2 || !strings.Contains(all, `run "held/`+exampleID+`"`) || !strings.Contains(all, `run "`+exampleID+`"`) {
		t.Errorf("deleted runs reported: %q, want both", deleted)
	}
	if res.Gate() != audit.Fail {
		t.Errorf("gate %s, want fail", res.Gate())
	}
}

// TestMoveNeedsOneCandidate: a run gone from runs/ whose name is new in
// two searched folders is no move: two copies cannot both claim its
// history, so the old place lost a run, and each copy is new.
func TestMoveNeedsOneCandidate(t *testing.T) {
	g := gittest.Init(t)
	copyExample(t, filepath.Join(g.Dir, "runs", exampleID))
	g.Write(map[string]string{"archive/README.md": "archive\n", "old/README.md": "old\n"})
	g.Commit("a run")
	copyExample(t, filepath.Join(g.Dir, "archive", exampleID))
	copyExample(t, filepath.Join(g.Dir, "old", exampleID))
	g.Remove("runs/" + exampleID)
	if err := os.MkdirAll(filepath.Join(g.Dir, "runs"), 0o755); err != nil {
		t.Fatal(err)
	}
	var paths []string
	for _, d := range []string{"runs", "archive", "old"} {
		paths = append(paths, filepath.Join(g.Dir, d))
	}
	res, err := Check(context.Background(), Options{Scope: Scope{Paths: paths, Getenv: noEnv}})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string][]string{}
	for _, a := range res.Audits {
		rel, _ := filepath.Rel(g.Dir, a.Run)
		for _, f := range a.Findings {
			if f.Category == finding.CategoryAppendOnly {
				got[filepath.ToSlash(rel)] = append(got[filepath.ToSlash(rel)], f.Rule)
			}
		}
	}
	want := map[string]string{
		"runs":                 finding.RunDeleted.ID,
		"archive/" + exampleID: finding.NewRun.ID,
		"old/" + exampleID:     finding.NewRun.ID,
	}
	for run, rule := range want {
		if strings.Join(got[run], ",") != rule {
			t.Errorf("%s: %v, want %s", run, got[run], rule)
		}
	}
}

// TestLayoutChangeOfANamedFile: a run checked through one of its files
// (no folder of runs is listed at the base) still has its base layout
// found: an h3a run turned into a contract run is a layout change.
func TestLayoutChangeOfANamedFile(t *testing.T) {
	g := gittest.Init(t)
	run := filepath.Join(g.Dir, "runs", exampleID)
	copyExample(t, run)
	g.Commit("an h3a run")
	g.Remove("runs/"+exampleID+"/state", "runs/"+exampleID+"/state.json")
	g.Write(map[string]string{"runs/" + exampleID + "/handoff.json": `{"task_id": "T1"}`, "runs/" + exampleID + "/verdict.json": `{"task_id": "T1"}`})
	res, err := Check(context.Background(), Options{Scope: Scope{Paths: []string{filepath.Join(run, "handoff.json")}, Getenv: noEnv}})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Audits) != 1 {
		t.Fatalf("%d audits, want 1", len(res.Audits))
	}
	a := res.Audits[0]
	rules := strings.Join(rulesOf(a), ",")
	if a.Layout != "contract" || !strings.Contains(rules, finding.LayoutChanged.ID) || !strings.Contains(rules, finding.FileRemoved.ID) || strings.Contains(rules, finding.NewRun.ID) {
		t.Errorf("layout %s, rules %s: want a contract run with layout_changed and file_removed, not new", a.Layout, rules)
	}
}

// TestRunsBehindALinkedFolder: a change that moves runs/ away and leaves a
// symbolic link runs -> .hidden in its place must not make its runs new:
// runs/ (as named) held a run at the base, whose ledger the change
// rewrote, so that run is gone from runs/ and its history is compared,
// whether the folder of runs or the run itself is named.
func TestRunsBehindALinkedFolder(t *testing.T) {
	g := gittest.Init(t)
	copyExample(t, filepath.Join(g.Dir, "runs", exampleID))
	g.Commit("a run")
	ledger := filepath.Join(g.Dir, "runs", exampleID, "state", "GATES_LEDGER.md")
	data, err := os.ReadFile(ledger)
	if err != nil {
		t.Fatal(err)
	}
	data = []byte(strings.Replace(string(data), "coverage +5.2%", "coverage +9.9%", 1))
	if err := os.WriteFile(ledger, data, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(filepath.Join(g.Dir, "runs"), filepath.Join(g.Dir, ".hidden")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(".hidden", filepath.Join(g.Dir, "runs")); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{"runs", "runs/" + exampleID} {
		res, err := Check(context.Background(), Options{Scope: Scope{Paths: []string{filepath.Join(g.Dir, path)}, Getenv: noEnv}})
		if err != nil {
			t.Fatal(err)
		}
		var rules []string
		for _, a := range res.Audits {
			rules = append(rules, rulesOf(a)...)
		}
		if res.Gate() != audit.Fail || !slices.Contains(rules, finding.RunDeleted.ID) {
			t.Errorf("%s: gate %s, findings %v; want fail with %s", path, res.Gate(), rules, finding.RunDeleted.ID)
		}
	}
}
