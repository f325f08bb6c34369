package report

import (
	"bufio"
	"bytes"
	"encoding/json"
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
	switch format {
	case "text":
		return newTextStream(w, opts), nil
	case "json":
		return &jsonStream{bw: bufio.NewWriter(w), tool: tool}, nil
	}
	f, err := Lookup(format)
	if err != nil {
		return nil, err
	}
	return &collected{w: w, write: f.Write, in: Input{Tool: tool}, opts: opts}, nil
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
	total   finding.Counts
	sources []audit.Source
	// history is the first run's BaseFrom: one revision serves every run
	// of a repository.
	history string
	// token, when set, closes the stop-commands region the report is
	// written in (stdout under GitHub Actions).
	token string
}

func newTextStream(w io.Writer, opts Options) *textStream {
	s := &textStream{bw: bufio.NewWriter(w), paint: painter(opts.Color)}
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
	if s.runs > 0 {
		fmt.Fprintln(s.bw)
	} else {
		s.sources = a.Sources
	}
	s.runs++
	if s.history == "" {
		s.history = a.BaseFrom
	}
	textRun(s.bw, a, s.paint)
	s.total = addCounts(s.total, a.Counts)
	// A write error shows at the next flush; bufio keeps it.
	return nil
}

func (s *textStream) Close(gate string, _ []finding.Rule) error {
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
}

func (s *jsonStream) Add(a *audit.Audit) error {
	if s.err != nil {
		return s.err
	}
	b, err := MarshalSorted(a)
	if err != nil {
		s.err = err
		return err
	}
	if s.runs == 0 {
		s.bw.WriteString("{\n  \"audits\": [")
	} else {
		s.bw.WriteString(",")
	}
	s.runs++
	s.bw.WriteString("\n    ")
	var ind bytes.Buffer
	if err := json.Indent(&ind, bytes.TrimSpace(b), "    ", "  "); err != nil {
		s.err = err
		return err
	}
	_, s.err = s.bw.Write(ind.Bytes())
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
