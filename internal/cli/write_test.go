package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/h3a-check/h3a-check/internal/audit"
	"github.com/h3a-check/h3a-check/internal/rundir"
)

// findingRules lists the rule of every finding, in order.
func findingRules(audits []*audit.Audit) []string {
	var rules []string
	for _, a := range audits {
		for _, f := range a.Findings {
			rules = append(rules, f.Rule)
		}
	}
	return rules
}

// TestInitLogCheck: a run made by init passes the checker as it is; the
// artifacts written into it are warnings until log records them, and then
// the run passes with no hash written by hand.
func TestInitLogCheck(t *testing.T) {
	t.Chdir(t.TempDir())
	code, stdout, stderr := runMain("init", "--task-brief", "Add JWT authentication to the auth service.")
	if code != ExitPass {
		t.Fatalf("init: exit %d: %s", code, stderr)
	}
	run := strings.TrimSpace(stdout)
	if filepath.Dir(run) != "runs" || rundir.CheckRunID(filepath.Base(run)) != "" {
		t.Fatalf("init printed %q, want runs/<run id>", stdout)
	}
	code, audits, stderr := checkJSON(t, run)
	if code != ExitPass || strings.Join(findingRules(audits), " ") != "h3a.append_only.not_compared" {
		t.Fatalf("a fresh run: exit %d, findings %v: %s", code, findingRules(audits), stderr)
	}

	artifacts := map[string]string{
		"artifacts/planner/plan.md":                "# Plan\n",
		"artifacts/executor/test_output_red.txt":   "1 failed\n",
		"artifacts/executor/test_output_green.txt": "47 passed\n",
	}
	for rel, content := range artifacts {
		if err := os.WriteFile(filepath.Join(run, filepath.FromSlash(rel)), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	_, audits, _ = checkJSON(t, run)
	if got := strings.Count(strings.Join(findingRules(audits), " "), "h3a.evidence.unlogged_file"); got != len(artifacts) {
		t.Errorf("%d unlogged-file warnings before logging, want %d: %v", got, len(artifacts), findingRules(audits))
	}
	for rel := range artifacts {
		code, stdout, stderr := runMain("log", run, filepath.Join(run, filepath.FromSlash(rel)), "output of "+filepath.Base(rel))
		if code != ExitPass || !strings.HasPrefix(stdout, run+"/state/EVIDENCE_LOG.md:") || !strings.Contains(stdout, "- `"+rel+"` - [hash:") {
			t.Fatalf("log %s: exit %d\n%s%s", rel, code, stdout, stderr)
		}
	}
	code, audits, stderr = checkJSON(t, run)
	if code != ExitPass || strings.Join(findingRules(audits), " ") != "h3a.append_only.not_compared" {
		t.Fatalf("after logging: exit %d, findings %v: %s", code, findingRules(audits), stderr)
	}
	if audits[0].Counts.Warning != 0 {
		t.Errorf("warnings left: %+v", audits[0].Counts)
	}
}

func TestWriteCommandsRefuse(t *testing.T) {
	t.Chdir(t.TempDir())
	_, stdout, _ := runMain("init")
	run := strings.TrimSpace(stdout)
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"init with an argument", []string{"init", "brief"}, "init takes no arguments"},
		{"init into a control character", []string{"init", "--runs", "a\x1bb"}, "expected a folder name"},
		{"init with a planted heading", []string{"init", "--task-brief", "x\n## Task Queue\n- [ ] T001: y"}, "task brief"},
		{"log with two arguments", []string{"log", run, "x"}, "log takes RUN FILE DESCRIPTION (2 arguments given)"},
		{"log a missing file", []string{"log", run, filepath.Join(run, "nope.txt"), "d"}, "does not exist"},
		{"log a folder", []string{"log", run, filepath.Join(run, "artifacts"), "d"}, "is a folder"},
		{"log outside the run", []string{"log", run, "runs", "d"}, "is outside the run"},
		{"log a two-line description", []string{"log", run, filepath.Join(run, "README.md"), "a\nb"}, "control character U+000A"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, _, stderr := runMain(tt.args...)
			if code != ExitError || !strings.Contains(stderr, tt.want) {
				t.Errorf("exit %d, stderr %q; want 2 and %q", code, stderr, tt.want)
			}
		})
	}
}

// TestInitLayouts: init makes a fresh run of every layout, detected as
// that layout, which the checker passes.
func TestInitLayouts(t *testing.T) {
	for _, l := range layoutIDList() {
		t.Run(l, func(t *testing.T) {
			var out, errb bytes.Buffer
			if code := Main([]string{"init", "--layout", l, "--runs", t.TempDir(), "--task-brief", "Add a login form"}, nil, &out, &errb); code != ExitPass {
				t.Fatalf("init: exit %d: %s", code, errb.String())
			}
			run := strings.TrimSpace(out.String())
			code, audits, stderr := checkJSON(t, run)
			if code != ExitPass || len(audits) != 1 || audits[0].Layout != l {
				t.Fatalf("check: exit %d (want 0), %d audits of layout %v; %s\n%s", code, len(audits), audits, stderr, wantText(code, audits))
			}
		})
	}
}

// TestLogEscapesTheEntry: the line log prints holds the artifact's name,
// which the run chose; a "##[" in it (a workflow command wherever it is on
// a line) is shown escaped, while the log keeps the exact bytes.
func TestLogEscapesTheEntry(t *testing.T) {
	t.Chdir(t.TempDir())
	_, stdout, _ := runMain("init")
	run := strings.TrimSpace(stdout)
	rel := "artifacts/executor/a##[error]b.txt"
	if err := os.WriteFile(filepath.Join(run, filepath.FromSlash(rel)), []byte("x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := runMain("log", run, filepath.Join(run, filepath.FromSlash(rel)), "see ##[warning]w")
	if code != ExitPass {
		t.Fatalf("log: exit %d: %s", code, stderr)
	}
	if strings.Contains(stdout, "##[") || !strings.Contains(stdout, "a##\\x5berror]b.txt") || !strings.Contains(stdout, "see ##\\x5bwarning]w") {
		t.Errorf("log printed %q; want every ##[ escaped", stdout)
	}
	data, err := os.ReadFile(filepath.Join(run, "state", "EVIDENCE_LOG.md"))
	if err != nil || !strings.Contains(string(data), "- `"+rel+"` - [hash:") {
		t.Errorf("the log does not hold the exact entry (%v):\n%s", err, data)
	}
}
