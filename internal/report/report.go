// Package report renders check results. Every format is a pure function of
// the results and the options; nothing here decides a verdict.
package report

import (
	"fmt"
	"io"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/h3a-check/h3a-check/internal/audit"
	"github.com/h3a-check/h3a-check/internal/finding"
)

// Input is everything a report may show.
type Input struct {
	Tool   audit.Tool
	Gate   string
	Audits []*audit.Audit
	// Rules is the catalogue of rules the checker can report: SARIF lists
	// them in rules[] and JUnit makes one test case of each.
	Rules []finding.Rule
}

// Options tune presentation, and give the github format its environment.
type Options struct {
	Color bool // ANSI colour (text format only)
	// Root is the absolute repository root: SARIF and GitHub name files
	// relative to it. Empty: files are named as the runs were given.
	Root string
	// WorkDir is the absolute directory relative run paths start from.
	WorkDir string
	// Getenv reads the GitHub Actions environment (github format).
	Getenv func(string) string
	// Files maps a format to the file it is also written to, for the
	// audit-file and sarif-file outputs of the github format.
	Files map[string]string
	// StopToken suspends workflow commands while the github format prints
	// text from the checked files; it must be unpredictable to them.
	StopToken string
	// StopCommands writes the text format inside one stop-commands region:
	// stdout under GitHub Actions, where a line of the report must not be
	// read as a workflow command.
	StopCommands bool
	// Quiet leaves passing runs out of the text format: only runs that do
	// not pass, their findings, and the totals.
	Quiet bool
}

// gateNote says of a finding that fails its run's gate without being an
// error (a warning under --fail-level warning) that it does: "warning,
// fails the gate at fail-level warning". The formats that show what fails
// the gate as an error (an ::error annotation, a JUnit failure) put it
// beside the finding, so its own severity stays visible. Empty for an
// error, and for a finding that does not fail the gate.
func gateNote(a *audit.Audit, s finding.Severity) string {
	if s >= finding.Error || !a.Fails(s) {
		return ""
	}
	return fmt.Sprintf("%s, fails the gate at fail-level %s", s, s)
}

// Writer renders one format.
type Writer func(w io.Writer, in *Input, opts Options) error

// Format is one output format and what it needs besides the results.
type Format struct {
	Write Writer
	// RepoPaths: the format names files relative to the repository root,
	// so the caller finds the root (Options.Root) for it, which may start
	// git; other formats name files as the runs were given.
	RepoPaths bool
	// NotAFile says why the format is written to stdout only, when it is.
	NotAFile string
	// Stream, when set, starts the format's report written as the audits
	// arrive, keeping none of them (the runner's Emit hands each over as
	// its run ends); Write is then writeAll over it. A format without it
	// keeps every audit until the end and renders them with Write.
	Stream func(w io.Writer, tool audit.Tool, opts Options) Stream
}

// formats is the explicit list of output formats.
var formats = map[string]Format{
	"text":  {Write: Text, Stream: streamText},
	"json":  {Write: JSON, Stream: streamJSON},
	"sarif": {Write: SARIF, RepoPaths: true},
	"junit": {Write: JUnit},
	// markdown names runs from the repository root, as the job summary
	// does, so that the two read the same.
	"markdown": {Write: Markdown, RepoPaths: true},
	"github": {Write: GitHub, RepoPaths: true,
		NotAFile: "github writes workflow commands, the job summary and step outputs, not a file: use --format github"},
}

// Formats lists the format names, sorted.
func Formats() []string {
	names := make([]string, 0, len(formats))
	for n := range formats {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// Lookup returns a format by name.
func Lookup(name string) (Format, error) {
	f, ok := formats[name]
	if !ok {
		return Format{}, fmt.Errorf("unknown format %q: expected one of %s", name, strings.Join(Formats(), ", "))
	}
	return f, nil
}

// repoPath names a finding's file (its run, when it names none) relative
// to the repository root with forward slashes. When the root is unknown
// or the file lies outside it, the path stays as the run was named.
func (o Options) repoPath(run, file string) string {
	p := path.Join(run, file)
	if o.Root == "" {
		return p
	}
	abs := filepath.FromSlash(p)
	if !filepath.IsAbs(abs) {
		if o.WorkDir == "" {
			return p
		}
		abs = filepath.Join(o.WorkDir, abs)
	}
	rel, err := filepath.Rel(o.Root, abs)
	if err != nil {
		return p
	}
	rel = filepath.ToSlash(rel)
	if rel == ".." || strings.HasPrefix(rel, "../") {
		return p
	}
	return rel
}

// ruleCatalogue gives the rules of the input plus a bare entry for every
// rule id a finding names that the catalogue lacks (a user policy), in id
// order, so every result has its rule.
func ruleCatalogue(in *Input) []finding.Rule {
	known := map[string]bool{}
	rules := make([]finding.Rule, 0, len(in.Rules))
	for _, r := range in.Rules {
		if !known[r.ID] {
			known[r.ID] = true
			rules = append(rules, r)
		}
	}
	for _, a := range in.Audits {
		for _, f := range a.Findings {
			if !known[f.Rule] {
				known[f.Rule] = true
				rules = append(rules, finding.Rule{ID: f.Rule, Category: f.Category, Severity: f.Severity, Title: f.Rule})
			}
		}
	}
	slices.SortFunc(rules, func(a, b finding.Rule) int { return strings.Compare(a.ID, b.ID) })
	return rules
}
