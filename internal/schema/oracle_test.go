package schema

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"

	"github.com/h3a-check/h3a-check/internal/audit/audittest"
	"github.com/h3a-check/h3a-check/internal/longtest"
	"github.com/h3a-check/h3a-check/schemas"
)

// The package's own compiler and validator are held to a full JSON Schema
// implementation, the oracle: every test document is validated against every
// schema by both, and the findings must be identical. The oracle's error tree
// is translated into the validator's (fromOracle) and goes through the same
// message writing, so what is compared is what the validator decides and the
// shape of its error tree.

// oracleSet is the embedded schemas compiled by the oracle, with the
// x-expected phrase of every schema location.
type oracleSet struct {
	schemas  map[string]*jsonschema.Schema
	expected map[string]string
}

var loadOracle = sync.OnceValues(func() (*oracleSet, error) { return newOracle(schemas.FS) })

func newOracle(fsys fs.FS) (*oracleSet, error) {
	o := &oracleSet{schemas: map[string]*jsonschema.Schema{}, expected: map[string]string{}}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.AssertFormat()
	c.UseLoader(oracleLoader{fsys: fsys, expected: o.expected})
	files, err := fs.Glob(fsys, "*"+fileSuffix)
	if err != nil {
		return nil, err
	}
	for _, file := range files {
		sch, err := c.Compile(baseURL + file)
		if err != nil {
			return nil, err
		}
		o.schemas[strings.TrimSuffix(file, fileSuffix)] = sch
	}
	return o, nil
}

// validate returns the oracle's findings and its error tree as the
// validator's.
func (o *oracleSet) validate(t testing.TB, s *Set, name string, doc any) ([]Violation, *verror) {
	t.Helper()
	err := o.schemas[name].Validate(doc)
	if err == nil {
		return nil, nil
	}
	verr, ok := err.(*jsonschema.ValidationError)
	if !ok {
		t.Fatalf("oracle: %v", err)
	}
	tree := o.translate(t, verr)
	return s.violations(tree, doc), tree
}

// translate turns the oracle's error tree into the validator's.
func (o *oracleSet) translate(t testing.TB, e *jsonschema.ValidationError) *verror {
	t.Helper()
	v := &verror{at: e.InstanceLocation, expected: o.expected[e.SchemaURL]}
	if v.at == nil {
		v.at = []string{}
	}
	causes := true
	switch k := e.ErrorKind.(type) {
	case *kind.Schema, *kind.Group, *kind.Reference, *kind.AllOf:
		v.kind = eGroup
	case *kind.AnyOf:
		v.kind = eAnyOf
	case *kind.OneOf:
		v.kind = eOneOf
		if len(k.Subschemas) > 0 {
			v.kind, v.got, v.got2, causes = eOneOfTwice, k.Subschemas[0], k.Subschemas[1], false
		}
	case *kind.FalseSchema:
		v.kind = eFalse
	case *kind.InvalidJsonValue:
		v.kind, v.value = eInvalidJSON, k.Value
	case *kind.Type:
		v.kind, v.names = eType, k.Want
	case *kind.Const:
		v.kind, v.want = eConst, k.Want
	case *kind.Enum:
		v.kind, v.want = eEnum, k.Want
	case *kind.Format:
		v.kind, v.want = eFormat, k.Want
	case *kind.Required:
		v.kind, v.names = eRequired, k.Missing
	case *kind.AdditionalProperties:
		v.kind, v.names = eAdditionalProperties, k.Properties
	case *kind.PropertyNames:
		v.kind, v.names, causes = ePropertyNames, []string{k.Property}, false
	case *kind.MinLength:
		v.kind, v.got, v.want = eMinLength, k.Got, k.Want
	case *kind.MaxLength:
		v.kind, v.got, v.want = eMaxLength, k.Got, k.Want
	case *kind.Pattern:
		v.kind, v.want = ePattern, k.Want
	case *kind.Minimum:
		v.kind, v.want = eMinimum, k.Want
	case *kind.Maximum:
		v.kind, v.want = eMaximum, k.Want
	case *kind.ExclusiveMinimum:
		v.kind, v.want = eExclusiveMinimum, k.Want
	case *kind.ExclusiveMaximum:
		v.kind, v.want = eExclusiveMaximum, k.Want
	default:
		t.Fatalf("oracle reports %T, which the validator does not know", k)
	}
	if causes {
		for _, c := range e.Causes {
			v.causes = append(v.causes, o.translate(t, c))
		}
	}
	return v
}

// oracleLoader gives the oracle the embedded files and records their
// x-expected phrases by schema location.
type oracleLoader struct {
	fsys     fs.FS
	expected map[string]string
}

func (l oracleLoader) Load(url string) (any, error) {
	file, ok := strings.CutPrefix(url, baseURL)
	if !ok {
		return nil, fmt.Errorf("%s is not an embedded schema", url)
	}
	data, err := fs.ReadFile(l.fsys, file)
	if err != nil {
		return nil, err
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		return nil, err
	}
	collectExpected(url, "", doc, l.expected)
	return doc, nil
}

// collectExpected records the x-expected phrase of every subschema of doc,
// keyed the way the oracle names schema locations.
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
		case "properties", "$defs":
			if m, ok := child.(map[string]any); ok {
				for name, sub := range m {
					collectExpected(url, childPtr+"/"+escapeToken(name), sub, out)
				}
			}
		case "allOf", "anyOf", "oneOf":
			if list, ok := child.([]any); ok {
				for i, sub := range list {
					collectExpected(url, fmt.Sprintf("%s/%d", childPtr, i), sub, out)
				}
			}
		case "items", "additionalProperties", "propertyNames", "if", "then", "else":
			collectExpected(url, childPtr, child, out)
		}
	}
}

// oracleDocuments returns every JSON document the tests know: this
// package's testdata, the run directories under the repository's testdata,
// and the real-world files when present.
func oracleDocuments(t testing.TB) map[string]any {
	t.Helper()
	docs := map[string]any{}
	roots := []string{"testdata"}
	if longtest.Enabled() {
		// Every test run's documents (the err cases are patches over the
		// ok cases: written out first) and the real-world ones. The
		// README's command leaves them out: the findings of every test run
		// are pinned by its .want file already.
		runs := filepath.Join(t.TempDir(), "runs")
		if err := audittest.WriteCases("../../testdata/runs", runs); err != nil {
			t.Fatal(err)
		}
		roots = append(roots, runs, "../../../shared/realworld")
	}
	for _, root := range roots {
		if _, err := os.Stat(root); err != nil {
			if root == "testdata" {
				t.Fatal(err)
			}
			continue
		}
		before := len(docs)
		err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(p, ".json") || strings.HasSuffix(p, ".want.json") {
				return err
			}
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			if doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(data)); err == nil {
				docs[p] = doc
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%d documents under %s", len(docs)-before, root)
	}
	if longtest.Enabled() && len(docs) < 500 {
		t.Fatalf("found %d documents, want the repository's test runs too", len(docs))
	}
	// The documents with every string, or every number, replaced: values
	// at the bounds the schemas draw (one character, empty, negative,
	// fractional, integral written with a fraction, dates with offsets).
	for _, path := range slices.Sorted(maps.Keys(docs)) {
		if !strings.HasPrefix(path, "testdata") {
			continue
		}
		for i, leaf := range boundaryValues {
			docs[fmt.Sprintf("%s~%d", path, i)] = replaceLeaves(docs[path], leaf)
		}
	}
	return docs
}

var boundaryValues = []any{
	"x", "", "2025-09-29T13:42:15+23:59", "2025-09-29T12:00:60Z", "2025-09-29T23:59:60Z", "2025-02-30", "20250929-134215-8b6f8b9a-7c9f-4c5e-8c6a-2f0f0d2e9c1a",
	json.Number("-1"), json.Number("0"), json.Number("1"), json.Number("1.0"), json.Number("0.5"), json.Number("1e400"),
	nil, true,
}

// replaceLeaves returns doc with every value of leaf's type replaced by leaf
// (every scalar for null and true).
func replaceLeaves(doc, leaf any) any {
	switch v := doc.(type) {
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, item := range v {
			out[k] = replaceLeaves(item, leaf)
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, item := range v {
			out[i] = replaceLeaves(item, leaf)
		}
		return out
	}
	switch leaf.(type) {
	case string:
		if _, ok := doc.(string); !ok {
			return doc
		}
	case json.Number:
		if _, ok := doc.(json.Number); !ok {
			return doc
		}
	}
	return leaf
}

// Every document against every schema: the validator's findings are the
// oracle's, exactly.
func TestValidatorMatchesOracle(t *testing.T) {
	o, err := loadOracle()
	if err != nil {
		t.Fatal(err)
	}
	s, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	docs := oracleDocuments(t)
	failures := 0
	for _, path := range slices.Sorted(maps.Keys(docs)) {
		for _, name := range s.Names() {
			got := s.Validate(name, docs[path])
			want, _ := o.validate(t, s, name, docs[path])
			if !reflect.DeepEqual(got, want) {
				failures++
				if failures <= 10 {
					t.Errorf("%s as %s:\nvalidator %+v\noracle    %+v", path, name, got, want)
				}
			}
		}
	}
	if failures > 10 {
		t.Errorf("... %d documents differ in all", failures)
	}
}

// leafSet is the (instance pointer, keyword) pairs of an error tree's
// leaves, alternatives' branches included.
func leafSet(e *verror, out map[string]bool) {
	if e == nil {
		return
	}
	if len(e.causes) == 0 {
		out[pointer(e.at)+" "+kindKeyword[e.kind]] = true
		return
	}
	for _, c := range e.causes {
		leafSet(c, out)
	}
}

// FuzzValidatorMatchesOracle mutates documents and checks that the
// validator and the oracle agree on valid or not, on every failure in the
// error tree (instance pointer and keyword, branches of alternatives
// included) and on the findings.
func FuzzValidatorMatchesOracle(f *testing.F) {
	for _, dir := range []string{"spec", "initialiser", "upstream", "invalid"} {
		files, _ := filepath.Glob(filepath.Join("testdata", dir, "*.json"))
		for _, file := range files {
			if data, err := os.ReadFile(file); err == nil && !strings.HasSuffix(file, ".want.json") {
				f.Add(data)
			}
		}
	}
	f.Add([]byte(`{"a/b": {"~": [null, 1e400, -0, 1.0, "\u0000"]}, "run_id": 7}`))
	o, err := loadOracle()
	if err != nil {
		f.Fatal(err)
	}
	s, err := Load()
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
		if err != nil {
			return
		}
		for _, name := range s.Names() {
			sch, _ := s.compiled(s.byName[name])
			mine := sch.validate(doc, nil, false)
			want, theirs := o.validate(t, s, name, doc)
			if (mine == nil) != (theirs == nil) {
				t.Fatalf("%s: validator valid=%v, oracle valid=%v", name, mine == nil, theirs == nil)
			}
			gotLeaves, wantLeaves := map[string]bool{}, map[string]bool{}
			leafSet(mine, gotLeaves)
			leafSet(theirs, wantLeaves)
			if !maps.Equal(gotLeaves, wantLeaves) {
				t.Fatalf("%s: failures differ:\nvalidator %v\noracle    %v", name, slices.Sorted(maps.Keys(gotLeaves)), slices.Sorted(maps.Keys(wantLeaves)))
			}
			var got []Violation
			if mine != nil {
				got = s.violations(mine, doc)
			}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("%s: findings differ:\nvalidator %+v\noracle    %+v", name, got, want)
			}
		}
	})
}
