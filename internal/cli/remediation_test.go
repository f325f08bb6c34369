package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRemediationsApplied: doing what a finding's remediation says, with
// the tool it names, leaves a run that passes, or one that needs a human
// (the next step, which a person takes), never the same failure.
func TestRemediationsApplied(t *testing.T) {
	logFile := func(file string) func(t *testing.T, run string) {
		return func(t *testing.T, run string) {
			var out, errb bytes.Buffer
			if code := Main([]string{"log", run, filepath.Join(run, file), "re-logged after the remediation"}, nil, &out, &errb); code != ExitPass {
				t.Fatalf("h3a-check log: exit %d: %s", code, errb.String())
			}
		}
	}
	tests := []struct {
		errCase string
		rule    string
		names   string // what the remediation of rule must name
		apply   func(t *testing.T, run string)
		want    int
	}{
		// The GREEN output changed after G1 passed on it: logged again, it
		// verifies, and a person decides whether the gate still stands.
		{"hash_mismatch", "h3a.integrity.hash_mismatch", `h3a-check log RUN FILE "description"`, logFile("artifacts/executor/test_output_green.txt"), ExitNeedsHuman},
		// The old entry keeps its warning (entries are never edited); the
		// artifact it failed to verify is verified by the new one.
		{"short_hash", "h3a.evidence.required_artifact", `h3a-check log RUN FILE "description"`, logFile("artifacts/executor/coverage_delta.json"), ExitPass},
		{"unlogged_reference", "h3a.evidence.unlogged_reference", `h3a-check log RUN FILE "description"`, logFile("artifacts/executor/lint_output.txt"), ExitPass},
		{"over_limit", "h3a.retries.over_limit", "escalation_required", func(t *testing.T, run string) {
			p := filepath.Join(run, "state", "CURRENT_TASK.json")
			b, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			fixed := strings.Replace(string(b), `"status": "complete"`, `"status": "escalation_required"`, 1)
			if fixed == string(b) {
				t.Fatal("no status to set")
			}
			os.WriteFile(p, []byte(fixed), 0o644)
		}, ExitNeedsHuman},
	}
	for _, tc := range tests {
		t.Run(tc.errCase, func(t *testing.T) {
			run := filepath.Join(t.TempDir(), runID)
			if err := os.CopyFS(run, os.DirFS(filepath.Join(errCaseDir(t, tc.errCase), runID))); err != nil {
				t.Fatal(err)
			}
			_, audits, stderr := checkJSON(t, run)
			if audits == nil {
				t.Fatal(stderr)
			}
			var remediation string
			for _, f := range audits[0].Findings {
				if f.Rule == tc.rule {
					remediation = f.Remediation
				}
			}
			if !strings.Contains(remediation, tc.names) {
				t.Fatalf("%s: remediation %q does not name %q", tc.rule, remediation, tc.names)
			}
			tc.apply(t, run)
			code, audits, stderr := checkJSON(t, run)
			if code != tc.want {
				t.Fatalf("after the remediation: exit %d, want %d; %s\n%s", code, tc.want, stderr, wantText(code, audits))
			}
			for _, f := range audits[0].Findings {
				if f.Rule == tc.rule {
					t.Errorf("%s still fires after its remediation: %s", tc.rule, f.Details)
				}
			}
		})
	}
}
