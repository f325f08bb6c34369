// Package schema compiles the embedded JSON Schemas of run documents, each
// once and on first use, and validates decoded JSON against them, turning
// the validator's error tree into one Violation per problem, with a message
// written for the person who has to fix the file.
//
// Every *.schema.json file in package schemas is offered, so a schema added
// there later is picked up without code changes. defs.schema.json holds shared
// definitions only and is not offered as a document schema.
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
	"fmt"
	"io/fs"
	"maps"
	"slices"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/h3a-check/h3a-check/schemas"
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

// Set holds the document schemas by name. A schema is compiled the first
// time a document is validated against it: a check compiles the schemas of
// the layouts it meets, not every embedded one. It is safe for concurrent
// use.
type Set struct {
	fsys fs.FS
	// byName maps a document schema's name to its entry; it is not changed
	// after the set is made.
	byName map[string]*entry

	// compilers compile the schemas, each a fixed share of them; a
	// compiler is not safe for concurrent use and keeps what it compiled,
	// so shared definitions are compiled once per compiler. Two let a
	// check's first schemas compile on two cores.
	compilers []*compiler

	// expected maps a schema location (URL + "#" + JSON pointer, as the
	// validator reports it) to that schema's x-expected phrase; it grows as
	// schema files are loaded.
	expectedMu sync.RWMutex
	expected   map[string]string
}

// entry is one document schema, compiled once on first use.
type entry struct {
	file     string
	compiler *compiler
	once     sync.Once
	sch      *jsonschema.Schema
	err      error
}

type compiler struct {
	mu sync.Mutex
	c  *jsonschema.Compiler
}

// compilerCount is how many compilers share a set's schemas.
const compilerCount = 2

// Load compiles every embedded *.schema.json (draft 2020-12 by default,
// formats asserted) and reports the first schema that does not compile.
// References resolve only among the embedded files: the loader reaches
// neither a file system nor the network.
func Load() (*Set, error) {
	return load(schemas.FS)
}

// Default returns the process-wide Set, whose schemas compile on first use.
func Default() (*Set, error) {
	return defaultSet()
}

var defaultSet = sync.OnceValues(func() (*Set, error) { return newSet(schemas.FS) })

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
	e, ok := s.byName[name]
	if !ok {
		return []Violation{{
			Keyword: "schema",
			Message: fmt.Sprintf("no schema named %q, expected one of %s", name, quoteList(s.Names(), 0)),
		}}
	}
	sch, err := s.compiled(e)
	if err != nil {
		// The embedded schemas are compiled by the tests, so this is a
		// defect of the build; the document is still not passed.
		return []Violation{{Keyword: "schema", Message: fmt.Sprintf("document could not be validated: %v", err)}}
	}
	err = sch.Validate(v)
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

// load makes a set of the *.schema.json files of fsys and compiles every
// one, so that a broken schema is reported now.
func load(fsys fs.FS) (*Set, error) {
	s, err := newSet(fsys)
	if err != nil {
		return nil, err
	}
	if _, err := s.compilers[0].compile(sharedDefs + fileSuffix); err != nil {
		return nil, err
	}
	for _, name := range s.Names() {
		if _, err := s.compiled(s.byName[name]); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// newSet lists the schema files of fsys; nothing is read or compiled yet.
func newSet(fsys fs.FS) (*Set, error) {
	files, err := fs.Glob(fsys, "*"+fileSuffix)
	if err != nil {
		return nil, fmt.Errorf("list schema files: %w", err)
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("no %s files found", "*"+fileSuffix)
	}
	s := &Set{fsys: fsys, byName: map[string]*entry{}, expected: map[string]string{}}
	for range compilerCount {
		c := jsonschema.NewCompiler()
		c.DefaultDraft(jsonschema.Draft2020)
		c.AssertFormat()
		c.UseLoader(embeddedLoader{s})
		s.compilers = append(s.compilers, &compiler{c: c})
	}
	// Dealt largest first, so that the compilers' shares are about equal
	// in size within a layout as well as overall.
	var docs []string
	for _, file := range files {
		if strings.TrimSuffix(file, fileSuffix) != sharedDefs {
			docs = append(docs, file)
		}
	}
	for i, file := range bySizeDescending(fsys, docs) {
		s.byName[strings.TrimSuffix(file, fileSuffix)] = &entry{file: file, compiler: s.compilers[i%compilerCount]}
	}
	return s, nil
}

func bySizeDescending(fsys fs.FS, files []string) []string {
	size := map[string]int64{}
	for _, f := range files {
		if info, err := fs.Stat(fsys, f); err == nil {
			size[f] = info.Size()
		}
	}
	sorted := slices.Clone(files)
	slices.SortStableFunc(sorted, func(a, b string) int { return cmp.Or(cmp.Compare(size[b], size[a]), strings.Compare(a, b)) })
	return sorted
}

// Prepare compiles the named schemas in the background, each compiler its
// share on its own goroutine, so that validating against them later need
// not wait. Unknown names are ignored.
func (s *Set) Prepare(names ...string) {
	for _, c := range s.compilers {
		var mine []*entry
		for _, name := range names {
			if e, ok := s.byName[name]; ok && e.compiler == c {
				mine = append(mine, e)
			}
		}
		if len(mine) > 0 {
			go func() {
				for _, e := range mine {
					_, _ = s.compiled(e)
				}
			}()
		}
	}
}

func (s *Set) compiled(e *entry) (*jsonschema.Schema, error) {
	e.once.Do(func() { e.sch, e.err = e.compiler.compile(e.file) })
	return e.sch, e.err
}

func (c *compiler) compile(file string) (*jsonschema.Schema, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	sch, err := c.c.Compile(baseURL + file)
	if err != nil {
		return nil, fmt.Errorf("compile schema %s: %w", file, err)
	}
	return sch, nil
}

// expectedAt returns the x-expected phrase of the schema at a location.
func (s *Set) expectedAt(location string) string {
	s.expectedMu.RLock()
	defer s.expectedMu.RUnlock()
	return s.expected[location]
}

// embeddedLoader gives the compiler the set's files, each as it is first
// referred to, and records their x-expected phrases. Any other URL fails to
// load, so a stray remote $ref is a compile error, never a download.
type embeddedLoader struct{ s *Set }

func (l embeddedLoader) Load(url string) (any, error) {
	file, ok := strings.CutPrefix(url, baseURL)
	if !ok || strings.Contains(file, "/") || !strings.HasSuffix(file, fileSuffix) {
		return nil, fmt.Errorf("%s is not an embedded schema: references resolve only among the schemas shipped with h3a-check", url)
	}
	data, err := fs.ReadFile(l.s.fsys, file)
	if err != nil {
		return nil, fmt.Errorf("read schema %s: %w", file, err)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("parse schema %s: %w", file, err)
	}
	found := map[string]string{}
	collectExpected(url, "", doc, found)
	l.s.expectedMu.Lock()
	maps.Copy(l.s.expected, found)
	l.s.expectedMu.Unlock()
	return doc, nil
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
