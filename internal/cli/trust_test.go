package cli

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/h3a-check/h3a-check/internal/audit"
	"github.com/h3a-check/h3a-check/internal/audit/audittest"
	"github.com/h3a-check/h3a-check/internal/config"
	"github.com/h3a-check/h3a-check/internal/finding"
	"github.com/h3a-check/h3a-check/internal/gitrev/gittest"
)

// TestConfigReadFromBase: in CI, a change that breaks an artifact and adds
// a waiver for it in its own .h3a-check.yaml is judged by the configuration
// at the base, so the waiver does not apply; --trust-working-tree (for the
// change that edits the configuration on purpose) uses it, and says so.
// Outside CI without --base the working tree is the person's own.
func TestConfigReadFromBase(t *testing.T) {
	gittest.Isolate(t)
	t.Setenv("CI", "true")
	dir := configRepo(t, "hash_mismatch", "")
	repo := gittest.At(t, dir)
	repo.Git("init", "-q")
	repo.Write(map[string]string{config.DefaultFile: "fail-level: error\n"})
	repo.Git("add", "-A")
	repo.Publish(repo.Commit("base: runs and a configuration without waivers"))
	repo.Write(map[string]string{config.DefaultFile: fmt.Sprintf(hashWaiver, "2999-12-31")})

	tests := []struct {
		name     string
		args     []string
		wantCode int
		origin   string
		waived   bool
		ci       bool
		reason   string // how the source's reason begins: the flag that decided
	}{
		{"CI: the working tree's waiver is not read", []string{"runs"}, ExitFail, "base", false, true, "in CI the working tree is the change under review"},
		{"CI, --base none: the rules still come from the base", []string{"--base", "none", "runs"}, ExitFail, "base", false, true, "in CI the working tree is the change under review"},
		{"CI, --trust-working-tree reads it", []string{"--trust-working-tree", "runs"}, ExitPass, "working-tree", true, true, "--trust-working-tree"},
		{"local, --base HEAD: the working tree's waiver is not read", []string{"--base", "HEAD", "runs"}, ExitFail, "base", false, false, "--base HEAD was given"},
		{"local: the working tree is the person's own", []string{"runs"}, ExitPass, "working-tree", true, false, "not in CI and no --base given: the working tree is your own"},
		{"local, --base none", []string{"--base", "none", "runs"}, ExitPass, "working-tree", true, false, "not in CI and no --base given: the working tree is your own"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if !tc.ci {
				t.Setenv("CI", "")
			}
			code, audits, stderr := jsonReport(t, tc.args...)
			if code != tc.wantCode {
				t.Fatalf("exit %d, want %d: %s", code, tc.wantCode, stderr)
			}
			a := audits[0]
			if len(a.Sources) != 1 || a.Sources[0].Origin != tc.origin || a.Sources[0].Path != config.DefaultFile {
				t.Fatalf("sources %+v, want %s from %s", a.Sources, config.DefaultFile, tc.origin)
			}
			if !strings.HasPrefix(a.Sources[0].Reason, tc.reason) {
				t.Errorf("reason %q, want it to begin %q", a.Sources[0].Reason, tc.reason)
			}
			if waived := a.Counts.Waived > 0; waived != tc.waived {
				t.Errorf("waived %v, want %v (counts %+v)", waived, tc.waived, a.Counts)
			}
		})
	}
}

// waiverBase is a repository in CI whose base commit holds the
// hash_mismatch case's run and waivers of its two errors on glob, then
// more: the working directory is its top.
func waiverBase(t *testing.T, glob, more string) (string, *gittest.Repo, string) {
	t.Helper()
	gittest.Isolate(t)
	t.Setenv("CI", "true")
	dir := configRepo(t, "hash_mismatch", fmt.Sprintf(`waivers:
  - {rule: h3a.integrity.hash_mismatch, path: %[1]q, reason: vendor tool, expires: 2999-12-31}
  - {rule: h3a.evidence.required_artifact, path: %[1]q, reason: same, expires: 2999-12-31}
`, glob)+more)
	repo := gittest.At(t, dir)
	repo.Git("init", "-q")
	repo.Git("add", "-A")
	base := repo.Commit("base: a run and waivers")
	repo.Publish(base)
	return dir, repo, base
}

// TestWaiverNewRun: a waiver at the base whose glob covers every run
// accepts the findings of a run the base holds, but none of a run the
// change adds under the same glob: the waiver was no decision about it.
// Without a base to compare with, the waiver applies as written.
func TestWaiverNewRun(t *testing.T) {
	dir, repo, base := waiverBase(t, "runs/*/**", "  - {rule: h3a.structure.symlink, path: \"runs/*/**\", reason: old shortcuts, expires: 2999-12-31}\n")

	code, audits, stderr := jsonReport(t, "--base", base, "runs")
	if code != ExitPass || len(audits) == 0 || audits[0].Run != "runs/"+runID || audits[0].Counts.Waived != 2 {
		t.Fatalf("the run at the base: exit %d, want %d with 2 waived: %s", code, ExitPass, stderr)
	}

	// change commits what edit does, and checks it against the base: it
	// fails.
	change := func(what string, edit func() error) []*audit.Audit {
		t.Helper()
		if err := edit(); err != nil {
			t.Fatal(err)
		}
		repo.Git("add", "-A")
		repo.Commit("the change: " + what)
		code, audits, stderr := jsonReport(t, "--base", base, "runs")
		if code != ExitFail {
			t.Fatalf("%s under a base waiver: exit %d, want %d: %s", what, code, ExitFail, stderr)
		}
		return audits
	}
	audits = change("a broken run", func() error {
		return audittest.CopyRunAs(filepath.Join(dir, "runs", runID), filepath.Join(dir, "runs", "b", otherRunID), runID, otherRunID)
	})
	for _, a := range audits {
		notes := 0
		for _, f := range a.Findings {
			if f.Rule == "h3a.waiver.new_run" {
				notes++
			}
		}
		switch a.Run {
		case "runs/" + runID:
			if a.Gate != "pass" || a.Counts.Waived != 2 || notes != 0 {
				t.Errorf("the run at the base: gate %s, counts %+v, %d new_run findings; want pass with 2 waived", a.Gate, a.Counts, notes)
			}
		case "runs/b/" + otherRunID:
			if a.Gate != "fail" || a.Counts.Waived != 0 || notes != 2 {
				t.Errorf("the new run: gate %s, counts %+v, %d new_run findings; want fail, none waived, 2 saying why", a.Gate, a.Counts, notes)
			}
		}
	}

	// A run folder the change adds as a link is not read, so never
	// compared: whether the base holds it is looked up by its path.
	audits = change("a run folder that is a link", func() error {
		if err := os.RemoveAll(filepath.Join(dir, "runs", "b")); err != nil {
			return err
		}
		if err := os.MkdirAll(filepath.Join(dir, "runs", "c"), 0o755); err != nil {
			return err
		}
		return os.Symlink(filepath.Join("..", runID), filepath.Join(dir, "runs", "c", runID))
	})
	for _, a := range audits {
		if a.Run == "runs/c/"+runID && (a.Gate != "fail" || a.Counts.Waived != 0) {
			t.Errorf("the new linked run: gate %s, counts %+v; want fail, none waived", a.Gate, a.Counts)
		}
	}

	t.Setenv("CI", "")
	if code, _, stderr := jsonReport(t, "--base", "none", "runs"); code != ExitPass {
		t.Errorf("--base none: exit %d, want %d (no base: the waiver applies as written): %s", code, ExitPass, stderr)
	}
}

// TestWaiverNewFinding: a base waiver keeps accepting the findings the run
// had at the base, but not one the change adds to that run: here an
// artifact logged with a wrong hash, appended to the evidence log under the
// same rule and glob.
func TestWaiverNewFinding(t *testing.T) {
	dir, repo, base := waiverBase(t, "runs/**", "")
	run := filepath.Join(dir, "runs", runID)
	if err := os.WriteFile(filepath.Join(run, "artifacts", "validator", "extra_report.txt"), []byte("extra\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	logPath := filepath.Join(run, "state", "EVIDENCE_LOG.md")
	data, err := os.ReadFile(logPath)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(data), "\n")
	last := -1
	for i, l := range lines {
		if strings.HasPrefix(l, "- `") {
			last = i
		}
	}
	if last < 0 {
		t.Fatal("no evidence entry to append after")
	}
	entry := "- `artifacts/validator/extra_report.txt` - [hash:0000111122223333] - 2025-09-29T15:01:00Z - Extra report"
	lines = append(lines[:last+1], append([]string{entry}, lines[last+1:]...)...)
	if err := os.WriteFile(logPath, []byte(strings.Join(lines, "\n")), 0o644); err != nil {
		t.Fatal(err)
	}
	a := commitFails(t, repo, base, "an artifact logged with a wrong hash")
	notes := 0
	for _, f := range a.Findings {
		if f.Rule == "h3a.waiver.new_run" {
			notes++
		}
	}
	if a.Gate != "fail" || a.Counts.Waived != 2 || notes != 1 {
		t.Errorf("gate %s, counts %+v, %d new_run findings; want fail, the base's 2 still waived, 1 saying why", a.Gate, a.Counts, notes)
	}
}

// TestWaiverHistoryFinding: what the history comparison finds is what the
// change did, so no base waiver accepts it, even on a line the change left
// alone: here an artifact rewritten under its unchanged log entry, with a
// waiver of every append-only rule.
func TestWaiverHistoryFinding(t *testing.T) {
	dir, repo, base := waiverBase(t, "runs/**", "  - {rule: \"h3a.append_only.*\", path: \"runs/**\", reason: old history, expires: 2999-12-31}\n")
	red := filepath.Join(dir, "runs", runID, "artifacts", "executor", "test_output_red.txt")
	data, err := os.ReadFile(red)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(red, append(data, "and one more line\n"...), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, f := range commitFails(t, repo, base, "a logged artifact rewritten").Findings {
		if strings.HasPrefix(f.Rule, "h3a.append_only.") && f.Waived.Source != "" {
			t.Errorf("history finding waived: %+v", f)
		}
	}
}

// commitFails commits the working tree as the change, checks it against
// base, and returns the audit of its one run, which must fail.
func commitFails(t *testing.T, repo *gittest.Repo, base, what string) *audit.Audit {
	t.Helper()
	repo.Git("add", "-A")
	repo.Commit("the change: " + what)
	code, audits, stderr := jsonReport(t, "--base", base, "runs")
	if code != ExitFail || len(audits) == 0 {
		t.Fatalf("%s under base waivers: exit %d, want %d: %s", what, code, ExitFail, stderr)
	}
	return audits[0]
}

// TestWaiverMovedRun: moving a failing run under a base waiver's glob does
// not waive it, since the waiver did not cover it where the base holds it.
func TestWaiverMovedRun(t *testing.T) {
	dir, repo, base := waiverBase(t, "runs/legacy/**", "")
	if err := os.MkdirAll(filepath.Join(dir, "runs", "legacy"), 0o755); err != nil {
		t.Fatal(err)
	}
	repo.Git("mv", "runs/"+runID, "runs/legacy/"+runID)
	repo.Commit("the change: the run moved under the waivers' glob")
	code, audits, stderr := jsonReport(t, "--base", base, "runs")
	if code != ExitFail || len(audits) == 0 || audits[0].Counts.Waived != 0 {
		t.Fatalf("a run moved under a base waiver: exit %d, want %d with none waived: %s", code, ExitFail, stderr)
	}
}

// TestConfigOnlyInHead: in CI, a configuration the base does not have is
// not used, and the report says so as a finding on the file.
func TestConfigOnlyInHead(t *testing.T) {
	gittest.Isolate(t)
	t.Setenv("CI", "true")
	dir := configRepo(t, "hash_mismatch", "")
	repo := gittest.At(t, dir)
	repo.Git("init", "-q")
	repo.Git("add", "-A")
	repo.Publish(repo.Commit("base: runs only"))
	repo.Write(map[string]string{config.DefaultFile: fmt.Sprintf(hashWaiver, "2999-12-31")})

	var out, errb bytes.Buffer
	code := Main([]string{"--color", "never", "runs"}, nil, &out, &errb)
	if code != ExitFail {
		t.Fatalf("exit %d, want 1 (the waiver must not apply): %s", code, errb.String())
	}
	if !strings.Contains(out.String(), ".h3a-check.yaml: warning: .h3a-check.yaml is only in the working tree (a file): the change under review edits the rules") || !strings.Contains(out.String(), "[h3a.security.rules_changed]") ||
		!strings.Contains(out.String(), "the change's version applies once it is merged (or with --trust-working-tree)") {
		t.Errorf("no finding about the configuration the change adds:\n%s", out.String())
	}
	if !strings.Contains(out.String(), "read: .h3a-check.yaml from commit ") || !strings.Contains(out.String(), "(in CI the working tree is the change under review; read at origin/HEAD") {
		t.Errorf("the text report does not say where the configuration came from:\n%s", out.String())
	}
}

// mainBranchRule is a repository policy that refuses runs made on main.
const mainBranchRule = `package h3a.user.repo

import data.h3a.lib

# METADATA
# title: Run made on main
# description: Runs must come from a feature branch.
# custom:
#   id: h3a.user.repo.main_branch
#   category: policy
#   severity: error
#   remediation: run the agents on a feature branch
deny contains f if {
	input.docs.state.meta.branch == "main"
	f := lib.finding(rego.metadata.rule(), {"msg": "run made on main", "file": "state.json", "pointer": "/meta/branch"})
}
`

// TestPolicyReadFromBase: in CI, a change that deletes a repository policy
// and breaks the rule it held is still caught, because the policy folder
// is read as it is at the base.
func TestPolicyReadFromBase(t *testing.T) {
	gittest.Isolate(t)
	t.Setenv("CI", "true")
	// Start from a passing run: the ok example (found before configRepo
	// changes the working directory).
	src, _ := filepath.Glob(filepath.Join(casesDir, "ok", "complete", "*-*"))
	if len(src) != 1 {
		t.Fatal("complete run not found")
	}
	example, _ := filepath.Abs(src[0])
	dir := configRepo(t, "hash_mismatch", "")
	run := filepath.Join(dir, "runs", filepath.Base(example))
	if err := os.RemoveAll(run); err != nil {
		t.Fatal(err)
	}
	if err := os.CopyFS(run, os.DirFS(example)); err != nil {
		t.Fatal(err)
	}
	repo := gittest.At(t, dir)
	repo.Git("init", "-q")
	repo.Write(map[string]string{"repo-policies/repo.rego": mainBranchRule})
	repo.Git("add", "-A")
	repo.Publish(repo.Commit("base: a passing run and the repository's policy"))

	// The change: delete the policy, and make the run break it.
	repo.Remove("repo-policies/repo.rego")
	state := filepath.Join(run, "state.json")
	b, _ := os.ReadFile(state)
	os.WriteFile(state, []byte(strings.Replace(string(b), `"feature/jwt-auth"`, `"main"`, 1)), 0o644)
	os.MkdirAll(filepath.Join(dir, "repo-policies"), 0o755)

	code, audits, stderr := jsonReport(t, "--policy", "repo-policies", "runs")
	if code != ExitFail || !hasRule(audits, "h3a.user.repo.main_branch", "run made on main") {
		t.Fatalf("exit %d (want 1): the deleted rule must still judge the change; stderr %s", code, stderr)
	}
	if src := audits[0].Sources; len(src) != 1 || src[0].Origin != "base" {
		t.Errorf("sources %+v, want repo-policies from the base", src)
	}
	// On purpose, for the change that edits the policies: the working tree
	// has no rule left, which fails closed (exit 2), never a silent pass.
	code, _, stderr = jsonReport(t, "--trust-working-tree", "--policy", "repo-policies", "runs")
	if code != ExitError {
		t.Errorf("--trust-working-tree with an empty policy folder: exit %d, want 2 (%s)", code, stderr)
	}
}

// TestConfigFoundUpward: checked from a folder below the repository's
// top, the nearest .h3a-check.yaml above applies, with its paths resolved
// from its own folder; in CI the base's version of that file is read; a
// file in a nearer folder wins.
func TestConfigFoundUpward(t *testing.T) {
	gittest.Isolate(t)
	dir := configRepo(t, "hash_mismatch", "fail-level: error\n")
	repo := gittest.At(t, dir)
	repo.Git("init", "-q")
	repo.Git("add", "-A")
	repo.Publish(repo.Commit("base: runs and a configuration without waivers"))
	repo.Write(map[string]string{config.DefaultFile: fmt.Sprintf(hashWaiver, "2999-12-31")})
	t.Chdir(filepath.Join(dir, "runs"))

	tests := []struct {
		name     string
		ci       bool
		nearer   string // a configuration in runs/ itself
		wantCode int
		origin   string
		path     string
		waived   bool
	}{
		{"local: the parent's file applies", false, "", ExitPass, "working-tree", "../" + config.DefaultFile, true},
		{"CI: the base's version of the parent's file applies", true, "", ExitFail, "base", "../" + config.DefaultFile, false},
		{"local: a nearer file wins", false, bothWarnings, ExitPass, "working-tree", config.DefaultFile, false},
		// A nearer file the change adds cannot replace the base's: it is
		// reported (a source of its own, and a finding) and not used.
		{"CI: a nearer file only the change adds is not used", true, bothWarnings, ExitFail, "base", "../" + config.DefaultFile, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("CI", map[bool]string{true: "true", false: ""}[tc.ci])
			if tc.nearer != "" {
				os.WriteFile(config.DefaultFile, []byte(tc.nearer), 0o644)
				defer os.Remove(config.DefaultFile)
			}
			code, audits, stderr := jsonReport(t, ".")
			if code != tc.wantCode {
				t.Fatalf("exit %d, want %d: %s", code, tc.wantCode, stderr)
			}
			src := audits[0].Sources
			used := src[len(src)-1]
			if used.Origin != tc.origin || filepath.ToSlash(used.Path) != tc.path {
				t.Fatalf("sources %+v, want %s from %s", src, tc.path, tc.origin)
			}
			wantIgnored := tc.ci && tc.nearer != "" // in CI the nearer file is the change's
			if gotIgnored := len(src) == 2 && len(src[0].Ignored) > 0; gotIgnored != wantIgnored || !wantIgnored && len(src) != 1 {
				t.Errorf("sources %+v: want the nearer file named as ignored %v, and no other source", src, wantIgnored)
			}
			if waived := audits[0].Counts.Waived > 0; waived != tc.waived {
				t.Errorf("waived %v, want %v (counts %+v)", waived, tc.waived, audits[0].Counts)
			}
		})
	}
}

// TestConfigCommand: "h3a-check config" names the file it found and where
// each value comes from: a flag, file:line, or the default.
func TestConfigCommand(t *testing.T) {
	gittest.Isolate(t)
	t.Setenv("CI", "")
	dir := configRepo(t, "hash_mismatch", "paths:\n  - runs\nlayout: h3a\n"+fmt.Sprintf(hashWaiver, "2999-12-31"))
	gittest.At(t, dir).Git("init", "-q")
	t.Chdir(filepath.Join(dir, "runs"))
	var out, errb bytes.Buffer
	if code := Main([]string{"config", "--fail-level", "warning"}, nil, &out, &errb); code != ExitPass {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	for _, want := range []string{
		"# read: ../.h3a-check.yaml: working-tree",
		"paths: ../runs", "# ../.h3a-check.yaml:2\n",
		"layout: h3a", "# ../.h3a-check.yaml:3\n",
		"fail-level: warning", "# flag --fail-level\n",
		"waiver: h3a.integrity.hash_mismatch path runs/*/state/EVIDENCE_LOG.md until 2999-12-31 # ../.h3a-check.yaml:5\n",
		"evidence.min-hash-digits: 16", "# default",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
}

// TestWaiverFindingFromAnEditElsewhere: a finding on a line the change
// left alone is still new when an edit elsewhere made it. Here the change
// moves the current task on to T002 (planned in the roadmap) while the
// handoff and the reports still speak of T001: the mismatch and the
// missing evidence are reported on the reports' and the handoff's
// unchanged lines. The run as the base holds it had none of them, so the
// base's waivers, which passed every such line, accept none.
func TestWaiverFindingFromAnEditElsewhere(t *testing.T) {
	dir, repo, base := waiverBase(t, "runs/**", `  - {rule: "h3a.evidence.*", path: "runs/**", reason: old reports, expires: 2999-12-31}
  - {rule: h3a.traceability.task_id_mismatch, path: "runs/**", reason: an old handoff, expires: 2999-12-31}
`)
	state := filepath.Join(dir, "runs", runID, "state")
	edit := func(name, old, new string) {
		t.Helper()
		p := filepath.Join(state, name)
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Contains(data, []byte(old)) {
			t.Fatalf("%s holds no %q", name, old)
		}
		if err := os.WriteFile(p, bytes.Replace(data, []byte(old), []byte(new), 1), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	edit("ROADMAP.md", "(Completed: 2025-09-29T15:00:00Z)\n", "(Completed: 2025-09-29T15:00:00Z)\n- [x] T002: Rotate the signing keys ✅ (Completed: 2025-09-30T10:00:00Z)\n")
	edit("CURRENT_TASK.json", `"task_id": "T001"`, `"task_id": "T002"`)
	a := commitFails(t, repo, base, "the current task changed under the handoff and the reports")
	refused := map[string]bool{}
	for _, f := range a.Findings {
		if f.Waived.Source == "" {
			refused[f.Rule] = true
		}
	}
	for _, rule := range []string{"h3a.traceability.task_id_mismatch", "h3a.evidence.g1_exit_criteria"} {
		if !refused[rule] {
			t.Errorf("%s on an unchanged line waived: %+v", rule, a.Findings)
		}
	}
}

// TestWaiverKeepsWhatTheBaseHad: a run the change edits keeps its waivers
// for what it had at the base, found by checking it there as discovery
// would: a run it already held there, and the findings on its unchanged
// lines. Only the findings the change brought count.
func TestWaiverKeepsWhatTheBaseHad(t *testing.T) {
	copySrc, err := filepath.Abs(filepath.Join(errCaseDir(t, "hash_mismatch"), runID))
	if err != nil {
		t.Fatal(err)
	}
	dir, repo, _ := waiverBase(t, "runs/**", "  - {rule: h3a.structure.nested_run, path: \"runs/**\", reason: an old copy inside, expires: 2999-12-31}\n")
	run := filepath.Join(dir, "runs", runID)
	if err := audittest.CopyRunAs(copySrc, filepath.Join(run, "old", otherRunID), runID, otherRunID); err != nil {
		t.Fatal(err)
	}
	repo.Git("add", "-A")
	base := repo.Commit("base: the run holds an old copy")
	repo.Publish(base)
	readme := filepath.Join(run, "artifacts", "notes.txt")
	if err := os.WriteFile(readme, []byte("a note no rule reads\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	repo.Git("add", "-A")
	repo.Commit("the change: a file no rule reads")
	code, audits, stderr := jsonReport(t, "--base", base, "runs")
	for _, a := range audits {
		if a.Run != "runs/"+runID {
			continue
		}
		for _, f := range a.Findings {
			if !f.IsWaived() && f.Severity == finding.Error {
				t.Errorf("not waived: %+v", f)
			}
		}
	}
	if t.Failed() {
		t.Fatalf("exit %d: %s", code, stderr)
	}
}
