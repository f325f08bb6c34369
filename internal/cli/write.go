package cli

import (
	"context"
	"crypto/rand"
	"flag"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/h3a-check/h3a-check/internal/report"
	"github.com/h3a-check/h3a-check/internal/runwrite"
	"github.com/h3a-check/h3a-check/internal/textdist"
)

type initFlags struct {
	brief  string
	runs   string
	layout string
}

func newInitFlagSet(e *env, f *initFlags) *flag.FlagSet {
	fs := newFlagSet(e, "init", "usage: h3a-check init [--layout ID] [--task-brief TEXT] [--runs DIR]\n\nMakes a fresh run in DIR and prints its path.\n\n")
	fs.StringVar(&f.layout, "layout", "h3a", "the layout of the run: "+strings.Join(runwrite.Layouts, ", "))
	fs.StringVar(&f.brief, "task-brief", "", "the task brief written into the roadmap (default: a placeholder for the planner)")
	fs.StringVar(&f.runs, "runs", "runs", "the folder that receives the run (made when missing)")
	return fs
}

// runInit makes a fresh run as the specification's initialiser does and
// prints its path, so that a script can take it: run=$(h3a-check init).
func runInit(ctx context.Context, args []string, e *env) int {
	var f initFlags
	rest, code, stop := parseFlags("init", newInitFlagSet(e, &f), args, e)
	if stop {
		return code
	}
	if len(rest) > 0 {
		return fail(e, usageError{fmt.Sprintf("init takes no arguments, got %q; the brief goes in --task-brief", rest[0])})
	}
	if f.runs == "" || strings.ContainsFunc(f.runs, isControl) {
		return fail(e, usageError{fmt.Sprintf("--runs %q: expected a folder name", f.runs)})
	}
	if !slices.Contains(runwrite.Layouts, f.layout) {
		msg := fmt.Sprintf("--layout %q: expected one of %s", f.layout, strings.Join(runwrite.Layouts, ", "))
		if near, ok := textdist.Nearest(f.layout, runwrite.Layouts); ok {
			msg += fmt.Sprintf(" (did you mean %q?)", near)
		}
		return fail(e, usageError{msg})
	}
	dir, err := runwrite.InitLayout(runwrite.InitOptions{
		RunsDir: f.runs, Brief: f.brief, Now: time.Now(), Random: rand.Reader, Meta: runwrite.GitMeta(ctx, f.runs),
	}, f.layout)
	if err != nil {
		return fail(e, err)
	}
	fmt.Fprintln(e.stdout, dir)
	return ExitPass
}

func newLogFlagSet(e *env, full *bool) *flag.FlagSet {
	fs := newFlagSet(e, "log", "usage: h3a-check log [--full] RUN FILE DESCRIPTION\n\nHashes FILE (a path from the working directory, inside RUN) and adds its entry to RUN's state/EVIDENCE_LOG.md, under the artifact heading of the agent whose folder holds FILE.\n\n")
	fs.BoolVar(full, "full", false, fmt.Sprintf("log all 64 hex digits of the SHA-256 (default: the first %d, as the specification does)", runwrite.SpecHashDigits))
	return fs
}

// runLog appends one evidence entry and prints it with its place in the
// log, file:line: entry.
func runLog(_ context.Context, args []string, e *env) int {
	var full bool
	rest, code, stop := parseFlags("log", newLogFlagSet(e, &full), args, e)
	if stop {
		return code
	}
	if len(rest) != 3 {
		return fail(e, usageError{fmt.Sprintf("log takes RUN FILE DESCRIPTION (%d arguments given); quote a description of several words", len(rest))})
	}
	if strings.ContainsFunc(rest[0], isControl) {
		return fail(e, usageError{fmt.Sprintf("RUN %q: expected a folder name without control characters", rest[0])})
	}
	logged, err := runwrite.Log(runwrite.LogOptions{Run: rest[0], File: rest[1], Description: rest[2], Full: full, Now: time.Now()})
	if err != nil {
		return fail(e, err)
	}
	// The entry holds the artifact's name, which a run may have chosen
	// ("##[error]…"): it is shown escaped, as every name from a run is.
	fmt.Fprintf(e.stdout, "%s:%d: %s\n", report.EscapeLine(filepath.ToSlash(filepath.Join(rest[0], filepath.FromSlash(runwrite.EvidenceLogPath)))), logged.Entry.Line, report.Escape(logged.Text))
	return ExitPass
}

func isControl(r rune) bool { return r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) }
