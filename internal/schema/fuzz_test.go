package schema

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// FuzzValidate feeds arbitrary JSON to every schema and checks what any
// result must satisfy: sorted, distinct, well-formed pointers that lead to the
// offending value (or, for a missing member, to its parent object), a keyword
// and a lower-case message.
func FuzzValidate(f *testing.F) {
	for _, dir := range []string{"spec", "initialiser", "upstream", "invalid"} {
		files, _ := filepath.Glob(filepath.Join("testdata", dir, "*.json"))
		for _, file := range files {
			if strings.HasSuffix(file, ".want.json") {
				continue
			}
			data, err := os.ReadFile(file)
			if err != nil {
				f.Fatal(err)
			}
			f.Add(data)
		}
	}
	f.Add([]byte(`{"a/b": {"~": [null, 1e400, -0, "\u0000"]}}`))
	s := mustDefault(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
		if err != nil {
			return
		}
		for _, name := range s.Names() {
			checkViolations(t, name, doc, s.Validate(name, doc))
		}
	})
}

func checkViolations(t *testing.T, name string, doc any, vs []Violation) {
	t.Helper()
	for i, v := range vs {
		if i > 0 {
			prev := vs[i-1]
			if prev.Pointer > v.Pointer || prev == v {
				t.Errorf("%s: violations %d and %d out of order or repeated: %+v, %+v", name, i-1, i, prev, v)
			}
		}
		if v.Keyword == "" || v.Message == "" {
			t.Errorf("%s: empty keyword or message: %+v", name, v)
		}
		if !utf8.ValidString(v.Message) {
			t.Errorf("%s: message is not valid UTF-8: %q", name, v.Message)
		}
		if first, _ := utf8.DecodeRuneInString(v.Message); unicode.IsUpper(first) && !startsWithToken(v) {
			t.Errorf("%s: message starts with a capital: %q", name, v.Message)
		}
		tokens, ok := splitPointer(v.Pointer)
		if !ok {
			t.Errorf("%s: malformed pointer %q", name, v.Pointer)
			continue
		}
		if v.Missing && len(tokens) == 0 {
			t.Errorf("%s: missing member without a name: %+v", name, v)
		} else if v.Missing {
			parent, found := lookup(doc, tokens[:len(tokens)-1])
			obj, isObj := parent.(map[string]any)
			if _, present := obj[tokens[len(tokens)-1]]; !found || !isObj || present {
				t.Errorf("%s: missing member %q: parent found=%v object=%v member present=%v", name, v.Pointer, found, isObj, present)
			}
		} else if _, found := lookup(doc, tokens); !found && v.Keyword != "additionalProperties" && v.Keyword != "propertyNames" {
			t.Errorf("%s: pointer %q does not lead to a value (%+v)", name, v.Pointer, v)
		}
	}
}

// startsWithToken allows a message that opens with a property name as written
// in the file (G0_planning, T001.red), which may well be capitalised.
func startsWithToken(v Violation) bool {
	tokens, _ := splitPointer(v.Pointer)
	for _, tok := range tokens {
		if tok != "" && (strings.HasPrefix(v.Message, tok) || strings.HasPrefix(v.Message, `"`+tok)) {
			return true
		}
	}
	return false
}

// splitPointer unescapes an RFC 6901 pointer into tokens.
func splitPointer(p string) ([]string, bool) {
	if p == "" {
		return nil, true
	}
	if !strings.HasPrefix(p, "/") {
		return nil, false
	}
	parts := strings.Split(p[1:], "/")
	for i, part := range parts {
		if strings.Contains(strings.ReplaceAll(strings.ReplaceAll(part, "~0", ""), "~1", ""), "~") {
			return nil, false
		}
		parts[i] = strings.ReplaceAll(strings.ReplaceAll(part, "~1", "/"), "~0", "~")
	}
	return parts, true
}

// The fuzz invariants hold for the whole test corpus, so they are checked on
// every plain `go test` run too.
func TestCorpusInvariants(t *testing.T) {
	s := mustDefault(t)
	for _, d := range corpus(t) {
		for _, name := range s.Names() {
			checkViolations(t, name, d.doc, s.Validate(name, d.doc))
		}
	}
}
