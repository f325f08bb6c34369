package cli

import (
	"fmt"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/h3a-check/h3a-check/internal/finding"
)

// catalog lists every rule the checker can report, sorted by id.
func catalog() []finding.Rule {
	rules := slices.Clone(finding.GoRules)
	slices.SortFunc(rules, func(a, b finding.Rule) int { return strings.Compare(a.ID, b.ID) })
	return rules
}

func runRules(args []string, e *env) int {
	if len(args) > 0 {
		return fail(e, usageError{"rules takes no arguments"})
	}
	tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tCATEGORY\tSEVERITY\tTITLE")
	for _, r := range catalog() {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", r.ID, r.Category, r.Severity, r.Title)
	}
	tw.Flush()
	return ExitPass
}

func runExplain(args []string, e *env) int {
	if len(args) != 1 {
		return fail(e, usageError{"explain takes one rule id, e.g. h3a-check explain h3a.integrity.hash_mismatch"})
	}
	for _, r := range catalog() {
		if r.ID == args[0] {
			fmt.Fprintf(e.stdout, "%s — %s\n\ncategory: %s\nseverity: %s\n\n%s\n\nremediation: %s\n",
				r.ID, r.Title, r.Category, r.Severity, r.Description, r.Remediation)
			return ExitPass
		}
	}
	var near []string
	for _, r := range catalog() {
		if strings.Contains(r.ID, args[0]) {
			near = append(near, r.ID)
		}
	}
	msg := fmt.Sprintf("no rule %q", args[0])
	if len(near) > 0 {
		msg += "; did you mean " + strings.Join(near, ", ") + "?"
	} else {
		msg += "; \"h3a-check rules\" lists them all"
	}
	fmt.Fprintf(e.stderr, "%s: %s\n", Name, msg)
	return ExitError
}
