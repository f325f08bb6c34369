package cli

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"strconv"
	"strings"

	"github.com/h3a-check/h3a-check/internal/config"
	"github.com/h3a-check/h3a-check/internal/finding"
	"github.com/h3a-check/h3a-check/internal/gitrev"
	"github.com/h3a-check/h3a-check/internal/policy"
	"github.com/h3a-check/h3a-check/internal/report"
	"github.com/h3a-check/h3a-check/internal/trust"
	"github.com/h3a-check/h3a-check/internal/trusted"
)

// runConfig prints the effective configuration of a check with the same
// flags, and where each value comes from: a flag, file:line, or the
// default. It reads the file exactly as check does (the nearest one,
// through the trust boundary), so what it shows is what a check uses.
func runConfig(ctx context.Context, args []string, e *env) int {
	var cf checkFlags
	flags := newCheckFlagSet(e, &cf)
	flags.Init("config", flag.ContinueOnError)
	paths, code, stop := parseFlags("config", flags, args, e)
	if stop {
		return code
	}
	if err := checkBaseFlag(cf.base); err != nil {
		return fail(e, err)
	}
	var locator gitrev.Locator
	defer locator.Close()
	var sources trusted.Reads
	boundary := trust.New(&locator, cf.base, e.getenv, cf.trustWT).Worded(trustReasons(cf.base))
	cfg, err := trusted.Config(cf.config, boundary, configChecks, &sources)
	if err != nil {
		return fail(e, err)
	}
	set := map[string]bool{}
	flags.Visit(func(f *flag.Flag) { set[f.Name] = true })
	if cfg == nil {
		cfg = &config.Config{}
	}
	var policyReads trusted.Reads
	// What the configuration names of the policies (a team's rule id, a
	// parameter) is known once they are loaded; a check refuses what none
	// of them defines or reads, so the configuration it shows must too.
	// --policy adds to the file's folders, as a check reads them.
	dirs := []string(cf.policies)
	fromFile := configPoliciesBesides(flags, cfg)
	for _, p := range fromFile {
		dirs = append(dirs, cfg.Resolve(p.Value))
	}
	if err := checkLoadedNames(ctx, boundary, cfg, dirs, &policyReads); err != nil {
		return fail(e, err)
	}
	w := e.stdout
	if len(sources) == 0 {
		fmt.Fprintf(w, "# no %s in the working directory or a folder above it up to the repository top: every value is a flag or the default\n", config.DefaultFile)
	}
	for _, s := range sources {
		fmt.Fprintf(w, "# read: %s\n", report.EscapeLine(sourceLine(s)))
	}
	line := func(key, value, from string) {
		fmt.Fprintf(w, "%-40s # %s\n", report.EscapeLine(key+": "+value), report.EscapeLine(from))
	}
	at := func(s config.Str) string { return fmt.Sprintf("%s:%d", cfg.File, s.Line) }
	keyAt := func(key string) string { return fmt.Sprintf("%s:%d", cfg.File, cfg.KeyLines[key]) }

	switch {
	case len(paths) > 0:
		line("paths", strings.Join(paths, ", "), "arguments")
	case len(cfg.Paths) > 0:
		for _, p := range cfg.Paths {
			line("paths", cfg.Resolve(p.Value), at(p))
		}
	default:
		line("paths", ".", "default")
	}
	scalar := func(key, name string, s config.Str, def string) {
		switch {
		case set[name]:
			line(key, flags.Lookup(name).Value.String(), "flag --"+name)
		case s.Set():
			line(key, s.Value, at(s))
		default:
			line(key, def, "default")
		}
	}
	scalar("layout", "layout", cfg.Layout, "(detected)")
	scalar("base", "base", cfg.Base, "(the merge base; see check -h)")
	scalar("fail-level", "fail-level", cfg.FailLevel, "error")
	for _, p := range cf.policies {
		line("policies", p, "flag --policy")
	}
	for _, p := range fromFile {
		line("policies", cfg.Resolve(p.Value), at(p))
	}
	if len(dirs) == 0 {
		line("policies", "(none: the shipped rules only)", "default")
	}
	if len(cfg.Params) > 0 {
		b, _ := json.Marshal(cfg.Params)
		line("params", string(b), keyAt("params"))
	} else {
		line("params", "{}", "default")
	}
	for _, o := range cfg.Severity {
		line("severity", o.Rule.Value+": "+o.Severity.String(), at(o.Rule))
	}
	if len(cfg.Severity) == 0 {
		line("severity", "(each rule's own)", "default")
	}
	for _, wv := range cfg.Waivers {
		v := wv.Rule.Value
		if wv.Path.Set() {
			v += " path " + wv.Path.Value
		}
		if wv.Task.Set() {
			v += " task " + wv.Task.Value
		}
		line("waiver", v+" until "+wv.Expires.Value, fmt.Sprintf("%s:%d", cfg.File, wv.Line))
	}
	if len(cfg.Waivers) == 0 {
		line("waivers", "(none)", "default")
	}
	if cfg.MaxWaiverDays.Set() {
		line("max-waiver-days", cfg.MaxWaiverDays.Value, at(cfg.MaxWaiverDays))
	} else {
		line("max-waiver-days", "(no cap)", "default")
	}
	if d := cfg.Evidence.MinHashDigits; d > 0 {
		line("evidence.min-hash-digits", strconv.Itoa(d), fmt.Sprintf("%s:%d", cfg.File, cfg.Evidence.Line))
	} else {
		line("evidence.min-hash-digits", "16", "default (the spec's)")
	}
	if s := cfg.Humans.AllowedSigners; s.Set() {
		line("humans.allowed-signers", cfg.Resolve(s.Value), at(s))
	} else {
		line("humans.allowed-signers", "(none)", "default")
	}
	for _, fp := range cfg.Humans.GPGFingerprints {
		line("humans.gpg-fingerprints", fp.Value, at(fp))
	}
	return ExitPass
}

func sourceLine(s trust.Source) string {
	t := s.String()
	if len(s.Ignored) > 0 {
		t += "; only in the working tree, not used"
	}
	return t
}

// checkLoadedNames loads the policies of dirs as a check reads them (through
// the trust boundary) and refuses the configuration's team rule ids and
// parameters that none of them defines or reads, as a check does.
func checkLoadedNames(ctx context.Context, b trust.Boundary, cfg *config.Config, dirs []string, reads *trusted.Reads) error {
	kept, fromBase, err := trusted.PolicyDirs(b, dirs, reads)
	if err != nil {
		return err
	}
	eng, err := policy.Load(ctx, policy.Options{Dirs: kept, Sources: fromBase})
	if err != nil {
		return err
	}
	var loaded []finding.Rule
	for _, r := range eng.Rules() {
		loaded = append(loaded, r.Rule)
	}
	if err := checkTeamRuleIDs(cfg, loaded); err != nil {
		return err
	}
	return checkParamsRead(cfg, eng.UserParams())
}
