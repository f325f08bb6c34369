package report

import (
	"bufio"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/sethvargo/go-githubactions"

	"github.com/h3a-check/h3a-check/internal/audit"
	"github.com/h3a-check/h3a-check/internal/finding"
)

// GitHub shows at most this many annotations of each level per step.
const annotationsPerLevel = 10

// workflow is the part of GitHub Actions the github format talks to. File
// commands (outputs, summary) are only reached when their variable is set.
type workflow interface {
	command(name, message string, props map[string]string) error
	setOutput(name, value string) error
	addSummary(markdown string) error
}

// actions adapts go-githubactions, which panics when it cannot write, to
// errors: a closed pipe or a full disk must not crash the check.
type actions struct{ a *githubactions.Action }

func newActions(w io.Writer, getenv func(string) string) workflow {
	return actions{githubactions.New(githubactions.WithWriter(w), githubactions.WithGetenv(getenv))}
}

func (x actions) command(name, message string, props map[string]string) error {
	return recovered(func() {
		x.a.IssueCommand(&githubactions.Command{Name: name, Message: message, Properties: props})
	})
}

func (x actions) setOutput(name, value string) error {
	return recovered(func() { x.a.SetOutput(name, value) })
}

func (x actions) addSummary(markdown string) error {
	return recovered(func() { x.a.AddStepSummary(markdown) })
}

func recovered(f func()) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("github actions: %v", r)
		}
	}()
	f()
	return nil
}

// GitHub reports to a GitHub Actions step:
//   - the findings of each run in a collapsible log group, with workflow
//     commands stopped around them (they quote the checked files);
//   - annotations on the files changed: errors first, then warnings, at
//     most 10 of each, and a notice saying how many were left out; a
//     finding that fails the gate is an error (a warning too, under
//     --fail-level warning), its message saying its severity;
//   - a Markdown job summary (GITHUB_STEP_SUMMARY, at most 64 KiB: see summary);
//   - the step outputs gate, errors, warnings, audit-file and sarif-file
//     (GITHUB_OUTPUT).
//
// Summary and outputs are skipped when their variable is unset, so the
// format also works outside Actions.
func GitHub(w io.Writer, in *Input, opts Options) error {
	getenv := opts.Getenv
	if getenv == nil {
		getenv = func(string) string { return "" }
	}
	bw := bufio.NewWriter(w)
	wf := newActions(bw, getenv)
	if err := githubLog(bw, wf, in, opts); err != nil {
		return err
	}
	if err := bw.Flush(); err != nil {
		return err
	}
	if file := getenv("GITHUB_STEP_SUMMARY"); file != "" {
		// Empty when the step's summary is already full: adding nothing
		// beats pushing it past the limit, which makes GitHub drop it all.
		if md := summary(in, opts, min(pictureLimit, summaryLimit-existingSize(file))); md != "" {
			if err := wf.addSummary(md); err != nil {
				return err
			}
		}
	}
	if getenv("GITHUB_OUTPUT") != "" {
		return githubOutputs(wf, in, opts)
	}
	return nil
}

func githubLog(bw *bufio.Writer, wf workflow, in *Input, opts Options) error {
	token := opts.StopToken
	if token == "" {
		token = NewStopToken()
	}
	plain := painter(false)
	var total finding.Counts
	for _, a := range in.Audits {
		total = addCounts(total, a.Counts)
		if opts.Quiet && a.Gate == audit.Pass {
			continue
		}
		title := fmt.Sprintf("h3a-check %s: gate %s (%s)", Escape(a.Run), a.Gate, countsText(a.Counts))
		if err := wf.command("group", title, nil); err != nil {
			return err
		}
		if err := wf.command("stop-commands", token, nil); err != nil {
			return err
		}
		textRun(bw, a, plain, nil)
		if err := wf.command(token, "", nil); err != nil {
			return err
		}
		if err := wf.command("endgroup", "", nil); err != nil {
			return err
		}
	}
	if err := annotate(wf, in, opts); err != nil {
		return err
	}
	fmt.Fprintf(bw, "overall: %s — %d run%s checked; %s\n", in.Gate, len(in.Audits), plural(len(in.Audits)), countsText(total))
	return nil
}

// annotate issues errors, then warnings, up to the per-level budget; info
// and waived findings stay in the log and the summary. A finding that
// fails its run's gate is an ::error, whatever its severity (a warning
// under --fail-level warning): the annotations then agree with the step
// that fails. Errors come first, so a warning annotated as an error takes
// what the errors leave of their budget.
func annotate(wf workflow, in *Input, opts Options) error {
	shown := map[string]int{}          // by annotation level
	left := map[finding.Severity]int{} // by severity
	leftAsErrors := 0                  // warnings left out of the errors' budget
	for _, sev := range []finding.Severity{finding.Error, finding.Warning} {
		for _, a := range in.Audits {
			for _, f := range a.Findings {
				if f.Severity != sev || f.IsWaived() {
					continue
				}
				level := annotationLevel(a, f)
				if shown[level] == annotationsPerLevel {
					left[sev]++
					if sev != finding.Error && level == finding.Error.String() {
						leftAsErrors++
					}
					continue
				}
				shown[level]++
				props, msg := annotation(a, f, opts)
				if err := wf.command(level, msg, props); err != nil {
					return err
				}
			}
		}
	}
	if left[finding.Error]+left[finding.Warning] == 0 {
		return nil
	}
	msg := fmt.Sprintf("%d more error%s and %d more warning%s are not annotated: GitHub shows %d of each per step",
		left[finding.Error], plural(left[finding.Error]), left[finding.Warning], plural(left[finding.Warning]), annotationsPerLevel)
	if leftAsErrors > 0 {
		msg += ", and a warning that fails the gate is annotated as an error"
	}
	msg += ". The log above lists every finding."
	return wf.command("notice", msg, map[string]string{"title": "h3a-check"})
}

// annotationLevel is the workflow command a finding is annotated with:
// error when it fails its run's gate, else its severity.
func annotationLevel(a *audit.Audit, f finding.Finding) string {
	if a.Fails(f.Severity) {
		return finding.Error.String()
	}
	return f.Severity.String()
}

// annotation gives a finding's properties (its rule as the title, where
// it is) and its message; a finding that fails the gate below error says
// so first (gateNote), as its annotation is an error.
func annotation(a *audit.Audit, f finding.Finding, opts Options) (map[string]string, string) {
	run := a.Run
	props := map[string]string{"title": Escape(f.Rule)}
	msg := Escape(f.Details)
	if f.File != "" {
		props["file"] = Escape(opts.repoPath(run, f.File))
		if f.Line > 0 {
			props["line"] = strconv.Itoa(f.Line)
			if f.Column > 0 {
				props["col"] = strconv.Itoa(f.Column)
			}
		}
	} else {
		msg = Escape(run) + ": " + msg
	}
	if note := gateNote(a, f.Severity); note != "" {
		msg = note + ": " + msg
	}
	if f.Remediation != "" {
		msg += "\nfix: " + Escape(f.Remediation)
	}
	return props, msg
}

func githubOutputs(wf workflow, in *Input, opts Options) error {
	var total finding.Counts
	for _, a := range in.Audits {
		total = addCounts(total, a.Counts)
	}
	outputs := [][2]string{
		{"gate", in.Gate},
		{"errors", strconv.Itoa(total.Error)},
		{"warnings", strconv.Itoa(total.Warning)},
		{"audit-file", opts.Files["json"]},
		{"sarif-file", opts.Files["sarif"]},
	}
	for _, o := range outputs {
		// The library writes name<<DELIMITER with a fixed delimiter: a
		// value spanning lines could forge further outputs, so none may.
		v := strings.NewReplacer("\r", "", "\n", "").Replace(o[1])
		if err := wf.setOutput(o[0], v); err != nil {
			return err
		}
	}
	return nil
}

// NewStopToken returns a token for a stop-commands region that no checked
// file can predict, so none can end the region early.
func NewStopToken() string {
	b := make([]byte, 16)
	rand.Read(b) // never fails (crypto/rand)
	return "h3a-check-" + hex.EncodeToString(b)
}
