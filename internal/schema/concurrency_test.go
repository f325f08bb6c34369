package schema

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/h3a-check/h3a-check/schemas"
)

type corpusDoc struct {
	file, schema string
	doc          any
}

// corpus returns every whole document under testdata with the schema it is
// meant for (spec examples as printed, so some carry violations).
func corpus(t testing.TB) []corpusDoc {
	t.Helper()
	var out []corpusDoc
	for _, dir := range []string{"spec", "initialiser", "upstream", "invalid"} {
		files, err := filepath.Glob(filepath.Join("testdata", dir, "*.json"))
		if err != nil {
			t.Fatal(err)
		}
		for _, file := range files {
			base := filepath.Base(file)
			if strings.HasSuffix(base, ".want.json") || base == "correction_step.json" {
				continue
			}
			name := strings.TrimSuffix(base, ".json")
			name, _, _ = strings.Cut(name, ".")
			if dir == "upstream" {
				name = "session_handoff"
			}
			out = append(out, corpusDoc{file: file, schema: name, doc: readJSON(t, file)})
		}
	}
	if len(out) < 20 {
		t.Fatalf("corpus has %d documents, want at least 20", len(out))
	}
	return out
}

// Many goroutines validating at once get the same answers as one goroutine
// (run with -race to also check for data races).
func TestValidateConcurrently(t *testing.T) {
	s := mustDefault(t)
	docs := corpus(t)
	want := make([][]Violation, len(docs))
	for i, d := range docs {
		want[i] = s.Validate(d.schema, d.doc)
	}
	const workers, rounds = 16, 20
	var wg sync.WaitGroup
	errs := make(chan string, workers)
	for w := range workers {
		wg.Go(func() {
			for r := range rounds {
				i := (w + r) % len(docs)
				if got := s.Validate(docs[i].schema, docs[i].doc); !reflect.DeepEqual(got, want[i]) {
					errs <- docs[i].file
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for file := range errs {
		t.Errorf("%s: concurrent result differs from the sequential one", file)
	}
}

// Default is safe to call from many goroutines before it has been used.
func TestDefaultConcurrently(t *testing.T) {
	var wg sync.WaitGroup
	sets := make([]*Set, 8)
	for i := range sets {
		wg.Go(func() {
			s, err := Default()
			if err != nil {
				t.Error(err)
			}
			sets[i] = s
		})
	}
	wg.Wait()
	for i := range sets {
		if sets[i] != sets[0] {
			t.Fatal("Default returned different sets to concurrent callers")
		}
	}
}

func BenchmarkValidate(b *testing.B) {
	s := mustDefault(b)
	data, err := os.ReadFile(filepath.Join("testdata", "spec", "state.json"))
	if err != nil {
		b.Fatal(err)
	}
	doc := decodeJSON(b, data)
	if got := s.Validate("state", doc); got != nil {
		b.Fatalf("spec state.json is invalid: %+v", got)
	}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		s.Validate("state", doc)
	}
}

func BenchmarkValidateInvalid(b *testing.B) {
	s := mustDefault(b)
	doc := readJSON(b, filepath.Join("testdata", "invalid", "state.steps.json"))
	b.ReportAllocs()
	for b.Loop() {
		s.Validate("state", doc)
	}
}

// BenchmarkCompileH3A measures what a check of h3a runs does at start to
// have its schemas: building the nodes compiled into the binary of the six
// document schemas of the layout and the shared definitions.
func BenchmarkCompileH3A(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		for _, name := range []string{"state", "current_task", "session_handoff", "planner_report", "executor_report", "validator_report"} {
			if n := buildCompiledFile(name + fileSuffix); n == nil {
				b.Fatal(name)
			}
		}
		if n := buildCompiledFile(sharedDefs + fileSuffix); n == nil {
			b.Fatal(sharedDefs)
		}
	}
}

// BenchmarkCompileH3AFromSource measures compiling the same schemas from
// their JSON source, as a set made from other files does.
func BenchmarkCompileH3AFromSource(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		s, err := newSet(schemas.FS)
		if err != nil {
			b.Fatal(err)
		}
		for _, name := range []string{"state", "current_task", "session_handoff", "planner_report", "executor_report", "validator_report"} {
			if _, err := s.compiled(s.byName[name]); err != nil {
				b.Fatal(err)
			}
		}
	}
}

// BenchmarkLoad measures compiling every schema, which Load does.
func BenchmarkLoad(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Load(); err != nil {
			b.Fatal(err)
		}
	}
}

// A fresh set compiles each schema on first use, from many goroutines at
// once and while Prepare compiles in the background, and gives the same
// answers as a set compiled up front (run with -race).
func TestCompileOnFirstUseConcurrently(t *testing.T) {
	full, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	docs := corpus(t)
	want := make([][]Violation, len(docs))
	for i, d := range docs {
		want[i] = full.Validate(d.schema, d.doc)
	}
	fresh, err := newSet(schemas.FS)
	if err != nil {
		t.Fatal(err)
	}
	fresh.Prepare(fresh.Names()...)
	var wg sync.WaitGroup
	errs := make(chan string, len(docs))
	for i, d := range docs {
		wg.Go(func() {
			if got := fresh.Validate(d.schema, d.doc); !reflect.DeepEqual(got, want[i]) {
				errs <- d.file
			}
		})
	}
	wg.Wait()
	close(errs)
	for file := range errs {
		t.Errorf("%s: a fresh set compiling on first use gives other violations than a compiled one", file)
	}
}

// Validating against one schema compiles that schema alone (and what it
// refers to), not the schemas of other layouts.
func TestOnlyUsedSchemasCompile(t *testing.T) {
	s, err := newSet(schemas.FS)
	if err != nil {
		t.Fatal(err)
	}
	s.Validate("state", map[string]any{})
	for name, e := range s.byName {
		if compiled := e.sch != nil; compiled != (name == "state") {
			t.Errorf("after validating a state document, %s compiled: %v", name, compiled)
		}
	}
	s.Prepare("hybrid_state", "no such schema")
	if sch, err := s.compiled(s.byName["hybrid_state"]); sch == nil || err != nil { // waits for Prepare
		t.Fatalf("prepared %s: %v", "hybrid_state", err)
	}
	if s.byName["stigmergy_state"].sch != nil {
		t.Errorf("%s compiled, though neither used nor prepared", "stigmergy_state")
	}
}
