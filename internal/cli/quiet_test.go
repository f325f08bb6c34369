package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/h3a-check/h3a-check/internal/audit/audittest"
)

// TestQuietFlag: --quiet leaves the passing run out of stdout, keeps the
// failing one and the totals, and leaves an --output file complete.
func TestQuietFlag(t *testing.T) {
	pass := filepath.Join(casesDir, "ok", "complete")
	// The failing run under an id of its own: a run id is globally unique.
	fail := filepath.Join(t.TempDir(), "err", "hash_mismatch")
	if err := audittest.CopyRunAs(filepath.Join(errCaseDir(t, "hash_mismatch"), runID), filepath.Join(fail, otherRunID), runID, otherRunID); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "report.txt")
	var stdout, stderr bytes.Buffer
	code := run(t.Context(), []string{"--quiet", "--base", "none", "--color", "never", "--output", "text=" + file, pass, fail},
		&env{stdout: &stdout, stderr: &stderr, getenv: func(string) string { return "" }})
	if code != ExitFail {
		t.Fatalf("exit %d, want %d:\n%s", code, ExitFail, stderr.String())
	}
	out := stdout.String()
	if strings.Contains(out, "ok/complete") || !strings.Contains(out, "err/hash_mismatch") ||
		!strings.Contains(out, "1 passing run not listed (--quiet)") || !strings.Contains(out, "overall: fail — 2 runs checked") {
		t.Errorf("--quiet stdout:\n%s", out)
	}
	full, err := os.ReadFile(file)
	if err != nil || !bytes.Contains(full, []byte("ok/complete")) {
		t.Errorf("the --output file lost the passing run (%v):\n%s", err, full)
	}
}
