package jsonpos

import (
	"bytes"
	"strings"
	"unicode/utf8"
)

// Position returns where the value at pointer starts (its first byte: `{`,
// `[`, `"`, a digit or "-", `t`, `f`, `n`). If the pointer does not resolve,
// it returns the position of the deepest ancestor that does, and
// exact=false; a malformed pointer resolves to the root, inexactly.
// The pointer index is built on first use (one extra scan of Data) and
// cached; Position is safe for concurrent use.
func (d *Document) Position(pointer string) (line, col int, exact bool) {
	n, exact := d.resolve(pointer)
	if n < 0 {
		return 1, 1, false
	}
	v := &d.index.nodes[n]
	return v.line, v.col, exact
}

// KeyPosition returns where the member name of pointer starts (the opening
// quote of the name) for an object member; for array elements and the root
// it is the same as Position. An unresolved pointer gives the deepest
// ancestor that resolves, as in Position.
func (d *Document) KeyPosition(pointer string) (line, col int, exact bool) {
	n, exact := d.resolve(pointer)
	if n < 0 {
		return 1, 1, false
	}
	v := &d.index.nodes[n]
	if v.nameLine > 0 {
		return v.nameLine, v.nameCol, exact
	}
	return v.line, v.col, exact
}

// resolve returns the index node of the deepest value on the way to
// pointer, and whether that value is the one pointer names; -1 if Data
// holds no value at all.
func (d *Document) resolve(pointer string) (int, bool) {
	if d == nil {
		return -1, false
	}
	d.indexOnce.Do(func() { d.index = buildIndex(d.Data) })
	x := d.index
	if len(x.nodes) == 0 {
		return -1, false
	}
	if pointer == "" {
		return 0, true
	}
	if pointer[0] != '/' {
		return 0, false
	}
	n := 0
	rest := pointer[1:]
	for {
		seg, tail, more := strings.Cut(rest, "/")
		tok, ok := unescapeToken(seg)
		if !ok {
			return n, false
		}
		child := x.child(n, tok)
		if child < 0 {
			return n, false
		}
		n = child
		if !more {
			return n, true
		}
		rest = tail
	}
}

// pointerIndex mirrors the document's tree: one node per value, in the
// order values start, with each container's children stored contiguously.
type pointerIndex struct {
	data     []byte
	nodes    []indexNode
	children []int
}

type indexNode struct {
	line, col          int
	nameLine, nameCol  int // 0 unless the value is an object member
	nameStart, nameEnd int // the raw member name, between its quotes
	namePlain          bool
	kind               byte // '{', '[' or 0 for anything else
	first, count       int  // children[first : first+count]
	byName             map[string]int
}

// Objects with more members than this get a map from name to child, so that
// looking up every member of a wide object stays linear.
const wideObject = 16

func (x *pointerIndex) child(n int, tok string) int {
	v := &x.nodes[n]
	switch v.kind {
	case '[':
		i, ok := arrayIndex(tok)
		if !ok || i >= v.count {
			return -1
		}
		return x.children[v.first+i]
	case '{':
		if v.byName != nil {
			if c, ok := v.byName[tok]; ok {
				return c
			}
			return -1
		}
		// Backwards, because of duplicate names the later member wins.
		for k := v.first + v.count - 1; k >= v.first; k-- {
			if c := x.children[k]; x.nameIs(c, tok) {
				return c
			}
		}
	}
	return -1
}

func (x *pointerIndex) nameIs(n int, tok string) bool {
	v := &x.nodes[n]
	if v.namePlain {
		return string(x.data[v.nameStart:v.nameEnd]) == tok
	}
	return nameOf(x.data, v) == tok
}

// nameOf returns the decoded member name of v.
func nameOf(data []byte, v *indexNode) string {
	if v.namePlain {
		return string(data[v.nameStart:v.nameEnd])
	}
	decoded, _ := appendString(nil, data, v.nameStart)
	return string(decoded)
}

// arrayIndex parses an RFC 6901 array index: "0" or digits without a
// leading zero. "-" (past the end) never names an existing element.
func arrayIndex(tok string) (int, bool) {
	if tok == "" || len(tok) > 9 || (len(tok) > 1 && tok[0] == '0') {
		return 0, false
	}
	i := 0
	for k := 0; k < len(tok); k++ {
		if !isDigit(tok[k]) {
			return 0, false
		}
		i = i*10 + int(tok[k]-'0')
	}
	return i, true
}

// buildIndex scans data once more, recording where every value and member
// name starts. Data from Parse is valid; anything else is indexed as far as
// it makes sense and never causes a panic.
func buildIndex(data []byte) *pointerIndex {
	// Every value but the first follows a ",", "[" or ":", so counting them
	// bounds the number of nodes (strings may hold some too) and spares
	// growing the slice again and again.
	values := 1 + bytes.Count(data, []byte(",")) + bytes.Count(data, []byte("[")) + bytes.Count(data, []byte(":"))
	b := indexBuilder{data: data, lines: newLineCounter(data), nodes: make([]indexNode, 0, values)}
	if bytes.HasPrefix(data, utf8BOM) {
		b.pos = len(utf8BOM)
	}
	b.skipSpace()
	if b.pos < len(data) {
		b.value(1)
	}
	return &pointerIndex{data: data, nodes: b.nodes, children: b.children}
}

type indexBuilder struct {
	data     []byte
	pos      int
	lines    lineCounter
	nodes    []indexNode
	children []int
	open     []int // children of the open containers, as one stack
	broken   bool
}

func (b *indexBuilder) skipSpace() {
	for b.pos < len(b.data) {
		switch b.data[b.pos] {
		case ' ', '\t', '\n', '\r':
			b.pos++
		default:
			return
		}
	}
}

// value records the value at b.pos and returns its node, or -1 if there is
// none.
func (b *indexBuilder) value(depth int) int {
	if b.pos >= len(b.data) || depth > MaxDepth {
		b.broken = true
		return -1
	}
	n := len(b.nodes)
	line, col := b.lines.advance(b.pos)
	b.nodes = append(b.nodes, indexNode{line: line, col: col})
	switch c := b.data[b.pos]; c {
	case '{', '[':
		b.nodes[n].kind = c
		b.pos++
		mark := len(b.open)
		b.members(c == '{', depth)
		first := len(b.children)
		b.children = append(b.children, b.open[mark:]...)
		b.open = b.open[:mark]
		count := len(b.children) - first
		b.nodes[n].first, b.nodes[n].count = first, count
		if c == '{' && count > wideObject {
			byName := make(map[string]int, count)
			for _, child := range b.children[first:] {
				byName[nameOf(b.data, &b.nodes[child])] = child
			}
			b.nodes[n].byName = byName
		}
	case '"':
		end := skipString(b.data, b.pos)
		if end < 0 {
			b.broken = true
			end = len(b.data)
		}
		b.pos = end
	default:
		start := b.pos
		for b.pos < len(b.data) && !endsScalar(b.data[b.pos]) {
			b.pos++
		}
		if b.pos == start { // no value here at all
			b.broken = true
			b.nodes = b.nodes[:n]
			return -1
		}
	}
	return n
}

// members records the elements or members of the container just opened,
// up to and including its closing bracket.
func (b *indexBuilder) members(object bool, depth int) {
	closer := byte(']')
	if object {
		closer = '}'
	}
	for !b.broken {
		b.skipSpace()
		if b.pos >= len(b.data) {
			b.broken = true
			return
		}
		if b.data[b.pos] == closer {
			b.pos++
			return
		}
		var named indexNode
		if object {
			if b.data[b.pos] != '"' {
				b.broken = true
				return
			}
			named.nameLine, named.nameCol = b.lines.advance(b.pos)
			end := skipString(b.data, b.pos)
			if end < 0 {
				b.broken = true
				return
			}
			named.nameStart, named.nameEnd = b.pos+1, end-1
			raw := b.data[named.nameStart:named.nameEnd]
			named.namePlain = bytes.IndexByte(raw, '\\') < 0 && utf8.Valid(raw)
			b.pos = end
			b.skipSpace()
			if b.pos >= len(b.data) || b.data[b.pos] != ':' {
				b.broken = true
				return
			}
			b.pos++
			b.skipSpace()
		}
		child := b.value(depth + 1)
		if child < 0 {
			return
		}
		if object {
			v := &b.nodes[child]
			v.nameLine, v.nameCol = named.nameLine, named.nameCol
			v.nameStart, v.nameEnd, v.namePlain = named.nameStart, named.nameEnd, named.namePlain
		}
		b.open = append(b.open, child)
		b.skipSpace()
		if b.pos < len(b.data) && b.data[b.pos] == ',' {
			b.pos++
		}
	}
}

func endsScalar(c byte) bool {
	switch c {
	case ' ', '\t', '\n', '\r', ',', ']', '}', ':':
		return true
	}
	return false
}
