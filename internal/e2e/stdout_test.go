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

// TestClosedStdoutIs141: the reader of h3a-check's output goes away
// (completion bash | head -1); the binary ends quietly with 141, the
// shell's code for a program ended by SIGPIPE: never 0, and no "broken
// pipe" text for a pipeline that only wanted the first lines.
func TestClosedStdoutIs141(t *testing.T) {
	for _, args := range [][]string{
		{"completion", "bash"},
		{"parse", filepath.Join(moduleRoot, "testdata", "runs", "ok", "complete")},
		{"--base", "none", filepath.Join(moduleRoot, "testdata", "runs", "ok", "complete")},
	} {
		r, w, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		r.Close()
		cmd := exec.Command(binary, args...)
		cmd.Env = baseEnv() // a person's terminal, whatever CI runs the tests
		cmd.Stdout = w
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		err = cmd.Run()
		w.Close()
		var exit *exec.ExitError
		if !errors.As(err, &exit) || exit.ExitCode() != 141 || stderr.Len() > 0 {
			t.Errorf("%s: %v (%v), stderr %q; want exit 141 and nothing on stderr", strings.Join(args[:1], " "), err, exit, stderr.String())
		}
	}
}
