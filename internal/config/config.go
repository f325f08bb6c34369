// Package config reads the .h3a-check.yaml configuration file strictly:
// an unknown key, a duplicate key, a value of the wrong type or a bad value
// is an error that names the file and line, never a silent default.
//
// Flags override the file; the file overrides built-in defaults. Paths in
// the file (paths, policies, waiver paths) are relative to the directory
// that holds it.
package config

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/h3a-check/h3a-check/internal/finding"
	"github.com/h3a-check/h3a-check/internal/waiver"
)

// DefaultFile is read from the working directory when --config is not given.
const DefaultFile = ".h3a-check.yaml"

// MaxSize bounds the configuration file; a larger one is refused unread.
const MaxSize = 1 << 20

// Keys lists the top-level keys, in documentation order.
var Keys = []string{"paths", "layout", "base", "policies", "params", "severity", "fail-level", "waivers", "max-waiver-days", "evidence", "humans"}

// EvidenceKeys lists the keys of evidence.
var EvidenceKeys = []string{"min-hash-digits"}

// Evidence is the evidence key: what a logged hash must be.
type Evidence struct {
	// MinHashDigits is the fewest hex digits a logged hash may have; 0
	// when not set (the spec's 16 apply).
	MinHashDigits int
	Line, Column  int // of the value
}

// HumanKeys lists the keys of humans.
var HumanKeys = []string{"allowed-signers", "gpg-fingerprints"}

// WaiverKeys lists the keys of one waiver.
var WaiverKeys = []string{"rule", "path", "task", "reason", "expires"}

// Str is a string value with the place it was written (1-based; 0 when
// the key is absent).
type Str struct {
	Value        string
	Line, Column int
}

// Set reports whether the key was present.
func (s Str) Set() bool { return s.Line > 0 }

// SeverityOverride replaces the severity of every finding of one rule.
type SeverityOverride struct {
	Rule     Str
	Severity finding.Severity
}

// Waiver is one entry of `waivers`, with the place of each value.
type Waiver struct {
	Rule, Path, Task, Reason, Expires Str
	Line, Column                      int
}

// Config is a parsed configuration file.
type Config struct {
	File      string // the path it was read from
	Paths     []Str
	Layout    Str
	Base      Str
	Policies  []Str
	Params    map[string]any // JSON-compatible values
	Severity  []SeverityOverride
	FailLevel Str // "error" or "warning" when set
	Waivers   []Waiver
	// MaxWaiverDays caps how far ahead a waiver may expire, in days from
	// today; unset, there is no cap.
	MaxWaiverDays Str
	Evidence      Evidence
	Humans        Humans
	// ParamNames are the names params sets, where each is written: a
	// name no rule reads is refused once the policies are loaded.
	ParamNames []Str
	// KeyLines is the line of each top-level key written, for
	// "h3a-check config".
	KeyLines map[string]int
}

// Humans names the keys whose signature on a commit makes a human decision
// in it a person's: an allowed_signers file of git (SSH keys), read where
// the configuration is read from, and GPG key fingerprints.
type Humans struct {
	AllowedSigners  Str   // a path relative to the file's directory
	GPGFingerprints []Str // upper-case hex, spaces removed
}

// Dir is the directory relative paths in the file are resolved against.
func (c *Config) Dir() string { return filepath.Dir(c.File) }

// Resolve makes a path from the file relative to the working directory.
func (c *Config) Resolve(p string) string {
	if filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(c.Dir(), filepath.FromSlash(p))
}

// Errorf makes an error about the value at s.
func (c *Config) Errorf(s Str, format string, args ...any) *Error {
	return &Error{File: c.File, Line: s.Line, Column: s.Column, Msg: fmt.Sprintf(format, args...)}
}

// WaiverSet gives the waivers with paths relative to the file's directory
// (made absolute) and expiry judged against today (YYYY-MM-DD, UTC).
func (c *Config) WaiverSet(today string) (*waiver.Set, error) {
	base, err := filepath.Abs(c.Dir())
	if err != nil {
		return nil, err
	}
	s := &waiver.Set{Base: base, Today: today}
	for _, w := range c.Waivers {
		s.Waivers = append(s.Waivers, waiver.Waiver{
			Rule: w.Rule.Value, Path: w.Path.Value, Task: w.Task.Value,
			Reason: w.Reason.Value, Expires: w.Expires.Value,
			Source: fmt.Sprintf("%s:%d", filepath.ToSlash(c.File), w.Line),
		})
	}
	return s, nil
}

// CheckWaiverDays refuses a waiver that expires later than
// max-waiver-days after today (YYYY-MM-DD, UTC): a team's cap on how long
// a finding may be accepted. Each is an error at its expires line.
func (c *Config) CheckWaiverDays(today string) error {
	if !c.MaxWaiverDays.Set() {
		return nil
	}
	days, _ := strconv.Atoi(c.MaxWaiverDays.Value)
	t, err := time.Parse(waiver.DateLayout, today)
	if err != nil {
		return err
	}
	last := t.AddDate(0, 0, days).Format(waiver.DateLayout)
	var errs Errors
	for _, w := range c.Waivers {
		if w.Expires.Value > last {
			errs = append(errs, c.Errorf(w.Expires, "waiver expires %s, later than max-waiver-days: %d allows (%s, set at line %d); give it an earlier date, and renew it when it expires if the exception still holds",
				w.Expires.Value, days, last, c.MaxWaiverDays.Line))
		}
	}
	if len(errs) > 0 {
		return errs
	}
	return nil
}

// Error is one problem in the file. Line and Column are 1-based; 0 when unknown.
type Error struct {
	File         string
	Line, Column int
	Msg          string
}

func (e *Error) Error() string {
	switch {
	case e.Line == 0:
		return fmt.Sprintf("%s: %s", e.File, e.Msg)
	case e.Column == 0:
		return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg)
	}
	return fmt.Sprintf("%s:%d:%d: %s", e.File, e.Line, e.Column, e.Msg)
}

// Errors is every problem found in one file, in file order.
type Errors []*Error

func (es Errors) Error() string {
	lines := make([]string, len(es))
	for i, e := range es {
		lines[i] = e.Error()
	}
	return strings.Join(lines, "\n")
}

// Load reads and checks the file at path.
func Load(path string, checks Checks) (*Config, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("cannot read the configuration file: %w", err)
	}
	defer f.Close()
	if info, err := f.Stat(); err == nil && !info.Mode().IsRegular() {
		return nil, &Error{File: path, Msg: "not a regular file"}
	}
	data, err := io.ReadAll(io.LimitReader(f, MaxSize+1))
	if err != nil {
		return nil, fmt.Errorf("cannot read the configuration file: %w", err)
	}
	if len(data) > MaxSize {
		return nil, &Error{File: path, Msg: fmt.Sprintf("larger than %d bytes: expected a small YAML file", MaxSize)}
	}
	return Parse(path, data, checks)
}

// Checks are what only the command knows: which rule ids and layouts
// exist. Each says what is wrong with a value, or ""; a nil check accepts
// every value.
type Checks struct {
	// RuleID judges a rule id of severity: (pattern false) or the rule of
	// a waiver, which may be a pattern such as h3a.integrity.* (true).
	RuleID func(id string, pattern bool) string
	// Layout judges the layout: value.
	Layout func(id string) string
}

// Parse checks data as the configuration file named file. Every problem is
// reported, in file order, as Errors: those of the YAML, of each value, and
// the rule ids and layout that checks refuses, all at once.
func Parse(file string, data []byte, checks Checks) (cfg *Config, err error) {
	cfg = &Config{File: file}
	p := &parser{cfg: cfg, checks: checks}
	defer func() {
		// The YAML library is not trusted to reject every malformed input
		// gracefully; a panic there is this file's problem, not a crash.
		if r := recover(); r != nil {
			cfg, err = nil, Errors{{File: file, Msg: fmt.Sprintf("cannot parse as YAML: %v", r)}}
		}
	}()
	var raw rawConfig
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	switch err := dec.Decode(&raw); {
	case errors.Is(err, io.EOF):
		return cfg, nil // empty, or only comments
	case err != nil:
		var te *yaml.TypeError
		if !errors.As(err, &te) {
			return nil, Errors{syntaxError(file, err)}
		}
		for _, msg := range te.Errors {
			p.errs = append(p.errs, typeError(file, msg))
		}
	}
	var next yaml.Node
	if err := dec.Decode(&next); !errors.Is(err, io.EOF) {
		p.errs = append(p.errs, &Error{File: file, Line: next.Line, Msg: "a second YAML document: expected exactly one"})
	}
	p.check(&raw)
	p.nullValues(data)
	cfg.KeyLines = keyLines(data)
	if len(p.errs) > 0 {
		sortErrors(p.errs)
		return nil, p.errs
	}
	return cfg, nil
}

// keyLines finds the line of each top-level key; the strict decoding
// keeps positions only for values.
func keyLines(data []byte) map[string]int {
	var doc yaml.Node
	if yaml.Unmarshal(data, &doc) != nil || len(doc.Content) == 0 || doc.Content[0].Kind != yaml.MappingNode {
		return nil
	}
	lines := map[string]int{}
	m := doc.Content[0]
	for i := 0; i+1 < len(m.Content); i += 2 {
		lines[m.Content[i].Value] = m.Content[i].Line
	}
	return lines
}
