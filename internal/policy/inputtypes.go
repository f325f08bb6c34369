package policy

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"maps"
	"path"
	"slices"
	"strings"
	"sync"

	"github.com/open-policy-agent/opa/v1/ast"

	"github.com/h3a-check/h3a-check/internal/textdist"
	"github.com/h3a-check/h3a-check/schemas"
)

// The policy input is typed by the input schemas of the layouts
// (schemas/input.<layout>.schema.json). OPA's type checker reads a subset of
// JSON Schema: it follows no reference to another file, ignores what stands
// beside a $ref, knows anyOf but not oneOf, if/then/else or allOf over
// partial schemas, and reads a nullable type as any. typeSchema rewrites an
// input schema into that subset, keeping what matters for typing: which
// fields an object has, and their types. Where an input schema says that a
// value is a document as written ("x-document": "<file>"), the document's
// schema types it, so that a policy reading a field no schema names does
// not compile.
//
// What the type checker cannot check, even so:
//   - the values of maps keyed by path (files, evidence, the hybrid-os
//     families): OPA reads no additionalProperties, so any key is allowed
//     and its value is untyped;
//   - a field read with a key that is not a constant (x[k], object.get):
//     only the ref's constant part is checked.

// SchemaRef is how a policy names the input schema of one layout in a
// METADATA schemas annotation: schema.input.h3a, schema.input["gate-state"].
func SchemaRef(layout string) ast.Ref {
	return ast.Ref{ast.SchemaRootDocument, ast.StringTerm("input"), ast.StringTerm(layout)}
}

// inputTypes are the typed input schemas: every layout's under
// SchemaRef(layout), and as the input of a policy without an annotation
// their union, so that a field is known when some layout's input has it.
type inputTypes struct {
	set     *ast.SchemaSet
	layouts []string
}

var loadInputTypes = sync.OnceValues(func() (*inputTypes, error) {
	return buildInputTypes(schemas.FS)
})

func buildInputTypes(fsys fs.FS) (*inputTypes, error) {
	docs := map[string]map[string]any{}
	names, err := fs.Glob(fsys, "*.schema.json")
	if err != nil {
		return nil, err
	}
	for _, name := range names {
		b, err := fs.ReadFile(fsys, name)
		if err != nil {
			return nil, err
		}
		var doc map[string]any
		if err := json.Unmarshal(b, &doc); err != nil {
			return nil, fmt.Errorf("schemas/%s: %w", name, err)
		}
		docs[name] = doc
	}
	t := &inputTypes{set: ast.NewSchemaSet()}
	var union []any
	for _, name := range names {
		layout, ok := strings.CutPrefix(strings.TrimSuffix(name, ".schema.json"), "input.")
		if !ok {
			continue
		}
		r := &typeResolver{docs: docs}
		typed := r.resolve(docs[name], name, 0)
		if r.err != nil {
			return nil, fmt.Errorf("typing the policy input of layout %s: %w", layout, r.err)
		}
		t.layouts = append(t.layouts, layout)
		t.set.Put(SchemaRef(layout), typed)
		union = append(union, typed)
	}
	if len(union) == 0 {
		return nil, fmt.Errorf("no input.<layout>.schema.json among the schemas")
	}
	t.set.Put(ast.SchemaRootRef, map[string]any{"anyOf": union})
	return t, nil
}

// maxTypeDepth bounds how deep references are followed: a recursive schema
// is typed as any below it.
const maxTypeDepth = 24

type typeResolver struct {
	docs map[string]map[string]any
	err  error
}

// resolve gives the typing form of schema node s, read in file.
func (r *typeResolver) resolve(s any, file string, depth int) map[string]any {
	node, ok := s.(map[string]any)
	if !ok || depth > maxTypeDepth || r.err != nil {
		return map[string]any{} // true, false or too deep: any value
	}
	out := map[string]any{}
	if doc, ok := node["x-document"].(string); ok {
		target, found := r.docs[doc]
		if !found {
			r.err = fmt.Errorf("schemas/%s: x-document %q names no schema file", file, doc)
			return out
		}
		out = merge(out, r.resolve(target, doc, depth+1))
	}
	if ref, ok := node["$ref"].(string); ok {
		target, targetFile := r.lookup(ref, file)
		if r.err != nil {
			return out
		}
		out = merge(out, r.resolve(target, targetFile, depth+1))
	}
	if t, ok := node["type"]; ok {
		out = merge(out, map[string]any{"type": typeOf(t)})
	}
	if props, ok := node["properties"].(map[string]any); ok {
		typed := map[string]any{}
		for k, v := range props {
			typed[k] = r.resolve(v, file, depth+1)
		}
		out = merge(out, map[string]any{"type": "object", "properties": typed})
	}
	if items, ok := node["items"].(map[string]any); ok {
		out = merge(out, map[string]any{"type": "array", "items": r.resolve(items, file, depth+1)})
	}
	// allOf: every part holds, so every part's fields are there; if, then
	// and else: either branch may hold, so both branches' fields may be.
	for _, key := range []string{"allOf"} {
		for _, part := range list(node[key]) {
			out = merge(out, r.resolve(part, file, depth+1))
		}
	}
	for _, key := range []string{"then", "else"} {
		if part, ok := node[key]; ok {
			out = merge(out, r.resolve(part, file, depth+1))
		}
	}
	// anyOf and oneOf alike: the value has one of the shapes. A shape that
	// is only null, or says nothing of types, adds nothing.
	var shapes []any
	for _, key := range []string{"anyOf", "oneOf"} {
		for _, part := range list(node[key]) {
			if typed := r.resolve(part, file, depth+1); informative(typed) {
				shapes = append(shapes, typed)
			}
		}
	}
	switch len(shapes) {
	case 0:
	case 1:
		out = merge(out, shapes[0].(map[string]any))
	default:
		if len(out) == 0 {
			return map[string]any{"anyOf": shapes}
		}
		// A shape beside its own fields: OPA's checker reads them as one
		// union, the fields being one more shape.
		return map[string]any{"anyOf": append(shapes, out)}
	}
	return out
}

// lookup finds the schema a $ref names: "#/$defs/x" in file, or
// "other.schema.json#/$defs/x".
func (r *typeResolver) lookup(ref, file string) (any, string) {
	target, fragment, _ := strings.Cut(ref, "#")
	if target != "" {
		file = path.Base(target)
	}
	doc, ok := r.docs[file]
	if !ok {
		r.err = fmt.Errorf("$ref %q names no schema file", ref)
		return nil, file
	}
	var node any = doc
	for _, tok := range strings.Split(strings.TrimPrefix(fragment, "/"), "/") {
		if tok == "" {
			continue
		}
		tok = strings.NewReplacer("~1", "/", "~0", "~").Replace(tok)
		m, ok := node.(map[string]any)
		if !ok {
			r.err = fmt.Errorf("$ref %q in schemas/%s does not resolve", ref, file)
			return nil, file
		}
		node = m[tok]
	}
	if node == nil {
		r.err = fmt.Errorf("$ref %q in schemas/%s does not resolve", ref, file)
	}
	return node, file
}

// typeOf keeps the first type that is not null: OPA's checker reads a list
// of types as its first known one, and a nullable field is read as the
// value it has when present.
func typeOf(t any) any {
	switch t := t.(type) {
	case string:
		return t
	case []any:
		for _, x := range t {
			if s, ok := x.(string); ok && s != "null" {
				return s
			}
		}
		return "null"
	}
	return nil
}

// informative reports whether a typed shape says anything about types: a
// shape that is only null, or only requires fields, does not.
func informative(s any) bool {
	m, ok := s.(map[string]any)
	if !ok || len(m) == 0 {
		return false
	}
	return m["type"] != "null" || len(m) > 1
}

// merge joins two typing schemas of one value: the fields of both, typed by
// both where both have them.
func merge(a, b map[string]any) map[string]any {
	if len(a) == 0 {
		return b
	}
	if len(b) == 0 {
		return a
	}
	out := maps.Clone(a)
	for k, v := range b {
		cur, ok := out[k]
		switch {
		case !ok:
			out[k] = v
		case k == "properties":
			props := maps.Clone(cur.(map[string]any))
			for name, p := range v.(map[string]any) {
				if q, ok := props[name]; ok {
					props[name] = merge(q.(map[string]any), p.(map[string]any))
				} else {
					props[name] = p
				}
			}
			out[k] = props
		case k == "items":
			out[k] = merge(cur.(map[string]any), v.(map[string]any))
		case k == "type" && cur == "null":
			out[k] = v
		case k == "anyOf":
			out[k] = append(slices.Clone(cur.([]any)), v.([]any)...)
		}
	}
	return out
}

func list(v any) []any {
	l, _ := v.([]any)
	return l
}

// maxKnownFields bounds the list of known fields an unknown-field message
// quotes.
const maxKnownFields = 40

// unknownInputField renders the type checker's "undefined ref" (a field
// the type of a value does not have, most often a value of the input) as
// this checker's message: where the unknown field is written (file, line
// and column of the field itself), the nearest known name, and the known
// ones.
func unknownInputField(e *ast.Error) (string, bool) {
	if name, ok := strings.CutPrefix(e.Message, "undefined schema: "); ok && e.Code == ast.TypeErr && e.Location != nil {
		types, err := loadInputTypes()
		if err != nil {
			return "", false
		}
		refs := make([]string, len(types.layouts))
		for i, l := range types.layouts {
			refs[i] = SchemaRef(l).String()
		}
		return fmt.Sprintf("%s:%d: schemas annotation names %s, which is not a layout's input: expected one of %s (or no annotation: the input of any layout)",
			e.Location.File, e.Location.Row, name, strings.Join(refs, ", ")), true
	}
	d, ok := e.Details.(*ast.RefErrInvalidDetail)
	if !ok || e.Code != ast.TypeErr || d.Have != nil || d.Pos <= 0 || d.Pos >= len(d.Ref) {
		return "", false
	}
	field, ok := d.Ref[d.Pos].Value.(ast.String)
	if !ok {
		return "", false
	}
	loc := e.Location
	if l := d.Ref[d.Pos].Location; l != nil && l.Row > 0 {
		loc = l
	}
	where := "(unknown location)"
	if loc != nil {
		where = fmt.Sprintf("%s:%d:%d", loc.File, loc.Row, loc.Col)
	}
	known := make([]string, 0, len(d.OneOf))
	for _, v := range d.OneOf {
		if s, ok := v.(ast.String); ok {
			known = append(known, string(s))
		}
	}
	// A ref through a variable (some v in input.docs...; v.x) is typed by
	// the input schema just the same.
	what := "unknown field"
	if d.Ref[0].Equal(ast.InputRootDocument) {
		what = "unknown input field"
	}
	msg := fmt.Sprintf("%s: %s %q in %s", where, what, string(field), d.Ref[:d.Pos+1])
	if near, ok := textdist.Nearest(string(field), known); ok {
		msg += fmt.Sprintf(": did you mean %q?", near)
	}
	switch {
	case len(known) == 0:
		msg += " (the schema gives this value no fields)"
	case len(known) <= maxKnownFields:
		msg += " (known here: " + strings.Join(known, ", ") + ")"
	}
	return msg + "; h3a-check parse RUN prints a run's input", true
}
