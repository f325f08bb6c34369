package cli

import (
	"context"
	"flag"
	"fmt"
	"slices"
	"strings"
	"sync"
	"text/tabwriter"

	"github.com/h3a-check/h3a-check/internal/audit"
	"github.com/h3a-check/h3a-check/internal/finding"
	"github.com/h3a-check/h3a-check/internal/policy"
	"github.com/h3a-check/h3a-check/internal/report"
	"github.com/h3a-check/h3a-check/internal/textdist"
)

// catalogEntry is one rule the checker can report and where it is defined.
type catalogEntry struct {
	finding.Rule
	source string // "built in", or the policy file:line and rule kind
	file   string // the policy file that defines the rule; "" for a built-in rule
}

// newCatalog is the one list of every rule the checker can report, sorted
// by id: the Go rules, the policy stage's own rules, and the policy rules
// loaded (shipped, and those of --policy folders). rules, explain, the
// configuration's rule ids and every check's report take it from here.
func newCatalog(policyRules []catalogEntry) []catalogEntry {
	out := make([]catalogEntry, 0, len(finding.GoRules)+len(policy.EngineRules)+len(policyRules))
	for _, r := range finding.GoRules {
		out = append(out, catalogEntry{Rule: r, source: "built in"})
	}
	for _, r := range policy.EngineRules {
		out = append(out, catalogEntry{Rule: r, source: "built in (policy stage)"})
	}
	out = append(out, policyRules...)
	slices.SortFunc(out, func(a, b catalogEntry) int { return strings.Compare(a.ID, b.ID) })
	return out
}

// catalog loads the shipped policies and those of dirs, and lists every
// rule with where it is defined (rules, explain).
func catalog(ctx context.Context, dirs []string) ([]catalogEntry, error) {
	e, err := policy.Load(ctx, policy.Options{Dirs: dirs})
	if err != nil {
		return nil, err
	}
	var loaded []catalogEntry
	for _, r := range e.Rules() {
		file := r.Location[:max(strings.LastIndexByte(r.Location, ':'), 0)]
		loaded = append(loaded, catalogEntry{Rule: r.Rule, source: fmt.Sprintf("%s (%s rule of package %s)", r.Location, r.Kind, r.Package), file: file})
	}
	return newCatalog(loaded), nil
}

// checkedRules is the catalogue of a check whose policy stage loaded
// loaded, as the report formats take it.
func checkedRules(loaded []finding.Rule) []finding.Rule {
	entries := make([]catalogEntry, len(loaded))
	for i, r := range loaded {
		entries[i] = catalogEntry{Rule: r}
	}
	return rulesOf(newCatalog(entries))
}

// rulesOf is a catalogue without sources.
func rulesOf(entries []catalogEntry) []finding.Rule {
	rules := make([]finding.Rule, len(entries))
	for i, e := range entries {
		rules[i] = e.Rule
	}
	return rules
}

// shippedRules is the catalogue of every rule this build ships (no user
// policies), computed once: the configuration's rule ids are checked
// against it. The shipped policies are compiled and tested at build time,
// so an error here cannot happen in a released binary; were it to, the Go
// rules alone still let configuration errors be reported.
var shippedRules = sync.OnceValue(func() []finding.Rule {
	entries, err := catalog(context.Background(), nil)
	if err != nil {
		return slices.Clone(finding.GoRules)
	}
	return rulesOf(entries)
})

// catalogFlags are the flags of rules and explain.
type catalogFlags struct {
	dirs   listFlag
	format string // rules only
}

// catalogIntros open the usage of rules and explain.
var catalogIntros = map[string]string{
	"explain": "usage: h3a-check explain [--policy DIR] RULE\n\nDocuments one rule: what it checks and how to fix what it finds.\n\n",
	"rules":   "usage: h3a-check rules [--policy DIR] [--format text|json]\n\nLists every rule: id, category, severity and title.\n\n",
}

// newCatalogFlagSet is the flag set of rules and explain: --policy DIR,
// and for rules --format text|json.
func newCatalogFlagSet(name string, e *env, cf *catalogFlags) *flag.FlagSet {
	fs := newFlagSet(e, name, catalogIntros[name])
	fs.Var(&cf.dirs, "policy", "also list the rules in DIR (repeatable)")
	if name == "rules" {
		fs.StringVar(&cf.format, "format", "text", "text (a table) or json (every field of every rule, for tools)")
	}
	return fs
}

// parseCatalogFlags reads the flags of rules and explain.
func parseCatalogFlags(name string, args []string, e *env) (cf catalogFlags, rest []string, code int, stop bool) {
	rest, code, stop = parseFlags(name, newCatalogFlagSet(name, e, &cf), args, e)
	return cf, rest, code, stop
}

// ruleJSON is one rule of "rules --format json".
type ruleJSON struct {
	ID          string `json:"id"`
	Category    string `json:"category"`
	Severity    string `json:"severity"`
	Title       string `json:"title"`
	Description string `json:"description"`
	Remediation string `json:"remediation"`
	Defined     string `json:"defined"` // "built in", or the policy file:line
}

func runRules(ctx context.Context, args []string, e *env) int {
	cf, rest, code, stop := parseCatalogFlags("rules", args, e)
	if stop {
		return code
	}
	dirs, format := cf.dirs, cf.format
	if len(rest) > 0 {
		return fail(e, usageError{"rules takes no arguments besides --policy DIR and --format text|json"})
	}
	if format != "text" && format != "json" {
		return fail(e, usageError{fmt.Sprintf("--format %q: rules are listed as \"text\" or \"json\"", format)})
	}
	rules, err := catalog(ctx, dirs)
	if err != nil {
		return fail(e, err)
	}
	if format == "json" {
		out := struct {
			Rules []ruleJSON `json:"rules"`
			Tool  audit.Tool `json:"tool"`
		}{Tool: audit.Tool{Name: Name, Version: Version()}, Rules: []ruleJSON{}}
		for _, r := range rules {
			out.Rules = append(out.Rules, ruleJSON{ID: r.ID, Category: string(r.Category), Severity: r.Severity.String(),
				Title: r.Title, Description: r.Description, Remediation: r.Remediation, Defined: r.source})
		}
		b, err := report.MarshalSorted(out)
		if err != nil {
			return fail(e, err)
		}
		if _, err := e.stdout.Write(b); err != nil {
			return fail(e, fmt.Errorf("writing the rule list: %w", err))
		}
		return ExitPass
	}
	tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tCATEGORY\tSEVERITY\tTITLE")
	for _, r := range rules {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", report.EscapeLine(r.ID), report.Escape(string(r.Category)), r.Severity, report.Escape(r.Title))
	}
	if err := tw.Flush(); err != nil {
		return fail(e, fmt.Errorf("writing the rule list: %w", err))
	}
	return ExitPass
}

func runExplain(ctx context.Context, args []string, e *env) int {
	cf, rest, code, stop := parseCatalogFlags("explain", args, e)
	if stop {
		return code
	}
	if len(rest) != 1 {
		return fail(e, usageError{"explain takes one rule id, e.g. h3a-check explain h3a.integrity.hash_mismatch"})
	}
	rules, err := catalog(ctx, cf.dirs)
	if err != nil {
		return fail(e, err)
	}
	id := rest[0]
	for _, r := range rules {
		if r.ID == id {
			remediation := r.Remediation
			if remediation == "" {
				remediation = "(none given)"
			}
			// A user policy's metadata is as untrusted as the policy.
			fmt.Fprintf(e.stdout, "%s — %s\n\ncategory: %s\nseverity: %s\ndefined:  %s\n\n%s\n\nremediation: %s\n",
				report.EscapeLine(r.ID), report.Escape(r.Title), report.Escape(string(r.Category)), r.Severity,
				report.Escape(r.source), report.EscapeLine(r.Description), report.Escape(remediation))
			return ExitPass
		}
	}
	var near, ids []string
	for _, r := range rules {
		ids = append(ids, r.ID)
		if strings.Contains(r.ID, id) {
			near = append(near, r.ID)
		}
	}
	if len(near) == 0 {
		if n, ok := textdist.Nearest(id, ids); ok {
			near = []string{n}
		}
	}
	msg := fmt.Sprintf("no rule %q", report.EscapeLine(id))
	if len(near) > 0 {
		msg += "; did you mean " + strings.Join(near, ", ") + "?"
	} else {
		msg += "; \"h3a-check rules\" lists them all"
	}
	// A team's rule is known only with its policy folder.
	if len(cf.dirs) == 0 && (!strings.HasPrefix(id, "h3a.") || strings.HasPrefix(id, "h3a.user.")) {
		msg += " (a rule of your own policies: add --policy DIR)"
	}
	fmt.Fprintf(e.stderr, "%s: %s\n", Name, oneLine(msg))
	return ExitError
}
