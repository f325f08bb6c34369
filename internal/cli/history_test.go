package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/h3a-check/h3a-check/internal/gitrev/gittest"
)

// originWithTwoCommits makes a repository holding the complete example run
// at runs/<id>, committed twice (the second commit appends a gate event
// legitimately), and returns it with the first commit's name.
func originWithTwoCommits(t *testing.T) (*gittest.Repo, string) {
	t.Helper()
	origin := gittest.Init(t)
	src, err := filepath.Glob(filepath.Join(casesDir, "ok", "complete", "*-*"))
	if err != nil || len(src) != 1 {
		t.Fatalf("complete run not found: %v", err)
	}
	run := filepath.Join(origin.Dir, "runs", filepath.Base(src[0]))
	if err := os.CopyFS(run, os.DirFS(src[0])); err != nil {
		t.Fatal(err)
	}
	first := origin.Commit("first")
	ledger := filepath.Join(run, "state", "GATES_LEDGER.md")
	data, _ := os.ReadFile(ledger)
	data = bytes.Replace(data, []byte("mutation score 91.3%\n"), []byte("mutation score 91.3%\n[2025-09-30T09:00:00Z] G3_production_ready - STARTED - system - deploy checks\n"), 1)
	os.WriteFile(ledger, data, 0o644)
	origin.Commit("second")
	origin.Git("config", "uploadpack.allowAnySHA1InWant", "true")
	return origin, first
}

// TestShallowCloneBase: a base missing from a shallow clone is exit 2 with
// the remedy, never "every file is new"; once fetched, the check runs.
func TestShallowCloneBase(t *testing.T) {
	origin, first := originWithTwoCommits(t)
	clone := filepath.Join(t.TempDir(), "clone")
	origin.Git("clone", "-q", "--depth", "1", "file://"+origin.Dir, clone)
	runs := filepath.Join(clone, "runs")
	t.Chdir(clone) // --base names a commit of this clone: its configuration is read there too

	code, stdout, stderr := runMain("--base", first, runs)
	if code != ExitError {
		t.Fatalf("exit %d, want 2\nstdout: %s\nstderr: %s", code, stdout, stderr)
	}
	for _, want := range []string{"not in this shallow clone", "fetch-depth: 0", "git fetch --no-tags --depth=1 origin " + first} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}

	gittest.At(t, clone).Git("fetch", "-q", "--no-tags", "--depth=1", "origin", first)
	code, audits, stderr := checkWithBase(t, first, runs)
	if code != ExitPass || len(audits) != 1 {
		t.Fatalf("after fetching the base: exit %d, %d audits: %s", code, len(audits), stderr)
	}
	if audits[0].Base == nil || *audits[0].Base != first {
		t.Errorf("audit base %v, want %s", audits[0].Base, first)
	}
}

// checkWithBase is checkJSON with a base instead of --base none.
func checkWithBase(t *testing.T, base string, args ...string) (int, []*auditT, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := Main(append([]string{"--format", "json", "--base", base}, args...), nil, &out, &errb)
	var doc struct {
		Audits []*auditT `json:"audits"`
	}
	if code != ExitError {
		if err := json.Unmarshal(out.Bytes(), &doc); err != nil {
			t.Fatalf("stdout is not JSON: %v\n%s", err, out.String())
		}
	}
	return code, doc.Audits, errb.String()
}

type auditT struct {
	Gate             string  `json:"gate"`
	Base             *string `json:"base"`
	TrustWorkingTree bool    `json:"trust_working_tree"`
	Findings         []struct {
		Rule    string `json:"rule"`
		Details string `json:"details"`
	} `json:"findings"`
}

// TestPullRequestEvent: in GitHub Actions on pull_request, the default base
// is the merge base of the event's base commit and HEAD.
func TestPullRequestEvent(t *testing.T) {
	origin, first := originWithTwoCommits(t)
	event := filepath.Join(t.TempDir(), "event.json")
	os.WriteFile(event, []byte(`{"pull_request": {"base": {"sha": "`+first+`"}}}`), 0o644)
	vars := map[string]string{"GITHUB_ACTIONS": "true", "GITHUB_EVENT_NAME": "pull_request", "GITHUB_EVENT_PATH": event}
	var out, errb bytes.Buffer
	code := run(context.Background(), []string{"--format", "json", "--trust-working-tree", filepath.Join(origin.Dir, "runs")},
		&env{stdout: &out, stderr: &errb, getenv: func(k string) string { return vars[k] }})
	if code != ExitPass {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	var doc struct {
		Audits []*auditT `json:"audits"`
	}
	if err := json.Unmarshal(out.Bytes(), &doc); err != nil || len(doc.Audits) != 1 {
		t.Fatalf("%v\n%s", err, out.String())
	}
	a := doc.Audits[0]
	if a.Base == nil || *a.Base != first {
		t.Errorf("base %v, want the pull request's base %s", a.Base, first)
	}
	if !a.TrustWorkingTree {
		t.Error("--trust-working-tree not recorded")
	}
}

func TestBaseFlagUsage(t *testing.T) {
	code, _, stderr := runMain("--base", "--help", casesDir)
	if code != ExitError || !strings.Contains(stderr, `--base "--help"`) {
		t.Errorf("exit %d, stderr %q", code, stderr)
	}
}

// TestHistoryRemediationsNameTheBase: a history finding's remediation is
// the git command to run, with the base commit and the path of what it is
// about (the artifact, not the log line that names it; the run for a
// deleted run), as the working directory reaches it.
func TestHistoryRemediationsNameTheBase(t *testing.T) {
	origin := gittest.Init(t)
	src, err := filepath.Glob(filepath.Join(casesDir, "ok", "complete", "*-*"))
	if err != nil || len(src) != 1 {
		t.Fatalf("complete run not found: %v", err)
	}
	id := filepath.Base(src[0])
	for _, name := range []string{id, "20250929-134215-0b6f8b9a-7c9f-4c5e-8c6a-2f0f0d2e9c1a"} {
		if err := os.CopyFS(filepath.Join(origin.Dir, "runs", name), os.DirFS(src[0])); err != nil {
			t.Fatal(err)
		}
	}
	base := origin.Commit("runs")
	short := base[:12]
	artifact := filepath.Join(origin.Dir, "runs", id, "artifacts", "executor", "test_output_green.txt")
	if err := os.WriteFile(artifact, []byte("rewritten\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.RemoveAll(filepath.Join(origin.Dir, "runs", "20250929-134215-0b6f8b9a-7c9f-4c5e-8c6a-2f0f0d2e9c1a")); err != nil {
		t.Fatal(err)
	}
	ledger := filepath.Join(origin.Dir, "runs", id, "state", "GATES_LEDGER.md")
	data, _ := os.ReadFile(ledger)
	os.WriteFile(ledger, bytes.Replace(data, []byte("G0_planning - STARTED"), []byte("G0_planning - BEGUN"), 1), 0o644)
	t.Chdir(origin.Dir)
	var out, errb bytes.Buffer
	Main([]string{"--format", "json", "--base", base, "runs"}, nil, &out, &errb)
	var doc struct {
		Audits []struct {
			Findings []struct{ Rule, Remediation string } `json:"findings"`
		} `json:"audits"`
	}
	if err := json.Unmarshal(out.Bytes(), &doc); err != nil {
		t.Fatalf("%v: %s", err, errb.String())
	}
	got := map[string]string{}
	for _, a := range doc.Audits {
		for _, f := range a.Findings {
			got[f.Rule] = f.Remediation
		}
	}
	want := map[string]string{
		"h3a.append_only.artifact_changed": "restore the artifact from the base revision (git checkout " + short + " -- " +
			filepath.Join("runs", id, "artifacts", "executor", "test_output_green.txt") + "); write new evidence to a new file and log it (h3a-check log RUN FILE \"description\")",
		"h3a.append_only.run_deleted": "restore the run (git checkout " + short + " -- " +
			filepath.Join("runs", "20250929-134215-0b6f8b9a-7c9f-4c5e-8c6a-2f0f0d2e9c1a") + "); if a person archived it on purpose, review and land that change on its own",
		"h3a.append_only.gate_event_rewritten": "restore the events from the base revision (git show " + short + ":runs/" + id +
			"/state/GATES_LEDGER.md shows them) and append a new event (e.g. \"FAILED\" then a later \"PASSED\") instead of editing an old one",
	}
	for rule, w := range want {
		if got[rule] != w {
			t.Errorf("%s remediation\n%q\nwant\n%q", rule, got[rule], w)
		}
	}
}
