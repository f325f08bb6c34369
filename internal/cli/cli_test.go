package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func runMain(args ...string) (int, string, string) {
	var out, errb bytes.Buffer
	code := Main(args, nil, &out, &errb)
	return code, out.String(), errb.String()
}

// checkNoBase runs a check of runs under testdata/ without comparing their
// history (see checkJSON).
func checkNoBase(args ...string) (int, string, string) {
	return runMain(append([]string{"--base", "none"}, args...)...)
}

func TestExitCodeTwo(t *testing.T) {
	empty := t.TempDir()
	tests := []struct {
		name   string
		args   []string
		stderr string
	}{
		{"no run found", []string{empty}, "no run found"},
		{"missing path", []string{filepath.Join(empty, "nope")}, "cannot read"},
		{"unknown format", []string{"--format", "xml", casesDir}, `unknown format "xml"`},
		{"bad output spec", []string{"--output", "json", casesDir}, "expected FORMAT=PATH"},
		{"unknown flag", []string{"--frobnicate", casesDir}, "unknown flag --frobnicate"},
		{"bad fail level", []string{"--fail-level", "info", casesDir}, `--fail-level "info"`},
		{"bad size", []string{"--max-json-size", "lots", casesDir}, "is not a size"},
		{"unknown layout", []string{"--layout", "nope", casesDir}, `unknown layout "nope"`},
		{"explain unknown", []string{"explain", "h3a.nope"}, `no rule "h3a.nope"`},
		{"explain near miss", []string{"explain", "h3a.integrity.hsh_mismatch"}, `did you mean h3a.integrity.hash_mismatch?`},
		{"explain a team rule without its policy", []string{"explain", "team.no_main"}, `add --policy DIR`},
		{"parse folder of runs", []string{"parse", filepath.Join(casesDir, "ok")}, "parse takes exactly one run"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, stdout, stderr := runMain(tc.args...)
			if code != ExitError {
				t.Fatalf("exit %d, want 2\nstdout: %s\nstderr: %s", code, stdout, stderr)
			}
			if !strings.Contains(stderr, tc.stderr) {
				t.Errorf("stderr %q does not mention %q", stderr, tc.stderr)
			}
		})
	}
}

func TestFlagsAfterPaths(t *testing.T) {
	dir := filepath.Join(casesDir, "ok", "complete")
	out := filepath.Join(t.TempDir(), "audit.json")
	code, stdout, stderr := checkNoBase(dir, "--output", "json="+out)
	if code != ExitPass {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(stdout, "overall: pass") {
		t.Errorf("text report on stdout expected, got:\n%s", stdout)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(b, &doc); err != nil || doc["gate"] != "pass" {
		t.Errorf("audit file: gate %v, err %v", doc["gate"], err)
	}
	ents, _ := os.ReadDir(filepath.Dir(out))
	if len(ents) != 1 {
		t.Errorf("temporary files left beside the output: %v", ents)
	}
}

func TestOutputUnwritable(t *testing.T) {
	dir := filepath.Join(casesDir, "ok", "complete")
	code, _, stderr := checkNoBase("--output", "json="+filepath.Join(t.TempDir(), "missing", "a.json"), dir)
	if code != ExitError || !strings.Contains(stderr, "writing") {
		t.Fatalf("exit %d, stderr %q; want 2 and a message about writing", code, stderr)
	}
}

func TestFailLevelWarning(t *testing.T) {
	dir := errCaseDir(t, "bom_json")
	if code, _, _ := checkNoBase(dir); code != ExitPass {
		t.Fatalf("a BOM alone is a warning: exit %d, want 0", code)
	}
	if code, _, _ := checkNoBase("--fail-level", "warning", dir); code != ExitFail {
		t.Fatalf("--fail-level warning: exit %d, want 1", code)
	}
}

func TestFileInsideRunMapsToRun(t *testing.T) {
	base := filepath.Join(casesDir, "ok", "complete")
	runs, _ := filepath.Glob(filepath.Join(base, "*-*"))
	if len(runs) != 1 {
		t.Fatal("complete run not found")
	}
	a := filepath.Join(runs[0], "state", "ROADMAP.md")
	b := filepath.Join(runs[0], "state.json")
	code, audits, stderr := checkJSON(t, a, b, runs[0])
	if code != ExitPass || len(audits) != 1 {
		t.Fatalf("exit %d, %d audits (want 0 and 1): %s", code, len(audits), stderr)
	}
}

func TestTextReport(t *testing.T) {
	for _, c := range []string{"ok/complete", "err/hash_mismatch"} {
		t.Run(c, func(t *testing.T) {
			dir := caseDir(t, c)
			_, stdout, _ := checkNoBase("--color", "never", dir)
			// An err case is written out elsewhere: name it where it is kept.
			stdout = strings.ReplaceAll(stdout, dir, filepath.Join(casesDir, filepath.FromSlash(c)))
			compareGolden(t, filepath.Join("testdata", strings.ReplaceAll(c, "/", "_")+".txt"), stdout)
		})
	}
}

func TestColour(t *testing.T) {
	dir := errCaseDir(t, "hash_mismatch")
	_, plain, _ := checkNoBase(dir)
	if strings.Contains(plain, "\x1b[") {
		t.Error("colour written to a non-terminal")
	}
	_, coloured, _ := checkNoBase("--color", "always", dir)
	if !strings.Contains(coloured, "\x1b[31m") {
		t.Error("--color always wrote no colour")
	}
	e := &env{stdout: os.Stdout, getenv: func(k string) string {
		if k == "NO_COLOR" {
			return "1"
		}
		return ""
	}}
	cf := checkFlags{color: "auto"}
	if cf.useColor(e) {
		t.Error("NO_COLOR ignored")
	}
}

func TestRulesAndExplain(t *testing.T) {
	code, out, _ := runMain("rules")
	if code != ExitPass || !strings.Contains(out, "h3a.integrity.hash_mismatch") || !strings.Contains(out, "h3a.evidence.required_artifact") {
		t.Fatalf("rules: exit %d\n%s", code, out)
	}
	code, out, _ = runMain("explain", "h3a.integrity.hash_mismatch")
	if code != ExitPass || !strings.Contains(out, "remediation:") {
		t.Fatalf("explain: exit %d\n%s", code, out)
	}
	code, out, _ = runMain("version")
	if code != ExitPass || !strings.HasPrefix(out, "h3a-check ") {
		t.Fatalf("version: exit %d %q", code, out)
	}
}

func TestParse(t *testing.T) {
	code, out, stderr := runMain("parse", filepath.Join(casesDir, "ok", "complete"))
	if code != ExitPass {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var in map[string]any
	if err := json.Unmarshal([]byte(out), &in); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"run", "files", "docs", "evidence", "history", "params"} {
		if _, ok := in[k]; !ok {
			t.Errorf("input lacks %q", k)
		}
	}
	// Without a configuration the retry limits are the defaults.
	if want := map[string]any{"max_iterations": 2.0, "max_retries": 3.0}; !reflect.DeepEqual(in["params"], want) {
		t.Errorf("params %v, want %v", in["params"], want)
	}
}
