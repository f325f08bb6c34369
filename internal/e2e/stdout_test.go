package e2e

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestClosedStdoutIsExitTwo: the reader of h3a-check's output goes away
// (parse RUN | a command that exits at once); the write fails and the
// binary exits 2 saying so, neither 0 nor killed by SIGPIPE.
func TestClosedStdoutIsExitTwo(t *testing.T) {
	for _, args := range [][]string{
		{"parse", filepath.Join(moduleRoot, "testdata", "runs", "ok", "complete")},
		{"--base", "none", filepath.Join(moduleRoot, "testdata", "runs", "ok", "complete")},
	} {
		r, w, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		r.Close()
		cmd := exec.Command(binary, args...)
		cmd.Stdout = w
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		err = cmd.Run()
		w.Close()
		var exit *exec.ExitError
		if !errors.As(err, &exit) || exit.ExitCode() != 2 || !strings.Contains(stderr.String(), "broken pipe") {
			t.Errorf("%s: %v (%v), stderr %q; want exit 2 naming the broken pipe", strings.Join(args[:1], " "), err, exit, stderr.String())
		}
	}
}
