// The load stage: every file the layout names is read inside the run and
// parsed once, with positions, within the run's memory budget (needs.go
// reads what the layout's checks need besides, within what is left of it).
// No later stage reads a file of the run.

package runner

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"os"
	"path"
	"slices"
	"strings"

	"github.com/h3a-check/h3a-check/internal/atomicfile"
	"github.com/h3a-check/h3a-check/internal/finding"
	"github.com/h3a-check/h3a-check/internal/jsonpos"
	"github.com/h3a-check/h3a-check/internal/layout"
	"github.com/h3a-check/h3a-check/internal/rundir"
	"github.com/h3a-check/h3a-check/internal/yamlpos"
)

// A parsed document costs memory several times over: its value, the
// positions of its values, the policy input and the policies' own form of
// it. valueCost is about what one JSON or YAML value costs in all, and
// recordCost what one line of a Markdown ledger may (a record becomes an
// object of its fields in the policy input, and an evidence entry is
// checked on disk too); see BENCHMARKS.md. A run's documents may expand to
// budgetPerByte times their size plus budgetFloor, so that checking a run
// takes memory in proportion to its documents, not to what they expand to:
// past the budget a document is a TooLarge finding, and is not parsed.
const (
	valueCost     = 400
	recordCost    = 4 << 10
	budgetPerByte = 3
	budgetFloor   = 32 << 20
)

// budgetRule says the budget in findings.
var budgetRule = fmt.Sprintf("and a run's documents may take %d times their size plus %d MiB", budgetPerByte, budgetFloor>>20)

// load reads every file of the layout, then parses each within what is
// left of the run's memory budget, then reads what the layout's checks
// need besides (loadNeeds) within what is left of it: no stage after
// this one reads a file of the run.
func (c *checker) load(s *runState) {
	for _, pattern := range s.lay.Files() {
		if pattern.IsPattern() && pattern.Required && !slices.ContainsFunc(s.run.Files, func(m layout.Match) bool { return m.Spec.Path == pattern.Path }) {
			s.add(finding.MissingFile.New("", "no file matches %q", pattern.Path))
		}
	}
	total := 0
	for _, m := range s.run.Files {
		f, path := m.Spec, m.Path
		doc := &rundir.Document{Path: path}
		s.run.Docs[path] = doc
		data, p := s.root.ReadFile(path, c.maxJSONSize)
		if p != nil {
			if p.Kind == rundir.Missing && !f.Required {
				continue
			}
			s.add(problemFinding(p, path, finding.MissingFile))
			continue
		}
		doc.Present, doc.Data = true, data
		sum := sha256.Sum256(data)
		doc.SHA256 = hex.EncodeToString(sum[:])
		s.inputs[path] = doc.SHA256
		total += len(data)
	}
	budget := budgetPerByte*total + budgetFloor
	for _, m := range s.run.Files {
		if doc := s.run.Docs[m.Path]; doc != nil && doc.Present {
			budget -= c.parse(s, m.Spec, doc, budget)
		}
	}
	c.loadNeeds(s, budget)
}

// parse parses one document within budget bytes of memory and returns
// what it took of them.
func (c *checker) parse(s *runState, f layout.File, doc *rundir.Document, budget int) int {
	path, data := doc.Path, doc.Data
	var problems []jsonpos.Problem
	values := 0
	syntax := finding.JSONSyntax
	switch f.Kind {
	case layout.JSON:
		jd, ps := jsonpos.ParseLimit(data, budget/valueCost)
		doc.JSON, doc.Parsed, problems = jd, jd != nil, ps
		if jd != nil {
			values = jd.Values
		}
	case layout.JSONLines:
		// One bad record does not make the rest unusable: the document
		// counts as parsed and the bad line is reported.
		lines, ps := jsonpos.ParseLinesLimit(data, budget/valueCost)
		doc.Lines, doc.Parsed, problems = lines, lines != nil, ps
		if lines != nil {
			values = lines.Values
		}
	case layout.YAML:
		yd, ps := yamlpos.ParseLimit(data, budget/valueCost)
		doc.YAML, doc.Parsed, problems, syntax = yd, yd != nil, ps, finding.YAMLSyntax
		if yd != nil {
			values = yd.Values
		}
	case layout.Markdown:
		return c.parseLedger(s, f, doc, budget)
	}
	for _, pr := range problems {
		s.add(parseFinding(path, pr, syntax))
	}
	return values * valueCost
}

// parseLedger parses a Markdown ledger. Every line may be a record: a
// ledger is parsed only if all of them could be, so that parsing it stays
// within the budget too.
func (c *checker) parseLedger(s *runState, f layout.File, doc *rundir.Document, budget int) int {
	path := doc.Path
	lines := bytes.Count(doc.Data, []byte("\n")) + 1
	if lines > budget/recordCost {
		s.add(finding.TooLarge.New(path, "%s has %d lines, more than the %d the checker reads in this run's ledgers (each line may be a record, about %d KiB in memory once checked, %s): it is not parsed",
			path, lines, max(budget/recordCost, 0), recordCost>>10, budgetRule))
		return 0
	}
	v, problems := f.ParseLedger(doc.Data)
	for _, pr := range problems {
		fd := finding.MalformedRecord.New(path, "%s", pr.Message)
		fd.Line, fd.Column = pr.Line, pr.Column
		s.add(fd)
	}
	doc.Ledger, doc.Parsed = v, v != nil
	return lines * recordCost
}

// problemFinding turns a refused path into a finding about file; missing
// names the rule for "does not exist", which depends on what was expected there.
func problemFinding(p *rundir.Problem, file string, missing finding.Rule) finding.Finding {
	rule := finding.Unreadable
	switch p.Kind {
	case rundir.Absolute:
		rule = finding.AbsolutePath
	case rundir.DotDot, rundir.Escape:
		rule = finding.PathEscape
	case rundir.Loop:
		rule = finding.SymlinkLoop
	case rundir.Missing:
		rule = missing
	case rundir.NotRegular:
		rule = finding.NotRegular
	case rundir.TooLarge:
		rule = finding.TooLarge
	}
	return rule.New(file, "%s", p.Detail)
}

// parseFinding is the finding of one parse problem. syntax is the rule
// of a document the problem leaves unreadable (JSON or YAML syntax); a
// duplicate key is the same fault in both, and a byte-order mark or bytes
// that are not UTF-8 (which only the JSON parser reports) have rules of
// their own.
func parseFinding(file string, p jsonpos.Problem, syntax finding.Rule) finding.Finding {
	rule := syntax
	switch p.Kind {
	case jsonpos.DuplicateKey:
		rule = finding.DuplicateKey
	case jsonpos.BOM:
		rule = finding.BOM
	case jsonpos.InvalidUTF8:
		rule = finding.InvalidUTF8
	case jsonpos.NumberRange:
		rule = finding.NumberRange
	case jsonpos.TooManyValues:
		return tooManyValues(file, p)
	}
	f := rule.New(file, "%s", p.Message)
	f.Line, f.Column, f.Pointer = p.Line, p.Column, p.Pointer
	return f
}

// tooManyValues: a document past the run's memory budget is not parsed.
func tooManyValues(file string, p jsonpos.Problem) finding.Finding {
	f := finding.TooLarge.New(file, "%s (each takes about %d bytes in memory once checked, %s): it is not parsed", p.Message, valueCost, budgetRule)
	f.Line, f.Column, f.Pointer = p.Line, p.Column, p.Pointer
	return f
}

// listRun walks the run once: it returns every entry that is not a
// directory, for the layout's file patterns, and flags *.tmp files, the
// trace of an interrupted atomic write: an agent's, or the checker's own
// (--write-audit), which only asks to be deleted.
func (c *checker) listRun(s *runState) []string {
	var present []string
	variants := layout.CaseIndexOf(s.lay)
	_ = s.root.Walk(func(rel string, d os.DirEntry) error {
		if d.IsDir() {
			return nil
		}
		present = append(present, rel)
		if spec, ok := variants.Variant(rel); ok {
			how := "written in another case"
			if !rundir.PlainPath(rel) {
				how = "under a name that shows as its own (white space or a dot at an end, a character drawn as nothing or like another)"
			}
			s.add(finding.NameCase.New(rel, "%q is the %s layout's %s %s; the check reads the layout's names only, so what it holds is not checked: rename it",
				rel, s.lay.ID(), spec, how))
		}
		if d.Type()&fs.ModeSymlink != 0 && layout.Stands(s.lay.Files(), rel) {
			s.add(finding.Symlink.New(rel, "%q is a symbolic link where the run's %s layout keeps its own files; what it leads to is not checked as part of the run: replace the link with the real content",
				rel, s.lay.ID()))
		}
		if target, ok := atomicfile.IsTemp(d.Name()); ok {
			s.add(finding.CheckerTmpLeftover.New(rel, "leftover temporary file %q of an interrupted h3a-check write of %q: delete it",
				rel, path.Join(path.Dir(rel), target)))
		} else if strings.HasSuffix(d.Name(), ".tmp") {
			s.add(finding.TmpLeftover.New(rel, "leftover temporary file %q: an atomic write (write %s, then rename) was interrupted",
				rel, strings.TrimSuffix(rel, ".tmp")))
		}
		return nil
	})
	return present
}
