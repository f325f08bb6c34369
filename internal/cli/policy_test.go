package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/h3a-check/h3a-check/internal/finding"
	"github.com/h3a-check/h3a-check/internal/longtest"
	"github.com/h3a-check/h3a-check/internal/report"
)

const userPolicies = "testdata/policies"

func TestPolicyFlagAddsUserRules(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(casesDir, "ok", "complete")
	code, audits, stderr := checkJSON(t, "--policy", filepath.Join(userPolicies, "team"), dir)
	if code != ExitPass {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if got := wantText(code, audits); got != "exit 0\nrun 20250929-134215-8b6f8b9a-7c9f-4c5e-8c6a-2f0f0d2e9c1a gate pass\n.: info: history not compared: --base none was given [h3a.append_only.not_compared]\n" {
		t.Errorf("a feature branch must pass the team rule:\n%s", got)
	}
	// The same rule fires on a run whose branch is main.
	run := copyRun(t)
	state := filepath.Join(run, "state.json")
	b, err := os.ReadFile(state)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(state, []byte(strings.Replace(string(b), `"feature/jwt-auth"`, `"main"`, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	code, audits, stderr = checkJSON(t, run, "--policy", filepath.Join(userPolicies, "team"))
	if code != ExitPass {
		t.Fatalf("exit %d, want 0 (a warning): %s", code, stderr)
	}
	if !hasRule(audits, "h3a.user.team.feature_branch", `branch "main" is not a feature/* branch`) {
		t.Errorf("user rule did not fire:\n%s", wantText(code, audits))
	}
	var f finding.Finding
	for _, x := range audits[0].Findings {
		if x.Rule == "h3a.user.team.feature_branch" {
			f = x
		}
	}
	if f.Line != 7 || f.Column != 15 || f.Remediation != "run the agents on a feature/<topic> branch" {
		t.Errorf("finding %+v: want line 7, column 15 and the rule's remediation", f)
	}
}

func TestPolicyExitCodeTwo(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(casesDir, "ok", "complete")
	tests := []struct {
		name   string
		args   []string
		stderr string
	}{
		{"shipped package", []string{"--base", "none", "--policy", filepath.Join(userPolicies, "hijack"), dir},
			"hijack/gates.rego:1: package h3a.rules.gates is not allowed in a policy folder"},
		{"missing folder", []string{"--base", "none", "--policy", filepath.Join(userPolicies, "nope"), dir}, "cannot read the policy folder"},
		{"no timeout", []string{"--policy-timeout", "0s", dir}, `--policy-timeout 0s: expected a positive duration`},
		{"test with a bad folder", []string{"test", filepath.Join(userPolicies, "hijack")}, "package h3a.rules.gates is not allowed"},
		{"rules with a bad folder", []string{"rules", "--policy", filepath.Join(userPolicies, "hijack")}, "not allowed"},
		{"test threshold", []string{"test", "--threshold", "101"}, "--threshold 101: expected a percentage"},
		{"test a folder without tests", []string{"test", filepath.Join(userPolicies, "debug")}, "no test found in " + filepath.Join(userPolicies, "debug")},
		{"rules with an argument", []string{"rules", "gates"}, "rules takes no arguments"},
		{"unknown input field", []string{"--base", "none", "--policy", filepath.Join(userPolicies, "typo"), dir},
			`typo/team.rego:12:26: unknown input field "gaol" in input.docs.current_task.gaol`},
		{"test with an unknown input field", []string{"test", filepath.Join(userPolicies, "typo")},
			`typo/team.rego:12:26: unknown input field "gaol" in input.docs.current_task.gaol`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			code, stdout, stderr := runMain(tc.args...)
			if code != ExitError {
				t.Fatalf("exit %d, want 2\nstdout: %s\nstderr: %s", code, stdout, stderr)
			}
			if !strings.Contains(filepath.ToSlash(stderr), tc.stderr) {
				t.Errorf("stderr %q does not mention %q", stderr, tc.stderr)
			}
			// Each problem on a line of its own, never joined by an
			// escaped line break.
			if strings.Contains(stderr, `\n`) {
				t.Errorf("stderr holds an escaped line break: %q", stderr)
			}
		})
	}
}

// TestPolicyTimeout: a rule that would run for minutes fails its run's gate
// quickly, with a finding, not a hang.
func TestPolicyTimeout(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(casesDir, "ok", "complete")
	code, audits, stderr := checkJSON(t, "--policy", filepath.Join(userPolicies, "slow"), "--policy-timeout", "200ms", dir)
	if code != ExitFail {
		t.Fatalf("exit %d, want 1: %s", code, stderr)
	}
	if !hasRule(audits, "h3a.policy.timeout", "did not finish within 200ms") {
		t.Errorf("no timeout finding:\n%s", wantText(code, audits))
	}
}

func TestDebugPrintsToStderr(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(casesDir, "ok", "complete")
	for _, debug := range []bool{true, false} {
		args := []string{"--base", "none", "--policy", filepath.Join(userPolicies, "debug"), dir}
		if debug {
			args = append(args, "--debug")
		}
		code, stdout, stderr := runMain(args...)
		if code != ExitPass {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		printed := strings.Contains(stderr, "debug.rego:11: task T001\n")
		if printed != debug {
			t.Errorf("--debug %v: stderr %q", debug, stderr)
		}
		if strings.Contains(stdout, "T001\"") {
			t.Errorf("print output reached stdout: %q", stdout)
		}
	}
}

func TestTestCommand(t *testing.T) {
	t.Parallel()
	failing := filepath.Join(userPolicies, "failing", "team_test.rego")
	tests := []struct {
		name   string
		args   []string
		code   int
		stdout []string
		absent []string
		// long: every shipped Rego test with coverage, which the policy
		// package's TestRegoPolicies runs too; here it is the command.
		long bool
	}{
		{"shipped", []string{"test", "--threshold", "90"}, ExitPass, []string{"0 failed", "threshold 90%"}, nil, true},
		// A folder's tests and lines only: the shipped ones are neither run
		// nor measured, though the folder's rules import them.
		{"verbose with a user folder", []string{"test", "--verbose", "--coverage", filepath.Join(userPolicies, "team")}, ExitPass,
			[]string{"PASS  " + filepath.Join(userPolicies, "team", "team_test.rego") + ":9: h3a.user.team_test.test_main_is_flagged",
				"coverage 100.0% " + filepath.Join(userPolicies, "team", "team.rego"), "2 tests, 2 passed, 0 failed", "coverage 100.0% of the policy lines"},
			[]string{" policies/", "h3a.rules.", "policies/lib.rego", "fire in no test"}, false},
		{"failing user test", []string{"test", "--policy", filepath.Join(userPolicies, "failing")}, ExitFail,
			[]string{"FAIL  " + failing + ":5: h3a.user.team_test.test_expects_the_wrong_thing\n" +
				"      " + failing + ":7: failed here:\n" +
				"      \tcount(team.warn) == 0 with input as",
				`{{"file": "state.json", "msg": "branch \"main\" is not a feat`,
				"branch under test: main", "1 tests, 0 passed, 1 failed"}, nil, false},
		{"coverage below the threshold", []string{"test", "--threshold", "100", filepath.Join(userPolicies, "partial")}, ExitFail,
			[]string{"below the threshold", filepath.Join(userPolicies, "partial", "team.rego") + " (not reached: lines"}, []string{" policies/", "team_test.rego"}, false},
		// Line coverage counts the rule's body as entered; the rule itself
		// never produced a finding, and --coverage names it.
		{"a rule that fires in no test", []string{"test", "--coverage", filepath.Join(userPolicies, "partial")}, ExitPass,
			[]string{"1 deny/warn rules fire in no test", "  " + filepath.Join(userPolicies, "partial", "team.rego") + ":13: rule h3a.user.team.feature_branch (warn) fires in no test\n"},
			nil, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if tc.long {
				longtest.Skip(t)
			}
			code, stdout, stderr := runMain(tc.args...)
			if code != tc.code {
				t.Fatalf("exit %d, want %d\nstdout: %s\nstderr: %s", code, tc.code, stdout, stderr)
			}
			for _, want := range tc.stdout {
				if !strings.Contains(stdout, want) {
					t.Errorf("stdout does not mention %q:\n%s", want, stdout)
				}
			}
			for _, not := range tc.absent {
				if strings.Contains(stdout, not) {
					t.Errorf("stdout mentions %q:\n%s", not, stdout)
				}
			}
		})
	}
}

func TestRulesListPolicyRules(t *testing.T) {
	t.Parallel()
	code, out, _ := runMain("rules", "--policy", filepath.Join(userPolicies, "team"))
	if code != ExitPass {
		t.Fatalf("exit %d", code)
	}
	for _, id := range []string{"h3a.gates.order", "h3a.security.secret", "h3a.policy.timeout", "h3a.user.team.feature_branch", "h3a.schema.violation"} {
		if !strings.Contains(out, id) {
			t.Errorf("rules does not list %s", id)
		}
	}
	code, out, _ = runMain("explain", "h3a.retries.escalation")
	if code != ExitPass || !strings.Contains(out, "defined:  policies/retries.rego:") || !strings.Contains(out, "remediation: a human reviews") {
		t.Errorf("explain: exit %d\n%s", code, out)
	}
	code, _, stderr := runMain("explain", "escalation")
	if code != ExitError || !strings.Contains(stderr, "did you mean h3a.retries.escalation, h3a.retries.escalation_issue_missing?") {
		t.Errorf("explain near miss: exit %d, %q", code, stderr)
	}
}

// TestRulesJSON: rules --format json gives every rule of the table, with
// every field and where it is defined, user rules included.
func TestRulesJSON(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(userPolicies, "team")
	code, out, stderr := runMain("rules", "--format", "json", "--policy", dir)
	if code != ExitPass {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var got struct {
		Rules []map[string]string `json:"rules"`
		Tool  map[string]string   `json:"tool"`
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out)
	}
	_, table, _ := runMain("rules", "--policy", dir)
	if rows := strings.Count(table, "\n") - 1; len(got.Rules) != rows || got.Tool["name"] != Name {
		t.Errorf("%d rules in JSON, %d in the table; tool %v", len(got.Rules), rows, got.Tool)
	}
	byID := map[string]map[string]string{}
	for _, r := range got.Rules {
		byID[r["id"]] = r
	}
	team := byID["h3a.user.team.feature_branch"]
	if team["severity"] != "warning" || team["category"] != "policy" || team["remediation"] != "run the agents on a feature/<topic> branch" ||
		!strings.HasPrefix(filepath.ToSlash(team["defined"]), filepath.ToSlash(dir)+"/team.rego:13") {
		t.Errorf("user rule = %v", team)
	}
	if r := byID["h3a.integrity.hash_mismatch"]; r["defined"] != "built in" || r["title"] == "" || r["description"] == "" {
		t.Errorf("Go rule = %v", r)
	}
	if code, _, stderr := runMain("rules", "--format", "sarif"); code != ExitError || !strings.Contains(stderr, `--format "sarif": rules are listed as "text" or "json"`) {
		t.Errorf("rules --format sarif: exit %d, %q", code, stderr)
	}
}

// TestSecretMaskedInEveryOutput: the secret of the secret case appears in
// no report format, whole or in its unmasked tail.
func TestSecretMaskedInEveryOutput(t *testing.T) {
	const secret = "AKIAIOSFODNN7EXAMPLE"
	dir := errCaseDir(t, "secret")
	for _, format := range report.Formats() {
		code, stdout, stderr := runMain("--format", format, dir)
		if code != ExitFail {
			t.Fatalf("%s: exit %d: %s", format, code, stderr)
		}
		if !strings.Contains(stdout, "h3a.security.secret") {
			t.Errorf("%s: the secret finding is missing", format)
		}
		for _, leak := range []string{secret, secret[4:]} {
			if strings.Contains(stdout, leak) || strings.Contains(stderr, leak) {
				t.Errorf("%s output contains %q", format, leak)
			}
		}
	}
}

// TestAuditTraceability: audit.json traceability comes from the rules that
// feed each area.
func TestAuditTraceability(t *testing.T) {
	tests := []struct{ dir, task, reqts string }{
		{"ok/complete", "pass", "pass"},
		{"ok/fresh", "pass", "pass"},
		{"err/task_id_mismatch", "fail", "pass"},
		{"err/run_id_mismatch", "fail", "pass"},
		{"err/unknown_task", "pass", "fail"},
		{"err/done_without_verdict", "pass", "fail"},
		{"err/malformed_roadmap", "pass", "pass"},
	}
	for _, tc := range tests {
		t.Run(tc.dir, func(t *testing.T) {
			_, audits, stderr := checkJSON(t, caseDir(t, tc.dir))
			if len(audits) != 1 {
				t.Fatalf("%d audits: %s", len(audits), stderr)
			}
			tr := audits[0].Traceability
			if tr.TaskIDMatch != tc.task || tr.RequirementsCoverage != tc.reqts {
				t.Errorf("traceability %+v, want task_id_match %s, requirements_coverage %s", tr, tc.task, tc.reqts)
			}
			if (tc.task == "fail" || tc.reqts == "fail") && len(tr.Issues) == 0 {
				t.Error("a failing area without issues")
			}
		})
	}
}
