// Package yamlpos reads a YAML document into the JSON data model the rest
// of the checker uses (objects, arrays, strings, json.Number, bools, null)
// and keeps, for every JSON pointer into it, the line and column where the
// value starts, so YAML findings are located like JSON ones.
//
// It is strict where YAML is lax in ways that change meaning: a duplicate
// key is a problem (the later value wins, as in the JSON reader), a key that
// is not a scalar is a syntax problem, and aliases are expanded only up to a
// bound so that a small file cannot expand into a huge value: the values
// built, the bytes of their keys and strings, and the share of them that
// aliases make are all bounded, and positions are kept only for the nodes
// written in the file (a value an alias repeats is located at the alias).
package yamlpos

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"

	"gopkg.in/yaml.v3"

	"github.com/h3a-check/h3a-check/internal/jsonpos"
)

// MaxNodes bounds the values built, aliases included.
const MaxNodes = 1 << 20

// Expanded keys and strings may hold at most bytesPerInputByte times the
// document's size, plus minExpandedBytes: aliases share the strings they
// repeat, but whatever writes the value out (the parse command, a report)
// does not.
const (
	bytesPerInputByte = 16
	minExpandedBytes  = 1 << 20
)

// The share of the values built that may come from aliases, as yaml.v3
// allows when it decodes into Go values (decode.go, allowedAliasRatio):
// almost all of a small document, a tenth of a large one.
const (
	aliasRatioLow       = 400_000
	aliasRatioHigh      = 4_000_000
	aliasRatioRangeSize = aliasRatioHigh - aliasRatioLow
)

func allowedAliasRatio(values int) float64 {
	switch {
	case values <= aliasRatioLow:
		return 0.99
	case values >= aliasRatioHigh:
		return 0.10
	}
	return 0.99 - 0.89*(float64(values-aliasRatioLow)/aliasRatioRangeSize)
}

// MaxDepth bounds nesting, as jsonpos.MaxDepth does for JSON.
const MaxDepth = jsonpos.MaxDepth

// Document is a parsed YAML document.
type Document struct {
	Value any
	Data  []byte
	// Values counts the values Value holds, those aliases repeat included.
	Values int
	pos    map[string][2]int // pointer → line, column (1-based)
}

// Position returns where the value at pointer starts. When the pointer
// names nothing, the nearest existing ancestor is given and exact is false.
func (d *Document) Position(pointer string) (line, col int, exact bool) {
	p := pointer
	for {
		if lc, ok := d.pos[p]; ok {
			return lc[0], lc[1], p == pointer
		}
		if p == "" {
			return 1, 1, false
		}
		i := strings.LastIndexByte(p, '/')
		if i < 0 {
			p = ""
		} else {
			p = p[:i]
		}
	}
}

var errorLine = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`line (\d+)`) })

// Parse reads the first document of data. It returns nil and a fatal
// problem when data is not YAML; non-fatal problems (duplicate keys)
// accompany a usable document.
func Parse(data []byte) (*Document, []jsonpos.Problem) {
	return ParseLimit(data, MaxNodes)
}

// ParseLimit is Parse building at most maxValues values (and never more
// than MaxNodes): past them, or past the bounds on expanded bytes and on
// aliasing, the document is one jsonpos.TooManyValues problem at the node
// where the bound was crossed.
func ParseLimit(data []byte, maxValues int) (*Document, []jsonpos.Problem) {
	// yaml.v3 builds the whole tree of nodes before any bound here applies,
	// about 200 bytes a node: a 16 MB flow list of small numbers took 1.6 GB.
	// A value of the budget is worth two such nodes (a mapping's key is a
	// node of its own), so a document that could hold more nodes than that
	// is refused before yaml.v3 reads it.
	limit := min(maxValues, MaxNodes)
	if most := nodesAtMost(data); most > 2*limit+2 {
		return nil, []jsonpos.Problem{{Kind: jsonpos.TooManyValues, Line: 1, Column: 1,
			Message: fmt.Sprintf("the document's punctuation allows up to %d yaml nodes, more than the %d values it may hold here leave room for while it is read", most, limit)}}
	}
	var root yaml.Node
	dec := yaml.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&root); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, []jsonpos.Problem{{Kind: jsonpos.Syntax, Line: 1, Column: 1, Message: "empty document; expected a yaml mapping or sequence"}}
		}
		return nil, []jsonpos.Problem{syntaxProblem(err, "invalid yaml: ")}
	}
	b := &builder{pos: map[string][2]int{}, maxNodes: min(maxValues, MaxNodes), maxBytes: bytesPerInputByte*len(data) + minExpandedBytes}
	node := &root
	if node.Kind == yaml.DocumentNode && len(node.Content) > 0 {
		node = node.Content[0]
	}
	v := b.value(node, "", 0)
	if b.fatal != nil {
		return nil, append(b.problems, *b.fatal)
	}
	return &Document{Value: v, Data: data, Values: b.nodes, pos: b.pos}, append(b.problems, rest(dec)...)
}

// nodesAtMost bounds the nodes yaml.v3 builds for data from above, in one
// pass over its bytes: every node after the first is introduced by a line
// break, a ',' (flow), a ':' (a mapping's value), a '-' (a sequence entry),
// a '*' (an alias) or a '?' (a complex key), and a flow collection's '['
// or '{' both starts a node and may hold one more before its first ','.
// Comment lines introduce none and are skipped; text inside quotes and
// block scalars is counted, so the bound is loose only for documents of
// prose.
func nodesAtMost(data []byte) int {
	n := 2 // the document node and its content
	lineStart, comment := true, false
	for _, c := range data {
		switch {
		case c == '\n':
			if !lineStart && !comment {
				n++ // a line with content ends
			}
			lineStart, comment = true, false
			continue
		case comment:
			continue
		case lineStart && (c == ' ' || c == '\t' || c == '\r'):
			continue
		case lineStart && c == '#':
			comment = true
			continue
		}
		lineStart = false
		switch c {
		case ',', ':', '-', '*', '?':
			n++
		case '[', '{':
			n += 2
		}
	}
	return n
}

// syntaxProblem is yaml.v3's error err at the line it names, its message
// after prefix.
func syntaxProblem(err error, prefix string) jsonpos.Problem {
	line := 1
	if m := errorLine().FindStringSubmatch(err.Error()); m != nil {
		line, _ = strconv.Atoi(m[1])
	}
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	msg = errorLine().ReplaceAllString(msg, "")
	msg = strings.TrimLeft(msg, " :")
	return jsonpos.Problem{Kind: jsonpos.Syntax, Line: line, Column: 1, Message: prefix + msg}
}

// rest reports what follows the first document: nothing, or a problem at
// the second document. Only the first is read, so anything after it would
// be content no check sees; even an empty one ("---" at the end) is
// reported, as the configuration reader does, since the file then holds
// two documents.
func rest(dec *yaml.Decoder) []jsonpos.Problem {
	var next yaml.Node
	err := dec.Decode(&next)
	switch {
	case errors.Is(err, io.EOF):
		return nil
	case err != nil:
		return []jsonpos.Problem{syntaxProblem(err, "invalid yaml after the first document: ")}
	default:
		return []jsonpos.Problem{{Kind: jsonpos.Syntax, Line: next.Line, Column: 1,
			Message: "a second yaml document starts here; the file must hold exactly one, since only the first is read"}}
	}
}

type builder struct {
	pos      map[string][2]int
	nodes    int // values built
	aliased  int // of those, the ones built inside an alias's expansion
	bytes    int // bytes of the keys and strings built
	maxNodes int
	maxBytes int
	// alias is the pointer of the alias being expanded, "" outside one:
	// inside, no pointer is built and no position kept, since the nodes
	// are the anchor's, already located and checked where it is written.
	alias     string
	aliasNode *yaml.Node
	inAlias   bool
	problems  []jsonpos.Problem
	fatal     *jsonpos.Problem
}

// tooMuch fails the document once what it expands to passes a bound.
func (b *builder) tooMuch(n *yaml.Node, ptr string) bool {
	var why string
	switch {
	case b.nodes > b.maxNodes:
		why = fmt.Sprintf("the document expands to more than %d values, the most it may hold here", b.maxNodes)
	case b.bytes > b.maxBytes:
		why = fmt.Sprintf("the document's keys and strings expand to more than %d bytes (%d times its size, plus 1 MiB)", b.maxBytes, bytesPerInputByte)
	case b.aliased > 100 && b.nodes > 1000 && float64(b.aliased)/float64(b.nodes) > allowedAliasRatio(b.nodes):
		why = fmt.Sprintf("aliases make %d of the %d values built, more than a plain document repeats", b.aliased, b.nodes)
	default:
		return false
	}
	if b.inAlias {
		n = b.aliasNode // where the repetition is written
	}
	b.fail(n, ptr, jsonpos.TooManyValues, "%s; expected a plain document (are aliases repeating one another?)", why)
	return true
}

func (b *builder) fail(n *yaml.Node, ptr string, kind jsonpos.ProblemKind, format string, args ...any) any {
	if b.fatal == nil {
		b.fatal = &jsonpos.Problem{Kind: kind, Line: n.Line, Column: max(n.Column, 1), Pointer: ptr, Message: fmt.Sprintf(format, args...)}
	}
	return nil
}

func (b *builder) value(n *yaml.Node, ptr string, depth int) any {
	if b.fatal != nil {
		return nil
	}
	if b.inAlias {
		ptr = b.alias
		b.aliased++
	}
	b.nodes++
	if b.tooMuch(n, ptr) {
		return nil
	}
	if depth > MaxDepth {
		return b.fail(n, ptr, jsonpos.TooDeep, "nesting deeper than %d levels", MaxDepth)
	}
	if _, seen := b.pos[ptr]; !seen && !b.inAlias {
		b.pos[ptr] = [2]int{max(n.Line, 1), max(n.Column, 1)}
	}
	switch n.Kind {
	case yaml.AliasNode:
		if n.Alias == nil {
			return nil
		}
		if b.inAlias {
			return b.value(n.Alias, ptr, depth+1)
		}
		b.alias, b.aliasNode, b.inAlias = ptr, n, true
		v := b.value(n.Alias, ptr, depth+1)
		b.alias, b.aliasNode, b.inAlias = "", nil, false
		return v
	case yaml.MappingNode:
		m := make(map[string]any, len(n.Content)/2)
		first := map[string]*yaml.Node{}
		var merges [][2]*yaml.Node // merge key and value, in order
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			if k.Kind != yaml.ScalarNode {
				return b.fail(k, ptr, jsonpos.Syntax, "a mapping key is not a scalar; expected a plain key")
			}
			if isMerge(k) {
				merges = append(merges, [2]*yaml.Node{k, v})
				continue
			}
			b.bytes += len(k.Value)
			child := ptr
			if !b.inAlias {
				child = ptr + "/" + escape(k.Value)
			}
			if prev, dup := first[k.Value]; dup && !b.inAlias {
				b.problems = append(b.problems, jsonpos.Problem{Kind: jsonpos.DuplicateKey, Line: k.Line, Column: k.Column, Pointer: child,
					Message: fmt.Sprintf("duplicate key %q (first at line %d, column %d); the later value wins in most readers", k.Value, prev.Line, prev.Column)})
				delete(b.pos, child) // positions follow the value that wins
			}
			first[k.Value] = k
			m[k.Value] = b.value(v, child, depth+1)
		}
		if !b.inAlias {
			b.lookalikes(n, ptr)
		}
		merged := map[string]bool{}
		for _, kv := range merges {
			b.merge(m, first, merged, kv[0], kv[1], ptr, depth)
		}
		return m
	case yaml.SequenceNode:
		arr := make([]any, 0, len(n.Content))
		for i, c := range n.Content {
			child := ptr
			if !b.inAlias {
				child = ptr + "/" + strconv.Itoa(i)
			}
			arr = append(arr, b.value(c, child, depth+1))
		}
		return arr
	case yaml.ScalarNode:
		b.bytes += len(n.Value)
		return scalar(n)
	}
	return nil
}

// lookalikes reports each key of the mapping n (at ptr) that differs from
// an earlier key only by characters that show as nothing (a zero-width
// space, say): a reader sees the same key twice and takes the later value,
// while every reader of the data holds two keys. A key written twice is a
// duplicate, reported as one.
func (b *builder) lookalikes(n *yaml.Node, ptr string) {
	first := map[string]*yaml.Node{} // by the key as shown
	written := map[string]bool{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k := n.Content[i]
		if k.Kind != yaml.ScalarNode || isMerge(k) || written[k.Value] {
			continue
		}
		written[k.Value] = true
		shown := jsonpos.ShownName(k.Value)
		prev, seen := first[shown]
		if !seen {
			first[shown] = k
			continue
		}
		b.problems = append(b.problems, jsonpos.Problem{Kind: jsonpos.DuplicateKey, Line: k.Line, Column: k.Column, Pointer: ptr + "/" + escape(k.Value),
			Message: fmt.Sprintf("key %q shows as %q%s, as the key %q does (first at line %d, column %d): a reader sees one key written twice, while readers of the data hold two different keys", k.Value, shown, jsonpos.DrawnLike(k.Value), prev.Value, prev.Line, prev.Column)})
	}
}

// isMerge reports whether k is a merge key: a plain "<<" (a quoted one is
// an ordinary key), as yaml.v3 and other readers take it.
func isMerge(k *yaml.Node) bool {
	return k.Kind == yaml.ScalarNode && k.Value == "<<" && k.ShortTag() == "!!merge"
}

// merge adds to m, the mapping being built at ptr, the keys that the merge
// key k brings in with its value v (a mapping, an alias of one, or a list
// of those), as YAML readers do: a key the mapping writes itself keeps its
// own value. Readers disagree on which of two merged mappings wins a key
// both hold, so that is a duplicate key, as two keys of one mapping are; the
// first is kept. own holds the keys written in the mapping, merged those
// merged into it so far.
func (b *builder) merge(m map[string]any, own map[string]*yaml.Node, merged map[string]bool, k, v *yaml.Node, ptr string, depth int) {
	sources := []*yaml.Node{v}
	if v.Kind == yaml.SequenceNode {
		sources = v.Content
	}
	for _, src := range sources {
		target := src
		if src.Kind == yaml.AliasNode {
			target = src.Alias
		}
		if target == nil || target.Kind != yaml.MappingNode {
			b.fail(src, ptr, jsonpos.Syntax, "a merge key (<<) takes a mapping, an alias of one, or a list of those; expected a mapping")
			return
		}
		value, ok := b.value(src, ptr, depth+1).(map[string]any)
		if !ok || b.fatal != nil {
			return
		}
		keys := slices.Sorted(maps.Keys(value))
		for _, name := range keys {
			if _, written := own[name]; written {
				continue // the mapping's own key wins
			}
			if merged[name] {
				if !b.inAlias {
					b.problems = append(b.problems, jsonpos.Problem{Kind: jsonpos.DuplicateKey, Line: src.Line, Column: max(src.Column, 1), Pointer: ptr + "/" + escape(name),
						Message: fmt.Sprintf("duplicate key %q: two mappings merged at line %d, column %d (<<) hold it, and readers disagree on which wins", name, k.Line, k.Column)})
				}
				continue
			}
			merged[name] = true
			m[name] = value[name]
		}
	}
}

// scalar resolves a scalar by its tag as YAML 1.2's core schema does, into
// the JSON model: numbers stay exact as json.Number.
func scalar(n *yaml.Node) any {
	switch n.ShortTag() {
	case "!!null":
		return nil
	case "!!bool":
		var v bool
		if n.Decode(&v) == nil {
			return v
		}
	case "!!int":
		var v int64
		if n.Decode(&v) == nil {
			return json.Number(strconv.FormatInt(v, 10))
		}
	case "!!float":
		var v float64
		if n.Decode(&v) == nil && !math.IsInf(v, 0) && !math.IsNaN(v) {
			return json.Number(strconv.FormatFloat(v, 'g', -1, 64))
		}
	}
	return n.Value
}

func escape(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1")
}
