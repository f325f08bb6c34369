package jsonpos

import (
	"bytes"
	"encoding/json"
	"math"
	"slices"
	"strconv"
	"strings"
)

// Parse decodes data. If any fatal problem occurs, the returned *Document is
// nil and the problems end with that one fatal problem. Otherwise it is
// non-nil and the problems (possibly none) are the non-fatal ones. Problems
// come in order of Offset. Parse never panics and runs in time linear in
// len(data).
func Parse(data []byte) (*Document, []Problem) {
	return ParseLimit(data, math.MaxInt)
}

// ParseLimit is Parse building at most maxValues values:
// past them, the document is a TooManyValues problem, at the value that
// would have been one too many, and no value is kept. A caller bounds so
// what a document may cost in memory, not only its size in bytes.
func ParseLimit(data []byte, maxValues int) (*Document, []Problem) {
	p := parser{data: data, maxValues: maxValues}
	if bytes.HasPrefix(data, utf8BOM) {
		p.report(BOM, 0, "", "the file starts with a utf-8 byte order mark; it was skipped, but many json readers reject it (save the file as utf-8 without a bom)")
		p.pos = len(utf8BOM)
	}
	start := p.pos
	p.skipSpace()
	var value any
	switch {
	case p.pos == len(data) && p.pos == start:
		p.fail(Syntax, p.pos, "", "empty input; expected a json value")
	case p.pos == len(data):
		p.fail(Syntax, p.pos, "", "the input holds only whitespace; expected a json value")
	default:
		value = p.value(siteTop)
	}
	if !p.failed {
		p.skipSpace()
		if p.pos < len(data) {
			p.trailing()
		}
	}
	problems := p.resolve()
	if p.failed {
		return nil, problems
	}
	return &Document{Value: value, Data: data, Values: p.count}, problems
}

// site is where in the grammar the parser stands; it decides what is
// expected next and so what an error message says.
type site int

const (
	siteTop         site = iota // the document's value
	siteArrayFirst              // after "["
	siteArrayNext               // after "," in an array
	siteArrayAfter              // after an array element
	siteObjectFirst             // after "{"
	siteObjectNext              // after "," in an object
	siteColon                   // after a member name
	siteMemberValue             // after ":"
	siteObjectAfter             // after an object member
)

type parser struct {
	data        []byte
	pos         int
	failed      bool
	readingName bool // a string being read is a member name

	frames  []frame  // open containers, outermost first
	values  []any    // elements of the open arrays, shared as one stack
	members []member // members of the open objects, shared as one stack
	buf     []byte   // decoded content of the string being read
	names   map[string]string

	pending []pending
	// listed and unlisted count non-fatal problems per kind, so hostile
	// input cannot grow the problem list without bound.
	listed, unlisted [numProblemKinds]int

	count     int // values read so far
	maxValues int
}

// frame is one open array or object.
type frame struct {
	open   int // offset of "[" or "{"
	object bool
	name   string // member being read (objects)
	index  int    // element being read (arrays)
	mark   int    // where this container's entries start in values or members

	pointer      string // of the container itself, once computed
	pointerKnown bool
}

type member struct {
	name   string
	offset int // of the name's opening quote
	value  any
}

func (p *parser) skipSpace() {
	for p.pos < len(p.data) {
		switch p.data[p.pos] {
		case ' ', '\t', '\n', '\r':
			p.pos++
		default:
			return
		}
	}
}

// value reads one value starting at p.pos, which holds no whitespace.
func (p *parser) value(at site) any {
	if p.pos >= len(p.data) {
		p.unexpected(at)
		return nil
	}
	if p.count++; p.count > p.maxValues {
		p.fail(TooManyValues, p.pos, p.childPointer(),
			"the document expands to more than "+strconv.Itoa(p.maxValues)+" values (objects, arrays, strings, numbers and literals each count), the most it may hold here")
		return nil
	}
	switch c := p.data[p.pos]; c {
	case '{':
		return p.object()
	case '[':
		return p.array()
	case '"':
		content, scan := p.readString()
		if p.failed {
			return nil
		}
		if scan.invalidCount > 0 {
			p.invalidUTF8(scan, "string", p.childPointer())
		}
		return string(content)
	case '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		return p.number()
	case 't':
		return p.literal("true", true)
	case 'f':
		return p.literal("false", false)
	case 'n':
		return p.literal("null", nil)
	}
	p.unexpected(at)
	return nil
}

func (p *parser) array() any {
	if !p.push(false) {
		return nil
	}
	p.pos++
	p.skipSpace()
	if p.pos < len(p.data) && p.data[p.pos] == ']' {
		p.pos++
		p.pop()
		return []any{}
	}
	at := siteArrayFirst
	for {
		v := p.value(at)
		if p.failed {
			return nil
		}
		p.values = append(p.values, v)
		p.frames[len(p.frames)-1].index++
		p.skipSpace()
		if p.pos >= len(p.data) {
			p.unexpected(siteArrayAfter)
			return nil
		}
		switch p.data[p.pos] {
		case ',':
			p.pos++
			p.skipSpace()
			at = siteArrayNext
			continue
		case ']':
			p.pos++
		default:
			p.unexpected(siteArrayAfter)
			return nil
		}
		break
	}
	mark := p.frames[len(p.frames)-1].mark
	elements := slices.Clone(p.values[mark:])
	clear(p.values[mark:]) // let the collector have what the elements hold
	p.values = p.values[:mark]
	p.pop()
	return elements
}

func (p *parser) object() any {
	if !p.push(true) {
		return nil
	}
	p.pos++
	p.skipSpace()
	if p.pos < len(p.data) && p.data[p.pos] == '}' {
		p.pos++
		p.pop()
		return map[string]any{}
	}
	at := siteObjectFirst
	for {
		if p.pos >= len(p.data) || p.data[p.pos] != '"' {
			p.unexpected(at)
			return nil
		}
		nameAt := p.pos
		name := p.memberName()
		if p.failed {
			return nil
		}
		p.frames[len(p.frames)-1].name = name
		p.skipSpace()
		if p.pos >= len(p.data) || p.data[p.pos] != ':' {
			p.unexpected(siteColon)
			return nil
		}
		p.pos++
		p.skipSpace()
		v := p.value(siteMemberValue)
		if p.failed {
			return nil
		}
		p.members = append(p.members, member{name: name, offset: nameAt, value: v})
		p.skipSpace()
		if p.pos >= len(p.data) {
			p.unexpected(siteObjectAfter)
			return nil
		}
		switch p.data[p.pos] {
		case ',':
			p.pos++
			p.skipSpace()
			at = siteObjectNext
			continue
		case '}':
			p.pos++
		default:
			p.unexpected(siteObjectAfter)
			return nil
		}
		break
	}
	mark := p.frames[len(p.frames)-1].mark
	members := p.members[mark:]
	obj := make(map[string]any, len(members))
	// Where each name first appeared is needed only to report a duplicate,
	// so it is collected only once an object turns out to have one.
	var firstAt map[string]int
	for i, m := range members {
		if _, dup := obj[m.name]; dup {
			if firstAt == nil {
				firstAt = make(map[string]int, len(members))
				for _, prev := range members[:i] {
					if _, seen := firstAt[prev.name]; !seen {
						firstAt[prev.name] = prev.offset
					}
				}
			}
			p.duplicate(m, firstAt[m.name])
		} else if firstAt != nil {
			firstAt[m.name] = m.offset
		}
		obj[m.name] = m.value
	}
	p.lookalikes(members)
	clear(members)
	p.members = p.members[:mark]
	p.pop()
	return obj
}

// push opens a container at p.pos; it fails if that would nest too deep.
func (p *parser) push(object bool) bool {
	if len(p.frames) >= MaxDepth {
		kind := "array"
		if object {
			kind = "object"
		}
		p.fail(TooDeep, p.pos, p.childPointer(),
			"nesting deeper than "+strconv.Itoa(MaxDepth)+" levels: this "+kind+" would be level "+strconv.Itoa(len(p.frames)+1))
		return false
	}
	mark := len(p.values)
	if object {
		mark = len(p.members)
	}
	p.frames = append(p.frames, frame{open: p.pos, object: object, mark: mark})
	return true
}

func (p *parser) pop() {
	p.frames[len(p.frames)-1] = frame{}
	p.frames = p.frames[:len(p.frames)-1]
}

// readString reads the string whose opening quote is at p.pos and returns
// its decoded content, which is only valid until the next read.
func (p *parser) readString() ([]byte, stringScan) {
	open := p.pos
	i := open + 1
	for i < len(p.data) && plainStringByte[p.data[i]] {
		i++
	}
	if i < len(p.data) && p.data[i] == '"' {
		p.pos = i + 1
		return p.data[open+1 : i], stringScan{end: i + 1, invalidAt: -1}
	}
	var scan stringScan
	p.buf, scan = appendString(append(p.buf[:0], p.data[open+1:i]...), p.data, i)
	if scan.fault != faultNone {
		p.stringFault(open, scan)
		return nil, scan
	}
	p.pos = scan.end
	return p.buf, scan
}

// memberName reads a member name. Records in an array tend to repeat the
// same names, so names are shared instead of allocated again.
func (p *parser) memberName() string {
	p.readingName = true
	content, scan := p.readString()
	p.readingName = false
	if p.failed {
		return ""
	}
	name, ok := p.names[string(content)]
	if !ok {
		name = string(content)
		if p.names == nil {
			p.names = make(map[string]string)
		}
		if len(p.names) < 4096 && len(name) <= 64 {
			p.names[name] = name
		}
	}
	if scan.invalidCount > 0 {
		p.invalidUTF8(scan, "member name", p.containerPointer(len(p.frames)-1)+"/"+EscapeToken(name))
	}
	return name
}

// number reads a number, keeping its text exactly as written.
func (p *parser) number() any {
	d := p.data
	start := p.pos
	i := start
	if d[i] == '-' {
		i++
	}
	digits := func(after string) bool {
		if i >= len(d) {
			p.truncatedNumber(start, "expected a digit after "+after)
			return false
		}
		if !isDigit(d[i]) {
			p.badNumber(start, i, "expected a digit after "+after+", found "+describe(d, i))
			return false
		}
		for i < len(d) && isDigit(d[i]) {
			i++
		}
		return true
	}
	switch {
	case i < len(d) && d[i] == '0':
		i++
		if i < len(d) && isDigit(d[i]) {
			p.badNumber(start, i, "leading zeros are not allowed")
			return nil
		}
	case !digits(`"-"`):
		return nil
	}
	if i < len(d) && d[i] == '.' {
		i++
		if !digits(`"."`) {
			return nil
		}
	}
	if i < len(d) && (d[i] == 'e' || d[i] == 'E') {
		after := `"` + string(d[i]) + `"`
		i++
		if i < len(d) && (d[i] == '+' || d[i] == '-') {
			after = `"` + string(d[i-1:i+1]) + `"`
			i++
		}
		if !digits(after) {
			return nil
		}
	}
	if !inRange(d[start:i]) {
		p.fail(Syntax, start, p.childPointer(), "number "+quote(numberText(d, start))+
			" is out of the range the checker can evaluate (a magnitude between 1e-30000 and 1e30000, or 0)")
		return nil
	}
	if wholeBeyondInt64(d[start:i]) {
		p.report(NumberRange, start, p.childPointer(), "number "+quote(numberText(d, start))+
			" is a whole number beyond a 64-bit integer (-9223372036854775808 to 9223372036854775807): readers disagree on its value (many round it, or refuse it), and the checker reads whole numbers as 64-bit integers, so no rule reads it as a count or an id")
	}
	p.pos = i
	return json.Number(d[start:i])
}

// wholeBeyondInt64 reports whether a well-formed JSON number within
// inRange is a whole number (100, 1e20, 2.50e1) that an int64 cannot
// hold, from its digits alone.
func wholeBeyondInt64(num []byte) bool {
	if len(num) <= 18 && !bytes.ContainsAny(num, ".eE") {
		return false // at most 18 digits
	}
	s := strings.ToLower(string(num))
	neg := strings.HasPrefix(s, "-")
	mantissa, exp, _ := strings.Cut(strings.TrimPrefix(s, "-"), "e")
	intPart, frac, _ := strings.Cut(mantissa, ".")
	digits := intPart + frac
	point := len(intPart) // digits before the decimal point
	if exp != "" {
		e, err := strconv.Atoi(strings.TrimPrefix(exp, "+"))
		if err != nil {
			return false // not within inRange, which refuses it
		}
		point += e
	}
	trimmed := strings.TrimLeft(digits, "0")
	point -= len(digits) - len(trimmed)
	digits = strings.TrimRight(trimmed, "0")
	switch {
	case digits == "":
		return false // zero
	case len(digits) > point:
		return false // a fraction
	case point < 19:
		return false
	case point > 19:
		return true
	}
	limit := "9223372036854775807"
	if neg {
		limit = "9223372036854775808"
	}
	return digits+strings.Repeat("0", point-len(digits)) > limit
}

// maxDecimalExponent bounds the magnitude of a number: the policy engine
// refuses numbers whose binary exponent passes 1e5 (about 10^30103), and a
// run holding one would otherwise fail with no rule evaluated and no file
// named. RFC 8259, section 6, lets a parser limit the range of numbers.
const maxDecimalExponent = 30000

// inRange reports whether a well-formed JSON number's magnitude is zero or
// within 10^±maxDecimalExponent, from its digits alone: no arithmetic on
// the value, so a long number costs its length.
func inRange(num []byte) bool {
	if len(num) <= maxDecimalExponent && !bytes.ContainsAny(num, "eE") {
		return true // no exponent: as many digits as its magnitude at most
	}
	s := strings.TrimPrefix(string(num), "-")
	mantissa, exp, _ := strings.Cut(strings.ToLower(s), "e")
	intPart, frac, _ := strings.Cut(mantissa, ".")
	digits := intPart + frac
	first := strings.IndexFunc(digits, func(r rune) bool { return r != '0' })
	if first < 0 {
		return true // zero, whatever its exponent
	}
	e := 0
	exp = strings.TrimPrefix(exp, "+")
	neg := strings.HasPrefix(exp, "-")
	exp = strings.TrimLeft(strings.TrimPrefix(exp, "-"), "0")
	if len(exp) > 9 {
		return false
	}
	for _, c := range exp {
		e = e*10 + int(c-'0')
	}
	if neg {
		e = -e
	}
	// The value is d.ddd × 10^(position of the first digit + exponent).
	magnitude := len(intPart) - first - 1 + e
	return -maxDecimalExponent <= magnitude && magnitude <= maxDecimalExponent
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

// literal reads true, false or null; value is what it stands for.
func (p *parser) literal(word string, value any) any {
	if bytes.HasPrefix(p.data[p.pos:], []byte(word)) {
		p.pos += len(word)
		return value
	}
	p.badLiteral(word)
	return nil
}

// childPointer is the pointer of the value being read inside the innermost
// open container ("" at the top).
func (p *parser) childPointer() string {
	if len(p.frames) == 0 {
		return ""
	}
	last := len(p.frames) - 1
	return p.containerPointer(last) + "/" + p.frames[last].token()
}

// containerPointer is the pointer of the open container frames[i]; it is
// built once per container, and only when a problem needs it.
func (p *parser) containerPointer(i int) string {
	if i < 0 {
		return ""
	}
	known := i
	for known > 0 && !p.frames[known].pointerKnown {
		known--
	}
	if !p.frames[known].pointerKnown { // known == 0: the root container
		p.frames[0].pointer, p.frames[0].pointerKnown = "", true
	}
	for j := known + 1; j <= i; j++ {
		p.frames[j].pointer = p.frames[j-1].pointer + "/" + p.frames[j-1].token()
		p.frames[j].pointerKnown = true
	}
	return p.frames[i].pointer
}

func (f *frame) token() string {
	if f.object {
		return EscapeToken(f.name)
	}
	return strconv.Itoa(f.index)
}
