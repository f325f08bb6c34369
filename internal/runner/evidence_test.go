package runner

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/h3a-check/h3a-check/internal/finding"
)

// TestLastEvidenceEntryCounts: a path logged twice is held to its last
// entry, the one written after the artifact's last change; the earlier one
// records what the file was then. Each order is checked, so that neither
// "the first counts" nor "any entry will do" passes.
func TestLastEvidenceEntryCounts(t *testing.T) {
	const (
		green = "- `artifacts/executor/test_output_green.txt` - [hash:%s] - 2025-09-29T14:30:00Z - GREEN phase (47 tests passing)"
		right = "1338bf06d8ca805a" // the file's hash
		stale = "1338bf06d8ca805b"
	)
	entry := func(hash string) string { return strings.Replace(green, "%s", hash, 1) }
	tests := []struct {
		name         string
		first, last  string
		wantMismatch bool
		mismatchLine int
	}{
		{"stale entry, then the right one", stale, right, false, 0},
		{"right entry, then a stale one", right, stale, true, 20},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			run := filepath.Join(t.TempDir(), "runs", exampleID)
			copyExample(t, run)
			logPath := filepath.Join(run, "state", "EVIDENCE_LOG.md")
			data, err := os.ReadFile(logPath)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(data), entry(right)+"\n") {
				t.Fatalf("the example's evidence log no longer holds %q", entry(right))
			}
			twice := strings.Replace(string(data), entry(right)+"\n", entry(tc.first)+"\n"+entry(tc.last)+"\n", 1)
			if err := os.WriteFile(logPath, []byte(twice), 0o644); err != nil {
				t.Fatal(err)
			}
			res, err := Check(context.Background(), Options{Scope: Scope{Paths: []string{run}, Base: "none", Getenv: noEnv}})
			if err != nil {
				t.Fatal(err)
			}
			var mismatches []finding.Finding
			for _, f := range res.Audits[0].Findings {
				if f.Rule == finding.HashMismatch.ID {
					mismatches = append(mismatches, f)
				}
			}
			switch {
			case !tc.wantMismatch && len(mismatches) != 0:
				t.Errorf("hash mismatch %+v: the earlier, stale entry was checked instead of the last", mismatches)
			case tc.wantMismatch && (len(mismatches) != 1 || mismatches[0].Line != tc.mismatchLine):
				t.Errorf("hash mismatches %+v, want one at line %d, the last entry", mismatches, tc.mismatchLine)
			}
		})
	}
}
