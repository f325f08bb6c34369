package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/h3a-check/h3a-check/internal/audit"
	"github.com/h3a-check/h3a-check/internal/finding"
	"github.com/h3a-check/h3a-check/internal/report"
	"github.com/h3a-check/h3a-check/internal/runner"
)

// outputFlag collects repeated --output FORMAT=PATH values.
type outputFlag []outputSpec

type outputSpec struct{ format, path string }

func (o *outputFlag) String() string { return "" }

func (o *outputFlag) Set(v string) error {
	format, path, ok := strings.Cut(v, "=")
	if !ok || format == "" || path == "" {
		return fmt.Errorf("expected FORMAT=PATH, e.g. json=audit.json")
	}
	if _, err := report.Lookup(format); err != nil {
		return err
	}
	*o = append(*o, outputSpec{format, path})
	return nil
}

type checkFlags struct {
	format      string
	outputs     outputFlag
	failLevel   string
	layout      string
	maxJSONSize string
	timestamp   bool
	color       string
	workers     int
	cpuProfile  string
	memProfile  string
	shard       shardFlag
}

// shardFlag is --shard I/N.
type shardFlag struct{ runner.Shard }

func (s *shardFlag) Set(v string) error {
	sh, err := runner.ParseShard(v)
	if err != nil {
		return err
	}
	s.Shard = sh
	return nil
}

func newCheckFlagSet(e *env, cf *checkFlags) *flag.FlagSet {
	fs := flag.NewFlagSet("check", flag.ContinueOnError)
	fs.SetOutput(e.stderr)
	fs.StringVar(&cf.format, "format", "text", "stdout format: "+strings.Join(report.Formats(), ", "))
	fs.Var(&cf.outputs, "output", "also write FORMAT=PATH (repeatable), atomically")
	fs.StringVar(&cf.failLevel, "fail-level", "error", "lowest severity that fails a gate: error or warning")
	fs.StringVar(&cf.layout, "layout", "", "force a layout instead of detecting it (h3a)")
	fs.StringVar(&cf.maxJSONSize, "max-json-size", "64MiB", "largest state document parsed (bytes, or with KiB/MiB/GiB)")
	fs.BoolVar(&cf.timestamp, "timestamp", false, "record the check time in each audit (off: output is byte-for-byte reproducible)")
	fs.StringVar(&cf.color, "color", "auto", "colour in text output: auto, always or never (NO_COLOR is honoured by auto)")
	fs.IntVar(&cf.workers, "workers", 0, "parallel runs and hashing workers (0: one per CPU)")
	fs.Var(&cf.shard, "shard", "check only part `I/N` of the runs (by run id hash), e.g. 2/4; N jobs cover every run once")
	fs.StringVar(&cf.cpuProfile, "cpuprofile", "", "write a CPU profile of the check to `FILE` (for go tool pprof)")
	fs.StringVar(&cf.memProfile, "memprofile", "", "write a memory profile to `FILE` when the check ends (for go tool pprof)")
	fs.Usage = func() {
		fmt.Fprintf(e.stderr, "usage: h3a-check [check] [flags] [PATH...]\n\nPATH is a run directory, a folder holding runs, or a file inside a run.\n\nflags:\n")
		fs.PrintDefaults()
	}
	return fs
}

func runCheck(ctx context.Context, args []string, e *env) int {
	var cf checkFlags
	fs := newCheckFlagSet(e, &cf)
	paths, err := parseInterspersed(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		return ExitPass
	}
	if err != nil {
		return ExitError // the flag package has printed the problem and the usage
	}
	opts, err := cf.options(paths)
	if err != nil {
		return fail(e, err)
	}
	stdoutWriter, err := report.Lookup(cf.format)
	if err != nil {
		return fail(e, usageError{err.Error()})
	}

	stopProfiles, err := startProfiles(cf.cpuProfile, cf.memProfile)
	if err != nil {
		return fail(e, err)
	}
	runsFound, restoreGC := tuneGC(e)
	defer restoreGC()
	opts.Discovered = runsFound
	res, err := runner.Check(ctx, opts)
	if perr := stopProfiles(); perr != nil {
		return fail(e, perr)
	}
	if err != nil {
		return fail(e, err)
	}
	if len(res.Audits) == 0 {
		// Only a shard can be empty: the runs exist, other jobs check them.
		fmt.Fprintf(e.stderr, "%s: shard %s holds none of the runs found; nothing to check here\n", Name, cf.shard.Shard)
	}
	in := &report.Input{Tool: audit.Tool{Name: Name, Version: Version()}, Gate: res.Gate(), Audits: res.Audits}
	ropts := report.Options{Color: cf.useColor(e)}
	if err := stdoutWriter(e.stdout, in, ropts); err != nil {
		return fail(e, fmt.Errorf("writing the report: %w", err))
	}
	for _, o := range cf.outputs {
		w, _ := report.Lookup(o.format)
		err := report.WriteFileAtomic(o.path, func(out io.Writer) error {
			return w(out, in, report.Options{})
		})
		if err != nil {
			return fail(e, fmt.Errorf("writing %s: %w", o.path, err))
		}
	}
	return exitCode(in.Gate)
}

func exitCode(gate string) int {
	switch gate {
	case audit.Pass:
		return ExitPass
	case audit.NeedsHuman:
		return ExitNeedsHuman
	}
	return ExitFail
}

func (cf *checkFlags) options(paths []string) (runner.Options, error) {
	opts := runner.Options{
		Paths: paths, Layout: cf.layout, Workers: cf.workers,
		ToolName: Name, ToolVersion: Version(), Shard: cf.shard.Shard,
	}
	switch cf.failLevel {
	case "error":
		opts.FailLevel = finding.Error
	case "warning":
		opts.FailLevel = finding.Warning
	default:
		return opts, usageError{fmt.Sprintf("--fail-level %q: expected \"error\" or \"warning\"", cf.failLevel)}
	}
	n, err := parseSize(cf.maxJSONSize)
	if err != nil {
		return opts, usageError{fmt.Sprintf("--max-json-size: %v", err)}
	}
	opts.MaxJSONSize = n
	if cf.timestamp {
		opts.Timestamp = time.Now().UTC().Format(time.RFC3339)
	}
	if cf.workers < 0 {
		return opts, usageError{"--workers must be 0 or more"}
	}
	switch cf.color {
	case "auto", "always", "never":
	default:
		return opts, usageError{fmt.Sprintf("--color %q: expected auto, always or never", cf.color)}
	}
	return opts, nil
}

// parseSize reads "1048576", "64MiB", "512KiB", "1GiB".
func parseSize(s string) (int64, error) {
	units := []struct {
		suffix string
		mult   int64
	}{{"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}, {"B", 1}}
	mult := int64(1)
	num := s
	for _, u := range units {
		if strings.HasSuffix(s, u.suffix) {
			num, mult = strings.TrimSuffix(s, u.suffix), u.mult
			break
		}
	}
	n, err := strconv.ParseInt(strings.TrimSpace(num), 10, 64)
	if err != nil || n <= 0 || n > (1<<62)/mult {
		return 0, fmt.Errorf("%q is not a size: expected a positive number of bytes, optionally with KiB, MiB or GiB", s)
	}
	return n * mult, nil
}

// useColor: always/never as told; auto means a terminal, NO_COLOR unset and
// TERM not "dumb".
func (cf *checkFlags) useColor(e *env) bool {
	switch cf.color {
	case "always":
		return true
	case "never":
		return false
	}
	if e.getenv("NO_COLOR") != "" || e.getenv("TERM") == "dumb" {
		return false
	}
	f, ok := e.stdout.(*os.File)
	if !ok {
		return false
	}
	info, err := f.Stat()
	return err == nil && info.Mode()&os.ModeCharDevice != 0
}
