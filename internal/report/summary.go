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

// pictureLimit bounds the job summary and the markdown format: it fits a
// pull-request comment (65,536 characters) and keeps a summary of any
// number of runs readable.
const pictureLimit = 64 << 10

const (
	runFindings    = 20   // finding rows of one run at most
	matrixRows     = 200  // rows of runs that do not pass in the gate matrix at most
	timelineEvents = 40   // events of one timeline at most
	passingListed  = 2000 // passing runs named in the folded list at most
	summaryCell    = 1000 // characters of one table cell at most
	mermaidLabel   = 80   // characters of one timeline label at most
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

// summary renders the job summary (and the markdown format) in at most
// limit bytes:
//   - the overall gate, the runs by gate, the totals and "evidence
//     verified n/m";
//   - a gate matrix per layout: a row per run that does not pass, with
//     the status of each of its stages (✅ ❌ ⏳ 🧑), and one row that
//     counts the passing runs, whose names are in a folded list;
//   - per run that does not pass: a Mermaid timeline of its gate events
//     (of its stages when its ledger has none) and its findings, those
//     that follow from another counted beside their cause;
//   - a closing note saying exactly what is shown of what.
//
// A run's section that does not fit is left out whole, and the note says
// how many were.
func summary(in *Input, opts Options, limit int) string {
	var total finding.Counts
	var ev audit.EvidenceCount
	byGate := map[string]int{}
	allFindings := 0
	for _, a := range in.Audits {
		total = addCounts(total, a.Counts)
		byGate[a.Gate]++
		allFindings += len(a.Findings)
		if a.Evidence != nil {
			ev.Verified += a.Evidence.Verified
			ev.Logged += a.Evidence.Logged
		}
	}
	head := fmt.Sprintf("## h3a-check: %s\n\n%d run%s checked: ❌ %d fail · 🧑 %d needs-human · ✅ %d pass — %s.\n",
		gateBadge(in.Gate), len(in.Audits), plural(len(in.Audits)), byGate[audit.Fail], byGate[audit.NeedsHuman], byGate[audit.Pass], countsText(total))
	head += fmt.Sprintf("\nEvidence verified %d/%d logged artifacts.\n", ev.Verified, ev.Logged)
	// The closing note is reserved first so that it always fits.
	const noteReserve = 600
	if limit < len(head)+noteReserve {
		return ""
	}
	b := &budgeted{limit: limit - noteReserve}
	b.add(head)

	shown := runsByGate(in.Audits)
	var notPassing, passing []*audit.Audit
	for _, a := range shown {
		if a.Gate == audit.Pass {
			passing = append(passing, a)
		} else {
			notPassing = append(notPassing, a)
		}
	}
	b.add(gateMatrix(notPassing, passing, opts))

	// The sections of the runs that do not pass come before the names of
	// the passing ones in the budget, though not on the page.
	sections := make([]string, len(notPassing))
	rowsOf := make([][2]int, len(notPassing))
	need := 0
	for i, a := range notPassing {
		var r, f int
		sections[i], r, f = runSection(a, opts)
		rowsOf[i] = [2]int{r, f}
		need += len(sections[i])
	}
	listed := 0
	if len(passing) > 0 {
		var list strings.Builder
		room := b.limit - b.Len() - need - 200
		for _, a := range passing[:min(len(passing), passingListed)] {
			line := "- " + mdCell(opts.repoPath(a.Run, "")) + "\n"
			if list.Len()+len(line) > room {
				break
			}
			list.WriteString(line)
			listed++
		}
		if listed > 0 {
			b.add(fmt.Sprintf("\n<details><summary>%d passing run%s (%d named)</summary>\n\n%s\n</details>\n", len(passing), plural(len(passing)), listed, list.String()))
		}
	}

	rows, folded, detailed := 0, 0, 0
	for i, section := range sections {
		if !b.addWhole(section) {
			continue
		}
		detailed++
		rows += rowsOf[i][0]
		folded += rowsOf[i][1]
	}

	var notes []string
	notes = append(notes, fmt.Sprintf("Shown: %d of %d run%s that do not pass, in detail", detailed, len(notPassing), plural(len(notPassing))))
	notes = append(notes, fmt.Sprintf("%d of %d passing run%s by name", listed, len(passing), plural(len(passing))))
	notes = append(notes, fmt.Sprintf("%d of %d finding%s listed and %d more counted beside their cause (infos are in the step log)", rows, allFindings, plural(allFindings), folded))
	out := b.String()
	out += "\n_" + strings.Join(notes, "; ") + ". The step log and the JSON report (`--output json=FILE`) hold every finding._\n"
	return out
}

// budgeted is a builder that refuses what would take it past its limit.
type budgeted struct {
	strings.Builder
	limit int
	full  bool
}

// add appends s if it fits; once something did not fit, nothing more is
// added, so what is shown keeps its order.
func (b *budgeted) add(s string) bool {
	if b.full || b.Len()+len(s) > b.limit {
		b.full = true
		return false
	}
	b.WriteString(s)
	return true
}

// addWhole appends s if it fits, and leaves room for a smaller piece
// after one that did not.
func (b *budgeted) addWhole(s string) bool {
	if b.Len()+len(s) > b.limit {
		return false
	}
	b.WriteString(s)
	return true
}

// stageMark is the matrix's picture of a stage status.
func stageMark(status string) string {
	switch status {
	case audit.StagePassed:
		return "✅"
	case audit.StageFailed:
		return "❌"
	case audit.StageNeedsHuman:
		return "🧑"
	case audit.StagePending:
		return "⏳"
	}
	return "·"
}

// gateMatrix is one table per layout: a row per run that does not pass,
// then one row counting, per stage, the statuses of the passing runs.
func gateMatrix(notPassing, passing []*audit.Audit, opts Options) string {
	var layouts []string
	stagesOf := map[string][]string{}
	runsOf := map[string][2][]*audit.Audit{}
	add := func(a *audit.Audit, i int) {
		l := a.Layout
		if _, ok := runsOf[l]; !ok {
			layouts = append(layouts, l)
		}
		r := runsOf[l]
		r[i] = append(r[i], a)
		runsOf[l] = r
		for _, s := range a.Stages {
			if !containsString(stagesOf[l], s.Name) {
				stagesOf[l] = append(stagesOf[l], s.Name)
			}
		}
	}
	for _, a := range notPassing[:min(len(notPassing), matrixRows)] {
		add(a, 0)
	}
	for _, a := range passing {
		add(a, 1)
	}
	var out strings.Builder
	out.WriteString("\n### Gates\n\n✅ passed · ❌ failed · ⏳ pending · 🧑 needs a human · `·` unknown\n")
	for _, l := range layouts {
		names := stagesOf[l]
		title := "layout " + l
		if l == "" {
			title = "no layout"
		}
		fmt.Fprintf(&out, "\n#### %s\n\n| run | gate |", mdCell(title))
		for _, n := range names {
			fmt.Fprintf(&out, " %s |", mdCell(n))
		}
		out.WriteString("\n| --- | --- |" + strings.Repeat(" :-: |", len(names)) + "\n")
		r := runsOf[l]
		for _, a := range r[0] {
			status := map[string]string{}
			for _, s := range a.Stages {
				status[s.Name] = s.Status
			}
			fmt.Fprintf(&out, "| %s | %s |", mdCell(opts.repoPath(a.Run, "")), gateBadge(a.Gate))
			for _, n := range names {
				fmt.Fprintf(&out, " %s |", stageMark(status[n]))
			}
			out.WriteString("\n")
		}
		if len(r[1]) > 0 {
			fmt.Fprintf(&out, "| %d passing run%s | ✅ pass |", len(r[1]), plural(len(r[1])))
			for _, n := range names {
				count := map[string]int{}
				for _, a := range r[1] {
					st := ""
					for _, s := range a.Stages {
						if s.Name == n {
							st = s.Status
						}
					}
					count[st]++
				}
				var cell []string
				for _, st := range []string{audit.StagePassed, audit.StageFailed, audit.StageNeedsHuman, audit.StagePending, ""} {
					if count[st] > 0 {
						cell = append(cell, fmt.Sprintf("%s %d", stageMark(st), count[st]))
					}
				}
				fmt.Fprintf(&out, " %s |", strings.Join(cell, " "))
			}
			out.WriteString("\n")
		}
	}
	if more := len(notPassing) - matrixRows; more > 0 {
		fmt.Fprintf(&out, "\n%d more run%s that do not pass are not in the matrix; the step log lists them.\n", more, plural(more))
	}
	return out.String()
}

func containsString(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// runSection is the detail of one run that does not pass: its heading,
// its timeline and its findings; with how many findings it lists and how
// many it counts beside their cause.
func runSection(a *audit.Audit, opts Options) (string, int, int) {
	var out strings.Builder
	fmt.Fprintf(&out, "\n### %s %s\n\n", gateBadge(a.Gate), mdCell(opts.repoPath(a.Run, "")))
	if a.Evidence != nil && a.Evidence.Logged > 0 {
		fmt.Fprintf(&out, "Evidence verified %d/%d logged artifacts.\n\n", a.Evidence.Verified, a.Evidence.Logged)
	}
	out.WriteString(timeline(a))
	effects := effectsOf(a.Findings)
	rows, folded, left := 0, 0, 0
	var table strings.Builder
	// Errors, then warnings, then waived findings; infos stay in the log.
	for _, pass := range []func(finding.Finding) bool{
		func(f finding.Finding) bool { return !f.IsWaived() && f.Severity == finding.Error },
		func(f finding.Finding) bool { return !f.IsWaived() && f.Severity == finding.Warning },
		finding.Finding.IsWaived,
	} {
		for i, f := range a.Findings {
			if isEffect(a.Findings, i) || !pass(f) {
				continue
			}
			if rows == runFindings {
				left++
				continue
			}
			rows++
			folded += len(effects[i])
			table.WriteString(findingRow(a, f, len(effects[i]), opts))
		}
	}
	if rows > 0 {
		out.WriteString("| severity | location | rule | message |\n| --- | --- | --- | --- |\n")
		out.WriteString(table.String())
	}
	if left > 0 {
		fmt.Fprintf(&out, "\n%d more finding%s of this run in the step log.\n", left, plural(left))
	}
	return out.String(), rows, folded
}

func findingRow(a *audit.Audit, f finding.Finding, effects int, opts Options) string {
	loc := opts.repoPath(a.Run, f.File)
	if f.Line > 0 {
		loc += fmt.Sprintf(":%d", f.Line)
		if f.Column > 0 {
			loc += fmt.Sprintf(":%d", f.Column)
		}
	}
	label := f.Severity.String()
	msg := mdCell(f.Details)
	if f.IsWaived() {
		label = "waived " + label
		msg += " — waived until " + mdCell(f.Waived.Expires+": "+f.Waived.Reason)
	}
	if effects > 0 {
		msg += fmt.Sprintf(" <br>**+%d finding%s that follow from this**", effects, plural(effects))
	}
	return fmt.Sprintf("| %s | %s | %s | %s |\n", label, mdCell(loc), mdCell(f.Rule), msg)
}

// eventStatus maps a ledger event's status word to a stage status.
func eventStatus(s string) string {
	switch {
	case s == "PASSED":
		return audit.StagePassed
	case s == "FAILED":
		return audit.StageFailed
	case strings.Contains(s, "ESCALAT"), s == "BLOCKED":
		return audit.StageNeedsHuman
	}
	return audit.StagePending
}

// timeline is a Mermaid flowchart of the run's gate events left to right
// (of its stages, when its ledger has none), each coloured by status.
// Every label is built from escaped, entity-encoded text (mermaidText),
// so nothing from a checked file can end the block or direct Mermaid.
func timeline(a *audit.Audit) string {
	type step struct{ label, status string }
	var steps []step
	for _, e := range a.Events {
		label := e.Time + " " + e.Stage + " " + e.Status
		if e.Agent != "" {
			label += " " + e.Agent
		}
		steps = append(steps, step{label, eventStatus(e.Status)})
	}
	if len(steps) == 0 {
		for _, s := range a.Stages {
			steps = append(steps, step{s.Name + " " + s.Status, s.Status})
		}
	}
	if len(steps) == 0 {
		return ""
	}
	skipped := 0
	if len(steps) > timelineEvents {
		skipped = len(steps) - timelineEvents
		steps = steps[skipped:]
	}
	var out strings.Builder
	out.WriteString("```mermaid\nflowchart LR\n")
	for i, s := range steps {
		fmt.Fprintf(&out, "  e%d[\"%s\"]:::%s\n", i, mermaidText(s.label), mermaidClass(s.status))
		if i > 0 {
			fmt.Fprintf(&out, "  e%d --> e%d\n", i-1, i)
		}
	}
	out.WriteString("  classDef passed fill:#d3f9d8,stroke:#2b8a3e\n  classDef failed fill:#ffe3e3,stroke:#c92a2a\n" +
		"  classDef pending fill:#f1f3f5,stroke:#868e96\n  classDef human fill:#fff3bf,stroke:#e67700\n```\n\n")
	if skipped > 0 {
		fmt.Fprintf(&out, "The last %d of %d events; the earlier ones are in the ledger.\n\n", len(steps), len(steps)+skipped)
	}
	return out.String()
}

func mermaidClass(status string) string {
	switch status {
	case audit.StagePassed:
		return "passed"
	case audit.StageFailed:
		return "failed"
	case audit.StageNeedsHuman:
		return "human"
	}
	return "pending"
}

// mermaidText makes text safe inside a quoted Mermaid label: escaped
// (Escape), bounded, and every character but letters, digits, space and
// - _ . , : / + ( ) written as a Mermaid entity code (#35; for '#'), so no
// quote, bracket, backtick, semicolon, percent sign, HTML or line break
// reaches Mermaid or the Markdown around the block.
func mermaidText(s string) string {
	s = Escape(s)
	if utf8.RuneCountInString(s) > mermaidLabel {
		s = string([]rune(s)[:mermaidLabel]) + "…"
	}
	var b strings.Builder
	for _, r := range s {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9',
			r == ' ', r == '-', r == '_', r == '.', r == ',', r == ':', r == '/', r == '+', r == '(', r == ')':
			b.WriteRune(r)
		default:
			fmt.Fprintf(&b, "#%d;", r)
		}
	}
	return b.String()
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

func gateBadge(gate string) string {
	switch gate {
	case audit.Pass:
		return "✅ pass"
	case audit.NeedsHuman:
		return "🧑 needs-human"
	case audit.Fail:
		return "❌ fail"
	}
	return mdCell(gate)
}

// mdCell makes text safe in a Markdown table cell, heading or list item:
// escaped, one line, bounded in length, and written with mdInline, so
// that it shows as itself and mentions, links and references no one.
func mdCell(s string) string {
	s = Escape(s)
	if utf8.RuneCountInString(s) > summaryCell {
		s = string([]rune(s)[:summaryCell]) + "…"
	}
	return mdInline(s)
}
