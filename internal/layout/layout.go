// Package layout describes each run-directory layout the checker understands:
// how a run is recognised, which files it holds, which schema each JSON file
// follows, how Markdown ledgers are parsed, which files only grow and how,
// which files carry evidence, and how the documents map into the policy
// input. Each layout lives in a file of its own; All is the explicit list
// every other list of layouts derives from (detection, --layout, the
// history stage).
package layout

import (
	"maps"
	"path"
	"slices"
	"strings"
	"sync"

	"github.com/h3a-check/h3a-check/internal/finding"
	"github.com/h3a-check/h3a-check/internal/ledger"
	"github.com/h3a-check/h3a-check/internal/rundir"
)

// Kind is how a file is parsed.
type Kind int

const (
	JSON Kind = iota
	Markdown
	JSONLines // one JSON value per line (logs)
	YAML      // read into the JSON data model, positions kept
)

// File is one file of a layout, or a family of files: Path may be a pattern
// in path.Match syntax ("rounds/round-*/verdict.json"; "*" does not cross
// "/"), matched against every file of the run. Required means, for a
// pattern, that at least one file must match.
type File struct {
	Path     string // relative to the run, or a pattern
	Kind     Kind
	Schema   string // schema name for JSON files ("" for none)
	Required bool
	DocKey   string // key under input.docs
	// ParseLedger parses a Markdown file into a ledger value.
	ParseLedger func([]byte) (any, []ledger.Problem)
	// Versioned, for a file whose schema depends on the version it
	// declares, names the schema of each version; the schema stage
	// validates the document against it. Schema is then "".
	Versioned *Versioned
}

// Versioned is a schema chosen by the version a document declares: the
// string in its top-level Member is looked up in Schemas; a document
// declaring no listed version (or none, or not as a string) is held to no
// schema.
type Versioned struct {
	Member  string
	Schemas map[string]string // version -> schema name
}

// SchemaFor names the schema a document of f with the decoded value v is
// held to, "" for none.
func (f File) SchemaFor(v any) string {
	if f.Versioned == nil {
		return f.Schema
	}
	obj, _ := v.(map[string]any)
	version, ok := obj[f.Versioned.Member].(string)
	if !ok {
		return ""
	}
	return f.Versioned.Schemas[version]
}

// SchemaNames lists every schema a document of f may be held to.
func (f File) SchemaNames() []string {
	var names []string
	if f.Schema != "" {
		names = append(names, f.Schema)
	}
	if f.Versioned != nil {
		for _, v := range slices.Sorted(maps.Keys(f.Versioned.Schemas)) {
			names = append(names, f.Versioned.Schemas[v])
		}
	}
	return names
}

// IsPattern reports whether Path names a family of files.
func (f File) IsPattern() bool { return strings.ContainsAny(f.Path, "*?[") }

// Match is one file of a run as the layout names it: the spec it follows
// and its actual path.
type Match struct {
	Spec File
	Path string
}

// Expand lists the files of a run in spec order: each literal file once
// (present or not), each pattern once per matching file, sorted. present
// holds the run's entries (relative, slash-separated). A file that two
// patterns match is listed once, for the first (gate-state's
// .state/*-gate*-output.json and .state/gate*-output.json both match
// gateway-login-gate1-output.json), so it is read and checked once.
func Expand(files []File, present []string) []Match {
	var out []Match
	listed := map[string]bool{}
	for _, f := range files {
		if !f.IsPattern() {
			if !listed[f.Path] {
				listed[f.Path] = true
				out = append(out, Match{Spec: f, Path: f.Path})
			}
			continue
		}
		var paths []string
		for _, p := range present {
			if ok, _ := path.Match(f.Path, p); ok && !listed[p] {
				listed[p] = true
				paths = append(paths, p)
			}
		}
		slices.Sort(paths)
		for _, p := range paths {
			out = append(out, Match{Spec: f, Path: p})
		}
	}
	return out
}

// CaseIndex tells the files of a run that are a layout's files only when
// case is ignored.
type CaseIndex struct {
	files []File
	lower []string // each file's Path, its ASCII letters in lower case
}

// CaseIndexOf is l's CaseIndex, made once for all its runs.
func CaseIndexOf(l Layout) *CaseIndex { return caseIndexes()[l.ID()] }

var caseIndexes = sync.OnceValue(func() map[string]*CaseIndex {
	m := map[string]*CaseIndex{}
	for _, l := range All() {
		files := l.Files()
		x := &CaseIndex{files: files, lower: make([]string, len(files))}
		for i, f := range files {
			x.lower[i] = rundir.FoldName(f.Path)
		}
		m[l.ID()] = x
	}
	return m
})

// Variant reports the layout's path (or pattern) that rel, a file the run
// holds (relative, slash-separated), is written for in another case or in
// characters that show as its own (rundir.FoldName):
// State/GATES_LEDGER.md for state/GATES_LEDGER.md, ROUNDS/ROUND-1/verdict.json
// for rounds/round-*/verdict.json, "state.json " (a space after it) for
// state.json. A run is read by its layout's names, so
// what such a file holds would not be checked. ok is false when rel is a
// layout's file as written, or none at all.
func (x *CaseIndex) Variant(rel string) (spec string, ok bool) {
	lower := rundir.FoldPath(rel)
	for i, f := range x.files {
		if m, _ := path.Match(f.Path, rel); m {
			return "", false
		}
		if spec == "" {
			if m, _ := path.Match(x.lower[i], lower); m {
				spec = f.Path
			}
		}
	}
	return spec, spec != ""
}

// Stands reports whether rel (relative, slash-separated) is where one of
// files would be, or a folder on the way to one: "state" and
// "state/ROADMAP.md" for state/ROADMAP.md, "rounds" and "rounds/round-3"
// for rounds/round-*/verdict.json. A symbolic link there would put a
// run's content somewhere else.
func Stands(files []File, rel string) bool {
	elems := strings.Split(rel, "/")
	for _, f := range files {
		spec := strings.Split(f.Path, "/")
		if len(elems) > len(spec) {
			continue
		}
		match := true
		for i, e := range elems {
			if ok, _ := path.Match(spec[i], e); !ok {
				match = false
				break
			}
		}
		if match {
			return true
		}
	}
	return false
}

// EvidenceRef is one logged artifact: where it is logged and with which hash.
type EvidenceRef struct {
	Path       string // as written in the log
	Hash       string // as written in the log
	Time       string
	LogFile    string // the log file, relative to the run
	Line       int
	PathColumn int
	HashColumn int
}

// Run is what a layout sees of a loaded run.
type Run struct {
	Dir   string  // absolute
	Files []Match // the layout's files as found in this run, in spec order
	Docs  map[string]*rundir.Document
	// found is what the load stage found at the layout's Needs.
	found map[needKey]Found
}

// Layout is one understood run-directory layout.
type Layout interface {
	rundir.Detector
	Files() []File
	// AppendOnly lists the files that only grow, and how each may change
	// since the base revision, in the order they are compared.
	AppendOnly() []AppendOnly
	// Evidence lists every logged artifact, in log order.
	Evidence(r *Run) []EvidenceRef
	// Check runs the layout's own structure and traceability checks that
	// need no policy: run naming, ids that must agree.
	Check(r *Run) []finding.Finding
	// RunID and TaskID name the run and its current task when known.
	RunID(r *Run) string
	TaskID(r *Run) string
	// Docs maps the loaded documents into input.docs of the policy input.
	Docs(r *Run) map[string]any
}

// StatusMeanings is a layout whose documents hold status values that the
// status package maps to a meaning; Meanings gives input.meanings, so rules
// reason over what a status means rather than how it is spelt.
type StatusMeanings interface {
	Meanings(r *Run) map[string]any
}

// RequirementsKnower is implemented by a layout whose runs say which
// requirements they cover in documents other than an H3A roadmap; without
// it, requirements coverage is known when the run has a readable roadmap.
type RequirementsKnower interface {
	RequirementsKnown(r *Run) bool
}

// UniqueIDs is a layout whose spec says a run id is globally unique: no
// two of its runs in one check may share one
// (h3a.traceability.duplicate_run_id).
type UniqueIDs interface {
	// IDFiles are the files RunIDs reads; the check reads them of every
	// run before it checks any, to find the runs that share an id.
	IDFiles() []string
	// RunIDs are the ids r is known by, each once, in the order of the
	// layout's files: none when no id can be read.
	RunIDs(r *Run) []RunIDAt
	// IDKey is what makes the id unique (RunIDAt.Key), for an id read
	// elsewhere, such as a folder's name at the base.
	IDKey(id string) string
}

// RunIDAt is a run id and where it is written: File and Pointer in a
// document of the run, or File "" for the run folder's name. Key is what
// makes it unique, which no two runs may share: the id itself, or a part
// of it (an h3a run id's UUID).
type RunIDAt struct {
	ID, Key, File, Pointer string
}

// Noter is a layout that has something to say in the audit's notes about
// a run, such as which generation of its files it recognised.
type Noter interface {
	Notes(r *Run) string
}

// All lists the layouts in detection order: the first that recognises a
// folder claims it, so the more specific come first; any other that
// recognises it too is reported (h3a.structure.layout_ambiguous), since
// its files are not checked. A contract run is
// known by common file names (audit.json, verdict.json) that a hybrid-os
// or stigmergy root may also hold, so it comes last; a gate-state run is
// known by its .state/ folder, which names nothing else.
func All() []Layout {
	return []Layout{H3A{}, Hybrid{}, Stigmergy{}, GateState{}, Contract{}}
}

// Detectors returns All as discovery detectors.
func Detectors() []rundir.Detector {
	var ds []rundir.Detector
	for _, l := range All() {
		ds = append(ds, l)
	}
	return ds
}

// ByID finds a layout by its id.
func ByID(id string) Layout {
	for _, l := range All() {
		if l.ID() == id {
			return l
		}
	}
	return nil
}
