package cli

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/h3a-check/h3a-check/internal/config"
	"github.com/h3a-check/h3a-check/internal/finding"
	"github.com/h3a-check/h3a-check/internal/gitrev"
	"github.com/h3a-check/h3a-check/internal/layout"
	"github.com/h3a-check/h3a-check/internal/policy"
	"github.com/h3a-check/h3a-check/internal/runner"
	"github.com/h3a-check/h3a-check/internal/textdist"
	"github.com/h3a-check/h3a-check/internal/waiver"
)

// applyConfig lets the configuration fill every flag the command line left
// unset (flags override the file, the file overrides defaults), checks what
// only the command knows (layouts, rule ids), and returns the paths to
// check: the arguments, else the file's paths.
func applyConfig(fset *flag.FlagSet, cfg *config.Config, args []string, opts *runner.Options, now time.Time) ([]string, error) {
	if cfg == nil {
		return args, nil
	}
	set := map[string]bool{}
	fset.Visit(func(f *flag.Flag) { set[f.Name] = true })
	var errs config.Errors
	// bind feeds config values to a flag, as if typed, so that one code
	// path validates both. A key whose flag this build lacks is an error,
	// never silently ignored.
	bind := func(key, name string, vals []config.Str, resolve bool) {
		if len(vals) == 0 || set[name] && name != "policy" {
			return
		}
		if fset.Lookup(name) == nil {
			errs = append(errs, cfg.Errorf(vals[0], "%s is set, but this build of h3a-check has no --%s flag to take it", key, name))
			return
		}
		for _, v := range vals {
			val := v.Value
			if resolve {
				val = cfg.Resolve(val)
			}
			if err := fset.Set(name, val); err != nil {
				errs = append(errs, cfg.Errorf(v, "%s: %v", key, err))
			}
		}
	}
	one := func(s config.Str) []config.Str {
		if s.Set() {
			return []config.Str{s}
		}
		return nil
	}
	bind("layout", "layout", one(cfg.Layout), false)
	bind("fail-level", "fail-level", one(cfg.FailLevel), false)
	bind("base", "base", one(cfg.Base), false)
	// --policy adds folders to the file's policies, as its name says
	// ("also evaluate"), and never replaces them: a folder named on the
	// command line (the Action's policy input) would otherwise drop the
	// rules the file names without a word. A folder given both ways is
	// read once.
	bind("policies", "policy", configPoliciesBesides(fset, cfg), true)

	if len(cfg.Severity) > 0 {
		opts.Rules.Severity = map[string]finding.Severity{}
	}
	for _, o := range cfg.Severity {
		opts.Rules.Severity[o.Rule.Value] = o.Severity
	}
	if len(errs) > 0 {
		return nil, errs
	}
	if err := cfg.CheckWaiverDays(waiver.Today(now)); err != nil {
		return nil, err
	}
	ws, err := cfg.WaiverSet(waiver.Today(now))
	if err != nil {
		return nil, err
	}
	opts.Rules.Waivers = ws
	opts.Rules.Params = cfg.Params
	opts.Rules.MinHashDigits = cfg.Evidence.MinHashDigits
	if len(args) > 0 {
		return args, nil
	}
	var paths []string
	for _, p := range cfg.Paths {
		paths = append(paths, cfg.Resolve(p.Value))
	}
	return paths, nil
}

// configPoliciesBesides lists the configuration's policy folders that
// --policy does not name already.
func configPoliciesBesides(fset *flag.FlagSet, cfg *config.Config) []config.Str {
	var given listFlag
	if f := fset.Lookup("policy"); f != nil {
		if l, ok := f.Value.(*listFlag); ok {
			given = *l
		}
	}
	var out []config.Str
	for _, p := range cfg.Policies {
		if !given.holds(cfg.Resolve(p.Value)) {
			out = append(out, p)
		}
	}
	return out
}

// configChecks are the checks of the configuration file that need the
// command's knowledge: its rules and layouts. They run while the file is
// read, so every problem of the file is reported at once.
var configChecks = config.Checks{RuleID: checkRuleID, Layout: checkLayout}

func checkLayout(id string) string {
	if layout.ByID(id) != nil {
		return ""
	}
	msg := fmt.Sprintf("layout %q: expected one of %s", id, layoutIDs())
	var ids []string
	for _, l := range layout.All() {
		ids = append(ids, l.ID())
	}
	if near, ok := textdist.Nearest(id, ids); ok {
		msg += fmt.Sprintf(" (did you mean %q?)", near)
	}
	return msg
}

// checkRuleID says what is wrong with a rule id named in the
// configuration, or "", naming the nearest valid id. Only ids in the
// checker's own namespace can be checked: user policies (h3a.user.*, or
// any other prefix) are loaded later and may name anything.
func checkRuleID(id string, pattern bool) string {
	if !strings.HasPrefix(id, "h3a.") || strings.HasPrefix(id, "h3a.user.") {
		return ""
	}
	if finding.ResultUnknown[id] {
		return quote(id) + " cannot be waived or given another severity: its finding says a rule's result is not known for the run, and a run whose rules did not run never passes"
	}
	var ids []string
	for _, r := range shippedRules() {
		if !finding.ResultUnknown[r.ID] {
			ids = append(ids, r.ID)
		}
	}
	if pattern && strings.ContainsAny(id, "*?[") {
		for _, r := range ids {
			if ok, _ := path.Match(id, r); ok {
				return ""
			}
		}
		msg := "rule pattern " + quote(id) + " matches no rule"
		if near, ok := textdist.Nearest(id, rulePatterns(ids)); ok {
			return msg + "; did you mean " + quote(near) + "?"
		}
		return msg + "; \"h3a-check rules\" lists them"
	}
	if slices.Contains(ids, id) {
		return ""
	}
	msg := "no rule " + quote(id)
	if near, ok := textdist.Nearest(id, ids); ok {
		return msg + "; did you mean " + quote(near) + "?"
	}
	if near := similarRules(id); len(near) > 0 {
		return msg + "; did you mean " + strings.Join(near, ", ") + "?"
	}
	return msg + "; \"h3a-check rules\" lists them"
}

// rulePatterns are the patterns a waiver can name a group of rules by: each
// rule id's prefixes up to a dot, followed by "*" (h3a.integrity.*).
func rulePatterns(ids []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, id := range ids {
		for i := range len(id) {
			if id[i] == '.' && !seen[id[:i+1]] {
				seen[id[:i+1]] = true
				out = append(out, id[:i+1]+"*")
			}
		}
	}
	return out
}

func quote(s string) string { return `"` + strings.ReplaceAll(s, `"`, `\"`) + `"` }

// similarRules names catalogue ids sharing the last part of id, which is
// where typos and misremembered categories show.
func similarRules(id string) []string {
	last := id[strings.LastIndexByte(id, '.')+1:]
	var near []string
	for _, r := range shippedRules() {
		if last != "" && strings.HasSuffix(r.ID, "."+last) {
			near = append(near, r.ID)
		}
	}
	return near
}

func layoutIDs() string {
	var ids []string
	for _, id := range layoutIDList() {
		ids = append(ids, quote(id))
	}
	return strings.Join(ids, ", ")
}

// layoutIDList names every layout, in detection order.
func layoutIDList() []string {
	var ids []string
	for _, l := range layout.All() {
		ids = append(ids, l.ID())
	}
	return ids
}

// repoRoot finds the repository root that GitHub and SARIF paths are
// relative to: GITHUB_WORKSPACE, else the git work tree holding the
// working directory, else the working directory. Both results are
// absolute with symbolic links resolved, so that they compare.
func repoRoot(ctx context.Context, getenv func(string) string) (root, workDir string) {
	workDir, err := os.Getwd()
	if err != nil {
		return "", ""
	}
	workDir = resolved(workDir)
	if ws := getenv("GITHUB_WORKSPACE"); ws != "" {
		if abs, err := filepath.Abs(ws); err == nil {
			return resolved(abs), workDir
		}
	}
	if top := gitrev.TopLevel(ctx, workDir); top != "" {
		return top, workDir
	}
	return workDir, workDir
}

func resolved(p string) string {
	if r, err := filepath.EvalSymlinks(p); err == nil {
		return r
	}
	return p
}

// checkTeamRuleIDs checks the rule ids of waivers and severity overrides
// that name a team's own rules (outside h3a.*, or under h3a.user.*),
// which only exist once the policies are loaded: each must name a loaded
// rule (a waiver's pattern must match one), else the configuration is in
// error at its line, with the nearest loaded id.
func checkTeamRuleIDs(cfg *config.Config, loaded []finding.Rule) error {
	if cfg == nil {
		return nil
	}
	team := func(id string) bool { return !strings.HasPrefix(id, "h3a.") || strings.HasPrefix(id, "h3a.user.") }
	var ids []string
	for _, r := range loaded {
		ids = append(ids, r.ID)
	}
	judge := func(id string, pattern bool) string {
		if pattern && strings.ContainsAny(id, "*?[") {
			for _, r := range ids {
				if ok, _ := path.Match(id, r); ok {
					return ""
				}
			}
			return "rule pattern " + quote(id) + " matches no rule of the policies loaded" + teamHint(id, ids)
		}
		if slices.Contains(ids, id) {
			return ""
		}
		return "no rule " + quote(id) + " in the policies loaded" + teamHint(id, ids)
	}
	var errs config.Errors
	for _, w := range cfg.Waivers {
		if team(w.Rule.Value) {
			if msg := judge(w.Rule.Value, true); msg != "" {
				errs = append(errs, cfg.Errorf(w.Rule, "waivers: %s", msg))
			}
		}
	}
	for _, o := range cfg.Severity {
		if team(o.Rule.Value) {
			if msg := judge(o.Rule.Value, false); msg != "" {
				errs = append(errs, cfg.Errorf(o.Rule, "severity: %s", msg))
			}
		}
	}
	if len(errs) > 0 {
		return errs
	}
	return nil
}

func teamHint(id string, ids []string) string {
	if near, ok := textdist.Nearest(id, ids); ok {
		return "; did you mean " + quote(near) + "?"
	}
	return " (policies:, or --policy DIR, names the folders; \"h3a-check rules --policy DIR\" lists their rules)"
}

// checkParamsRead refuses a parameter that no rule reads: the shipped
// rules read the runner's defaults (max_iterations, max_retries), and a
// team's rules what their text reads of input.params. A misspelt limit
// (max_iteration: 1) would otherwise leave the default in force, and a run
// past the team's limit would pass.
func checkParamsRead(cfg *config.Config, user policy.ParamUse) error {
	if cfg == nil {
		return nil
	}
	defaults := runner.DefaultParams()
	var known []string
	for name := range defaults {
		known = append(known, name)
	}
	for name := range user.Names {
		if _, shipped := defaults[name]; !shipped {
			known = append(known, name)
		}
	}
	slices.Sort(known)
	var errs config.Errors
	for _, p := range cfg.ParamNames {
		if _, shipped := defaults[p.Value]; shipped || user.Reads(p.Value) {
			continue
		}
		msg := "params: no rule reads " + quote(p.Value) + ": the rules loaded read " + strings.Join(known, ", ")
		if user.Any {
			msg += " by name (a rule that reads input.params as a whole, or by a computed name, reads no name in particular: read each as input.params.<name> or object.get(input.params, \"<name>\", <default>))"
		}
		if near, ok := textdist.Nearest(p.Value, known); ok {
			msg += "; did you mean " + quote(near) + "?"
		} else if !user.Any {
			msg += " (a parameter of a team's rules is read as input.params.<name> in a policy folder)"
		}
		errs = append(errs, cfg.Errorf(p, "%s", msg))
	}
	if len(errs) > 0 {
		return errs
	}
	return nil
}
