// Package schema compiles the embedded JSON Schemas of H3A documents once and
// validates decoded JSON against them, turning the validator's error tree into
// one Violation per problem, with a message written for the person who has to
// fix the file.
//
// Every *.schema.json file in package schemas is compiled, so a schema added
// there later is picked up without code changes. defs.schema.json holds shared
// definitions only and is compiled but not offered as a document schema.
//
// A schema may carry the annotation "x-expected": a noun phrase such as
// "a run id (YYYYMMDD-HHMMSS-<uuid4>, ...)". When a value breaks that schema's
// pattern, format, length or numeric bounds, the message says the value "is
// not <x-expected>" instead of quoting a regular expression or a bare bound at
// the reader.
package schema

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"runtime"
	"slices"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/h3a-check/h3a-check/schemas"
)

// Names of the embedded document schemas (file name without .schema.json).
const (
	State           = "state"
	CurrentTask     = "current_task"
	SessionHandoff  = "session_handoff"
	PlannerReport   = "planner_report"
	ExecutorReport  = "executor_report"
	ValidatorReport = "validator_report"

	ContractHandoff = "contract_handoff"
	ContractVerdict = "contract_verdict"
	ContractAudit   = "contract_audit"
	ContractSummary = "contract_summary"

	HybridState       = "hybrid_state"
	HybridPlan        = "hybrid_plan"
	HybridArtifact    = "hybrid_artifact"
	HybridSummary     = "hybrid_summary"
	HybridKnownIssues = "hybrid_known_issues"
	HybridLog         = "hybrid_log"

	StigmergyState = "stigmergy_state"

	GateStateGateOutput = "gate_state_gate_output"
	GateStatePipeline   = "gate_state_pipeline"
)

const (
	// baseURL is the common prefix of every schema's $id; a file is added under
	// baseURL+<file name> so that relative $refs between files resolve.
	baseURL    = "https://github.com/h3a-check/h3a-check/schemas/"
	fileSuffix = ".schema.json"
	// sharedDefs names the file of shared definitions, which describes no
	// document of its own.
	sharedDefs = "defs"
	// expectedKeyword is the annotation that phrases what a schema expects.
	expectedKeyword = "x-expected"
)

// Set holds the compiled document schemas by name. It is immutable after Load
// and safe for concurrent use.
type Set struct {
	byName map[string]*jsonschema.Schema
	// expected maps a schema location (URL + "#" + JSON pointer, as the
	// validator reports it) to that schema's x-expected phrase.
	expected map[string]string
}

// Load compiles every embedded *.schema.json once (draft 2020-12 by default,
// formats asserted). References resolve only among the embedded files: the
// loader reaches neither a file system nor the network.
func Load() (*Set, error) {
	return load(schemas.FS)
}

// Default returns a process-wide Set compiled on first use.
func Default() (*Set, error) {
	return defaultSet()
}

var defaultSet = sync.OnceValues(Load)

// Has reports whether name is a document schema of the set.
func (s *Set) Has(name string) bool {
	_, ok := s.byName[name]
	return ok
}

// Names returns the names of the document schemas, sorted.
func (s *Set) Names() []string {
	return slices.Sorted(maps.Keys(s.byName))
}

// Validate returns nil when v (a JSON data model value: nil, bool,
// json.Number, string, []any, map[string]any) is valid against the named
// schema; otherwise one Violation per problem, sorted by Pointer then Message.
// Safe for concurrent use.
func (s *Set) Validate(name string, v any) []Violation {
	sch, ok := s.byName[name]
	if !ok {
		return []Violation{{
			Keyword: "schema",
			Message: fmt.Sprintf("no schema named %q, expected one of %s", name, quoteList(s.Names(), 0)),
		}}
	}
	err := sch.Validate(v)
	if err == nil {
		return nil
	}
	verr, ok := err.(*jsonschema.ValidationError)
	if !ok {
		// Validate documents only *ValidationError; anything else is still
		// reported rather than dropped, so a document is never passed silently.
		return []Violation{{Keyword: "schema", Message: fmt.Sprintf("document could not be validated: %v", err)}}
	}
	return s.violations(verr, v)
}

func load(fsys fs.FS) (*Set, error) {
	files, err := fs.Glob(fsys, "*"+fileSuffix)
	if err != nil {
		return nil, fmt.Errorf("list schema files: %w", err)
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("no %s files found", "*"+fileSuffix)
	}
	var defs, docs []string
	for _, file := range files {
		if strings.TrimSuffix(file, fileSuffix) == sharedDefs {
			defs = append(defs, file)
		} else {
			docs = append(docs, file)
		}
	}

	// Compiling is a third of a typical run's check, and the start of every
	// check waits for it; with two cores, two compilers that each take half
	// of the document schemas (and the shared definitions) halve the wait.
	groups := splitBySize(fsys, docs, min(runtime.GOMAXPROCS(0), 2))
	parts := make([]*Set, len(groups))
	errs := make([]error, len(groups))
	var wg sync.WaitGroup
	for i, group := range groups {
		wg.Go(func() { parts[i], errs[i] = compileGroup(fsys, append(slices.Clip(defs), group...)) })
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	set := &Set{byName: map[string]*jsonschema.Schema{}, expected: map[string]string{}}
	for _, part := range parts {
		maps.Copy(set.byName, part.byName)
		maps.Copy(set.expected, part.expected)
	}
	return set, nil
}

// splitBySize deals files into n groups of about equal size in bytes,
// largest first; a file that cannot be read goes anywhere (compiling it
// reports the problem).
func splitBySize(fsys fs.FS, files []string, n int) [][]string {
	n = max(1, min(n, len(files)))
	size := map[string]int64{}
	for _, f := range files {
		if info, err := fs.Stat(fsys, f); err == nil {
			size[f] = info.Size()
		}
	}
	sorted := slices.Clone(files)
	slices.SortStableFunc(sorted, func(a, b string) int { return cmp.Compare(size[b], size[a]) })
	groups := make([][]string, n)
	total := make([]int64, n)
	for _, f := range sorted {
		i := slices.Index(total, slices.Min(total))
		groups[i] = append(groups[i], f)
		total[i] += size[f]
	}
	return groups
}

// compileGroup compiles files with one compiler (draft 2020-12 by
// default, formats asserted). References resolve only among the files of
// the group: the loader reaches neither a file system nor the network.
func compileGroup(fsys fs.FS, files []string) (*Set, error) {
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.AssertFormat()
	// An empty scheme table makes every URL that was not added below fail to
	// load, so a stray remote $ref is a compile error, never a download.
	c.UseLoader(jsonschema.SchemeURLLoader{})

	set := &Set{byName: map[string]*jsonschema.Schema{}, expected: map[string]string{}}
	for _, file := range files {
		data, err := fs.ReadFile(fsys, file)
		if err != nil {
			return nil, fmt.Errorf("read schema %s: %w", file, err)
		}
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
		if err != nil {
			return nil, fmt.Errorf("parse schema %s: %w", file, err)
		}
		url := baseURL + file
		if err := c.AddResource(url, doc); err != nil {
			return nil, fmt.Errorf("add schema %s: %w", file, err)
		}
		collectExpected(url, "", doc, set.expected)
	}
	for _, file := range files {
		sch, err := c.Compile(baseURL + file)
		if err != nil {
			return nil, fmt.Errorf("compile schema %s: %w", file, err)
		}
		if name := strings.TrimSuffix(file, fileSuffix); name != sharedDefs {
			set.byName[name] = sch
		}
	}
	return set, nil
}

// collectExpected records the x-expected phrase of every subschema of doc,
// keyed the way the validator names schema locations.
func collectExpected(url, ptr string, node any, out map[string]string) {
	obj, ok := node.(map[string]any)
	if !ok {
		return
	}
	if phrase, ok := obj[expectedKeyword].(string); ok && phrase != "" {
		out[url+"#"+ptr] = phrase
	}
	for key, child := range obj {
		childPtr := ptr + "/" + escapeToken(key)
		switch key {
		case "properties", "patternProperties", "$defs", "definitions", "dependentSchemas":
			// Maps from a name to a subschema.
			if m, ok := child.(map[string]any); ok {
				for name, sub := range m {
					collectExpected(url, childPtr+"/"+escapeToken(name), sub, out)
				}
			}
		case "allOf", "anyOf", "oneOf", "prefixItems":
			if list, ok := child.([]any); ok {
				for i, sub := range list {
					collectExpected(url, fmt.Sprintf("%s/%d", childPtr, i), sub, out)
				}
			}
		case "items", "additionalProperties", "unevaluatedProperties", "unevaluatedItems",
			"propertyNames", "contains", "not", "if", "then", "else":
			collectExpected(url, childPtr, child, out)
		}
	}
}
