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

//go:generate go test -run ^TestCompiledSchemasAreCurrent$ -update .

import (
	"fmt"
	"io/fs"
	"maps"
	"slices"
	"strings"
	"sync"
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
	// byName maps a document schema's name to its entry; it is not changed
	// after the set is made.
	byName map[string]*entry
	// compile returns the root node of a schema file.
	compile func(file string) (*node, error)
	// compiler compiles the schemas of a set not made from the embedded
	// files (tests' sets) and keeps what it compiled, so shared definitions
	// are compiled once; nil for the embedded set.
	compiler *compiler
}

// entry is one document schema, compiled once on first use.
type entry struct {
	file string
	once sync.Once
	sch  *node
	err  error
}

// Load returns a set of every embedded *.schema.json (draft 2020-12,
// formats asserted) with every schema built now. The embedded schemas were
// compiled when h3a-check was built; references resolve only among them.
func Load() (*Set, error) {
	s := embeddedSet()
	for _, name := range s.Names() {
		if _, err := s.compiled(s.byName[name]); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// Default returns the process-wide Set, whose schemas compile on first use.
func Default() (*Set, error) {
	return defaultSet()
}

var defaultSet = sync.OnceValues(func() (*Set, error) { return embeddedSet(), nil })

// embeddedSet makes the set of the embedded schemas, which were compiled
// when h3a-check was built (compiled_schemas.go, written by go generate
// from schemas/*.schema.json): nothing is parsed when a check runs.
func embeddedSet() *Set {
	s := &Set{byName: map[string]*entry{}, compile: compiledFile}
	for _, file := range compiledFileNames {
		if name := strings.TrimSuffix(file, fileSuffix); name != sharedDefs {
			s.byName[name] = &entry{file: file}
		}
	}
	return s
}

func compiledFile(file string) (*node, error) {
	if n := compiledRoot(file); n != nil {
		return n, nil
	}
	return nil, fmt.Errorf("compile schema %s: not among the compiled schemas", file)
}

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
	verr := sch.validate(v, nil, false)
	if verr == nil {
		return nil
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
	if _, err := s.compile(sharedDefs + fileSuffix); err != nil {
		return nil, err
	}
	for _, name := range s.Names() {
		if _, err := s.compiled(s.byName[name]); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// newSet lists the schema files of fsys, which the set compiles as they are
// first used; nothing is read or compiled yet.
func newSet(fsys fs.FS) (*Set, error) {
	files, err := fs.Glob(fsys, "*"+fileSuffix)
	if err != nil {
		return nil, fmt.Errorf("list schema files: %w", err)
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("no %s files found", "*"+fileSuffix)
	}
	c := newCompiler(fsys)
	s := &Set{byName: map[string]*entry{}, compile: c.compile, compiler: c}
	for _, file := range files {
		if name := strings.TrimSuffix(file, fileSuffix); name != sharedDefs {
			s.byName[name] = &entry{file: file}
		}
	}
	return s, nil
}

// Prepare compiles the named schemas in the background, so that validating
// against them later need not wait. Unknown names are ignored.
func (s *Set) Prepare(names ...string) {
	var mine []*entry
	for _, name := range names {
		if e, ok := s.byName[name]; ok {
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

func (s *Set) compiled(e *entry) (*node, error) {
	e.once.Do(func() { e.sch, e.err = s.compile(e.file) })
	return e.sch, e.err
}
