package report

import (
	"bufio"
	"fmt"
	"io"
	"path"
	"strings"

	"github.com/h3a-check/h3a-check/internal/audit"
	"github.com/h3a-check/h3a-check/internal/finding"
)

const (
	ansiReset  = "\x1b[0m"
	ansiBold   = "\x1b[1m"
	ansiDim    = "\x1b[2m"
	ansiRed    = "\x1b[31m"
	ansiGreen  = "\x1b[32m"
	ansiYellow = "\x1b[33m"
	ansiCyan   = "\x1b[36m"
)

// Text prints, per run, one line per finding as
// `path:line:col: severity: message [rule]` with its remediation beneath,
// then a summary line for the run, and an overall line at the end. With
// Options.StopCommands the whole report is one stop-commands region.
func Text(w io.Writer, in *Input, opts Options) error {
	return writeAll(newTextStream(w, opts), in)
}

// sourceText says where a configuration file or policy directory came
// from: `.h3a-check.yaml from commit 1a2b3c4d5e6f (reason)`, the reason
// naming the revision and why it was chosen.
func sourceText(s audit.Source) string {
	where := "the " + strings.ReplaceAll(s.Origin, "-", " ")
	if s.Origin == "base" {
		c := s.Commit
		if len(c) > 12 {
			c = c[:12]
		}
		where = "commit " + c
	}
	t := fmt.Sprintf("%s from %s (%s)", s.Path, where, s.Reason)
	if len(s.Ignored) > 0 {
		t += fmt.Sprintf("; %d file%s only in the working tree ignored", len(s.Ignored), plural(len(s.Ignored)))
	}
	return t
}

func painter(color bool) func(code, s string) string {
	return func(code, s string) string {
		if !color {
			return s
		}
		return code + s + ansiReset
	}
}

// textRun prints one run: its heading, its findings and its gate line. A
// finding that follows from another (audit.Follows) is printed beneath
// its cause, not on its own. Findings for which skip is true are left out
// (said once for the whole report instead).
//
// Everything taken from the run (its folder, its run id, file names,
// details, notes) and from the policies (rule ids, remediations) is
// escaped, and the run's folder, which starts lines, cannot start a
// workflow command.
func textRun(bw *bufio.Writer, a *audit.Audit, paint func(code, s string) string, skip func(finding.Finding) bool) {
	if h := heading(a); h != "" {
		fmt.Fprintf(bw, "%s %s\n", paint(ansiBold, EscapeLine(a.Run)), paint(ansiDim, Escape(h)))
	} else {
		fmt.Fprintf(bw, "%s\n", paint(ansiBold, EscapeLine(a.Run)))
	}
	effects := effectsOf(a.Findings)
	for i, f := range a.Findings {
		if isEffect(a.Findings, i) || (skip != nil && skip(f)) {
			continue
		}
		textFinding(bw, a.Run, f, paint, "  ")
		for _, e := range effects[i] {
			textFinding(bw, a.Run, a.Findings[e], paint, "      "+paint(ansiDim, "follows:")+" ")
		}
	}
	// Under fail-level warning a gate can fail with no error at all: say so
	// beside the counts, or "0 errors" reads as a pass that failed.
	level := ""
	if a.Gate == audit.Fail && a.Fails(finding.Warning) {
		level = " (fail level warning)"
	}
	fmt.Fprintf(bw, "  %s %s — %s%s; %s\n", paint(ansiBold, "gate:"), paint(gateColour(a.Gate), a.Gate), countsText(a.Counts), level, Escape(a.Notes))
}

// textFinding prints one finding after indent, its waiver or its fix
// beneath. An effect's fix is its cause's, so it gets none of its own.
func textFinding(bw *bufio.Writer, run string, f finding.Finding, paint func(code, s string) string, indent string) {
	loc := EscapeLine(runRelative(run, f))
	rule := paint(ansiDim, "["+Escape(f.Rule)+"]")
	if f.IsWaived() {
		fmt.Fprintf(bw, "%s%s: %s: %s %s\n", indent, loc, paint(ansiDim, f.Severity.String()+" (waived)"), Escape(f.Details), rule)
		fmt.Fprintf(bw, "      %s %s\n", paint(ansiDim, "waived:"), Escape(fmt.Sprintf("%s (until %s, %s)", f.Waived.Reason, f.Waived.Expires, f.Waived.Source)))
		return
	}
	fmt.Fprintf(bw, "%s%s: %s: %s %s\n", indent, loc, paint(severityColour(f.Severity), f.Severity.String()), Escape(f.Details), rule)
	if f.Remediation != "" && f.Severity != finding.Info && f.Cause == nil {
		fmt.Fprintf(bw, "      %s %s\n", paint(ansiCyan, "fix:"), Escape(f.Remediation))
	}
}

// isEffect reports whether finding i follows from another finding of the
// list, so it is shown beneath that one.
func isEffect(fs []finding.Finding, i int) bool {
	c := fs[i].Cause
	return c != nil && *c >= 0 && *c < len(fs) && *c != i && fs[*c].Cause == nil
}

// effectsOf maps the index of each cause to the indexes of the findings
// that follow from it, in list order.
func effectsOf(fs []finding.Finding) map[int][]int {
	m := map[int][]int{}
	for i := range fs {
		if isEffect(fs, i) {
			m[*fs[i].Cause] = append(m[*fs[i].Cause], i)
		}
	}
	return m
}

// heading says what an audit is about: a run's layout and id, or what is
// known of them (a folder that lost runs; the audit of the rules
// themselves, whose notes say what it is).
func heading(a *audit.Audit) string {
	var parts []string
	if a.Layout != "" {
		parts = append(parts, "layout "+a.Layout)
	}
	if a.RunID != "" {
		parts = append(parts, "run "+a.RunID)
	}
	if len(parts) == 0 {
		return ""
	}
	return "(" + strings.Join(parts, ", ") + ")"
}

func addCounts(a, b finding.Counts) finding.Counts {
	return finding.Counts{Error: a.Error + b.Error, Warning: a.Warning + b.Warning, Info: a.Info + b.Info, Waived: a.Waived + b.Waived}
}

// runRelative prefixes a finding's file with its run, so the location can
// be opened from where the checker ran.
func runRelative(run string, f finding.Finding) string {
	if f.File == "" {
		return run
	}
	g := f
	g.File = path.Join(run, f.File)
	return g.Location()
}

func countsText(c finding.Counts) string {
	s := fmt.Sprintf("%d error%s, %d warning%s, %d info", c.Error, plural(c.Error), c.Warning, plural(c.Warning), c.Info)
	if c.Waived > 0 {
		s += fmt.Sprintf(", %d waived", c.Waived)
	}
	return s
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

func severityColour(s finding.Severity) string {
	switch s {
	case finding.Error:
		return ansiRed
	case finding.Warning:
		return ansiYellow
	}
	return ansiCyan
}

func gateColour(g string) string {
	switch g {
	case audit.Pass:
		return ansiGreen
	case audit.NeedsHuman:
		return ansiYellow
	}
	return ansiRed
}
