package ledger

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// realworldDir holds files other producers actually wrote; it lives outside
// the module, so the tests skip when it is absent.
const realworldDir = "../../../shared/realworld"

func TestRealWorldFilesAreTolerated(t *testing.T) {
	if _, err := os.Stat(realworldDir); err != nil {
		t.Skipf("real-world files not available: %v", err)
	}
	var files []string
	err := filepath.WalkDir(realworldDir, func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(path, ".md") {
			files = append(files, path)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Skip("no markdown files under " + realworldDir)
	}
	for _, path := range files {
		rel, _ := filepath.Rel(realworldDir, path)
		t.Run(rel, func(t *testing.T) {
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			// The bound is checked apart from the assertions, which must run
			// on the test's own goroutine.
			done := make(chan struct{})
			go func() {
				defer close(done)
				ParseRoadmap(data)
				ParseGatesLedger(data)
				ParseEvidenceLog(data)
			}()
			select {
			case <-done:
			case <-time.After(10 * time.Second):
				t.Fatalf("parsing %s did not finish within 10s", rel)
			}
			checkAllParsers(t, data)
		})
	}
}

// TestRealWorldGatesLedger pins what is read from a repository-level gates
// ledger that uses "## Gate G0:" sections instead of an events log.
func TestRealWorldGatesLedger(t *testing.T) {
	path := filepath.Join(realworldDir, "h3a-adjacent/Baragji__ai_system_executor-mvp/.automation/GATES_LEDGER.md")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Skipf("real-world file not available: %v", err)
	}
	g, problems := ParseGatesLedger(data)
	assertProblems(t, problems, nil)
	if g.EventsLine != 0 || len(g.Events) != 0 {
		t.Errorf("got events line %d and %d events; the file has no events log", g.EventsLine, len(g.Events))
	}
	assertEqual(t, "table", g.Table, []GateRow{
		{Gate: "G0", Status: GatePassed, RawStatus: "✅ PASSED", Line: 234},
		{Gate: "G1", Status: GatePassed, RawStatus: "✅ PASSED", Line: 235},
		{Gate: "G2", Status: GatePassed, RawStatus: "**✅ PASSED**", Line: 236},
		{Gate: "G3", Status: GateInProgress, RawStatus: "🟡 PARTIAL", Line: 237},
		{Gate: "G4", Status: GateNotStarted, RawStatus: "⏳ NOT STARTED", Line: 238},
	})
	wantSections := map[int]Section{
		0:  {"Gates Ledger — Phase 19/20 Execution Tracking", 1, 1},
		1:  {"Gate G0: Inception/Constraints", 2, 11},
		20: {"Gate G3.1: Multi-Node Implementation", 2, 187},
		24: {"Rollback Plan", 2, 211},
		25: {"Summary", 2, 230}, // the "# Disable ..." lines in the bash fence between are not headings
	}
	if len(g.Sections) != 26 {
		t.Fatalf("got %d sections, want 26: %v", len(g.Sections), g.Sections)
	}
	for i, want := range wantSections {
		if g.Sections[i] != want {
			t.Errorf("section %d = %+v, want %+v", i, g.Sections[i], want)
		}
	}
	r, _ := ParseRoadmap(data)
	if r.Status != "✅ PASSED" || r.StatusLine != 13 {
		t.Errorf("first status line: got %q at line %d, want \"✅ PASSED\" at line 13", r.Status, r.StatusLine)
	}
}

// checkAllParsers runs the invariant checks of all three parsers.
func checkAllParsers(t testing.TB, data []byte) {
	t.Helper()
	checkRoadmap(t, data)
	checkGatesLedger(t, data)
	checkEvidenceLog(t, data)
}
