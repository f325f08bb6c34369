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
			want := `h3a-check: unknown subcommand "` + tc.arg + `": did you mean "` + tc.near + `"? (subcommands: check, init, log, test, rules, explain, parse, schema, config, completion, version, help; a PATH to check must exist)`
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

// TestCommandNamingAFolderOfRuns: "h3a-check test" with runs in test/
// reads as a check of them; the command runs the Rego tests and exits 0,
// checking none. Bare, such a name is exit 2 saying how to write either;
// "--" after it runs the command, and a folder holding no run is no
// question.
func TestCommandNamingAFolderOfRuns(t *testing.T) {
	run, err := filepath.Abs(filepath.Join(casesDir, "ok", "complete", runID))
	if err != nil {
		t.Fatal(err)
	}
	t.Chdir(t.TempDir())
	for _, name := range []string{"test", "rules", "version", "schema", "config"} {
		if err := os.CopyFS(filepath.Join(name, runID), os.DirFS(run)); err != nil {
			t.Fatal(err)
		}
		code, stdout, stderr := runMain(name)
		want := `h3a-check: "` + name + `" names both a command and a folder here that holds runs, and the command would check none of them: write "h3a-check check ` + name + `"`
		if code != ExitError || !strings.HasPrefix(stderr, want) || stdout != "" {
			t.Errorf("%s: exit %d, stderr %q; want 2 and %s", name, code, stderr, want)
		}
	}
	// The two ways out, once each: the command (a cheap one: "test --"
	// would run every Rego test) and the check of the folder.
	if code, _, stderr := runMain("version", "--"); code != ExitPass {
		t.Errorf("version --: exit %d, %q; want the command", code, stderr)
	}
	if code, _, stderr := runMain("check", "--base", "none", "test"); code != ExitPass {
		t.Errorf("check test: exit %d, %q; want the run checked", code, stderr)
	}
	if err := os.Mkdir("help", 0o755); err != nil {
		t.Fatal(err)
	}
	if code, stdout, _ := runMain("help"); code != ExitPass || !strings.Contains(stdout, "usage:") {
		t.Errorf("help beside a folder holding no run: exit %d", code)
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

// TestFlagProblemsAreOneLine: a mistyped flag, a flag without its value or
// with a bad one is one line naming the flag as it is written (--name) and
// the nearest known one, not the flag package's message and flag list.
func TestFlagProblemsAreOneLine(t *testing.T) {
	run := filepath.Join(casesDir, "ok", "complete")
	const checkHint = ` (run "h3a-check check -h" for the flags)`
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"--fromat", "json", run}, "unknown flag --fromat: did you mean --format?" + checkHint},
		{[]string{"-fromat", "json", run}, "unknown flag --fromat: did you mean --format?" + checkHint},
		{[]string{run, "--fromat=json"}, "unknown flag --fromat: did you mean --format?" + checkHint},
		{[]string{"check", "--polcy", "x", run}, "unknown flag --polcy: did you mean --policy?" + checkHint},
		{[]string{"--frobnicate", run}, "unknown flag --frobnicate" + checkHint},
		{[]string{run, "--format"}, "--format needs a value" + checkHint},
		{[]string{"--workers", "many", run}, `--workers "many": parse error` + checkHint},
		{[]string{"--shard", "x", run}, `--shard: shard "x": expected I/N, e.g. 2/4 for the second of four parts` + checkHint},
		{[]string{"test", "--coverag"}, `unknown flag --coverag: did you mean --coverage? (run "h3a-check test -h" for the flags)`},
		{[]string{"rules", "--fromat", "json"}, `unknown flag --fromat: did you mean --format? (run "h3a-check rules -h" for the flags)`},
		{[]string{"explain", "--polcy", "x", "h3a.gates.order"}, `unknown flag --polcy: did you mean --policy? (run "h3a-check explain -h" for the flags)`},
		{[]string{"init", "--task-breif", "x"}, `unknown flag --task-breif: did you mean --task-brief? (run "h3a-check init -h" for the flags)`},
		{[]string{"log", "--ful", "run", "file", "why"}, `unknown flag --ful: did you mean --full? (run "h3a-check log -h" for the flags)`},
	}
	for _, tc := range tests {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			code, stdout, stderr := runMain(tc.args...)
			if want := "h3a-check: " + tc.want + "\n"; code != ExitError || stderr != want || stdout != "" {
				t.Errorf("exit %d, stderr %q; want 2 and %q", code, stderr, want)
			}
		})
	}
}

// TestHelpListsFlagsAsWritten: -h lists the flags with two dashes, as the
// README and every message write them.
func TestHelpListsFlagsAsWritten(t *testing.T) {
	for _, cmd := range []string{"check", "init", "log", "test", "rules", "explain"} {
		code, stdout, stderr := runMain(cmd, "-h")
		if code != ExitPass || stderr != "" || !strings.HasPrefix(stdout, "usage: h3a-check ") || !strings.Contains(stdout, "\nflags:\n  --") || strings.Contains(stdout, "\n  -"+"p") {
			t.Errorf("%s -h: exit %d, stderr %q\n%s", cmd, code, stderr, stdout)
		}
	}
	_, usage, _ := runMain("check", "-h")
	if !strings.Contains(usage, "  --format string\n") || !strings.Contains(usage, `(default "text")`) || !strings.Contains(usage, "  --policy-timeout duration\n") {
		t.Errorf("check -h:\n%s", usage)
	}
	for _, args := range [][]string{{"-version"}, {"--version"}, {"version"}} {
		code, stdout, stderr := runMain(args...)
		if code != ExitPass || stderr != "" || !strings.HasPrefix(stdout, "h3a-check ") {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want the version on stdout, exit 0", args, code, stdout, stderr)
		}
	}
}
