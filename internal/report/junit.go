package report

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"io"
	"strings"

	"github.com/h3a-check/h3a-check/internal/audit"
	"github.com/h3a-check/h3a-check/internal/finding"
)

type junitSuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Name     string       `xml:"name,attr"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Errors   int          `xml:"errors,attr"`
	Time     string       `xml:"time,attr"`
	Suites   []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name       string          `xml:"name,attr"`
	Tests      int             `xml:"tests,attr"`
	Failures   int             `xml:"failures,attr"`
	Errors     int             `xml:"errors,attr"`
	Skipped    int             `xml:"skipped,attr"`
	Time       string          `xml:"time,attr"`
	Properties []junitProperty `xml:"properties>property"`
	Cases      []junitCase     `xml:"testcase"`
}

type junitProperty struct {
	Name  string `xml:"name,attr"`
	Value string `xml:"value,attr"`
}

type junitCase struct {
	Name      string         `xml:"name,attr"`
	Classname string         `xml:"classname,attr"`
	Time      string         `xml:"time,attr"`
	Failures  []junitFailure `xml:"failure"`
	SystemOut string         `xml:"system-out,omitempty"`
}

type junitFailure struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr"`
	Text    string `xml:",chardata"`
}

// gateCase names the test case that carries each run's verdict, so a CI
// test view fails exactly when the exit code does (warnings fail a gate
// under --fail-level warning; a human decision is not a pass either).
const gateCase = "gate"

// JUnit prints one test suite per run and, in it, one test case per rule
// of the catalogue (and per rule a finding names that the catalogue
// lacks), with one failure per finding that fails the gate (an error, and
// under --fail-level warning a warning too: its type is its severity and
// its message says that it fails the gate); other findings, and waived
// ones, are written to the case's system-out. A last case, "gate", fails
// unless the run's gate is pass. Times are zero: output is reproducible.
func JUnit(w io.Writer, in *Input, _ Options) error {
	rules := ruleCatalogue(in)
	doc := junitSuites{Name: in.Tool.Name, Time: "0", Suites: []junitSuite{}}
	for _, a := range in.Audits {
		s := junitSuiteOf(a, rules)
		doc.Suites = append(doc.Suites, s)
		doc.Tests += s.Tests
		doc.Failures += s.Failures
	}
	var buf bytes.Buffer
	buf.WriteString(xml.Header)
	enc := xml.NewEncoder(&buf)
	enc.Indent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return err
	}
	buf.WriteString("\n")
	// "##[" starts a GitHub Actions command anywhere on a line; as a
	// character reference it reads the same to an XML parser.
	_, err := w.Write(bytes.ReplaceAll(buf.Bytes(), []byte("##["), []byte("##&#91;")))
	return err
}

func junitSuiteOf(a *audit.Audit, rules []finding.Rule) junitSuite {
	byRule := map[string][]finding.Finding{}
	for _, f := range a.Findings {
		byRule[f.Rule] = append(byRule[f.Rule], f)
	}
	run := Escape(a.Run)
	s := junitSuite{
		Name: run,
		Time: "0",
		Properties: []junitProperty{
			{"gate", a.Gate}, {"layout", Escape(a.Layout)}, {"run_id", Escape(a.RunID)},
		},
	}
	for _, r := range rules {
		c := junitCase{Name: Escape(r.ID), Classname: run, Time: "0"}
		var out []string
		for _, f := range byRule[r.ID] {
			loc := EscapeLine(runRelative(a.Run, f))
			details := Escape(f.Details)
			if a.Fails(f.Severity) && !f.IsWaived() {
				msg := details
				if note := gateNote(a, f.Severity); note != "" {
					msg = note + ": " + msg
				}
				text := loc + ": " + msg
				if f.Remediation != "" {
					text += "\nfix: " + Escape(f.Remediation)
				}
				c.Failures = append(c.Failures, junitFailure{Message: msg, Type: f.Severity.String(), Text: text})
				continue
			}
			line := fmt.Sprintf("%s: %s: %s", loc, f.Severity, details)
			if f.IsWaived() {
				line += Escape(fmt.Sprintf(" (waived until %s: %s)", f.Waived.Expires, f.Waived.Reason))
			}
			out = append(out, line)
		}
		if len(out) > 0 {
			c.SystemOut = strings.Join(out, "\n")
		}
		if len(c.Failures) > 0 {
			s.Failures++
		}
		s.Cases = append(s.Cases, c)
	}
	gate := junitCase{Name: gateCase, Classname: run, Time: "0"}
	if a.Gate != audit.Pass {
		gate.Failures = []junitFailure{{
			Message: "gate " + a.Gate,
			Type:    a.Gate,
			Text:    fmt.Sprintf("gate %s: %s\n%s", a.Gate, countsText(a.Counts), escapeEach(a.RequiredActions, "\n")),
		}}
		s.Failures++
	}
	s.Cases = append(s.Cases, gate)
	s.Tests = len(s.Cases)
	return s
}

// escapeEach escapes each element and joins them with sep.
func escapeEach(elems []string, sep string) string {
	out := make([]string, len(elems))
	for i, e := range elems {
		out[i] = Escape(e)
	}
	return strings.Join(out, sep)
}
