package schema

import (
	"fmt"
	"io/fs"
	"regexp"
	"regexp/syntax"
	"slices"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/h3a-check/h3a-check/internal/status"
	"github.com/h3a-check/h3a-check/schemas"
)

// rawSchemas returns every embedded schema file decoded, by file name.
func rawSchemas(t *testing.T) map[string]map[string]any {
	t.Helper()
	files, err := fs.Glob(schemas.FS, "*.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]map[string]any{}
	for _, f := range files {
		data, err := fs.ReadFile(schemas.FS, f)
		if err != nil {
			t.Fatal(err)
		}
		doc, ok := decodeJSON(t, data).(map[string]any)
		if !ok {
			t.Fatalf("%s: top level is not an object", f)
		}
		out[f] = doc
	}
	return out
}

func TestSchemaHeaders(t *testing.T) {
	raw := rawSchemas(t)
	for _, name := range append(slices.Concat(documentSchemas, layoutSchemas, inputSchemas, toolSchemas), sharedDefs) {
		file := name + fileSuffix
		doc, ok := raw[file]
		if !ok {
			t.Errorf("schema file %s is missing", file)
			continue
		}
		if got := doc["$schema"]; got != "https://json-schema.org/draft/2020-12/schema" {
			t.Errorf("%s: $schema = %v, want draft 2020-12", file, got)
		}
		if got, want := doc["$id"], baseURL+file; got != want {
			t.Errorf("%s: $id = %v, want %s", file, got, want)
		}
		for _, key := range []string{"title", "description"} {
			if s, _ := doc[key].(string); strings.TrimSpace(s) == "" {
				t.Errorf("%s: %s is missing or empty", file, key)
			}
		}
		if name == sharedDefs {
			continue
		}
		if examples, _ := doc["examples"].([]any); len(examples) == 0 {
			t.Errorf("%s: no examples, want at least one complete valid document", file)
		}
	}
}

// Every property of every schema explains itself, and so does every shared
// definition.
func TestEveryPropertyHasDescription(t *testing.T) {
	for file, doc := range rawSchemas(t) {
		var missing []string
		walkSchema(doc, "#", func(ptr string, node map[string]any) {
			if props, ok := node["properties"].(map[string]any); ok {
				for name, prop := range props {
					p, _ := prop.(map[string]any)
					if d, _ := p["description"].(string); strings.TrimSpace(d) == "" {
						missing = append(missing, ptr+"/properties/"+name)
					}
				}
			}
			if defs, ok := node["$defs"].(map[string]any); ok {
				for name, def := range defs {
					d, _ := def.(map[string]any)
					if s, _ := d["description"].(string); strings.TrimSpace(s) == "" {
						missing = append(missing, ptr+"/$defs/"+name)
					}
				}
			}
		})
		slices.Sort(missing)
		for _, m := range missing {
			t.Errorf("%s: %s has no description", file, m)
		}
	}
}

// walkSchema calls visit for every subschema object, skipping data keywords.
func walkSchema(node any, ptr string, visit func(ptr string, node map[string]any)) {
	switch n := node.(type) {
	case map[string]any:
		visit(ptr, n)
		for key, child := range n {
			switch key {
			case "examples", "enum", "const", "default", "required":
				continue
			}
			walkSchema(child, ptr+"/"+escapeToken(key), visit)
		}
	case []any:
		for i, child := range n {
			walkSchema(child, fmt.Sprintf("%s/%d", ptr, i), visit)
		}
	}
}

// Every example a schema shows is a document the schema accepts; so is every
// example of a shared definition.
func TestSchemaExamplesAreValid(t *testing.T) {
	s := mustDefault(t)
	raw := rawSchemas(t)
	for _, name := range s.Names() {
		examples, _ := raw[name+fileSuffix]["examples"].([]any)
		for i, ex := range examples {
			if got := s.Validate(name, ex); got != nil {
				t.Errorf("%s examples[%d]: %+v", name, i, got)
			}
		}
	}

	c := jsonschema.NewCompiler()
	c.AssertFormat()
	c.UseLoader(jsonschema.SchemeURLLoader{})
	for file, doc := range raw {
		if err := c.AddResource(baseURL+file, doc); err != nil {
			t.Fatal(err)
		}
	}
	defs, _ := raw[sharedDefs+fileSuffix]["$defs"].(map[string]any)
	for name, def := range defs {
		examples, _ := def.(map[string]any)["examples"].([]any)
		if len(examples) == 0 {
			continue
		}
		sch, err := c.Compile(baseURL + sharedDefs + fileSuffix + "#/$defs/" + name)
		if err != nil {
			t.Fatalf("compile $defs/%s: %v", name, err)
		}
		for i, ex := range examples {
			if err := sch.Validate(ex); err != nil {
				t.Errorf("$defs/%s examples[%d] %v: %v", name, i, ex, err)
			}
		}
	}
}

// The shared definitions say exactly what the specification says.
func TestSharedDefinitionsFollowTheSpecification(t *testing.T) {
	defs, _ := rawSchemas(t)[sharedDefs+fileSuffix]["$defs"].(map[string]any)
	def := func(name string) map[string]any {
		d, ok := defs[name].(map[string]any)
		if !ok {
			t.Fatalf("$defs/%s is missing", name)
		}
		return d
	}
	enums := []struct {
		def  string
		want []string
	}{
		{"gateValue", []string{"pending", "not_started", "in_progress", "passed", "failed"}},
		{"gateName", []string{"G0_planning", "G1_implementation", "G2_validation", "G3_production_ready"}},
		{"checkStatus", []string{"pass", "fail", "partial", "not_applicable"}},
	}
	// A status field with a meaning for each spelling accepts exactly the
	// spellings the status package maps.
	for _, f := range status.Fields {
		enums = append(enums, struct {
			def  string
			want []string
		}{f.Def, f.Spellings()})
	}
	for _, tt := range enums {
		var got []string
		for _, v := range def(tt.def)["enum"].([]any) {
			got = append(got, v.(string))
		}
		if !slices.Equal(got, tt.want) {
			t.Errorf("$defs/%s enum = %q, want %q", tt.def, got, tt.want)
		}
	}
	if got, want := def("gateStatus")["pattern"], `^G[0-3]_(pending|not_started|in_progress|passed|failed)$`; got != want {
		t.Errorf("$defs/gateStatus pattern = %v, want %v", got, want)
	}
	if got := def("timestamp")["format"]; got != "date-time" {
		t.Errorf("$defs/timestamp format = %v, want date-time", got)
	}
	if got, _ := def("runId")["pattern"].(string); !strings.HasPrefix(got, `^[0-9]{8}-[0-9]{6}-`) {
		t.Errorf("$defs/runId pattern = %q, want the ^[0-9]{8}-[0-9]{6}- prefix", got)
	}
}

// "Not only white space" (a task id, a configuration text) means what the
// rules mean by it: they trim a value as Go's strings.TrimSpace does, so a
// value of any white space unicode.IsSpace knows (a no-break space, an
// ideographic space, a vertical tab) must fail the pattern, and a value with
// anything else in it must pass.
func TestNotBlankPatternsTrimAsTheRulesDo(t *testing.T) {
	raw := rawSchemas(t)
	defs, _ := raw[sharedDefs+fileSuffix]["$defs"].(map[string]any)
	configDefs, _ := raw["config"+fileSuffix]["$defs"].(map[string]any)
	for _, d := range []struct {
		where string
		def   any
	}{{"defs taskId", defs["taskId"]}, {"defs nullableTaskId", defs["nullableTaskId"]}, {"config text", configDefs["text"]}} {
		src, _ := d.def.(map[string]any)["pattern"].(string)
		re, err := regexp.Compile(src)
		if err != nil {
			t.Fatalf("%s: %v", d.where, err)
		}
		// The pattern is one character class: the runes it matches are
		// its ranges, which the matcher tests each rune against. Every
		// rune is held to strings.TrimSpace through them, and the runes
		// outside them or blank, through the matcher too (a match per
		// rune took 18 s under -race).
		parsed, err := syntax.Parse(src, syntax.Perl)
		if err != nil || parsed.Op != syntax.OpCharClass {
			t.Fatalf("%s: pattern %q is not one character class, which this test assumes", d.where, src)
		}
		inClass := func(r rune) bool {
			for i := 0; i+1 < len(parsed.Rune); i += 2 {
				if parsed.Rune[i] <= r && r <= parsed.Rune[i+1] {
					return true
				}
			}
			return false
		}
		for r := rune(0); r <= unicode.MaxRune; r++ {
			if !utf8.ValidRune(r) {
				continue
			}
			blank, matches := isBlank(r), inClass(r)
			if !matches || blank {
				matches = re.MatchString(string(r))
			}
			if matches == blank {
				t.Errorf("%s: pattern %q on %+q: matches %v, blank to strings.TrimSpace %v", d.where, src, r, matches, blank)
			}
		}
	}
}

// isBlank reports whether strings.TrimSpace leaves nothing of r.
func isBlank(r rune) bool {
	var b [utf8.UTFMax]byte
	return strings.TrimSpace(string(b[:utf8.EncodeRune(b[:], r)])) == ""
}
