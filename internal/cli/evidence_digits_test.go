package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/h3a-check/h3a-check/internal/config"
	"github.com/h3a-check/h3a-check/internal/finding"
)

// TestMinHashDigits: evidence: min-hash-digits makes a logged hash with
// fewer digits an error at its line of the evidence log; the spec's 16,
// or no key, leave the complete run passing.
func TestMinHashDigits(t *testing.T) {
	tests := []struct {
		yaml     string
		wantCode int
		want     int // hash_too_short findings
	}{
		{"", ExitPass, 0},
		{"evidence: {min-hash-digits: 16}\n", ExitPass, 0},
		{"evidence: {min-hash-digits: 17}\n", ExitFail, 9},
		{"evidence:\n  min-hash-digits: 64\n", ExitFail, 9},
	}
	for _, tc := range tests {
		t.Run(tc.yaml, func(t *testing.T) {
			dir := t.TempDir()
			src := filepath.Join(casesDir, "ok", "complete", runID)
			if err := os.CopyFS(filepath.Join(dir, "runs", runID), os.DirFS(src)); err != nil {
				t.Fatal(err)
			}
			if tc.yaml != "" {
				if err := os.WriteFile(filepath.Join(dir, config.DefaultFile), []byte(tc.yaml), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			t.Chdir(dir)
			code, audits, stderr := jsonReport(t, "--base", "none", "runs")
			if code != tc.wantCode {
				t.Fatalf("exit %d, want %d; stderr %s", code, tc.wantCode, stderr)
			}
			n := 0
			for _, a := range audits {
				for _, f := range a.Findings {
					if f.Rule != finding.HashTooShort.ID {
						continue
					}
					n++
					if f.File != "state/EVIDENCE_LOG.md" || f.Line == 0 || f.Severity != finding.Error {
						t.Errorf("finding %+v, want an error at a line of state/EVIDENCE_LOG.md", f)
					}
				}
			}
			if n != tc.want {
				t.Errorf("%d hash_too_short findings, want %d", n, tc.want)
			}
		})
	}
}

// TestParseRefusesALinkedRun: a run folder that is a symbolic link is not
// read, so parse has no input to print; it says why rather than "null".
func TestParseRefusesALinkedRun(t *testing.T) {
	dir := t.TempDir()
	link := filepath.Join(dir, "current")
	target, err := filepath.Abs(filepath.Join(casesDir, "ok", "complete", runID))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, link); err != nil {
		t.Skipf("cannot make symbolic links here: %v", err)
	}
	code, out, stderr := runMain("parse", link)
	if code != ExitError || out != "" || !strings.Contains(stderr, "has no policy input: the run folder is a symbolic link") {
		t.Errorf("exit %d, stdout %q, stderr %q; want exit 2 saying the run folder is a link", code, out, stderr)
	}
}
