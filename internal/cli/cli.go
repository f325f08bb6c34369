// Package cli is the command line: subcommands, flags and exit codes. Main
// takes its streams as arguments so every path is testable in process.
package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"regexp"
	"runtime/debug"
	"strings"
	"sync"
	"syscall"

	"github.com/h3a-check/h3a-check/internal/config"
	"github.com/h3a-check/h3a-check/internal/layout"
	"github.com/h3a-check/h3a-check/internal/policy"
	"github.com/h3a-check/h3a-check/internal/report"
	"github.com/h3a-check/h3a-check/internal/rundir"
	"github.com/h3a-check/h3a-check/internal/textdist"
)

// Exit codes. A flag never changes what a code means.
const (
	ExitPass       = 0 // every gate pass
	ExitFail       = 1 // some gate fail
	ExitError      = 2 // the tool could not check
	ExitNeedsHuman = 3 // no fail, but some gate needs a human
	// ExitBrokenPipe is the shell's code for a program ended by SIGPIPE:
	// stdout was closed by its reader, so what was asked for did not
	// arrive (never 0 for a check).
	ExitBrokenPipe = 141
)

// Name is the tool's name in reports.
const Name = "h3a-check"

// version is set at build time with -ldflags "-X .../internal/cli.version=v1.2.3";
// otherwise the module version from the build info is used.
var version = ""

// Version returns the tool version.
func Version() string {
	if version != "" {
		return version
	}
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "devel"
}

// env abstracts the process environment for tests.
type env struct {
	stdin          io.Reader
	stdout, stderr io.Writer
	getenv         func(string) string
}

// Main runs the command line and returns the exit code.
func Main(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	// A reader that goes away (h3a-check parse RUN | head) makes the next
	// write fail with EPIPE, which run turns into a quiet ExitBrokenPipe,
	// instead of the process being killed by SIGPIPE mid-write.
	signal.Ignore(syscall.SIGPIPE)
	return run(context.Background(), args, &env{stdin: stdin, stdout: stdout, stderr: stderr, getenv: os.Getenv})
}

const usage = `usage:
  h3a-check [check] [flags] [PATH...]   check runs (PATH defaults to ".")
  h3a-check init [--layout ID] [--task-brief TEXT] [--runs DIR]
                                        make a fresh run (default layout h3a) in DIR (default runs) and print its path
  h3a-check log [--full] RUN FILE DESCRIPTION
                                        hash FILE and add its entry to RUN's evidence log
  h3a-check test [--coverage] [--threshold N] [DIR...]
                                        run the Rego unit tests of DIR (none: the shipped ones)
  h3a-check rules [--policy DIR] [--format text|json]
                                        list every rule: id, category, severity, title
                                        (json: every field, and where the rule is defined)
  h3a-check explain [--policy DIR] RULE one rule's documentation and remediation
  h3a-check parse RUN                   print the policy input document of a run
  h3a-check schema [NAME]               list the JSON Schemas built in, or print one
  h3a-check config [flags] [PATH...]    print the configuration a check with these flags uses,
                                        and where each value comes from (flag, file:line, default)
  h3a-check completion bash|zsh|fish    print a shell completion script
  h3a-check version

Run "h3a-check check -h" for the check flags.
Exit codes: 0 every gate pass, 1 some gate fail, 3 some gate needs a human, 2 could not check.
`

// subcommand is one command of the command line. This list is the one
// place a command is named: dispatch and the shell completions read it.
type subcommand struct {
	name string
	run  func(context.Context, []string, *env) int
	// flags builds the command's flag set, whose flags the completions
	// offer; nil when the command takes none.
	flags func(*env) *flag.FlagSet
	// args says what the arguments after the flags are, for completions.
	args argKind
}

type argKind int

const (
	argNone   argKind = iota
	argPaths          // files and folders
	argRule           // a rule id
	argShells         // a shell name
)

// subcommands is a function, not a variable, because completion reads it.
func subcommands() []subcommand {
	return []subcommand{
		{name: "check", run: runCheck, args: argPaths, flags: func(e *env) *flag.FlagSet { return newCheckFlagSet(e, new(checkFlags)) }},
		{name: "init", run: runInit, flags: func(e *env) *flag.FlagSet { return newInitFlagSet(e, new(initFlags)) }},
		{name: "log", run: runLog, args: argPaths, flags: func(e *env) *flag.FlagSet { return newLogFlagSet(e, new(bool)) }},
		{name: "test", run: runTest, args: argPaths, flags: func(e *env) *flag.FlagSet { return newTestFlagSet(e, new(testFlags)) }},
		{name: "rules", run: runRules, flags: func(e *env) *flag.FlagSet { return newCatalogFlagSet("rules", e, new(catalogFlags)) }},
		{name: "explain", run: runExplain, args: argRule, flags: func(e *env) *flag.FlagSet { return newCatalogFlagSet("explain", e, new(catalogFlags)) }},
		{name: "parse", run: runParse, args: argPaths},
		{name: "schema", run: runSchema},
		{name: "config", run: runConfig, args: argPaths, flags: func(e *env) *flag.FlagSet { return newCheckFlagSet(e, new(checkFlags)) }},
		{name: "completion", run: runCompletion, args: argShells},
		{name: "version", run: runVersion},
		{name: "help", run: runHelp},
	}
}

func runVersion(_ context.Context, _ []string, e *env) int {
	fmt.Fprintf(e.stdout, "%s %s%s\n", Name, Version(), vcsText(debug.ReadBuildInfo()))
	return ExitPass
}

// vcsText names the commit a build from source was made of, which a
// "devel" version does not: " (revision 1a2b3c4d5e6f, modified)". It is
// empty for a release and for a build without version control data.
func vcsText(bi *debug.BuildInfo, ok bool) string {
	if !ok || version != "" {
		return ""
	}
	var rev, modified string
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			modified = s.Value
		}
	}
	if rev == "" {
		return ""
	}
	if len(rev) > 12 {
		rev = rev[:12]
	}
	if modified == "true" {
		return " (revision " + rev + ", modified)"
	}
	return " (revision " + rev + ")"
}

func runHelp(_ context.Context, _ []string, e *env) int {
	fmt.Fprint(e.stdout, usage)
	return ExitPass
}

func run(ctx context.Context, args []string, e *env) int {
	if e.stderr == nil {
		e.stderr = io.Discard
	}
	stderr := newStderrWriter(e.stderr, e.getenv)
	defer stderr.flush()
	e.stderr = stderr
	out := &writeErr{w: e.stdout}
	e.stdout = out
	code := dispatch(ctx, args, e)
	if errors.Is(out.err, syscall.EPIPE) {
		// The reader went away (h3a-check completion bash | head -1): end
		// as a program killed by SIGPIPE would, without a word.
		return ExitBrokenPipe
	}
	if out.err != nil {
		// What was asked for did not arrive: a check whose report is lost
		// is no check. (A command that failed has said why already.)
		if code != ExitError {
			fmt.Fprintf(e.stderr, "%s: writing to stdout failed: %v\n", Name, out.err)
		}
		return ExitError
	}
	return code
}

// dispatch runs the subcommand that args name. A first argument that names
// none is a PATH to check; one that is a slip of a name (and no file) is
// reported as an unknown subcommand, with the nearest one.
func dispatch(ctx context.Context, args []string, e *env) int {
	if len(args) == 0 {
		return runCheck(ctx, args, e)
	}
	switch args[0] {
	case "--version", "-version":
		return runVersion(ctx, nil, e)
	case "-h", "-help", "--help":
		return runHelp(ctx, nil, e)
	}
	cmds := subcommands()
	names := make([]string, len(cmds))
	for i, c := range cmds {
		if c.name == args[0] {
			rest := args[1:]
			if len(rest) == 0 && c.name != "check" && holdsRuns(c.name) {
				return fail(e, usageError{fmt.Sprintf("%q names both a command and a folder here that holds runs, and the command would check none of them: write \"%s check %s\" (or ./%s) to check the folder, or \"%s %s --\" to run the command",
					c.name, Name, c.name, c.name, Name, c.name)})
			}
			if len(rest) == 1 && rest[0] == "--" {
				rest = nil // the command, whatever the folder holds
			}
			return c.run(ctx, rest, e)
		}
		names[i] = c.name
	}
	if !strings.HasPrefix(args[0], "-") {
		if _, err := os.Lstat(args[0]); err != nil {
			if near, ok := textdist.Nearest(args[0], names); ok {
				return fail(e, usageError{fmt.Sprintf("unknown subcommand %q: did you mean %q? (subcommands: %s; a PATH to check must exist)",
					args[0], near, strings.Join(names, ", "))})
			}
		}
	}
	return runCheck(ctx, args, e)
}

// holdsRuns reports whether name, in the working directory, is a folder
// that holds a run or lies in one: "h3a-check test" with runs in test/
// reads as a check of them, and must not pass as one while it runs the
// Rego tests. A folder that cannot be searched counts as holding runs.
func holdsRuns(name string) bool {
	info, err := os.Stat(name)
	if err != nil || !info.IsDir() {
		return false
	}
	runs, err := rundir.Discover([]string{name}, layout.Detectors(), "")
	return err != nil || len(runs) > 0
}

// writeErr passes writes on and keeps the first error: a report that could
// not be written is exit 2, whichever command wrote it.
type writeErr struct {
	w   io.Writer
	err error
}

func (w *writeErr) Write(p []byte) (int, error) {
	if w.err != nil {
		return 0, w.err
	}
	n, err := w.w.Write(p)
	if err != nil {
		w.err = err
	}
	return n, err
}

// parseInterspersed parses flags wherever they stand among the positional
// arguments ("h3a-check runs/x --format json"); "--" ends flag parsing.
func parseInterspersed(fs *flag.FlagSet, args []string) ([]string, error) {
	var positional, rest []string
	for i, a := range args {
		if a == "--" {
			rest = args[i+1:]
			args = args[:i]
			break
		}
	}
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		args = fs.Args()
		if len(args) == 0 {
			break
		}
		positional = append(positional, args[0])
		args = args[1:]
	}
	return append(positional, rest...), nil
}

// parseFlags parses a subcommand's flags wherever they stand among its
// arguments. -h prints the flag set's usage to stderr; a flag that is
// unknown, lacks its value or has a bad one is one line of stderr naming
// the nearest known flag, not the flag package's message and flag list.
// stop is set when the command ends there, with code.
func parseFlags(cmd string, fs *flag.FlagSet, args []string, e *env) (rest []string, code int, stop bool) {
	usage := fs.Usage
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	rest, err := parseInterspersed(fs, args)
	switch {
	case err == nil:
		return rest, ExitPass, false
	case errors.Is(err, flag.ErrHelp):
		// Asked for, the usage is the command's output: stdout, exit 0,
		// so that h3a-check check -h | less works.
		fs.SetOutput(e.stdout)
		usage()
		return nil, ExitPass, true
	}
	fmt.Fprintf(e.stderr, "%s: %s (run \"%s %s -h\" for the flags)\n", Name, oneLine(flagProblem(fs, err)), Name, cmd)
	return nil, ExitError, true
}

// newFlagSet is a subcommand's flag set: its errors go to stderr, and its
// usage is intro, then the flags as printFlags lists them.
func newFlagSet(e *env, name, intro string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(e.stderr)
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), intro)
		printFlags(fs.Output(), fs)
	}
	return fs
}

var (
	reUndefinedFlag = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^flag provided but not defined: -+(.*)$`) })
	reFlagNeedsArg  = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^flag needs an argument: -+(.*)$`) })
	reBadFlagValue  = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^invalid (?:boolean )?value (".*") for flag -+(\S+): (.*)$`)
	})
)

// flagProblem says what is wrong with a flag in this tool's terms.
func flagProblem(fs *flag.FlagSet, err error) string {
	msg := err.Error()
	if m := reUndefinedFlag().FindStringSubmatch(msg); m != nil {
		var names []string
		fs.VisitAll(func(f *flag.Flag) { names = append(names, f.Name) })
		if near, ok := textdist.Nearest(m[1], names); ok {
			return fmt.Sprintf("unknown flag --%s: did you mean --%s?", m[1], near)
		}
		return fmt.Sprintf("unknown flag --%s", m[1])
	}
	if m := reFlagNeedsArg().FindStringSubmatch(msg); m != nil {
		return fmt.Sprintf("--%s needs a value", m[1])
	}
	if m := reBadFlagValue().FindStringSubmatch(msg); m != nil {
		if strings.Contains(m[3], m[1]) {
			return fmt.Sprintf("--%s: %s", m[2], m[3]) // the reason quotes the value
		}
		return fmt.Sprintf("--%s %s: %s", m[2], m[1], m[3])
	}
	return msg
}

// printFlags lists the flags as they are written: --name VALUE, with
// what each does and its default.
func printFlags(w io.Writer, fs *flag.FlagSet) {
	fmt.Fprintln(w, "flags:")
	fs.VisitAll(func(f *flag.Flag) {
		value, usage := flag.UnquoteUsage(f)
		head := "  --" + f.Name
		if value != "" {
			head += " " + value
		}
		switch def := f.DefValue; {
		case def == "" || def == "false" || def == "0" || def == "0s":
		case strings.HasSuffix(fmt.Sprintf("%T", f.Value), "stringValue"):
			usage += fmt.Sprintf(" (default %q)", def)
		default:
			usage += fmt.Sprintf(" (default %s)", def)
		}
		fmt.Fprintf(w, "%s\n    \t%s\n", head, strings.ReplaceAll(usage, "\n", "\n    \t"))
	})
}

// usageError is reported with exit code 2 and a pointer to -h.
type usageError struct{ msg string }

func (u usageError) Error() string { return u.msg }

func fail(e *env, err error) int {
	err = withFlags(err)
	if errors.Is(err, syscall.EPIPE) {
		return ExitBrokenPipe // said by run, which sees the closed stdout
	}
	var ue usageError
	if errors.As(err, &ue) {
		fmt.Fprintf(e.stderr, "%s: %s\n(run \"%s help\" for usage)\n", Name, oneLine(ue.msg), Name)
		return ExitError
	}
	var ce config.Errors
	if errors.As(err, &ce) {
		// One line per problem, each naming its file:line.
		for _, c := range ce {
			fmt.Fprintf(e.stderr, "%s: %s\n", Name, oneLine(c.Error()))
		}
		return ExitError
	}
	var pe *policy.CompileError
	if errors.As(err, &pe) && len(pe.Problems) > 0 {
		// One line per problem, each naming its file:line, as for the
		// configuration: a policy's text is escaped, the layout is ours.
		fmt.Fprintf(e.stderr, "%s: policies cannot be used:\n", Name)
		for _, p := range pe.Problems {
			fmt.Fprintf(e.stderr, "  %s\n", oneLine(p))
		}
		return ExitError
	}
	fmt.Fprintf(e.stderr, "%s: %s\n", Name, oneLine(err.Error()))
	return ExitError
}

// oneLine is a message for stderr as one line: errors quote paths, file
// names and values a run or a pull request chose, and a line break in one
// (a run folder named "x\noverall: pass") would start a line that the
// checker never wrote. Every such byte is shown escaped (report.Escape).
func oneLine(msg string) string { return report.Escape(strings.TrimSpace(msg)) }
