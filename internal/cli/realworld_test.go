package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/h3a-check/h3a-check/internal/audit"
)

// realworld holds files other people's agents wrote, beside the
// repository; they are read in place and never copied in.
const realworld = "../../../shared/realworld"

// TestRealWorld checks every real repository copy of a layout and each of
// its committed snapshots as a run of its own, and records what the checker
// says about them, so a change in its judgement of real files shows in
// review. A snapshot that holds no state file is no run and says so.
func TestRealWorld(t *testing.T) {
	for _, tc := range []struct {
		layout, folder string
		runs           []string // globs under folder, in order
		marker         []string // a run holds one of these
		notes          string   // the audit's notes name what was recognised
	}{
		{"hybrid-os", "hybrid-ai-os", []string{"*", "*/history/*"}, []string{"state.txt", "state.json"}, "generation recognised"},
		{"stigmergy", "stigmergy", []string{"*", "*/history/*", "*/history/*/evaluation/problems/*"},
			[]string{".ai/state.json", ".stigmergy/state/current.json"}, "recognised"},
	} {
		t.Run(tc.layout, func(t *testing.T) {
			root := filepath.Join(realworld, tc.folder)
			if _, err := os.Stat(root); err != nil {
				t.Skipf("no real-world files at %s", root)
			}
			var b strings.Builder
			for _, g := range tc.runs {
				dirs, _ := filepath.Glob(filepath.Join(root, g))
				for _, dir := range dirs {
					if info, err := os.Stat(dir); err != nil || !info.IsDir() {
						continue
					}
					checkRealRun(t, &b, root, dir, tc.layout, tc.marker, tc.notes)
				}
			}
			compareGolden(t, filepath.Join("testdata", "realworld_"+tc.layout+".txt"), b.String())
		})
	}
}

func checkRealRun(t *testing.T, b *strings.Builder, root, dir, layout string, markers []string, notes string) {
	rel, _ := filepath.Rel(root, dir)
	rel = filepath.ToSlash(rel)
	isRun := false
	for _, m := range markers {
		if _, err := os.Stat(filepath.Join(dir, filepath.FromSlash(m))); err == nil {
			isRun = true
		}
	}
	if !isRun {
		if _, err := os.Stat(filepath.Join(dir, "evaluation")); err != nil {
			fmt.Fprintf(b, "== %s: no state file, not a run\n", rel)
		}
		return
	}
	// A snapshot folder below a root is a run of its own, checked with the
	// root and reported here on its own line; this line is about dir's run.
	code, audits, stderr := checkJSON(t, "--layout", layout, dir)
	i := slices.IndexFunc(audits, func(a *audit.Audit) bool { return a.Run == filepath.ToSlash(dir) })
	if code == ExitError || i < 0 {
		t.Fatalf("%s: exit %d, no audit of it among %d: %s", rel, code, len(audits), stderr)
	}
	a := audits[i]
	code = exitCode(a.Gate)
	if a.Layout != layout {
		t.Errorf("%s: layout %q, want %s", rel, a.Layout, layout)
	}
	if !strings.Contains(a.Notes, notes) {
		t.Errorf("%s: notes %q do not say what was recognised", rel, a.Notes)
	}
	counts := map[string]int{}
	for _, f := range a.Findings {
		counts[f.Severity.String()]++
	}
	fmt.Fprintf(b, "== %s: exit %d, gate %s, %d errors, %d warnings; %s\n", rel, code, a.Gate, counts["error"], counts["warning"], strings.SplitN(a.Notes, ";", 2)[0])
	for _, f := range a.Findings {
		if f.Rule == "h3a.append_only.not_compared" {
			continue
		}
		fmt.Fprintf(b, "%s: %s: %s [%s]\n", f.Location(), f.Severity, f.Details, f.Rule)
	}
}
