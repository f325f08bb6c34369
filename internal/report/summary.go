package report

import (
	"fmt"
	"os"
	"strings"
	"unicode/utf8"

	"github.com/h3a-check/h3a-check/internal/audit"
	"github.com/h3a-check/h3a-check/internal/finding"
)

// GitHub refuses a step summary of 1 MiB or more; this leaves room for the
// line end the library adds.
const summaryLimit = 1<<20 - 1024

const (
	summaryFindings = 50   // rows of the findings table at most
	summaryCell     = 1000 // characters of one table cell at most
)

// existingSize is what earlier writers in the same step already put in
// the summary file: the limit is per step, not per writer.
func existingSize(file string) int {
	info, err := os.Stat(file)
	if err != nil {
		return 0
	}
	return int(min(info.Size(), summaryLimit))
}

// summary renders the job summary in at most limit bytes: the overall
// gate, a table of runs (failing ones first) and the top findings (errors,
// then warnings, then waived ones). Rows that do not fit are left out and
// a closing note says how many.
func summary(in *Input, opts Options, limit int) string {
	var total finding.Counts
	for _, a := range in.Audits {
		total = addCounts(total, a.Counts)
	}
	head := fmt.Sprintf("## h3a-check: %s\n\n%d run%s checked: %s.\n\n",
		gateBadge(in.Gate), len(in.Audits), plural(len(in.Audits)), countsText(total))
	// The closing note is reserved first so that it always fits.
	const noteReserve = 400
	if limit < len(head)+noteReserve {
		return ""
	}
	b := &budgeted{limit: limit - noteReserve}
	b.add(head)

	b.add("| run | gate | errors | warnings | info | waived | notes |\n| --- | --- | ---: | ---: | ---: | ---: | --- |\n")
	runsLeft := 0
	for _, a := range runsByGate(in.Audits) {
		row := fmt.Sprintf("| %s | %s | %d | %d | %d | %d | %s |\n", mdCell(opts.repoPath(a.Run, "")), gateBadge(a.Gate),
			a.Counts.Error, a.Counts.Warning, a.Counts.Info, a.Counts.Waived, mdCell(a.Notes))
		if !b.add(row) {
			runsLeft++
		}
	}

	rows, findingsLeft := topFindings(in, opts)
	if len(rows) > 0 && b.add("\n### Findings\n\n| severity | location | rule | message |\n| --- | --- | --- | --- |\n") {
		for i, r := range rows {
			if !b.add(r) {
				findingsLeft += len(rows) - i
				break
			}
		}
	} else {
		findingsLeft += len(rows)
	}

	var notes []string
	if runsLeft > 0 {
		notes = append(notes, fmt.Sprintf("%d run%s left out of the table to keep this summary under GitHub's 1 MiB limit", runsLeft, plural(runsLeft)))
	}
	if findingsLeft > 0 {
		notes = append(notes, fmt.Sprintf("%d more finding%s not shown", findingsLeft, plural(findingsLeft)))
	}
	out := b.String()
	if len(notes) > 0 {
		out += "\n_" + strings.Join(notes, "; ") + ". The step log and the JSON report (`--output json=FILE`) hold every finding._\n"
	}
	return out
}

// budgeted is a builder that refuses what would take it past its limit.
type budgeted struct {
	strings.Builder
	limit int
	full  bool
}

func (b *budgeted) add(s string) bool {
	if b.full || b.Len()+len(s) > b.limit {
		b.full = true // keep rows in order: nothing after a row that did not fit
		return false
	}
	b.WriteString(s)
	return true
}

// runsByGate puts failing runs first, then those needing a human, then
// passing ones, keeping the report order within each.
func runsByGate(audits []*audit.Audit) []*audit.Audit {
	var out []*audit.Audit
	for _, gate := range []string{audit.Fail, audit.NeedsHuman, audit.Pass} {
		for _, a := range audits {
			if a.Gate == gate {
				out = append(out, a)
			}
		}
	}
	for _, a := range audits {
		if a.Gate != audit.Fail && a.Gate != audit.NeedsHuman && a.Gate != audit.Pass {
			out = append(out, a)
		}
	}
	return out
}

// topFindings gives table rows for errors, then warnings, then waived
// findings, at most summaryFindings, and how many more there are.
func topFindings(in *Input, opts Options) ([]string, int) {
	var rows []string
	more := 0
	add := func(label string, a *audit.Audit, f finding.Finding) {
		if len(rows) == summaryFindings {
			more++
			return
		}
		loc := opts.repoPath(a.Run, f.File)
		if f.Line > 0 {
			loc += fmt.Sprintf(":%d", f.Line)
			if f.Column > 0 {
				loc += fmt.Sprintf(":%d", f.Column)
			}
		}
		msg := f.Details
		if f.IsWaived() {
			msg += " — waived until " + f.Waived.Expires + ": " + f.Waived.Reason
		}
		rows = append(rows, fmt.Sprintf("| %s | %s | %s | %s |\n", label, mdCell(loc), mdCell(f.Rule), mdCell(msg)))
	}
	for _, sev := range []finding.Severity{finding.Error, finding.Warning} {
		for _, a := range in.Audits {
			for _, f := range a.Findings {
				if f.Severity == sev && !f.IsWaived() {
					add(sev.String(), a, f)
				}
			}
		}
	}
	for _, a := range in.Audits {
		for _, f := range a.Findings {
			if f.IsWaived() {
				add("waived "+f.Severity.String(), a, f)
			}
		}
	}
	return rows, more
}

func gateBadge(gate string) string {
	switch gate {
	case audit.Pass:
		return "✅ pass"
	case audit.NeedsHuman:
		return "⚠️ needs-human"
	case audit.Fail:
		return "❌ fail"
	}
	return mdCell(gate)
}

// mdCell makes text safe in a Markdown table cell: escaped, one line, no
// HTML, no table or emphasis syntax, and bounded in length.
func mdCell(s string) string {
	s = Escape(s)
	if utf8.RuneCountInString(s) > summaryCell {
		s = string([]rune(s)[:summaryCell]) + "…"
	}
	var b strings.Builder
	for _, r := range s {
		switch r {
		case '&':
			b.WriteString("&amp;")
		case '<':
			b.WriteString("&lt;")
		case '>':
			b.WriteString("&gt;")
		case '\\', '|', '*', '_', '`', '[', ']', '#', '~', '!':
			b.WriteByte('\\')
			b.WriteRune(r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}
