package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestProfiles: --cpuprofile and --memprofile write pprof files (gzip) and
// leave the verdict alone; an unwritable profile is a tool error.
func TestProfiles(t *testing.T) {
	run := filepath.Join(casesDir, "ok", "complete")
	dir := t.TempDir()
	cpu, mem := filepath.Join(dir, "cpu.prof"), filepath.Join(dir, "mem.prof")
	code, _, stderr := runMain("--cpuprofile", cpu, "--memprofile", mem, run)
	if code != ExitPass {
		t.Fatalf("exit %d, want 0: %s", code, stderr)
	}
	for _, p := range []string{cpu, mem} {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.HasPrefix(b, []byte{0x1f, 0x8b}) {
			t.Errorf("%s is not a gzip-compressed pprof profile (%d bytes)", filepath.Base(p), len(b))
		}
	}

	missing := filepath.Join(dir, "no", "such", "dir")
	for _, flag := range []string{"--cpuprofile", "--memprofile"} {
		code, _, stderr := runMain(flag, filepath.Join(missing, "x.prof"), run)
		if code != ExitError || !strings.Contains(stderr, flag) {
			t.Errorf("%s into a missing directory: exit %d, stderr %q; want 2 naming the flag", flag, code, stderr)
		}
	}
}
