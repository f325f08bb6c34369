package schema

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"math/big"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// The schemas are compiled by this package's own small compiler rather than
// a general JSON Schema library: a general library's package initialisation
// and compile (meta-schemas of every draft, meta-validation of each schema)
// cost more than the rest of a typical check. It knows only the part of
// draft 2020-12 the embedded schemas use, listed below; any other keyword in
// a schema is a compile error, so a schema can never be half-applied. The
// tests hold the result to a full implementation (see oracle_test.go).

// annotationKeywords carry no assertion and are accepted anywhere.
var annotationKeywords = []string{
	"$schema", "$id", "$comment", "title", "description", "examples", "default",
	expectedKeyword, "x-document",
}

// draft2020 is the only $schema a schema may name.
const draft2020 = "https://json-schema.org/draft/2020-12/schema"

// supportedFormats are the formats asserted; another "format" is a compile
// error rather than silently unchecked.
var supportedFormats = []string{"date", "date-time"}

// node is one compiled (sub)schema.
type node struct {
	loc string // file#pointer, for compile errors

	isBool    bool // a true or false schema
	boolValue bool

	types    typeSet
	hasConst bool
	constV   any
	enum     []any
	format   string
	ref      *node

	required      []string
	properties    map[string]*node
	additional    *node // additionalProperties; nil when absent
	propertyNames *node
	items         *node

	minLength, maxLength *int
	pattern              *regexp.Regexp
	minimum, maximum     *big.Rat
	exclMin, exclMax     *big.Rat

	allOf, anyOf, oneOf []*node
	ifN, thenN, elseN   *node

	// expected is the schema's x-expected phrase, if any.
	expected string
}

// typeSet is a set of JSON types, one bit each, in the order the types are
// listed when a value has the wrong one.
type typeSet uint8

const (
	tNull typeSet = 1 << iota
	tBoolean
	tNumber
	tInteger
	tString
	tArray
	tObject
)

var typeNames = []struct {
	t    typeSet
	name string
}{
	{tNull, "null"}, {tBoolean, "boolean"}, {tNumber, "number"}, {tInteger, "integer"},
	{tString, "string"}, {tArray, "array"}, {tObject, "object"},
}

func (ts typeSet) names() []string {
	var out []string
	for _, tn := range typeNames {
		if ts&tn.t != 0 {
			out = append(out, tn.name)
		}
	}
	return out
}

func typeNamed(name string) (typeSet, bool) {
	for _, tn := range typeNames {
		if tn.name == name {
			return tn.t, true
		}
	}
	return 0, false
}

// compiler turns schema files into nodes, each file parsed once and each
// location compiled once, so shared definitions are shared. It is safe for
// concurrent use.
type compiler struct {
	fsys fs.FS

	mu    sync.Mutex
	files map[string]any   // parsed schema files by name
	nodes map[string]*node // compiled nodes by file#pointer
}

func newCompiler(fsys fs.FS) *compiler {
	return &compiler{fsys: fsys, files: map[string]any{}, nodes: map[string]*node{}}
}

// compile returns the root node of a schema file.
func (c *compiler) compile(file string) (*node, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	n, err := c.at(file, "")
	if err != nil {
		return nil, fmt.Errorf("compile schema %s: %w", file, err)
	}
	return n, nil
}

// at compiles the subschema of file at the JSON pointer ptr.
func (c *compiler) at(file, ptr string) (*node, error) {
	loc := file + "#" + ptr
	if n, ok := c.nodes[loc]; ok {
		return n, nil
	}
	doc, err := c.file(file)
	if err != nil {
		return nil, err
	}
	raw, err := resolvePointer(doc, ptr)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", loc, err)
	}
	return c.build(loc, file, ptr, raw)
}

// build compiles raw into the node of loc. The node is registered before
// its children are compiled, so a schema that refers to itself (through a
// $ref) gets this node instead of recursing.
func (c *compiler) build(loc, file, ptr string, raw any) (*node, error) {
	n := &node{loc: loc}
	c.nodes[loc] = n
	if err := c.fill(n, file, ptr, raw); err != nil {
		delete(c.nodes, loc)
		return nil, err
	}
	return n, nil
}

func (c *compiler) file(file string) (any, error) {
	if doc, ok := c.files[file]; ok {
		return doc, nil
	}
	data, err := fs.ReadFile(c.fsys, file)
	if err != nil {
		return nil, fmt.Errorf("read schema %s: %w", file, err)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var doc any
	if err := dec.Decode(&doc); err != nil {
		return nil, fmt.Errorf("parse schema %s: %w", file, err)
	}
	if dec.More() {
		return nil, fmt.Errorf("parse schema %s: text after the schema", file)
	}
	if obj, ok := doc.(map[string]any); ok {
		if id, ok := obj["$id"]; ok && id != baseURL+file {
			return nil, fmt.Errorf("schema %s has $id %v, expected %q", file, id, baseURL+file)
		}
	}
	c.files[file] = doc
	// Every definition is compiled with its file, used or not, so that an
	// unsupported keyword anywhere in a file is reported.
	if err := c.compileDefs(file, "", doc); err != nil {
		return nil, err
	}
	return doc, nil
}

func (c *compiler) compileDefs(file, ptr string, raw any) error {
	obj, ok := raw.(map[string]any)
	if !ok {
		return nil
	}
	defs, ok := obj["$defs"].(map[string]any)
	if !ok {
		return nil
	}
	for _, name := range slices.Sorted(mapKeys(defs)) {
		if _, err := c.at(file, ptr+"/$defs/"+escapeToken(name)); err != nil {
			return err
		}
	}
	return nil
}

func mapKeys(m map[string]any) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

// fill compiles the schema value raw found at file#ptr into n.
func (c *compiler) fill(n *node, file, ptr string, raw any) error {
	if b, ok := raw.(bool); ok {
		n.isBool, n.boolValue = true, b
		return nil
	}
	obj, ok := raw.(map[string]any)
	if !ok {
		return fmt.Errorf("%s#%s: a schema must be an object or a boolean, not %s", file, ptr, display(raw))
	}
	sub := func(key string, v any) (*node, error) {
		return c.subschema(file, ptr+"/"+escapeToken(key), v)
	}
	for _, key := range slices.Sorted(mapKeys(obj)) {
		v := obj[key]
		where := fmt.Sprintf("%s#%s/%s", file, ptr, escapeToken(key))
		var err error
		switch key {
		case "$schema":
			if v != draft2020 {
				err = fmt.Errorf("%s: only %s is supported", where, draft2020)
			} else if ptr != "" {
				err = fmt.Errorf("%s: $schema is allowed only at the top of a file", where)
			}
		case "$id":
			if ptr != "" {
				err = fmt.Errorf("%s: $id is allowed only at the top of a file", where)
			}
		case expectedKeyword:
			if s, ok := v.(string); ok {
				n.expected = s
			}
		case "$defs":
			if _, ok := v.(map[string]any); !ok {
				err = fmt.Errorf("%s: must be an object", where)
			}
			// Compiled by compileDefs (at the top) or when referred to.
			if ptr != "" {
				err = cmpOrErr(err, c.compileDefs(file, ptr, obj))
			}
		case "type":
			n.types, err = compileTypes(v, where)
		case "const":
			n.hasConst, n.constV = true, v
		case "enum":
			list, ok := v.([]any)
			if !ok || len(list) == 0 {
				err = fmt.Errorf("%s: must be a non-empty array", where)
			}
			n.enum = list
		case "format":
			s, _ := v.(string)
			if !slices.Contains(supportedFormats, s) {
				err = fmt.Errorf("%s: format %s is not supported (supported: %s)", where, display(v), strings.Join(supportedFormats, ", "))
			}
			n.format = s
		case "$ref":
			s, ok := v.(string)
			if !ok {
				err = fmt.Errorf("%s: must be a string", where)
				break
			}
			n.ref, err = c.reference(file, s)
			if err != nil {
				err = fmt.Errorf("%s: %w", where, err)
			}
		case "required":
			n.required, err = stringList(v, where)
		case "properties":
			props, ok := v.(map[string]any)
			if !ok {
				err = fmt.Errorf("%s: must be an object", where)
				break
			}
			n.properties = make(map[string]*node, len(props))
			for _, name := range slices.Sorted(mapKeys(props)) {
				p, perr := c.subschema(file, ptr+"/properties/"+escapeToken(name), props[name])
				if perr != nil {
					return perr
				}
				n.properties[name] = p
			}
		case "additionalProperties":
			n.additional, err = sub(key, v)
		case "propertyNames":
			n.propertyNames, err = sub(key, v)
		case "items":
			n.items, err = sub(key, v)
		case "minLength":
			n.minLength, err = nonNegative(v, where)
		case "maxLength":
			n.maxLength, err = nonNegative(v, where)
		case "pattern":
			s, ok := v.(string)
			if !ok {
				err = fmt.Errorf("%s: must be a string", where)
				break
			}
			n.pattern, err = regexp.Compile(s)
			if err != nil {
				err = fmt.Errorf("%s: %w", where, err)
			}
		case "minimum":
			n.minimum, err = rational(v, where)
		case "maximum":
			n.maximum, err = rational(v, where)
		case "exclusiveMinimum":
			n.exclMin, err = rational(v, where)
		case "exclusiveMaximum":
			n.exclMax, err = rational(v, where)
		case "allOf", "anyOf", "oneOf":
			list, ok := v.([]any)
			if !ok || len(list) == 0 {
				err = fmt.Errorf("%s: must be a non-empty array", where)
				break
			}
			nodes := make([]*node, len(list))
			for i, item := range list {
				if nodes[i], err = c.subschema(file, ptr+"/"+key+"/"+strconv.Itoa(i), item); err != nil {
					return err
				}
			}
			switch key {
			case "allOf":
				n.allOf = nodes
			case "anyOf":
				n.anyOf = nodes
			default:
				n.oneOf = nodes
			}
		case "if":
			n.ifN, err = sub(key, v)
		case "then":
			n.thenN, err = sub(key, v)
		case "else":
			n.elseN, err = sub(key, v)
		default:
			if !slices.Contains(annotationKeywords, key) {
				err = fmt.Errorf("%s: keyword %q is not supported by h3a-check's schema compiler", where, key)
			}
		}
		if err != nil {
			return err
		}
	}
	return nil
}

func cmpOrErr(a, b error) error {
	if a != nil {
		return a
	}
	return b
}

// subschema compiles an inline subschema, which has its own location.
func (c *compiler) subschema(file, ptr string, raw any) (*node, error) {
	loc := file + "#" + ptr
	if n, ok := c.nodes[loc]; ok {
		return n, nil
	}
	return c.build(loc, file, ptr, raw)
}

// reference resolves a $ref among the files of the set: "#/pointer" within
// the file, "other.schema.json#/pointer" or the same by its full URL. Any
// other reference is an error, so a stray remote $ref is never a download.
func (c *compiler) reference(file, ref string) (*node, error) {
	target, fragment, _ := strings.Cut(ref, "#")
	if target == "" {
		target = file
	} else {
		name := strings.TrimPrefix(target, baseURL)
		if strings.ContainsAny(name, "/:\\") || !strings.HasSuffix(name, fileSuffix) {
			return nil, fmt.Errorf("%s is not an embedded schema: references resolve only among the schemas shipped with h3a-check", ref)
		}
		target = name
	}
	if fragment != "" && !strings.HasPrefix(fragment, "/") || strings.Contains(fragment, "%") {
		return nil, fmt.Errorf("reference %s: only JSON pointer fragments are supported", ref)
	}
	return c.at(target, fragment)
}

// resolvePointer returns the value at an RFC 6901 pointer in doc.
func resolvePointer(doc any, ptr string) (any, error) {
	if ptr == "" {
		return doc, nil
	}
	v := doc
	for _, tok := range strings.Split(ptr[1:], "/") {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		switch n := v.(type) {
		case map[string]any:
			var ok bool
			if v, ok = n[tok]; !ok {
				return nil, fmt.Errorf("no member %q", tok)
			}
		case []any:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(n) {
				return nil, fmt.Errorf("no item %q", tok)
			}
			v = n[i]
		default:
			return nil, fmt.Errorf("nothing at %q", tok)
		}
	}
	return v, nil
}

func compileTypes(v any, where string) (typeSet, error) {
	var names []any
	switch v := v.(type) {
	case string:
		names = []any{v}
	case []any:
		names = v
	}
	if len(names) == 0 {
		return 0, fmt.Errorf("%s: must be a type name or a non-empty array of them", where)
	}
	var ts typeSet
	for _, name := range names {
		s, _ := name.(string)
		t, ok := typeNamed(s)
		if !ok {
			return 0, fmt.Errorf("%s: %s is not a JSON type", where, display(name))
		}
		ts |= t
	}
	return ts, nil
}

func stringList(v any, where string) ([]string, error) {
	list, ok := v.([]any)
	if !ok {
		return nil, fmt.Errorf("%s: must be an array of strings", where)
	}
	out := make([]string, len(list))
	for i, item := range list {
		if out[i], ok = item.(string); !ok {
			return nil, fmt.Errorf("%s: must be an array of strings", where)
		}
	}
	return out, nil
}

func nonNegative(v any, where string) (*int, error) {
	num, ok := v.(json.Number)
	if !ok {
		return nil, fmt.Errorf("%s: must be a non-negative integer", where)
	}
	i, err := strconv.Atoi(string(num))
	if err != nil || i < 0 {
		return nil, fmt.Errorf("%s: must be a non-negative integer", where)
	}
	return &i, nil
}

func rational(v any, where string) (*big.Rat, error) {
	num, ok := v.(json.Number)
	if !ok {
		return nil, fmt.Errorf("%s: must be a number", where)
	}
	r, ok := new(big.Rat).SetString(string(num))
	if !ok {
		return nil, fmt.Errorf("%s: must be a number", where)
	}
	return r, nil
}

// intPtr and ratOf build the bounds of compiled_schemas.go.
func intPtr(i int) *int { return &i }

func ratOf(s string) *big.Rat {
	r, ok := new(big.Rat).SetString(s)
	if !ok {
		panic("compiled schemas: bad number " + s)
	}
	return r
}
