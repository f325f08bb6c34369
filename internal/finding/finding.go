// Package finding defines the one result type every stage of the checker
// produces, and the catalogue of rules implemented in Go.
package finding

import (
	"cmp"
	"fmt"
	"path"
	"slices"
	"strconv"
	"strings"
)

// Severity orders findings; a higher value is worse.
type Severity int

const (
	Info Severity = iota
	Warning
	Error
)

var severityNames = [...]string{Info: "info", Warning: "warning", Error: "error"}

func (s Severity) String() string {
	if s < Info || s > Error {
		return fmt.Sprintf("severity(%d)", int(s))
	}
	return severityNames[s]
}

// ParseSeverity accepts the lower-case names used in output, config and policy metadata.
func ParseSeverity(s string) (Severity, error) {
	for i, n := range severityNames {
		if n == s {
			return Severity(i), nil
		}
	}
	return 0, fmt.Errorf("unknown severity %q: expected one of \"error\", \"warning\", \"info\"", s)
}

func (s Severity) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

func (s *Severity) UnmarshalText(b []byte) error {
	v, err := ParseSeverity(string(b))
	if err != nil {
		return err
	}
	*s = v
	return nil
}

// Category is one of a closed list; user policies report under CategoryPolicy
// unless they name one of the others.
type Category string

const (
	CategoryStructure    Category = "structure"
	CategorySchema       Category = "schema"
	CategoryIntegrity    Category = "integrity"
	CategoryEvidence     Category = "evidence"
	CategoryGates        Category = "gates"
	CategoryRetries      Category = "retries"
	CategoryTraceability Category = "traceability"
	CategoryAppendOnly   Category = "append_only"
	CategorySecurity     Category = "security"
	CategoryPolicy       Category = "policy"
)

// Categories lists every category in a stable order.
var Categories = []Category{
	CategoryStructure, CategorySchema, CategoryIntegrity, CategoryEvidence, CategoryGates,
	CategoryRetries, CategoryTraceability, CategoryAppendOnly, CategorySecurity, CategoryPolicy,
}

// ValidCategory reports whether c is in the closed list.
func ValidCategory(c Category) bool { return slices.Contains(Categories, c) }

// Finding is one problem (or note) about one run. File is relative to the run
// directory, with forward slashes; Line and Column are 1-based, 0 when unknown.
type Finding struct {
	Rule        string   `json:"rule"`
	Category    Category `json:"category"`
	Severity    Severity `json:"severity"`
	File        string   `json:"file,omitempty"`
	Line        int      `json:"line,omitempty"`
	Column      int      `json:"column,omitempty"`
	Pointer     string   `json:"pointer,omitempty"`
	Details     string   `json:"details"`
	Remediation string   `json:"remediation,omitempty"`
	Gate        string   `json:"gate,omitempty"`
	TaskID      string   `json:"task_id,omitempty"`
	NeedsHuman  bool     `json:"needs_human,omitempty"`
	// Waived is set when a configured waiver accepts the finding for now:
	// it stays in the report but no longer counts toward the gate.
	Waived Waiver `json:"waived,omitzero"`
	// Cause is the index, in the same audit's findings list, of the
	// finding this one follows from (audit.Follows lists when one does);
	// nil when it follows from none. Set by audit.Finish.
	Cause *int `json:"cause,omitempty"`
}

// Waiver says why a finding is accepted and until when. Source is the
// waiver's place in the configuration, as file:line.
type Waiver struct {
	Reason  string `json:"reason"`
	Expires string `json:"expires"` // YYYY-MM-DD, the last day the waiver holds
	Source  string `json:"source"`
}

// IsWaived reports whether a waiver accepts the finding; a waiver always has a reason.
func (f Finding) IsWaived() bool { return f.Waived.Reason != "" }

// Location renders file:line:col, leaving out what is unknown.
func (f Finding) Location() string {
	switch {
	case f.File == "":
		return ""
	case f.Line == 0:
		return f.File
	case f.Column == 0:
		return fmt.Sprintf("%s:%d", f.File, f.Line)
	}
	return fmt.Sprintf("%s:%d:%d", f.File, f.Line, f.Column)
}

// Compare orders findings root causes first (a file that cannot be read or
// parsed, a record that does not parse: what makes other findings
// follow), then by file, position, rule, pointer and details, so output
// is stable whatever order the stages finished in and the cause is read
// before its effects.
func Compare(a, b Finding) int {
	return cmp.Or(
		cmp.Compare(rank(a), rank(b)),
		cmp.Compare(a.File, b.File),
		cmp.Compare(a.Line, b.Line),
		cmp.Compare(a.Column, b.Column),
		cmp.Compare(b.Severity, a.Severity),
		cmp.Compare(a.Rule, b.Rule),
		cmp.Compare(a.Pointer, b.Pointer),
		cmp.Compare(a.Details, b.Details),
		cmp.Compare(a.Gate, b.Gate),
		cmp.Compare(a.TaskID, b.TaskID),
		cmp.Compare(a.Waived.Source, b.Waived.Source),
	)
}

// rank is 0 for a root cause, 1 for anything else.
func rank(f Finding) int {
	if rootCauses[f.Rule] {
		return 0
	}
	return 1
}

// rootCauses are the rules whose finding leaves a document, or a record
// of it, unusable: checks that needed it then report what is missing.
var rootCauses = func() map[string]bool {
	m := map[string]bool{}
	for _, r := range []Rule{MissingFile, NotRegular, SymlinkLoop, TooLarge, Unreadable, MalformedRecord, JSONSyntax, YAMLSyntax, InvalidUTF8} {
		m[r.ID] = true
	}
	return m
}()

// SortDedupe sorts findings and drops exact duplicates (two stages, or two
// references to one file, can report the same fact).
func SortDedupe(fs []Finding) []Finding {
	slices.SortFunc(fs, Compare)
	return slices.CompactFunc(fs, func(a, b Finding) bool { return a == b })
}

// Counts tallies findings per severity. Waived findings are counted apart,
// whatever their severity, because they no longer count toward a gate.
type Counts struct {
	Error   int `json:"error"`
	Warning int `json:"warning"`
	Info    int `json:"info"`
	Waived  int `json:"waived"`
}

func Count(fs []Finding) Counts {
	var c Counts
	for _, f := range fs {
		if f.IsWaived() {
			c.Waived++
			continue
		}
		switch f.Severity {
		case Error:
			c.Error++
		case Warning:
			c.Warning++
		default:
			c.Info++
		}
	}
	return c
}

// InRun reports whether file, a finding's File, names one file inside its
// run: a clean relative path. "." (the run itself), "./x", "x/", "x/.."
// and "../r2/x" would each be cleaned or joined into another place when
// the finding is matched against waivers or shown in reports.
func InRun(file string) bool {
	if file == "" || file == "." || file == ".." || path.IsAbs(file) || path.Clean(file) != file {
		return false
	}
	return !strings.HasPrefix(file, "../")
}

// QuoteList quotes the first few of ss for a message, and says how many
// more there are.
func QuoteList(ss []string) string {
	const show = 5
	q := make([]string, 0, min(len(ss), show+1))
	for i, s := range ss {
		if i == show {
			q = append(q, fmt.Sprintf("and %d more", len(ss)-show))
			break
		}
		q = append(q, strconv.Quote(s))
	}
	return strings.Join(q, ", ")
}
