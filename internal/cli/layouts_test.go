package cli

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestEveryLayoutInOneCall: a folder holding one run of each layout is
// checked in one call, each run under its own layout, and all pass.
func TestEveryLayoutInOneCall(t *testing.T) {
	dir := t.TempDir()
	for _, run := range []struct{ src, dst string }{
		{"ok/complete/20250929-134215-8b6f8b9a-7c9f-4c5e-8c6a-2f0f0d2e9c1a", "runs/20250929-134215-8b6f8b9a-7c9f-4c5e-8c6a-2f0f0d2e9c1a"},
		{"ok/hybrid_complete/greeter", "hybrid"},
		{"ok/hybrid_x2/app", "hybrid-x2"},
		{"ok/stigmergy_complete/greeter", "stigmergy"},
	} {
		if err := os.CopyFS(filepath.Join(dir, run.dst), os.DirFS(filepath.Join(casesDir, run.src))); err != nil {
			t.Fatal(err)
		}
	}
	code, audits, stderr := checkJSON(t, dir)
	if code != ExitPass {
		t.Fatalf("exit %d, want 0: %s\n%s", code, stderr, wantText(code, audits))
	}
	var layouts []string
	for _, a := range audits {
		layouts = append(layouts, a.Layout)
	}
	slices.Sort(layouts)
	if want := []string{"h3a", "hybrid-os", "hybrid-os", "stigmergy"}; !slices.Equal(layouts, want) {
		t.Errorf("layouts %q, want %q", layouts, want)
	}
}
