package cli

import (
	"flag"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/h3a-check/h3a-check/internal/report"
)

// needTool skips a test when a program is missing, except under .ci/run
// (H3A_CI=1), which installs it.
func needTool(t *testing.T, name string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err != nil {
		if os.Getenv("H3A_CI") != "" {
			t.Fatalf("%s is required in CI (.ci/run installs it): %v", name, err)
		}
		t.Skipf("%s not installed: %v", name, err)
	}
	return p
}

// completionScript writes the script of shell to a file.
func completionScript(t *testing.T, shell string) string {
	t.Helper()
	code, stdout, stderr := runMain("completion", shell)
	if code != ExitPass {
		t.Fatalf("completion %s: exit %d: %s", shell, code, stderr)
	}
	p := filepath.Join(t.TempDir(), "h3a-check."+shell)
	if err := os.WriteFile(p, []byte(stdout), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestCompletionNamesEveryCommandAndFlag: each script names every
// subcommand and every flag of its flag set, so a flag added to a command
// is offered without touching the scripts.
func TestCompletionNamesEveryCommandAndFlag(t *testing.T) {
	quiet := &env{stdout: io.Discard, stderr: io.Discard, getenv: func(string) string { return "" }}
	for _, shell := range shells {
		_, script, _ := runMain("completion", shell)
		for _, c := range subcommands() {
			if !strings.Contains(script, c.name) {
				t.Errorf("%s script lacks the command %q", shell, c.name)
			}
			if c.flags == nil {
				continue
			}
			c.flags(quiet).VisitAll(func(f *flag.Flag) {
				want := "--" + f.Name
				if shell == "fish" {
					want = "= " + c.name + "' -l " + f.Name + " "
				}
				if !strings.Contains(script, want) {
					t.Errorf("%s script lacks %s of %s (%q)", shell, f.Name, c.name, want)
				}
			})
		}
	}
	if code, _, stderr := runMain("completion", "tcsh"); code != ExitError || !strings.Contains(stderr, "bash, zsh, fish") {
		t.Errorf("an unknown shell: exit %d, %s", code, stderr)
	}
}

// TestBashCompletion runs the bash script's function as bash's completion
// would, for command lines that exercise each kind of completion.
func TestBashCompletion(t *testing.T) {
	bash := needTool(t, "bash")
	script := completionScript(t, "bash")
	if shellcheck, err := exec.LookPath("shellcheck"); err == nil {
		if out, err := exec.Command(shellcheck, "-s", "bash", script).CombinedOutput(); err != nil {
			t.Errorf("shellcheck: %v\n%s", err, out)
		}
	}
	tests := []struct {
		line []string // the last word is the one being completed
		want []string
		not  []string
	}{
		{[]string{"ex"}, []string{"explain"}, []string{"check"}},
		{[]string{"--fo"}, []string{"--format", "--force"}, nil},
		{[]string{"--format", ""}, []string{"github", "json", "junit", "sarif", "text"}, nil},
		{[]string{"runs/", "--la"}, []string{"--layout"}, nil},
		{[]string{"check", "--fail-level", "w"}, []string{"warning"}, []string{"error"}},
		{[]string{"init", "--"}, []string{"--runs", "--task-brief"}, []string{"--format"}},
		{[]string{"log", "--f"}, []string{"--full"}, []string{"--format"}},
		{[]string{"test", "--th"}, []string{"--threshold"}, nil},
		{[]string{"explain", "h3a.integrity.hash_mi"}, []string{"h3a.integrity.hash_mismatch"}, nil},
		{[]string{"completion", ""}, []string{"bash", "zsh", "fish"}, nil},
	}
	for _, tt := range tests {
		words := append([]string{"h3a-check"}, tt.line...)
		prog := "source \"$1\"\nCOMP_WORDS=(" + shellWords(words) + ")\nCOMP_CWORD=" + strconv.Itoa(len(words)-1) +
			"\n_h3a_check 2>/dev/null\nprintf '%s\\n' \"${COMPREPLY[@]}\"\n"
		out, err := exec.Command(bash, "--noprofile", "--norc", "-c", prog, "bash", script).Output()
		if err != nil {
			t.Fatalf("%v: %v", words, err)
		}
		got := strings.Fields(string(out))
		for _, w := range tt.want {
			if !slices.Contains(got, w) {
				t.Errorf("%v: got %v, want %q among them", words, got, w)
			}
		}
		for _, w := range tt.not {
			if slices.Contains(got, w) {
				t.Errorf("%v: got %v, which should not hold %q", words, got, w)
			}
		}
	}
}

// TestZshCompletion checks the zsh script's syntax with zsh itself and
// its dispatch with the completion system's functions stubbed: each
// command line reaches _arguments with that command's flags.
func TestZshCompletion(t *testing.T) {
	zsh := needTool(t, "zsh")
	script := completionScript(t, "zsh")
	if out, err := exec.Command(zsh, "-n", script).CombinedOutput(); err != nil {
		t.Fatalf("zsh -n: %v\n%s", err, out)
	}
	tests := []struct {
		words []string
		want  []string
	}{
		{[]string{"h3a-check", "ex"}, []string{"compadd -a commands", "_files"}},
		{[]string{"h3a-check", "runs/", "--"}, []string{"_arguments -S", "--format[stdout format: " + strings.Join(report.Formats(), ", ") + "]:format:(" + strings.Join(report.Formats(), " ") + ")", "*--policy[", "*:path:_files"}},
		{[]string{"h3a-check", "init", "--"}, []string{"--runs[the folder that receives the run]:runs:_files -/", "--task-brief["}},
		{[]string{"h3a-check", "log", ""}, []string{"--full[", "*:path:_files"}},
		{[]string{"h3a-check", "explain", ""}, []string{"1:rule:(", "h3a.integrity.hash_mismatch"}},
		{[]string{"h3a-check", "completion", ""}, []string{"1:shell:(bash zsh fish)"}},
	}
	stubs := "_arguments() { print -r -- \"_arguments $*\" }\ncompadd() { print -r -- \"compadd $*\" }\n_files() { print -r -- \"_files $*\" }\ncompdef() { :; }\n"
	for _, tt := range tests {
		prog := stubs + "source \"$1\"\nwords=(" + shellWords(tt.words) + ")\nCURRENT=" + strconv.Itoa(len(tt.words)) + "\n_h3a_check\n"
		out, err := exec.Command(zsh, "-f", "-c", prog, "zsh", script).CombinedOutput()
		if err != nil {
			t.Fatalf("%v: %v\n%s", tt.words, err, out)
		}
		for _, w := range tt.want {
			if !strings.Contains(string(out), w) {
				t.Errorf("%v: output lacks %q:\n%s", tt.words, w, out)
			}
		}
	}
}

// TestFishCompletion asks fish itself what it completes with the script
// loaded.
func TestFishCompletion(t *testing.T) {
	fish := needTool(t, "fish")
	script := completionScript(t, "fish")
	tests := []struct {
		line string
		want []string
		not  []string
	}{
		{"h3a-check ex", []string{"explain"}, nil},
		{"h3a-check --fo", []string{"--format", "--force"}, nil},
		{"h3a-check runs/ --format ", []string{"github", "json", "sarif"}, nil},
		{"h3a-check init --", []string{"--runs", "--task-brief"}, []string{"--format"}},
		{"h3a-check log --", []string{"--full"}, []string{"--format"}},
		{"h3a-check explain h3a.integrity.hash_mi", []string{"h3a.integrity.hash_mismatch"}, nil},
		{"h3a-check completion ", []string{"bash", "fish", "zsh"}, nil},
	}
	for _, tt := range tests {
		cmd := exec.Command(fish, "--no-config", "-c", "source $argv[1]; complete -C $argv[2]", script, tt.line)
		cmd.Env = append(os.Environ(), "HOME="+t.TempDir(), "XDG_CONFIG_HOME="+t.TempDir(), "XDG_DATA_HOME="+t.TempDir())
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%q: %v\n%s", tt.line, err, out)
		}
		var got []string
		for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
			got = append(got, strings.SplitN(l, "\t", 2)[0])
		}
		for _, w := range tt.want {
			if !slices.Contains(got, w) {
				t.Errorf("%q: got %v, want %q among them", tt.line, got, w)
			}
		}
		for _, w := range tt.not {
			if slices.Contains(got, w) {
				t.Errorf("%q: got %v, which should not hold %q", tt.line, got, w)
			}
		}
	}
}

// shellWords quotes words for a bash or zsh array literal.
func shellWords(words []string) string {
	q := make([]string, len(words))
	for i, w := range words {
		q[i] = "'" + strings.ReplaceAll(w, "'", `'\''`) + "'"
	}
	return strings.Join(q, " ")
}

// TestUsageNamesEverySubcommand: the usage text and the usage block of
// docs/usage.md name every subcommand of the list the command line
// dispatches on.
func TestUsageNamesEverySubcommand(t *testing.T) {
	b, err := os.ReadFile(usagePage)
	if err != nil {
		t.Fatal(err)
	}
	text := string(b)
	const head = "# Usage\n\n```\n"
	if !strings.HasPrefix(text, head) {
		t.Fatal("docs/usage.md does not start with the usage block")
	}
	block := text[len(head):]
	block = block[:strings.Index(block, "```")]
	for _, c := range subcommands() {
		name := c.name
		switch name {
		case "help":
			continue
		case "check":
			name = "[check]" // the default command
		}
		if !strings.Contains(usage, "h3a-check "+name) {
			t.Errorf("the usage text does not name %q", c.name)
		}
		if !strings.Contains(block, "h3a-check "+name) {
			t.Errorf("docs/usage.md's usage block does not name %q", c.name)
		}
	}
}
