package cli

import (
	"bytes"
	"io"
	"strings"
	"sync"

	"github.com/h3a-check/h3a-check/internal/report"
)

// stderrWriter is the one way to stderr: the checker's messages quote file
// names, paths, configuration values and what policies print, so every
// line is escaped as a report line is (report.EscapeLine: control and
// bidirectional characters shown as escapes, no line that a GitHub Actions
// runner would read as a workflow command), tabs are expanded, and under
// GitHub Actions each message is written inside a stop-commands region of
// its own, in one write. A message is what one Write holds; a line left
// unfinished waits for the rest of it, or for flush.
type stderrWriter struct {
	mu      sync.Mutex
	w       io.Writer
	token   string // stop-commands token under GitHub Actions, else ""
	pending []byte
}

// maxPending bounds a line that never ends: past it, what came so far is
// written as a line of its own.
const maxPending = 64 << 10

func newStderrWriter(w io.Writer, getenv func(string) string) *stderrWriter {
	s := &stderrWriter{w: w}
	if getenv("GITHUB_ACTIONS") == "true" {
		s.token = report.NewStopToken()
	}
	return s
}

func (s *stderrWriter) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.pending = append(s.pending, p...)
	end := bytes.LastIndexByte(s.pending, '\n')
	if end < 0 && len(s.pending) < maxPending {
		return len(p), nil
	}
	if end < 0 {
		end = len(s.pending)
	}
	err := s.emit(s.pending[:end])
	s.pending = append(s.pending[:0], s.pending[min(end+1, len(s.pending)):]...)
	if err != nil {
		return 0, err
	}
	return len(p), nil
}

// flush writes a last line that did not end.
func (s *stderrWriter) flush() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.pending) == 0 {
		return nil
	}
	err := s.emit(s.pending)
	s.pending = s.pending[:0]
	return err
}

func (s *stderrWriter) emit(msg []byte) error {
	var b strings.Builder
	if s.token != "" {
		b.WriteString("::stop-commands::" + s.token + "\n")
	}
	for line := range strings.SplitSeq(string(msg), "\n") {
		b.WriteString(report.EscapeLine(strings.ReplaceAll(line, "\t", "    ")))
		b.WriteByte('\n')
	}
	if s.token != "" {
		b.WriteString("::" + s.token + "::\n")
	}
	_, err := io.WriteString(s.w, b.String())
	return err
}

// printWriter takes the output of the policies' print() calls, one call
// per Write: the line breaks inside a call's text are what the policy
// printed, from the run's documents, so they are escaped like the rest of
// it; only the last one ends the message.
type printWriter struct{ w io.Writer }

func (p printWriter) Write(b []byte) (int, error) {
	msg, _ := strings.CutSuffix(string(b), "\n")
	if _, err := io.WriteString(p.w, report.Escape(msg)+"\n"); err != nil {
		return 0, err
	}
	return len(b), nil
}
