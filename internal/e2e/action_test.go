package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// actionRun is one simulated run of the action's check step.
type actionRun struct {
	stdout, stderr string
	code           int
	outputs        map[string]string
	summary        string
	workspace      string
}

// runAction runs action.yml's check step in workspace the way a runner
// does on a pull_request event, with the given inputs (the others take
// their defaults from action.yml).
func runAction(t *testing.T, workspace, baseSHA, headSHA string, inputs map[string]string) actionRun {
	t.Helper()
	a, err := loadAction()
	if err != nil {
		t.Fatal(err)
	}
	check, err := a.step("check")
	if err != nil {
		t.Fatal(err)
	}
	runner := t.TempDir()
	event := filepath.Join(runner, "event.json")
	payload := map[string]any{"pull_request": map[string]any{
		"number": 7,
		"base":   map[string]any{"sha": baseSHA, "ref": "main"},
		"head":   map[string]any{"sha": headSHA, "ref": "feature"},
	}}
	b, _ := json.Marshal(payload)
	if err := os.WriteFile(event, b, 0o644); err != nil {
		t.Fatal(err)
	}
	outputs := filepath.Join(runner, "output")
	summary := filepath.Join(runner, "summary")
	env := append(gitEnv(t),
		"GITHUB_ACTIONS=true",
		"CI=true",
		"GITHUB_EVENT_NAME=pull_request",
		"GITHUB_EVENT_PATH="+event,
		"GITHUB_WORKSPACE="+workspace,
		"GITHUB_SHA="+headSHA,
		"GITHUB_OUTPUT="+outputs,
		"GITHUB_STEP_SUMMARY="+summary,
		"GITHUB_ACTION_PATH="+moduleRoot,
		"RUNNER_TEMP="+runner,
		"RUNNER_OS=Linux",
	)
	ctx := map[string]string{"steps.build.outputs.binary": binary, "github.action_path": moduleRoot}
	for name, in := range a.Inputs {
		ctx["inputs."+name] = in.Default
	}
	for name, v := range inputs {
		if _, ok := a.Inputs[name]; !ok {
			t.Fatalf("action.yml has no input %q", name)
		}
		ctx["inputs."+name] = v
	}
	stdout, stderr, code, err := runStep(check, ctx, env, workspace)
	if err != nil {
		t.Fatal(err)
	}
	r := actionRun{stdout: stdout, stderr: stderr, code: code, workspace: workspace}
	if got, err := readOutputs(outputs); err == nil {
		r.outputs = got
	}
	if b, err := os.ReadFile(summary); err == nil {
		r.summary = string(b)
	}
	return r
}

var annotationLine = regexp.MustCompile(`^::(error|warning|notice) ([^:]*)::(.*)$`)

type annotation struct {
	level string
	props map[string]string
	msg   string
}

func annotations(stdout string) []annotation {
	var out []annotation
	for _, line := range strings.Split(stdout, "\n") {
		m := annotationLine.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		props := map[string]string{}
		for _, kv := range strings.Split(m[2], ",") {
			k, v, _ := strings.Cut(kv, "=")
			props[k] = strings.NewReplacer("%2C", ",", "%3A", ":", "%0A", "\n", "%0D", "\r", "%25", "%").Replace(v)
		}
		out = append(out, annotation{m[1], props, m[3]})
	}
	return out
}

// TestActionOnPullRequest: a pull request that breaks one run's evidence
// and carries another run with a warning. The action must fail the step,
// annotate both files at the positions audit.json gives, expose its
// outputs and write the job summary and SARIF.
func TestActionOnPullRequest(t *testing.T) {
	repo := newRepo(t)
	broken := filepath.Join(repo, "runs", runID)
	copyCase(t, "ok", "complete", broken)
	base := commitAll(t, repo, "base: a complete run")
	breakArtifact(t, broken)
	copyCaseAs(t, "err", "bom_json", otherRunID, filepath.Join(repo, "archive", otherRunID))
	head := commitAll(t, repo, "head: an artifact edited after logging, and an archived run")

	r := runAction(t, repo, base, head, map[string]string{
		"paths":      "runs\n  archive  \n",
		"sarif-file": "h3a.sarif",
		"audit-file": "h3a-audit.json",
	})
	if r.code != 1 {
		t.Fatalf("exit %d, want 1 (a gate fails)\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}

	// Outputs: every output the action declares comes from the check step;
	// gate says error when that step did not run (the build or download
	// failed), so that a workflow reading it under continue-on-error never
	// takes an empty gate for anything but a check that did not happen.
	a, _ := loadAction()
	for name, o := range a.Outputs {
		want := "${{ steps.check.outputs." + name + " }}"
		if name == "gate" {
			want = "${{ steps.check.outputs.gate || 'error' }}"
		}
		if o.Value != want {
			t.Errorf("action output %s = %q, want %q", name, o.Value, want)
		}
		if _, ok := r.outputs[name]; !ok {
			t.Errorf("h3a-check did not set output %q (got %v)", name, r.outputs)
		}
	}
	if r.outputs["gate"] != "fail" || r.outputs["errors"] == "0" || r.outputs["warnings"] == "0" ||
		r.outputs["sarif-file"] != "h3a.sarif" || r.outputs["audit-file"] != "h3a-audit.json" {
		t.Errorf("outputs %v", r.outputs)
	}

	// The audit file says where each finding is; annotations must agree.
	var report struct {
		Gate   string
		Audits []struct {
			Run      string
			Findings []struct {
				Rule, File, Severity string
				Line, Column         int
			}
		}
	}
	b, err := os.ReadFile(filepath.Join(repo, "h3a-audit.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &report); err != nil {
		t.Fatal(err)
	}
	anns := annotations(r.stdout)
	find := func(level, rule string) *annotation {
		for i := range anns {
			if anns[i].level == level && anns[i].props["title"] == rule {
				return &anns[i]
			}
		}
		return nil
	}
	checked := 0
	for _, au := range report.Audits {
		for _, f := range au.Findings {
			if f.Severity == "info" {
				continue
			}
			checked++
			ann := find(f.Severity, f.Rule)
			if ann == nil {
				t.Errorf("no %s annotation for %s in %s", f.Severity, f.Rule, au.Run)
				continue
			}
			wantFile := filepath.ToSlash(filepath.Join(au.Run, f.File))
			if ann.props["file"] != wantFile || ann.props["line"] != itoa(f.Line) || ann.props["col"] != optional(f.Column) {
				t.Errorf("annotation %v, want file %s line %d col %d", ann.props, wantFile, f.Line, f.Column)
			}
		}
	}
	if find("error", "h3a.integrity.hash_mismatch") == nil || find("warning", "h3a.schema.bom") == nil || checked < 2 {
		t.Errorf("expected a hash mismatch error and a BOM warning among the annotations:\n%s", r.stdout)
	}
	if ann := find("error", "h3a.integrity.hash_mismatch"); ann != nil && !strings.HasPrefix(ann.props["file"], "runs/"+runID+"/") {
		t.Errorf("annotation path %q is not relative to the repository root", ann.props["file"])
	}

	// Job summary.
	for _, want := range []string{"## h3a-check: ❌ fail", "| runs/" + runID + " | ❌ fail |", "| 1 passing run | ✅ pass |", "- archive/" + otherRunID + "\n",
		"h3a.integrity.hash\\_mismatch", "```mermaid", "Evidence verified "} {
		if !strings.Contains(r.summary, want) {
			t.Errorf("job summary lacks %q:\n%s", want, r.summary)
		}
	}

	// SARIF for code scanning, paths from the repository root.
	b, err = os.ReadFile(filepath.Join(repo, "h3a.sarif"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `"uri": "runs/`+runID+`/state/EVIDENCE_LOG.md"`) {
		t.Errorf("SARIF lacks the repository-relative location:\n%.2000s", b)
	}
	// At the default fail level only errors fail the gate, and only they
	// are errors for code scanning.
	levels := sarifLevels(t, b)
	if levels["h3a.integrity.hash_mismatch"] != "error" || levels["h3a.schema.bom"] != "warning" {
		t.Errorf("SARIF levels %v: want the hash mismatch an error and the BOM a warning", levels)
	}
}

// sarifLevels gives each rule's result level in a SARIF log ("mixed" for a
// rule whose results differ).
func sarifLevels(t *testing.T, b []byte) map[string]string {
	t.Helper()
	var log struct {
		Runs []struct {
			Results []struct{ RuleID, Level string }
		}
	}
	if err := json.Unmarshal(b, &log); err != nil || len(log.Runs) != 1 {
		t.Fatalf("SARIF %v:\n%.2000s", err, b)
	}
	levels := map[string]string{}
	for _, r := range log.Runs[0].Results {
		if l, ok := levels[r.RuleID]; ok && l != r.Level {
			r.Level = "mixed"
		}
		levels[r.RuleID] = r.Level
	}
	return levels
}

// TestActionPassing: a clean pull request passes with no annotation, and
// without SARIF or audit inputs their outputs are empty.
func TestActionPassing(t *testing.T) {
	repo := newRepo(t)
	copyCase(t, "ok", "complete", filepath.Join(repo, "runs", runID))
	base := commitAll(t, repo, "base")
	if err := os.WriteFile(filepath.Join(repo, "README.md"), []byte("notes\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	head := commitAll(t, repo, "head")
	r := runAction(t, repo, base, head, map[string]string{"paths": "runs/"})
	if r.code != 0 {
		t.Fatalf("exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	if anns := annotations(r.stdout); len(anns) != 0 {
		t.Errorf("annotations on a passing run: %v", anns)
	}
	if r.outputs["gate"] != "pass" || r.outputs["errors"] != "0" || r.outputs["sarif-file"] != "" || r.outputs["audit-file"] != "" {
		t.Errorf("outputs %v", r.outputs)
	}
	if !strings.Contains(r.summary, "## h3a-check: ✅ pass") {
		t.Errorf("summary:\n%s", r.summary)
	}
}

// TestActionChangedAndArgs: changed checks only the runs the pull request
// touches, and args reach h3a-check as arguments, one per line.
// TestActionChangedFindsACopy: with changed: true the Action checks only
// the runs a pull request touches, and a copy of a run the base holds,
// left in place, touches only the copy. The copy still fails: it is
// looked up by its run id among all the base's folders.
func TestActionChangedFindsACopy(t *testing.T) {
	repo := newRepo(t)
	copyCase(t, "ok", "complete", filepath.Join(repo, "runs", runID))
	base := commitAll(t, repo, "base: a complete run")
	copyCase(t, "ok", "complete", filepath.Join(repo, "archive", runID))
	head := commitAll(t, repo, "head: the run copied into archive/")
	r := runAction(t, repo, base, head, map[string]string{"paths": "runs\narchive", "changed": "true", "audit-file": "audit.json"})
	if r.code != 1 || r.outputs["gate"] != "fail" {
		t.Fatalf("exit %d, outputs %v: want 1 and gate fail\n%s%s", r.code, r.outputs, r.stdout, r.stderr)
	}
	var report struct {
		Audits []struct {
			Run      string
			Findings []struct{ Rule string }
		}
	}
	b, err := os.ReadFile(filepath.Join(repo, "audit.json"))
	if err != nil || json.Unmarshal(b, &report) != nil || len(report.Audits) != 1 {
		t.Fatalf("audit.json: %v\n%s", err, b)
	}
	if a := report.Audits[0]; !strings.HasPrefix(a.Run, "archive/") || !slices.ContainsFunc(a.Findings, func(f struct{ Rule string }) bool { return f.Rule == "h3a.append_only.run_copied" }) {
		t.Errorf("the one run checked is %s with findings %v, want the copy in archive/ with h3a.append_only.run_copied", a.Run, a.Findings)
	}
}

func TestActionChangedAndArgs(t *testing.T) {
	repo := newRepo(t)
	copyCase(t, "ok", "complete", filepath.Join(repo, "runs", runID))
	base := commitAll(t, repo, "base: a complete run")
	copyCaseAs(t, "err", "bom_json", otherRunID, filepath.Join(repo, "archive", otherRunID))
	head := commitAll(t, repo, "head: a run with a warning")
	tests := []struct {
		inputs   map[string]string
		wantCode int
		runs     int
		gate     string
	}{
		{map[string]string{"paths": "runs\narchive"}, 0, 2, "pass"},
		{map[string]string{"paths": "runs\narchive", "changed": "true"}, 0, 1, "pass"},
		{map[string]string{"paths": "runs\narchive", "changed": "true", "args": "--fail-level\n  warning\n"}, 1, 1, "fail"},
		// Another stdout format writes no outputs of its own; gate and
		// exit-code still say the step failed.
		{map[string]string{"paths": "runs\narchive", "changed": "true", "args": "--fail-level\nwarning\n--format\njson"}, 1, 1, "fail"},
		{map[string]string{"paths": "runs", "changed": "yes"}, 2, 0, "error"},
	}
	for _, tc := range tests {
		tc.inputs["audit-file"] = "audit.json"
		tc.inputs["sarif-file"] = "h3a.sarif"
		os.Remove(filepath.Join(repo, "audit.json"))
		os.Remove(filepath.Join(repo, "h3a.sarif"))
		r := runAction(t, repo, base, head, tc.inputs)
		if r.code != tc.wantCode {
			t.Errorf("%v: exit %d, want %d\n%s%s", tc.inputs, r.code, tc.wantCode, r.stdout, r.stderr)
			continue
		}
		if r.outputs["gate"] != tc.gate || r.outputs["exit-code"] != itoa(tc.wantCode) {
			t.Errorf("%v: outputs %v, want gate %s and exit-code %d", tc.inputs, r.outputs, tc.gate, tc.wantCode)
		}
		var report struct{ Audits []struct{ Run string } }
		b, _ := os.ReadFile(filepath.Join(repo, "audit.json"))
		json.Unmarshal(b, &report)
		if len(report.Audits) != tc.runs {
			t.Errorf("%v: %d runs checked, want %d", tc.inputs, len(report.Audits), tc.runs)
		}
		if tc.wantCode == 2 || strings.Contains(tc.inputs["args"], "--format") {
			continue
		}
		// The BOM warning is an error for code scanning exactly when it
		// fails the step (--fail-level warning through args).
		b, err := os.ReadFile(filepath.Join(repo, "h3a.sarif"))
		if err != nil {
			t.Fatal(err)
		}
		want := map[bool]string{true: "error", false: "warning"}[tc.wantCode == 1]
		if got := sarifLevels(t, b)["h3a.schema.bom"]; got != want {
			t.Errorf("%v: the BOM warning's SARIF level is %q, want %q", tc.inputs, got, want)
		}
		// Its annotation too, saying that it is a warning failing the gate.
		var levels []string
		for _, ann := range annotations(r.stdout) {
			if ann.props["title"] != "h3a.schema.bom" {
				continue
			}
			levels = append(levels, ann.level)
			if failing := strings.HasPrefix(ann.msg, "warning, fails the gate at fail-level warning: "); failing != (tc.wantCode == 1) {
				t.Errorf("%v: the BOM warning's annotation %q", tc.inputs, ann.msg)
			}
		}
		if len(levels) == 0 || slices.ContainsFunc(levels, func(l string) bool { return l != want }) {
			t.Errorf("%v: the BOM warning is annotated %v, want %s", tc.inputs, levels, want)
		}
	}
}

// TestActionInputsAreNotShell: inputs reach the script as data; one
// that looks like shell is a path that does not exist (exit 2), and
// nothing it says is executed.
func TestActionInputsAreNotShell(t *testing.T) {
	repo := newRepo(t)
	copyCase(t, "ok", "complete", filepath.Join(repo, "runs", runID))
	head := commitAll(t, repo, "base")
	marker := filepath.Join(t.TempDir(), "pwned")
	r := runAction(t, repo, head, head, map[string]string{"paths": "runs; touch " + marker + " $(touch " + marker + ")"})
	if r.code != 2 || !strings.Contains(r.stderr, "cannot read") {
		t.Errorf("exit %d, stderr %q: want 2 and the path reported unreadable", r.code, r.stderr)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("an input was executed as shell")
	}
}

// TestActionScripts: no `run:` script interpolates an expression (inputs
// go through env), every input is used, the steps are the documented
// ones, and shellcheck finds nothing in the scripts.
func TestActionScripts(t *testing.T) {
	a, err := loadAction()
	if err != nil {
		t.Fatal(err)
	}
	if a.Runs.Using != "composite" {
		t.Errorf("runs.using %q, want composite", a.Runs.Using)
	}
	used := map[string]bool{}
	var scripts []step
	for _, s := range a.Runs.Steps {
		if strings.Contains(s.Run, "${{") {
			t.Errorf("step %q interpolates an expression into its script; pass it through env", s.ID)
		}
		for _, v := range s.Env {
			for _, m := range expression.FindAllStringSubmatch(v, -1) {
				used[strings.TrimPrefix(m[1], "inputs.")] = true
			}
		}
		for _, v := range s.With {
			for _, m := range expression.FindAllStringSubmatch(v, -1) {
				used[strings.TrimPrefix(m[1], "inputs.")] = true
			}
		}
		if s.Run != "" {
			scripts = append(scripts, s)
		}
		if strings.HasPrefix(s.Uses, "actions/setup-go@") {
			if s.With["cache-dependency-path"] == "" || s.With["go-version-file"] == "" {
				t.Errorf("setup-go must take the Go version and cache key from the action's own go.mod and go.sum: %v", s.With)
			}
			// A release binary needs no Go.
			const want = "inputs.version == '' && !(startsWith(github.action_ref, 'v') && contains(github.action_ref, '.'))"
			if s.If != want {
				t.Errorf("setup-go runs under %q, want only when neither the version input nor the action's ref names a release (%s)", s.If, want)
			}
		}
	}
	for name := range a.Inputs {
		if !used[name] {
			t.Errorf("input %q is never passed to a step", name)
		}
	}
	ids := []string{}
	for _, s := range scripts {
		ids = append(ids, s.ID)
	}
	if !slices.Equal(ids, []string{"build", "check"}) {
		t.Errorf("run steps %v, want build and check", ids)
	}

	shellcheck := mustHave(t, "shellcheck")
	for _, s := range scripts {
		path := filepath.Join(t.TempDir(), s.ID+".sh")
		if err := os.WriteFile(path, []byte("#!/usr/bin/env bash\n"+s.Run), 0o644); err != nil {
			t.Fatal(err)
		}
		stdout, stderr, code, err := runCommand(shellcheck, path)
		if err != nil || code != 0 {
			t.Errorf("shellcheck on step %q: exit %d %v\n%s%s", s.ID, code, err, stdout, stderr)
		}
	}
}

// optional renders a position property that is left out when unknown (0).
func optional(n int) string {
	if n == 0 {
		return ""
	}
	return itoa(n)
}
