package runner

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/h3a-check/h3a-check/internal/finding"
)

// TestDocumentsStayWithinTheBudget: a document that would expand in
// memory past what the checker allows a run (an evidence log with more
// lines than that, a JSON document of more values, YAML aliases repeating
// one another under long keys) is one too_large finding at the file and
// is not parsed; the run fails instead of taking gigabytes.
func TestDocumentsStayWithinTheBudget(t *testing.T) {
	const runID = "20250929-134215-8b6f8b9a-7c9f-4c5e-8c6a-2f0f0d2e9c1a"
	h3a := filepath.Join(testRuns, "ok", "complete", runID)
	tests := []struct {
		name, src, file string
		write           func(t *testing.T, path string)
	}{
		{"an evidence log of 20,000 entries", h3a, "state/EVIDENCE_LOG.md", func(t *testing.T, path string) {
			var b strings.Builder
			for i := range 20_000 {
				fmt.Fprintf(&b, "- `artifacts/x/f%07d.log` - [hash:0123456789abcdef] - 2025-09-29T14:03:15Z - entry\n", i)
			}
			appendTo(t, path, b.String())
		}},
		{"a report of 200,000 values", h3a, "validator_report.json", func(t *testing.T, path string) {
			data := "[" + strings.Repeat("0,", 200_000-1) + "0]"
			if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
				t.Fatal(err)
			}
		}},
		{"a blueprint of aliases under long keys", filepath.Join(testRuns, "ok", "stigmergy_complete", "greeter"), "execution-blueprint.yml", func(t *testing.T, path string) {
			appendTo(t, path, longKeyAliases(6, 900))
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			run := filepath.Join(t.TempDir(), filepath.Base(tc.src))
			if err := os.CopyFS(run, os.DirFS(tc.src)); err != nil {
				t.Fatal(err)
			}
			tc.write(t, filepath.Join(run, filepath.FromSlash(tc.file)))
			res, err := Check(context.Background(), Options{Scope: Scope{Paths: []string{run}, Base: "none"}})
			if err != nil {
				t.Fatal(err)
			}
			var found []finding.Finding
			for _, f := range res.Audits[0].Findings {
				if f.Rule == finding.TooLarge.ID {
					found = append(found, f)
				}
			}
			if len(found) != 1 || found[0].File != tc.file || !strings.Contains(found[0].Details, "not parsed") || res.Gate() != "fail" {
				t.Errorf("too_large findings %+v, gate %s; want one at %s saying it is not parsed, and a failed gate", found, res.Gate(), tc.file)
			}
		})
	}
}

func appendTo(t *testing.T, path, text string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(text); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

// longKeyAliases writes levels mappings of four keys of keyLen bytes, each
// value an alias of the level below: a few KiB that expand four times per
// level, pointers and all.
func longKeyAliases(levels, keyLen int) string {
	var b strings.Builder
	key := func(i, j int) string { return fmt.Sprintf("k%d_%d_%s", i, j, strings.Repeat("x", keyLen)) }
	b.WriteString("l0: &l0 {")
	for j := range 4 {
		fmt.Fprintf(&b, "%s: v, ", key(0, j))
	}
	b.WriteString("}\n")
	for i := 1; i < levels; i++ {
		fmt.Fprintf(&b, "l%d: &l%d {", i, i)
		for j := range 4 {
			fmt.Fprintf(&b, "%s: *l%d, ", key(i, j), i-1)
		}
		b.WriteString("}\n")
	}
	return b.String()
}
