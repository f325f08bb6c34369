// Package runner is the checking pipeline. For every run it performs, in
// order:
//
//  1. discover – map each PATH to runs (rundir.Discover) and detect layouts;
//  2. load     – read every file the layout names, confined to the run;
//     parse JSON once with positions and Markdown ledgers with line numbers;
//  3. schema   – validate each JSON document against its embedded schema;
//  4. integrity – re-hash every logged artifact on the shared hashing pool
//     (started right after loading so hashing overlaps the other stages),
//     and flag leftover *.tmp files;
//  5. history  – compare append-only files with the base revision;
//  6. policy   – evaluate the Rego policies over the run's input document;
//  7. verdict  – decide the gate and fill the audit.
//
// No stage aborts the run: each one reports findings, and a stage that lacks
// a document it needs says "not evaluated" instead of guessing.
package runner

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/h3a-check/h3a-check/internal/audit"
	"github.com/h3a-check/h3a-check/internal/evidence"
	"github.com/h3a-check/h3a-check/internal/finding"
	"github.com/h3a-check/h3a-check/internal/jsonpos"
	"github.com/h3a-check/h3a-check/internal/layout"
	"github.com/h3a-check/h3a-check/internal/rundir"
	"github.com/h3a-check/h3a-check/internal/schema"
)

// DefaultMaxJSONSize bounds every parsed document (JSON and Markdown).
const DefaultMaxJSONSize = 64 << 20

// Options configure one check.
type Options struct {
	Paths       []string
	Layout      string // force a layout ("" = detect)
	MaxJSONSize int64  // 0 = DefaultMaxJSONSize
	Workers     int    // 0 = GOMAXPROCS
	ToolName    string
	ToolVersion string
	Timestamp   string // recorded in every audit when not empty
	// FailLevel is the lowest severity that fails a gate (Error by default).
	FailLevel finding.Severity
	// KeepInputs keeps each run's policy input document in the result.
	KeepInputs bool
	// Shard keeps only the runs of one part of the discovered runs (the
	// zero Shard keeps all). A shard holding none of them is no error.
	Shard Shard
	// Discovered, when set, is told how many runs will be checked, before
	// the first one is (the CLI sizes the garbage collector by it).
	Discovered func(runs int)
}

// ErrNoRuns means the paths named no run: the check did not happen.
var ErrNoRuns = errors.New("no run found")

// Result is the outcome of one check. Audits may share parts (equal Policy
// maps are one map): treat them as read-only.
type Result struct {
	Audits []*audit.Audit
	Inputs []map[string]any // per audit, when Options.KeepInputs
}

// Gate is the overall gate of all runs.
func (r *Result) Gate() string { return audit.Overall(r.Audits) }

// Check runs the whole pipeline over opts.Paths. An error means the tool
// could not check (unreadable path, no run, broken embedded schema).
func Check(ctx context.Context, opts Options) (*Result, error) {
	if opts.MaxJSONSize <= 0 {
		opts.MaxJSONSize = DefaultMaxJSONSize
	}
	if opts.Workers <= 0 {
		opts.Workers = runtime.GOMAXPROCS(0)
	}
	paths := opts.Paths
	if len(paths) == 0 {
		paths = []string{"."}
	}
	// Compiling the embedded schemas takes about as long as checking a
	// typical run; it proceeds on another core while the first runs are
	// found, read and hashed, and validation waits for it.
	go schema.Default()
	runs, err := rundir.Discover(paths, layout.Detectors(), opts.Layout)
	if err != nil {
		return nil, err
	}
	if len(runs) == 0 {
		return nil, fmt.Errorf("%w in %s: a run directory holds state.json and a state/ folder (ROADMAP.md, CURRENT_TASK.json, GATES_LEDGER.md, EVIDENCE_LOG.md, SESSION_HANDOFF.json)", ErrNoRuns, strings.Join(paths, ", "))
	}
	runs = opts.Shard.Select(runs)
	if opts.Discovered != nil {
		opts.Discovered(len(runs))
	}
	c := &checker{opts: opts, hasher: evidence.NewHasher(opts.Workers)}
	defer c.hasher.Close()

	audits := make([]*audit.Audit, len(runs))
	// A run's documents die with its check: only its audit is kept, and
	// its input document only when the caller asked for it.
	var inputs []map[string]any
	if opts.KeepInputs {
		inputs = make([]map[string]any, len(runs))
	}
	sem := make(chan struct{}, opts.Workers)
	var wg sync.WaitGroup
	for i, run := range runs {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			a, input := c.checkRun(ctx, run)
			audits[i] = a
			if inputs != nil {
				inputs[i] = input
			}
		}()
	}
	wg.Wait()
	if _, err := schema.Default(); err != nil {
		return nil, fmt.Errorf("embedded schemas: %w", err)
	}
	return &Result{Audits: audits, Inputs: inputs}, nil
}

type checker struct {
	opts     Options
	hasher   *evidence.Hasher
	policies policyMaps
}

// policyMaps shares one Policy map among the audits whose area results are
// equal, which is most of them: the audits are kept for the report, and a
// map of ten areas is a quarter of what a clean run's audit holds (about
// 850 of 3,500 bytes). Audits are read-only once checked.
type policyMaps struct {
	mu   sync.Mutex
	seen map[string]map[string]string
}

func (p *policyMaps) intern(m map[string]string) map[string]string {
	// The key lists every entry, each string preceded by its length, so
	// that no two different maps can spell the same key.
	var id []byte
	for _, k := range slices.Sorted(maps.Keys(m)) {
		for _, s := range []string{k, m[k]} {
			id = strconv.AppendInt(id, int64(len(s)), 10)
			id = append(id, ':')
			id = append(id, s...)
		}
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if shared, ok := p.seen[string(id)]; ok {
		return shared
	}
	if p.seen == nil {
		p.seen = map[string]map[string]string{}
	}
	p.seen[string(id)] = m
	return m
}

// runState is everything known about one run while it is checked.
type runState struct {
	lay      layout.Layout
	root     *rundir.Root
	run      *layout.Run
	findings []finding.Finding
	inputs   map[string]string
}

func (s *runState) add(fs ...finding.Finding) { s.findings = append(s.findings, fs...) }

func (c *checker) checkRun(ctx context.Context, run rundir.Run) (*audit.Audit, map[string]any) {
	a := &audit.Audit{
		Run:    run.Display,
		Layout: run.Layout,
		Tool:   audit.Tool{Name: c.opts.ToolName, Version: c.opts.ToolVersion},
		Notes:  "",
	}
	if c.opts.Timestamp != "" {
		a.Timestamp = c.opts.Timestamp
	}
	lay := layout.ByID(run.Layout)
	s := &runState{lay: lay, run: &layout.Run{Dir: run.Dir, Docs: map[string]*rundir.Document{}}, inputs: map[string]string{}}
	root, err := rundir.OpenRoot(run.Dir)
	if err != nil {
		a.RunID = filepath.Base(run.Dir)
		a.Findings = []finding.Finding{finding.Unreadable.New("", "cannot open the run directory: %v", err)}
		a.Inputs = s.inputs
		a.Finish(c.failLevel(), nil)
		return a, nil
	}
	defer root.Close()
	s.root = root

	c.load(s)
	pending := c.startEvidence(s)
	c.validateSchemas(s)
	c.findLeftovers(s)
	s.add(lay.Check(s.run)...)
	verified := c.finishEvidence(s, pending)
	input := c.buildInput(s, pending)

	c.resolvePositions(s)
	// Copies, so the audit, which outlives the run's documents, does not
	// hold them through a substring.
	a.RunID = strings.Clone(lay.RunID(s.run))
	if id := strings.Clone(lay.TaskID(s.run)); id != "" {
		a.TaskID = &id
	}
	a.Findings = s.findings
	a.Inputs = s.inputs
	a.Notes = fmt.Sprintf("%d of %d logged artifacts verified", verified.ok, verified.total)
	a.Finish(c.failLevel(), map[string]string{
		string(finding.CategoryAppendOnly): "no base revision compared",
	})
	a.Policy = c.policies.intern(a.Policy)
	return a, input
}

func (c *checker) failLevel() finding.Severity {
	if c.opts.FailLevel == finding.Warning {
		return finding.Warning
	}
	return finding.Error
}

// load reads and parses every file of the layout.
func (c *checker) load(s *runState) {
	for _, f := range s.lay.Files() {
		doc := &rundir.Document{Path: f.Path}
		s.run.Docs[f.Path] = doc
		data, p := s.root.ReadFile(f.Path, c.opts.MaxJSONSize)
		if p != nil {
			if p.Kind == rundir.Missing && !f.Required {
				continue
			}
			s.add(problemFinding(p, f.Path, finding.MissingFile))
			continue
		}
		doc.Present, doc.Data = true, data
		sum := sha256.Sum256(data)
		doc.SHA256 = hex.EncodeToString(sum[:])
		s.inputs[f.Path] = doc.SHA256
		switch f.Kind {
		case layout.JSON:
			jd, problems := jsonpos.Parse(data)
			for _, pr := range problems {
				s.add(jsonProblemFinding(f.Path, pr))
			}
			doc.JSON, doc.Parsed = jd, jd != nil
		case layout.Markdown:
			v, problems := f.ParseLedger(data)
			for _, pr := range problems {
				fd := finding.MalformedRecord.New(f.Path, "%s", pr.Message)
				fd.Line, fd.Column = pr.Line, pr.Column
				s.add(fd)
			}
			doc.Ledger, doc.Parsed = v, v != nil
		}
	}
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

func jsonProblemFinding(file string, p jsonpos.Problem) finding.Finding {
	rule := finding.JSONSyntax
	switch p.Kind {
	case jsonpos.DuplicateKey:
		rule = finding.DuplicateKey
	case jsonpos.BOM:
		rule = finding.BOM
	case jsonpos.InvalidUTF8:
		rule = finding.InvalidUTF8
	}
	f := rule.New(file, "%s", p.Message)
	f.Line, f.Column, f.Pointer = p.Line, p.Column, p.Pointer
	return f
}

func (c *checker) validateSchemas(s *runState) {
	schemas, err := schema.Default()
	if err != nil {
		return // Check reports it as the tool's failure
	}
	for _, f := range s.lay.Files() {
		doc := s.run.Docs[f.Path]
		if f.Schema == "" || doc == nil || !doc.Present {
			continue
		}
		if !doc.Parsed {
			s.add(finding.NotEvaluated.New(f.Path, "schema check not evaluated: %s is not valid JSON", f.Path))
			continue
		}
		vs := schemas.Validate(f.Schema, doc.JSON.Value)
		doc.SchemaValid = len(vs) == 0
		for _, v := range vs {
			fd := finding.SchemaViolation.New(f.Path, "%s", v.Message)
			fd.Pointer = v.Pointer
			if v.Missing {
				// Point at the object that lacks the member.
				fd.Line, fd.Column, _ = doc.JSON.Position(v.Pointer)
			}
			s.add(fd)
		}
	}
}

// findLeftovers flags *.tmp files: an interrupted atomic write.
func (c *checker) findLeftovers(s *runState) {
	_ = s.root.Walk(func(rel string, d os.DirEntry) error {
		if !d.IsDir() && strings.HasSuffix(d.Name(), ".tmp") {
			s.add(finding.TmpLeftover.New(rel, "leftover temporary file %q: an atomic write (write %s, then rename) was interrupted",
				rel, strings.TrimSuffix(rel, ".tmp")))
		}
		return nil
	})
}

// resolvePositions gives a line and column to every finding that names a
// JSON pointer in a parsed document but has no position yet.
func (c *checker) resolvePositions(s *runState) {
	for i := range s.findings {
		f := &s.findings[i]
		if f.Line != 0 || f.File == "" || f.Pointer == "" {
			continue
		}
		doc := s.run.Docs[f.File]
		if doc == nil || doc.JSON == nil {
			continue
		}
		f.Line, f.Column, _ = doc.JSON.Position(f.Pointer)
	}
}
