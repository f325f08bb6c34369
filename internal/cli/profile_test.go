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

// TestWritesKeepModeAndSkipSymlinks: --output over an existing file keeps
// its mode, and every file the checker writes (--output, --cpuprofile,
// --memprofile) replaces a symbolic link planted at its path instead of
// writing through it.
func TestWritesKeepModeAndSkipSymlinks(t *testing.T) {
	run := filepath.Join(casesDir, "ok", "complete")
	dir := t.TempDir()

	private := filepath.Join(dir, "audit.json")
	if err := os.WriteFile(private, []byte("old"), 0o600); err != nil {
		t.Fatal(err)
	}
	if code, _, stderr := runMain("--output", "json="+private, run); code != ExitPass {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if info, err := os.Stat(private); err != nil || info.Mode().Perm() != 0o600 {
		t.Errorf("--output over a 0600 file: mode %v, %v; want 0600", info.Mode(), err)
	}

	for _, flag := range []string{"--output", "--cpuprofile", "--memprofile"} {
		t.Run(flag, func(t *testing.T) {
			victim := filepath.Join(t.TempDir(), "victim")
			if err := os.WriteFile(victim, []byte("precious"), 0o644); err != nil {
				t.Fatal(err)
			}
			planted := filepath.Join(dir, strings.TrimPrefix(flag, "--")+".out")
			if err := os.Symlink(victim, planted); err != nil {
				t.Fatal(err)
			}
			value := planted
			if flag == "--output" {
				value = "json=" + planted
			}
			if code, _, stderr := runMain(flag, value, run); code != ExitPass {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			if got, _ := os.ReadFile(victim); string(got) != "precious" {
				t.Errorf("%s wrote through the symbolic link into its target", flag)
			}
			if info, err := os.Lstat(planted); err != nil || !info.Mode().IsRegular() {
				t.Errorf("%s: %s is not a regular file after the write: %v", flag, planted, err)
			}
		})
	}
}
