package cli

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestUnknownSubcommand: a first argument that is a slip of a subcommand's
// name, and no file, is reported as an unknown subcommand with the nearest
// one, not as a path that cannot be read.
func TestUnknownSubcommand(t *testing.T) {
	tests := []struct{ arg, near string }{
		{"rule", "rules"},
		{"tset", "test"},
		{"expalin", "explain"},
		{"verison", "version"},
		{"pasre", "parse"},
		{"chek", "check"},
		{"lgo", "log"},
		{"compeltion", "completion"},
	}
	for _, tc := range tests {
		t.Run(tc.arg, func(t *testing.T) {
			code, stdout, stderr := runMain(tc.arg, "x")
			want := `h3a-check: unknown subcommand "` + tc.arg + `": did you mean "` + tc.near + `"? (subcommands: check, init, log, test, rules, explain, parse, completion, version, help; a PATH to check must exist)`
			if code != ExitError || !strings.HasPrefix(stderr, want+"\n") || stdout != "" {
				t.Errorf("exit %d, stderr %q; want 2 and\n%s", code, stderr, want)
			}
		})
	}
	// A path that exists is checked, whatever its name; one that exists
	// nowhere and resembles no subcommand is a path that cannot be read.
	t.Chdir(t.TempDir())
	if err := os.Mkdir("rule", 0o755); err != nil {
		t.Fatal(err)
	}
	if code, _, stderr := runMain("--base", "none", "rule"); code != ExitError || !strings.Contains(stderr, "no run found") {
		t.Errorf("folder rule: exit %d, %q; want it checked (no run found)", code, stderr)
	}
	if code, _, stderr := runMain("runs-that-are-not-here"); code != ExitError || !strings.Contains(stderr, "cannot read") {
		t.Errorf("missing path: exit %d, %q; want cannot read", code, stderr)
	}
}

// brokenWriter fails every write, as stdout does when its reader is gone.
type brokenWriter struct{}

func (brokenWriter) Write([]byte) (int, error) { return 0, errors.New("broken pipe") }

// TestFailedStdoutIsExitTwo: whatever the command, output that could not be
// written is exit 2 with a message, never the command's own code.
func TestFailedStdoutIsExitTwo(t *testing.T) {
	run := filepath.Join(casesDir, "ok", "complete")
	for _, args := range [][]string{
		{"parse", run},
		{"--base", "none", run},
		{"--base", "none", "--format", "json", run},
		{"rules"},
		{"rules", "--format", "json"},
		{"explain", "h3a.gates.order"},
		{"version"},
		{"help"},
	} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			var stderr bytes.Buffer
			code := Main(args, nil, brokenWriter{}, &stderr)
			if code != ExitError || !strings.Contains(stderr.String(), "broken pipe") || strings.Count(stderr.String(), "\n") != 1 {
				t.Errorf("exit %d, stderr %q; want 2 and one line about the failed write", code, stderr.String())
			}
		})
	}
}
