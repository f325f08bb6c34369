package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/h3a-check/h3a-check/internal/atomicfile"
	"github.com/h3a-check/h3a-check/internal/audit"
	"github.com/h3a-check/h3a-check/internal/config"
	"github.com/h3a-check/h3a-check/internal/finding"
	"github.com/h3a-check/h3a-check/internal/gitrev"
	"github.com/h3a-check/h3a-check/internal/policy"
	"github.com/h3a-check/h3a-check/internal/report"
	"github.com/h3a-check/h3a-check/internal/runner"
	"github.com/h3a-check/h3a-check/internal/trust"
	"github.com/h3a-check/h3a-check/internal/trusted"
)

// listFlag collects a repeatable string flag such as --policy DIR.
type listFlag []string

func (l *listFlag) String() string { return strings.Join(*l, ",") }

func (l *listFlag) Set(v string) error {
	if v == "" {
		return fmt.Errorf("expected a folder")
	}
	*l = append(*l, v)
	return nil
}

// holds reports whether the list names the folder dir, however written
// (runs/../p, ./p/ and p are one folder).
func (l listFlag) holds(dir string) bool {
	want := absClean(dir)
	for _, v := range l {
		if absClean(v) == want {
			return true
		}
	}
	return false
}

func absClean(p string) string {
	if abs, err := filepath.Abs(p); err == nil {
		return abs
	}
	return filepath.Clean(p)
}

// outputFlag collects repeated --output FORMAT=PATH values.
type outputFlag []outputSpec

type outputSpec struct{ format, path string }

func (o *outputFlag) String() string { return "" }

// outputPaths are the files the --output flags name.
func outputPaths(outputs outputFlag) []string {
	var paths []string
	for _, o := range outputs {
		paths = append(paths, o.path)
	}
	return paths
}

func (o *outputFlag) Set(v string) error {
	format, path, ok := strings.Cut(v, "=")
	if !ok || format == "" || path == "" {
		return fmt.Errorf("expected FORMAT=PATH, e.g. json=audit.json")
	}
	f, err := report.Lookup(format)
	if err != nil {
		return err
	}
	if f.NotAFile != "" {
		return errors.New(f.NotAFile)
	}
	*o = append(*o, outputSpec{format, path})
	return nil
}

type checkFlags struct {
	config      string
	format      string
	quiet       bool
	outputs     outputFlag
	failLevel   string
	layout      string
	maxJSONSize string
	timestamp   bool
	color       string
	workers     int
	base        string
	trustWT     bool
	policies    listFlag
	timeout     time.Duration
	debug       bool
	writeAudit  bool
	force       bool
	changed     bool
	staged      bool
	stagedAsCI  bool // --staged in CI without a range: checked as CI checks
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
	flags := newFlagSet(e, "check", "usage: h3a-check [check] [flags] [PATH...]\n\nPATH is a run directory, a folder holding runs, or a file inside a run.\n\n")
	defaultFormat := "text"
	if e.getenv("GITHUB_ACTIONS") == "true" {
		defaultFormat = "github"
	}
	flags.StringVar(&cf.config, "config", "", "configuration file (default: the nearest "+config.DefaultFile+" in the working directory or a folder above it, up to the top of the git work tree)")
	flags.StringVar(&cf.format, "format", defaultFormat, "stdout format: "+strings.Join(report.Formats(), ", ")+" (github when GITHUB_ACTIONS=true)")
	flags.BoolVar(&cf.quiet, "quiet", false, "list only the runs that do not pass, with their findings, then the totals (text and github on stdout; --output files stay complete)")
	flags.Var(&cf.outputs, "output", "also write FORMAT=PATH (repeatable), atomically")
	flags.StringVar(&cf.failLevel, "fail-level", "error", "lowest severity that fails a gate: error or warning")
	flags.StringVar(&cf.layout, "layout", "", "force a layout instead of detecting it ("+strings.Join(layoutIDList(), ", ")+"); a PATH without its defining files is exit 2")
	flags.StringVar(&cf.maxJSONSize, "max-json-size", "64MiB", "largest state document parsed (bytes, or with KiB/MiB/GiB)")
	flags.BoolVar(&cf.timestamp, "timestamp", false, "record the check time in each audit (off: output is byte-for-byte reproducible)")
	flags.StringVar(&cf.color, "color", "auto", "colour in text output: auto, always or never (NO_COLOR is honoured by auto)")
	flags.IntVar(&cf.workers, "workers", 0, "parallel runs and hashing workers (0: one per CPU)")
	flags.StringVar(&cf.base, "base", "", "revision the append-only files are compared with, and the rules read from, or none (default: the merge base of HEAD and, in CI, the target the event or CI names or else the default branch, the rules read at that revision; locally, origin/HEAD, main or master; HEAD restores comparing with the last commit)")
	flags.BoolVar(&cf.trustWT, "trust-working-tree", false, "read repository-local policies and configuration from the working tree even in CI or with --base (for the change that edits them)")
	flags.Var(&cf.policies, "policy", "also evaluate the Rego rules in DIR (packages under h3a.user; repeatable)")
	flags.DurationVar(&cf.timeout, "policy-timeout", policy.DefaultTimeout, "longest policy evaluation per run; past it the run gets a policy finding")
	flags.BoolVar(&cf.debug, "debug", false, "print the output of print() calls in policies to stderr")
	flags.BoolVar(&cf.writeAudit, "write-audit", false, "write the checker's audit.json into the last round of each contract run, atomically (the only flag that writes into a run)")
	flags.BoolVar(&cf.force, "force", false, "with --write-audit: replace an audit.json an auditor wrote")
	flags.BoolVar(&cf.changed, "changed", false, "check only the runs with a file changed since the base revision (runs deleted since the base are still reported)")
	flags.BoolVar(&cf.staged, "staged", false, "check what a commit of the index would record, read from the index, against HEAD: only the runs with a staged change, and the runs it deletes (the pre-commit hook's mode; under pre-commit run --from-ref/--to-ref the runs changed in that range, with nothing staged under pre-commit every run, and in CI without a range the CI check: every run against the target branch)")
	flags.Var(&cf.shard, "shard", "check only part `I/N` of the runs (by run id hash), e.g. 2/4; N jobs cover every run once")
	flags.StringVar(&cf.cpuProfile, "cpuprofile", "", "write a CPU profile of the check to `FILE` (for go tool pprof)")
	flags.StringVar(&cf.memProfile, "memprofile", "", "write a memory profile to `FILE` when the check ends (for go tool pprof)")
	return flags
}

func runCheck(ctx context.Context, args []string, e *env) int {
	var cf checkFlags
	flags := newCheckFlagSet(e, &cf)
	paths, code, stop := parseFlags("check", flags, args, e)
	if stop {
		return code
	}
	// The configuration (and the policies) of a change under review are read
	// as they are at the base: the boundary uses the --base of the command
	// line, never one from the file it is about to read.
	if err := checkBaseFlag(cf.base); err != nil {
		return fail(e, err)
	}
	if cf.staged && !cf.changed && stagedAsCI(e.getenv) {
		cf.staged, cf.stagedAsCI = false, true
	}
	// The boundary sees the event even in a staged check: a range's start
	// is held to the target the event names (gitrev.ConfineRulesBase).
	withEvent := e.getenv
	if cf.staged {
		if err := stagedOnly(flags, &cf); err != nil {
			return fail(e, err)
		}
		e = e.withoutEvent()
	}
	var locator gitrev.Locator
	defer locator.Close()
	boundary := trust.New(&locator, cf.base, withEvent, cf.trustWT).Worded(trustReasons(cf.base))
	if cf.staged {
		// A range of commits (the pre-commit action on a pull request) is
		// judged by the rules where it starts; a commit of the index by
		// those of its parent.
		if from, _, err := runner.CommitRange(e.getenv); err == nil && from != "" {
			boundary = boundary.AgainstRangeStart(from)
		} else {
			boundary = boundary.AgainstHead()
		}
	}
	var reads trusted.Reads
	cfg, err := trusted.Config(cf.config, boundary, configChecks, &reads)
	if err != nil {
		return fail(e, err)
	}
	var configured runner.Options
	paths, err = applyConfig(flags, cfg, paths, &configured, time.Now())
	if err != nil {
		return fail(e, err)
	}
	opts, err := cf.options(paths)
	if err != nil {
		return fail(e, err)
	}
	if err := noReportThroughLinks("--output", outputPaths(cf.outputs)...); err != nil {
		return fail(e, err)
	}
	if err := noReportThroughLinks("--cpuprofile", cf.cpuProfile); err != nil {
		return fail(e, err)
	}
	if err := noReportThroughLinks("--memprofile", cf.memProfile); err != nil {
		return fail(e, err)
	}
	if cf.debug {
		opts.Rules.PolicyDebug = printWriter{e.stderr}
	}
	if err := readTrusted(boundary, cfg, cf.base, e.getenv, reads, &opts); err != nil {
		return fail(e, err)
	}
	opts.Rules.Params, opts.Rules.Severity, opts.Rules.Waivers = writingAudit(configured.Rules.Params, cf.writeAudit), configured.Rules.Severity, configured.Rules.Waivers
	opts.Rules.MinHashDigits = configured.Rules.MinHashDigits
	opts.Scope.Getenv = e.getenv
	opts.Scope.TargetGetenv = withEvent
	opts.Scope.Locator = &locator
	if cf.config == "" {
		opts.Scope.RunsFound = func(dirs []string) error { return trusted.NoConfigNearerRuns(boundary, dirs) }
	}
	tool := audit.Tool{Name: Name, Version: Version()}
	ropts := cf.reportOptions(ctx, e)
	reports, err := openReports(&cf, e, tool, ropts)
	if err != nil {
		return fail(e, err)
	}
	defer reports.abort()
	// Each audit is reported as soon as it and those before it are done,
	// and only the contract runs' audits are kept, for --write-audit.
	var contractAudits []*audit.Audit
	opts.Output.Emit = func(a *audit.Audit) error {
		if cf.writeAudit && a.Layout == "contract" {
			contractAudits = append(contractAudits, a)
		}
		return reports.add(a)
	}

	stopProfiles, err := startProfiles(cf.cpuProfile, cf.memProfile)
	if err != nil {
		return fail(e, err)
	}
	runsFound, restoreGC := tuneGC(e)
	defer restoreGC()
	opts.Output.Discovered = runsFound
	for _, o := range cf.outputs {
		opts.Output.Reports = append(opts.Output.Reports, o.path)
	}
	res, err := runner.Check(ctx, opts)
	if perr := stopProfiles(); perr != nil {
		return fail(e, perr)
	}
	if err != nil {
		return fail(e, err)
	}
	sayWhatWasChecked(e, &cf, res)
	// A team's rule ids are known once its policies are loaded; a waiver
	// or override naming none of them is the configuration's error, and
	// no report file is written.
	if err := checkTeamRuleIDs(cfg, res.Rules); err != nil {
		return fail(e, err)
	}
	if err := checkParamsRead(cfg, res.UserParams); err != nil {
		return fail(e, err)
	}
	if err := reports.close(res.Gate(), checkedRules(res.Rules)); err != nil {
		return fail(e, err)
	}
	if cf.writeAudit {
		if err := writeContractAudits(contractAudits, cf.force, e.stderr); err != nil {
			return fail(e, err)
		}
	} else if cf.force {
		return fail(e, usageError{"--force applies only with --write-audit"})
	}
	return exitCode(res.Gate())
}

// sayWhatWasChecked tells, on stderr, what a staged check read when it
// was not the index, and why a check found nothing to check: only
// --changed, --staged or a shard can leave nothing (the runs exist, and
// they are unchanged or other jobs check them).
func sayWhatWasChecked(e *env, cf *checkFlags, res *runner.Result) {
	if cf.stagedAsCI {
		fmt.Fprintf(e.stderr, "%s: --staged in CI with no pre-commit range checked every run against the CI base, as a check without --staged does: in CI, HEAD is the change under review, which cannot choose the rules or the history that judge it\n", Name)
	}
	if cf.staged && res.StagedMode != runner.StagedIndex {
		fmt.Fprintf(e.stderr, "%s: --staged checked %s\n", Name, report.EscapeLine(res.StagedWhat))
	}
	if res.Runs != 0 {
		return
	}
	switch {
	case cf.staged && res.StagedMode == runner.StagedAll:
		fmt.Fprintf(e.stderr, "%s: the tree holds no run\n", Name)
	case cf.staged && res.StagedMode == runner.StagedRange:
		fmt.Fprintf(e.stderr, "%s: no change in the range touches a run\n", Name)
	case cf.staged:
		fmt.Fprintf(e.stderr, "%s: no staged change touches a run; nothing to check\n", Name)
	case cf.changed && cf.shard.All():
		fmt.Fprintf(e.stderr, "%s: no run has a file changed since the base; nothing to check\n", Name)
	case cf.changed:
		fmt.Fprintf(e.stderr, "%s: shard %s holds no run changed since the base; nothing to check here\n", Name, cf.shard.Shard)
	default:
		fmt.Fprintf(e.stderr, "%s: shard %s holds none of the runs found; nothing to check here\n", Name, cf.shard.Shard)
	}
}

// readTrusted reads the policy folders and the allowed signers through the
// trust boundary, after the configuration (reads holds where it came
// from), and gives the runner every source and the findings of the rules
// the change under review edits.
func readTrusted(b trust.Boundary, cfg *config.Config, asked string, getenv func(string) string, reads trusted.Reads, opts *runner.Options) error {
	var err error
	if opts.Rules.PolicyDirs, opts.Rules.PolicySources, err = trusted.PolicyDirs(b, opts.Rules.PolicyDirs, &reads); err != nil {
		return err
	}
	if opts.Rules.Humans, err = trustHumans(b, cfg, asked, getenv, &reads); err != nil {
		return err
	}
	opts.Record.Sources = reads.Sources()
	for _, f := range reads.Changes() {
		// The command line says how to apply the change's version before it is merged.
		f.Details += " (or with --trust-working-tree)"
		opts.Record.RuleChanges = append(opts.Record.RuleChanges, f)
	}
	return nil
}

// reports are the report on stdout and those of --output, written as the
// audits arrive; the files are written atomically when the check ends.
// A file's temporary file is made when the first bytes come, so that a
// check refused before it reports anything (an --output inside a run, a
// policy that does not compile) makes none.
type reports struct {
	streams []report.Stream
	names   []string
	files   []*reportFile
}

func openReports(cf *checkFlags, e *env, tool audit.Tool, ropts report.Options) (*reports, error) {
	r := &reports{}
	stdoutOpts := ropts
	// Under GitHub Actions stdout is the step's log: the text report is
	// written where workflow commands are stopped (the github format stops
	// them around each run; json, sarif and junit hold no line a runner
	// reads as a command).
	stdoutOpts.StopCommands = e.getenv("GITHUB_ACTIONS") == "true"
	stdoutOpts.Quiet = cf.quiet
	s, err := report.NewStream(cf.format, e.stdout, tool, stdoutOpts)
	if err != nil {
		return nil, usageError{err.Error()}
	}
	r.streams, r.names = append(r.streams, s), append(r.names, "the report")
	fileOpts := ropts
	fileOpts.Color = false
	for _, o := range cf.outputs {
		f := &reportFile{path: o.path}
		s, err := report.NewStream(o.format, f, tool, fileOpts)
		if err != nil {
			return nil, err
		}
		r.files = append(r.files, f)
		r.streams, r.names = append(r.streams, s), append(r.names, o.path)
	}
	return r, nil
}

func (r *reports) add(a *audit.Audit) error {
	for i, s := range r.streams {
		if err := s.Add(a); err != nil {
			return fmt.Errorf("writing %s: %w", r.names[i], err)
		}
	}
	return nil
}

func (r *reports) close(gate string, rules []finding.Rule) error {
	for i, s := range r.streams {
		if err := s.Close(gate, rules); err != nil {
			return fmt.Errorf("writing %s: %w", r.names[i], err)
		}
	}
	for _, f := range r.files {
		if err := f.commit(); err != nil {
			return fmt.Errorf("writing %s: %w", f.path, err)
		}
	}
	r.files = nil
	return nil
}

// abort removes the temporary files of reports not committed.
func (r *reports) abort() {
	for _, f := range r.files {
		if f.f != nil {
			f.f.Abort()
		}
	}
	r.files = nil
}

// reportFile is an --output file, begun at its first write.
type reportFile struct {
	path string
	f    *atomicfile.File
}

func (w *reportFile) Write(p []byte) (int, error) {
	if w.f == nil {
		f, err := atomicfile.Create(w.path)
		if err != nil {
			return 0, err
		}
		w.f = f
	}
	return w.f.Write(p)
}

func (w *reportFile) commit() error {
	if w.f == nil {
		if _, err := w.Write(nil); err != nil {
			return err
		}
	}
	return w.f.Commit()
}

// stagedOnly checks the flags that --staged excludes. A staged check
// compares with HEAD, so --base is refused and a configuration file's base
// is kept from applying (the flag counts as given); an empty base means
// HEAD, or no comparison before the first commit.
func stagedOnly(flags *flag.FlagSet, cf *checkFlags) error {
	switch {
	case cf.base != "":
		return usageError{fmt.Sprintf("--staged compares the index with HEAD; --base %q cannot be used with it", cf.base)}
	case cf.changed:
		return usageError{"--changed and --staged choose the runs differently; use one of them"}
	}
	return flags.Set("base", "")
}

// stagedAsCI reports whether a --staged check runs in CI without a
// pre-commit range (pre-commit run --all-files, or a commit in a CI job).
// There HEAD is the change under review: judged against HEAD, its own
// configuration and policies would apply and its history would be
// compared with itself. Such a check is the CI check instead: every run,
// the rules read at the CI target, history against the merge base (or
// --base), and exit 2 where CI names no target. A range keeps its own
// mode, read where it starts; a range variable that is wrong is the
// staged check's error.
func stagedAsCI(getenv func(string) string) bool {
	if !gitrev.InCI(getenv) {
		return false
	}
	from, _, err := runner.CommitRange(getenv)
	return err == nil && from == ""
}

// withoutEvent hides the GitHub Actions event from the choice of base, for
// a staged check: it compares with HEAD wherever it runs (pre-commit also
// runs in CI, on pull_request events).
func (e *env) withoutEvent() *env {
	c := *e
	getenv := e.getenv
	c.getenv = func(k string) string {
		if k == "GITHUB_EVENT_NAME" || k == "GITHUB_EVENT_PATH" {
			return ""
		}
		return getenv(k)
	}
	return &c
}

// reportOptions gives the formats what they need beyond the results: the
// repository root only when a format names files relative to it (finding
// it may start git), and the environment for the github format.
func (cf *checkFlags) reportOptions(ctx context.Context, e *env) report.Options {
	o := report.Options{Color: cf.useColor(e), Getenv: e.getenv, Files: map[string]string{}}
	needRoot := repoPaths(cf.format)
	for _, out := range cf.outputs {
		if _, dup := o.Files[out.format]; !dup {
			o.Files[out.format] = out.path
		}
		needRoot = needRoot || repoPaths(out.format)
	}
	if needRoot {
		o.Root, o.WorkDir = repoRoot(ctx, e.getenv)
	}
	return o
}

// repoPaths reports whether a format names files relative to the
// repository root.
func repoPaths(format string) bool {
	f, err := report.Lookup(format)
	return err == nil && f.RepoPaths
}

func checkBaseFlag(base string) error {
	if strings.HasPrefix(base, "-") || strings.ContainsAny(base, "\n\r\x00") {
		return usageError{fmt.Sprintf("--base %q: expected a commit, branch or tag, or none", base)}
	}
	return nil
}

// trustHumans says whose human decisions count (docs/trust-model.md): on
// the person's own working tree (not in CI, no --base), every one; else
// those the base holds or that a commit signed by a key named in the
// configuration added. The allowed signers file is read through the trust
// boundary like the configuration that names it, so a change cannot add
// its own key. asked is the command line's --base.
func trustHumans(b trust.Boundary, cfg *config.Config, asked string, getenv func(string) string, reads *trusted.Reads) (*runner.Humans, error) {
	h := &runner.Humans{Local: !trust.InCI(getenv) && (asked == "" || asked == gitrev.None)}
	if cfg == nil {
		return h, nil
	}
	for _, fp := range cfg.Humans.GPGFingerprints {
		h.GPGFingerprints = append(h.GPGFingerprints, fp.Value)
	}
	signers, err := trusted.AllowedSigners(b, cfg, reads)
	h.AllowedSigners = signers
	return h, err
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
		Scope:   runner.Scope{Paths: paths, Layout: cf.layout, Shard: cf.shard.Shard, Changed: cf.changed, Staged: cf.staged, Base: cf.base},
		Record:  runner.Record{ToolName: Name, ToolVersion: Version(), TrustWorkingTree: cf.trustWT},
		Workers: cf.workers,
	}
	if err := checkBaseFlag(cf.base); err != nil {
		return opts, err
	}
	switch cf.failLevel {
	case "error":
		opts.Rules.FailLevel = finding.Error
	case "warning":
		opts.Rules.FailLevel = finding.Warning
	default:
		return opts, usageError{fmt.Sprintf("--fail-level %q: expected \"error\" or \"warning\"", cf.failLevel)}
	}
	n, err := parseSize(cf.maxJSONSize)
	if err != nil {
		return opts, usageError{fmt.Sprintf("--max-json-size: %v", err)}
	}
	opts.MaxJSONSize = n
	if cf.timestamp {
		opts.Record.Timestamp = time.Now().UTC().Format(time.RFC3339)
	}
	if cf.workers < 0 {
		return opts, usageError{"--workers must be 0 or more"}
	}
	if cf.timeout <= 0 {
		return opts, usageError{fmt.Sprintf("--policy-timeout %s: expected a positive duration such as 5s", cf.timeout)}
	}
	opts.Rules.PolicyDirs, opts.Rules.PolicyTimeout = cf.policies, cf.timeout
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
	out := e.stdout
	if w, ok := out.(*writeErr); ok {
		out = w.w
	}
	f, ok := out.(*os.File)
	if !ok {
		return false
	}
	info, err := f.Stat()
	return err == nil && info.Mode()&os.ModeCharDevice != 0
}

// writingAudit sets the policy parameter writing_audit when --write-audit
// makes the checker the auditor of each contract run's last round: the
// audit.json that round lacks is the one being written, so its absence is
// not a pass that went unaudited. Only the flag sets it; a value the
// configuration gives is dropped.
func writingAudit(params map[string]any, write bool) map[string]any {
	out := maps.Clone(params)
	if out == nil {
		out = map[string]any{}
	}
	delete(out, "writing_audit")
	if write {
		out["writing_audit"] = true
	}
	return out
}
