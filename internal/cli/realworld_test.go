package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// realworld holds files other people's agents wrote, beside the
// repository; they are read in place and never copied in.
const realworld = "../../../shared/realworld"

// TestRealWorldHybrid checks every Hybrid_AI_OS repository copy and each of
// its committed snapshots (history/<commit>/) as a run of its own, and
// records what the checker says about them, so a change in its judgement of
// real files shows in review. A snapshot without state.txt is no run.
func TestRealWorldHybrid(t *testing.T) {
	root := filepath.Join(realworld, "hybrid-ai-os")
	repos, err := filepath.Glob(filepath.Join(root, "*"))
	if err != nil || len(repos) == 0 {
		t.Skipf("no real-world Hybrid_AI_OS files at %s", root)
	}
	var dirs []string
	for _, repo := range repos {
		dirs = append(dirs, repo)
		snaps, _ := filepath.Glob(filepath.Join(repo, "history", "*"))
		dirs = append(dirs, snaps...)
	}
	var b strings.Builder
	for _, dir := range dirs {
		rel, _ := filepath.Rel(root, dir)
		rel = filepath.ToSlash(rel)
		if _, err := os.Stat(filepath.Join(dir, "state.txt")); err != nil {
			fmt.Fprintf(&b, "== %s: no state.txt, not a run\n", rel)
			continue
		}
		code, audits, stderr := checkJSON(t, "--layout", "hybrid-os", dir)
		if code == ExitError || len(audits) != 1 {
			t.Fatalf("%s: exit %d, %d audits: %s", rel, code, len(audits), stderr)
		}
		a := audits[0]
		if a.Layout != "hybrid-os" {
			t.Errorf("%s: layout %q, want hybrid-os", rel, a.Layout)
		}
		if !strings.Contains(a.Notes, "vX.2 generation recognised") {
			t.Errorf("%s: notes %q do not name the vX.2 generation", rel, a.Notes)
		}
		counts := map[string]int{}
		for _, f := range a.Findings {
			counts[f.Severity.String()]++
		}
		fmt.Fprintf(&b, "== %s: exit %d, gate %s, %d errors, %d warnings\n", rel, code, a.Gate, counts["error"], counts["warning"])
		for _, f := range a.Findings {
			if f.Rule == "h3a.append_only.not_compared" {
				continue
			}
			fmt.Fprintf(&b, "%s: %s: %s [%s]\n", f.Location(), f.Severity, f.Details, f.Rule)
		}
	}
	compareGolden(t, filepath.Join("testdata", "realworld_hybrid.txt"), b.String())
}
