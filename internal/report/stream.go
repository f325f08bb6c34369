package report

import (
	"bufio"
	"bytes"
	"fmt"
	"io"

	"github.com/h3a-check/h3a-check/internal/audit"
	"github.com/h3a-check/h3a-check/internal/finding"
)

// Stream is one report written as the audits arrive, in report order. The
// text and json formats write each audit when it comes and keep only
// counters, so a check of any number of runs holds no audit it has
// reported; the other formats need every audit at once (SARIF's rules come
// before its results, the GitHub summary puts failing runs first) and keep
// them until Close.
type Stream interface {
	// Add reports one run.
	Add(a *audit.Audit) error
	// Close ends the report: gate is the overall gate, rules the
	// catalogue of the rules the check could report.
	Close(gate string, rules []finding.Rule) error
}

// NewStream starts a report in format on w.
func NewStream(format string, w io.Writer, tool audit.Tool, opts Options) (Stream, error) {
	f, err := Lookup(format)
	if err != nil {
		return nil, err
	}
	if f.Stream != nil {
		return f.Stream(w, tool, opts), nil
	}
	return &collected{w: w, write: f.Write, in: Input{Tool: tool}, opts: opts}, nil
}

func streamText(w io.Writer, _ audit.Tool, opts Options) Stream { return newTextStream(w, opts) }

func streamJSON(w io.Writer, tool audit.Tool, _ Options) Stream {
	return &jsonStream{bw: bufio.NewWriter(w), tool: tool}
}

// writeAll renders a whole input through a stream.
func writeAll(s Stream, in *Input) error {
	for _, a := range in.Audits {
		if err := s.Add(a); err != nil {
			return err
		}
	}
	return s.Close(in.Gate, in.Rules)
}

// collected keeps the audits for a format that renders them all at once.
type collected struct {
	w     io.Writer
	write Writer
	in    Input
	opts  Options
}

func (c *collected) Add(a *audit.Audit) error {
	c.in.Audits = append(c.in.Audits, a)
	return nil
}

func (c *collected) Close(gate string, rules []finding.Rule) error {
	c.in.Gate, c.in.Rules = gate, rules
	return c.write(c.w, &c.in, c.opts)
}

// textStream is the text format: a block per run, then the sources the
// configuration and policies were read from, and the overall line.
type textStream struct {
	bw      *bufio.Writer
	paint   func(code, s string) string
	runs    int
	shown   int // runs printed: all of them unless quiet
	total   finding.Counts
	sources []audit.Source
	// history is the first run's BaseFrom: one revision serves every run
	// of a repository.
	history string
	// token, when set, closes the stop-commands region the report is
	// written in (stdout under GitHub Actions).
	token string
	quiet bool
	// common counts the findings said once for the report rather than
	// once per run (sameForEveryRun), in the order first met.
	common      map[finding.Finding]int
	commonOrder []finding.Finding
}

// sameForEveryRun are the run-level notes a check makes in the same words
// for every run it compares with one base: the text format says each once,
// with the number of runs, instead of once per run.
var sameForEveryRun = map[string]bool{
	finding.HistoryNotCompared.ID: true,
	finding.NewRun.ID:             true,
}

func isCommon(f finding.Finding) bool {
	return sameForEveryRun[f.Rule] && f.File == "" && !f.IsWaived() && f.Severity == finding.Info
}

func newTextStream(w io.Writer, opts Options) *textStream {
	s := &textStream{bw: bufio.NewWriter(w), paint: painter(opts.Color), quiet: opts.Quiet, common: map[finding.Finding]int{}}
	if opts.StopCommands {
		s.token = opts.StopToken
		if s.token == "" {
			s.token = NewStopToken()
		}
		fmt.Fprintf(s.bw, "::stop-commands::%s\n", s.token)
	}
	return s
}

func (s *textStream) Add(a *audit.Audit) error {
	if s.runs == 0 {
		s.sources = a.Sources
	}
	s.runs++
	if s.history == "" {
		s.history = a.BaseFrom
	}
	for _, f := range a.Findings {
		if isCommon(f) {
			key := finding.Finding{Rule: f.Rule, Category: f.Category, Severity: f.Severity, Details: f.Details}
			if s.common[key] == 0 {
				s.commonOrder = append(s.commonOrder, key)
			}
			s.common[key]++
		}
	}
	s.total = addCounts(s.total, a.Counts)
	if s.quiet && a.Gate == audit.Pass {
		return nil
	}
	if s.shown > 0 {
		fmt.Fprintln(s.bw)
	}
	s.shown++
	textRun(s.bw, a, s.paint, isCommon)
	// A write error shows at the next flush; bufio keeps it.
	return nil
}

func (s *textStream) Close(gate string, _ []finding.Rule) error {
	if len(s.commonOrder) > 0 {
		if s.shown > 0 {
			fmt.Fprintln(s.bw)
		}
		for _, f := range s.commonOrder {
			n := s.common[f]
			fmt.Fprintf(s.bw, "%s %s %s (%d of %d run%s)\n", s.paint(severityColour(f.Severity), f.Severity.String()+":"), Escape(f.Details),
				s.paint(ansiDim, "["+Escape(f.Rule)+"]"), n, s.runs, plural(s.runs))
		}
	}
	if s.quiet && s.shown < s.runs {
		fmt.Fprintf(s.bw, "%s %d passing run%s not listed (--quiet)\n", s.paint(ansiDim, "quiet:"), s.runs-s.shown, plural(s.runs-s.shown))
	}
	if len(s.sources) > 0 {
		fmt.Fprintln(s.bw)
		for _, src := range s.sources {
			fmt.Fprintf(s.bw, "%s %s\n", s.paint(ansiDim, "read:"), Escape(sourceText(src)))
		}
	}
	if s.history != "" {
		if len(s.sources) == 0 {
			fmt.Fprintln(s.bw)
		}
		fmt.Fprintf(s.bw, "%s compared with %s\n", s.paint(ansiDim, "history:"), Escape(s.history))
	}
	fmt.Fprintf(s.bw, "\n%s %s — %d run%s checked; %s\n", s.paint(ansiBold, "overall:"), s.paint(gateColour(gate), gate),
		s.runs, plural(s.runs), countsText(s.total))
	if s.token != "" {
		fmt.Fprintf(s.bw, "::%s::\n", s.token)
	}
	return s.bw.Flush()
}

// jsonStream is the json format, {"audits": [...], "gate": ..., "tool":
// ...}: "audits" sorts first, so each audit is encoded when it comes and
// the bytes are those of encoding the whole document at once.
type jsonStream struct {
	bw   *bufio.Writer
	tool audit.Tool
	runs int
	err  error
	buf  []byte // one audit's bytes, reused
}

func (s *jsonStream) Add(a *audit.Audit) error {
	if s.err != nil {
		return s.err
	}
	if s.buf, s.err = appendMarshalSorted(s.buf[:0], a, "    "); s.err != nil {
		return s.err
	}
	if s.runs == 0 {
		s.bw.WriteString("{\n  \"audits\": [")
	} else {
		s.bw.WriteString(",")
	}
	s.runs++
	s.bw.WriteString("\n    ")
	_, s.err = s.bw.Write(SafeJSON(s.buf))
	return s.err
}

func (s *jsonStream) Close(gate string, _ []finding.Rule) error {
	if s.err != nil {
		return s.err
	}
	if s.runs == 0 {
		s.bw.WriteString("{\n  \"audits\": [")
	} else {
		s.bw.WriteString("\n  ")
	}
	s.bw.WriteString("],\n")
	// The rest of the document, with its opening brace dropped.
	rest, err := MarshalSorted(map[string]any{"gate": gate, "tool": s.tool})
	if err != nil {
		return err
	}
	s.bw.Write(bytes.TrimPrefix(rest, []byte("{\n")))
	return s.bw.Flush()
}
