package runner

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/h3a-check/h3a-check/internal/finding"
)

// TestLastEvidenceEntryCounts: a path logged more than once is held to
// its last entry, the one written after the artifact's last change; an
// earlier entry records what the file was then, and counts as superseded
// only when a later entry carries a later time (or a time that cannot be
// read, where log order decides). Each order is checked, so that neither
// "the first counts" nor "any entry will do" passes, and neither does
// "only the last entry is read".
func TestLastEvidenceEntryCounts(t *testing.T) {
	const (
		green = "- `artifacts/executor/test_output_green.txt` - [hash:%s] - 2025-09-29T14:30:00Z - GREEN phase (47 tests passing)"
		right = "1338bf06d8ca805a" // the file's hash
		whole = "1338bf06d8ca805abd81686a88f246fbf81411d918d83d7ef169b38d975c957c"
		stale = "1338bf06d8ca805b"
		other = "0123456789abcdef"
		short = "1338bf06" // too short to verify, and the file's
		// shortStale is too short to verify, and not the file's.
		shortStale = "1338bf07"
	)
	entry := func(hash, time string) string {
		return strings.Replace(strings.Replace(green, "%s", hash, 1), "2025-09-29T14:30:00Z", time, 1)
	}
	type logged struct{ hash, time string }
	// The entries replace the example's GREEN entry at line 19.
	tests := []struct {
		name    string
		entries []logged
		want    map[string][]int // rule id: lines
	}{
		{"stale entry, then the right one later", []logged{{stale, "2025-09-29T14:30:00Z"}, {right, "2025-09-29T14:31:00Z"}}, nil},
		{"stale entry, then the right one in another zone, later", []logged{{stale, "2025-09-29T14:30:00Z"}, {right, "2025-09-29T16:31:00+02:00"}}, nil},
		{"stale entry, then the right one at the same time", []logged{{stale, "2025-09-29T14:30:00Z"}, {right, "2025-09-29T14:30:00Z"}},
			map[string][]int{finding.EntryNotSuperseded.ID: {19}}},
		{"stale entry, then the right one earlier", []logged{{stale, "2025-09-29T14:31:00Z"}, {right, "2025-09-29T14:30:00Z"}},
			map[string][]int{finding.EntryNotSuperseded.ID: {19}}},
		{"stale entry, then the right one at the same instant in another zone", []logged{{stale, "2025-09-29T14:30:00Z"}, {right, "2025-09-29T16:30:00+02:00"}},
			map[string][]int{finding.EntryNotSuperseded.ID: {19}}},
		{"stale entry at an unreadable time, then the right one", []logged{{stale, "<timestamp>"}, {right, "2025-09-29T14:30:00Z"}}, nil},
		{"stale entry, then the right one at an unreadable time", []logged{{stale, "2025-09-29T14:30:00Z"}, {right, "later"}}, nil},
		{"right entry, then a stale one", []logged{{right, "2025-09-29T14:30:00Z"}, {stale, "2025-09-29T14:31:00Z"}},
			map[string][]int{finding.HashMismatch.ID: {20}}},
		{"right entry, then a stale one at the same time", []logged{{right, "2025-09-29T14:30:00Z"}, {stale, "2025-09-29T14:30:00Z"}},
			map[string][]int{finding.HashMismatch.ID: {20}}},
		{"the right hash twice at one time, 16 digits and the whole digest", []logged{{right, "2025-09-29T14:30:00Z"}, {whole, "2025-09-29T14:30:00Z"}}, nil},
		{"two stale entries superseded in turn", []logged{{stale, "2025-09-29T14:30:00Z"}, {other, "2025-09-29T14:31:00Z"}, {right, "2025-09-29T14:32:00Z"}}, nil},
		{"a stale entry later than the right one's time, between", []logged{{stale, "2025-09-29T14:30:00Z"}, {other, "2025-09-29T14:33:00Z"}, {right, "2025-09-29T14:32:00Z"}},
			map[string][]int{finding.EntryNotSuperseded.ID: {20}}},
		// A hash too short to verify proves nothing when its digits are the
		// file's, but digits that are not the file's are a mismatch all
		// the same: a reader cutting the digest to as many digits sees it.
		{"a short hash, the file's", []logged{{short, "2025-09-29T14:30:00Z"}}, nil},
		{"a short hash, not the file's", []logged{{shortStale, "2025-09-29T14:30:00Z"}},
			map[string][]int{finding.HashMismatch.ID: {19}}},
		{"a short hash with an ellipsis, not the file's", []logged{{shortStale + "...", "2025-09-29T14:30:00Z"}},
			map[string][]int{finding.HashMismatch.ID: {19}}},
		{"right entry, then a short stale one", []logged{{right, "2025-09-29T14:30:00Z"}, {shortStale, "2025-09-29T14:31:00Z"}},
			map[string][]int{finding.HashMismatch.ID: {20}}},
		{"a short stale entry, then the right one at the same time", []logged{{shortStale, "2025-09-29T14:30:00Z"}, {right, "2025-09-29T14:30:00Z"}},
			map[string][]int{finding.EntryNotSuperseded.ID: {19}}},
		{"a stale entry, then a short right one at the same time", []logged{{stale, "2025-09-29T14:30:00Z"}, {short, "2025-09-29T14:30:00Z"}},
			map[string][]int{finding.EntryNotSuperseded.ID: {19}}},
		{"a stale entry superseded only by one in between", []logged{{stale, "2025-09-29T14:32:00Z"}, {right, "2025-09-29T14:33:00Z"}, {right, "2025-09-29T14:31:00Z"}}, nil},
	}
	rules := []string{finding.HashMismatch.ID, finding.EntryNotSuperseded.ID}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			run := filepath.Join(t.TempDir(), "runs", exampleID)
			copyExample(t, run)
			logPath := filepath.Join(run, "state", "EVIDENCE_LOG.md")
			data, err := os.ReadFile(logPath)
			if err != nil {
				t.Fatal(err)
			}
			original := entry(right, "2025-09-29T14:30:00Z") + "\n"
			if !strings.Contains(string(data), original) {
				t.Fatalf("the example's evidence log no longer holds %q", original)
			}
			var lines strings.Builder
			for _, e := range tc.entries {
				lines.WriteString(entry(e.hash, e.time) + "\n")
			}
			if err := os.WriteFile(logPath, []byte(strings.Replace(string(data), original, lines.String(), 1)), 0o644); err != nil {
				t.Fatal(err)
			}
			res, err := Check(context.Background(), Options{Scope: Scope{Paths: []string{run}, Base: "none", Getenv: noEnv}})
			if err != nil {
				t.Fatal(err)
			}
			got := map[string][]int{}
			for _, f := range res.Audits[0].Findings {
				if slices.Contains(rules, f.Rule) {
					got[f.Rule] = append(got[f.Rule], f.Line)
				}
			}
			for _, rule := range rules {
				if !slices.Equal(got[rule], tc.want[rule]) {
					t.Errorf("%s at lines %v, want %v (findings %+v)", rule, got[rule], tc.want[rule], res.Audits[0].Findings)
				}
			}
		})
	}
}

// TestLookalikeArtifact: a file that shows as a logged artifact's path but
// is another (a second test_output_green.txt, holding failing tests) is an
// error at that file; the logged file's hash says nothing of it.
func TestLookalikeArtifact(t *testing.T) {
	const green = "artifacts/executor/test_output_green.txt"
	tests := []struct {
		name, file string
		want       bool
	}{
		{"a space after the name", green + " ", true},
		{"a dot after the name", green + ".", true},
		{"a zero-width space in the name", "artifacts/executor/test_output\u200b_green.txt", true},
		{"a Cyrillic letter", "artifacts/executor/t\u0435st_output_green.txt", true},
		{"another case", "artifacts/executor/Test_Output_Green.txt", true},
		{"a folder that shows as the logged one", "artifacts/executor\u200b/test_output_green.txt", true},
		{"a name that shows otherwise", "artifacts/executor/test_output_green2.txt", false},
		{"a lookalike of the layout's own file, reported as one", "validator_report.json ", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			run := filepath.Join(t.TempDir(), "runs", exampleID)
			copyExample(t, run)
			file := filepath.Join(run, filepath.FromSlash(tc.file))
			if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(file, []byte("===== 3 failed, 44 passed =====\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			res, err := Check(context.Background(), Options{Scope: Scope{Paths: []string{run}, Base: "none", Getenv: noEnv}})
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, f := range res.Audits[0].Findings {
				if f.Rule == finding.NameCase.ID && strings.Contains(f.Details, "an artifact EVIDENCE_LOG.md logs") {
					got = append(got, f.File)
				}
			}
			if tc.want && !slices.Equal(got, []string{tc.file}) || !tc.want && len(got) > 0 {
				t.Errorf("lookalike findings at %q, want one at %q: %v (findings %+v)", got, tc.file, tc.want, res.Audits[0].Findings)
			}
		})
	}
}
