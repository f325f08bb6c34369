//go:build unix

package rundir

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// nobody is the user and group the unprivileged run of a test uses.
const nobody = 65534

// unprivilegedEnv marks the run of the test binary that runUnprivileged
// starts, so that it cannot start another.
const unprivilegedEnv = "H3A_TEST_UNPRIVILEGED"

// runUnprivileged runs the calling test again in a copy of the test binary
// as user and group 65534, and fails when that run fails, skips or does not
// run the test. The copy and the temporary folders of that run live in a
// folder of os.TempDir() owned by that user, since the test binary's own
// folder and t.TempDir() are root's alone.
func runUnprivileged(t *testing.T) {
	t.Helper()
	if os.Getenv(unprivilegedEnv) != "" {
		t.Fatalf("still uid %d after dropping privileges", os.Geteuid())
	}
	dir, err := os.MkdirTemp("", "h3a-unprivileged-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chown(dir, nobody, nobody); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, filepath.Base(self))
	copyExecutable(t, self, bin)

	cmd := exec.Command(bin, "-test.run=^"+t.Name()+"$", "-test.v", "-test.count=1")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), unprivilegedEnv+"=1", "TMPDIR="+dir, "HOME="+dir, "GOCOVERDIR=")
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: nobody, Gid: nobody}}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("as uid %d: %v\n%s", nobody, err, out)
	}
	if !strings.Contains(string(out), "--- PASS: "+t.Name()+" ") {
		t.Fatalf("as uid %d the test did not pass (skipped, or not run):\n%s", nobody, out)
	}
}

func copyExecutable(t *testing.T, src, dst string) {
	t.Helper()
	in, err := os.Open(src)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_CREATE|os.O_WRONLY|os.O_EXCL, 0o755)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
}
