package schema

import (
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// errKind names what a verror reports.
type errKind uint8

const (
	// eGroup holds the errors of one schema (or one $ref, allOf, ...) that
	// failed in several ways; only its causes are reported.
	eGroup errKind = iota
	eFalse
	eInvalidJSON
	eType
	eConst
	eEnum
	eFormat
	eRequired
	eAdditionalProperties
	ePropertyNames
	eMinLength
	eMaxLength
	ePattern
	eMinimum
	eMaximum
	eExclusiveMinimum
	eExclusiveMaximum
	eAnyOf      // no alternative matched; causes: one per alternative
	eOneOf      // no alternative matched; causes: one per alternative
	eOneOfTwice // two alternatives matched
)

var kindKeyword = [...]string{
	eGroup: "schema", eFalse: "false", eInvalidJSON: "type", eType: "type", eConst: "const",
	eEnum: "enum", eFormat: "format", eRequired: "required",
	eAdditionalProperties: "additionalProperties", ePropertyNames: "propertyNames",
	eMinLength: "minLength", eMaxLength: "maxLength", ePattern: "pattern",
	eMinimum: "minimum", eMaximum: "maximum", eExclusiveMinimum: "exclusiveMinimum",
	eExclusiveMaximum: "exclusiveMaximum", eAnyOf: "anyOf", eOneOf: "oneOf", eOneOfTwice: "oneOf",
}

// verror is one failure of a value against a schema, with the failures it
// consists of. The tree has the shape a full JSON Schema implementation
// gives: an alternative (anyOf, oneOf) that failed holds one cause per
// alternative, which is what the messages are chosen from.
type verror struct {
	kind errKind
	at   []string // instance location, unescaped tokens
	// expected is the failing schema's x-expected phrase.
	expected string
	// names: the missing members (required), the unexpected ones
	// (additionalProperties), the rejected one (propertyNames), the wanted
	// types (type).
	names []string
	// want: the const value, the enum values ([]any), the format name, the
	// pattern source, the bound (*big.Rat).
	want any
	// got: a string's length; the first alternative matched (eOneOfTwice).
	got, got2 int
	// value: the value that is not JSON (eInvalidJSON).
	value  any
	causes []*verror
}

// validate checks v, found at at, against n. When only is set the caller
// wants only to know whether v is valid, and any error will do.
func (n *node) validate(v any, at []string, only bool) *verror {
	if n.isBool {
		if n.boolValue {
			return nil
		}
		return n.fail(eFalse, at)
	}
	t, e := n.validateValue(v, at)
	if e != nil {
		return e
	}
	var errs []*verror
	add := func(e *verror) bool {
		if e != nil {
			errs = append(errs, e)
		}
		return only && len(errs) > 0
	}
	if n.ref != nil && add(n.ref.validate(v, at, only)) {
		return errs[0]
	}
	if n.validateMembers(v, t, at, only, add) {
		return errs[0]
	}
	if n.allOf != nil && add(n.validateAllOf(v, at, only)) ||
		n.anyOf != nil && add(n.validateAnyOf(v, at, only)) ||
		n.oneOf != nil && add(n.validateOneOf(v, at, only)) ||
		n.ifN != nil && add(n.validateIf(v, at, only)) {
		return errs[0]
	}
	switch len(errs) {
	case 0:
		return nil
	case 1:
		return errs[0]
	}
	e = n.fail(eGroup, at)
	e.causes = errs
	return e
}

// validateValue checks what stops the validation of v at its first
// failure, as the keywords that judge the value as a whole do: type,
// const, enum and format. It returns v's JSON type.
func (n *node) validateValue(v any, at []string) (typeSet, *verror) {
	t, ok := typeOf(v)
	if !ok {
		e := n.fail(eInvalidJSON, at)
		e.value = v
		return t, e
	}
	if n.types != 0 && n.types&t == 0 && !(n.types&tInteger != 0 && t == tNumber && isInteger(v)) {
		e := n.fail(eType, at)
		e.names = n.types.names()
		return t, e
	}
	if n.hasConst {
		if eq, bad := equals(v, n.constV); bad != nil {
			return t, invalidJSON(n, at, bad)
		} else if !eq {
			e := n.fail(eConst, at)
			e.want = n.constV
			return t, e
		}
	}
	if n.enum != nil {
		matched := false
		for _, item := range n.enum {
			eq, bad := equals(v, item)
			if bad != nil {
				return t, invalidJSON(n, at, bad)
			}
			if eq {
				matched = true
				break
			}
		}
		if !matched {
			e := n.fail(eEnum, at)
			e.want = n.enum
			return t, e
		}
	}
	if n.format != "" {
		if s, ok := v.(string); ok && !validFormat(n.format, s) {
			e := n.fail(eFormat, at)
			e.want = n.format
			return t, e
		}
	}
	return t, nil
}

// validateMembers checks what the keywords of v's own type say: an
// object's members, an array's items, a string's length and pattern, a
// number's bounds. It reports whether the caller may stop.
func (n *node) validateMembers(v any, t typeSet, at []string, only bool, add func(*verror) bool) bool {
	switch v := v.(type) {
	case map[string]any:
		return n.validateObject(v, at, only, add)
	case []any:
		if n.items != nil {
			for i, item := range v {
				if add(n.items.validate(item, child(at, strconv.Itoa(i)), only)) {
					return true
				}
			}
		}
	case string:
		return n.validateString(v, at, add)
	default:
		return t == tNumber && n.validateNumber(v, at, add)
	}
	return false
}

// validateAllOf is the group of the allOf branches v fails, or nil.
func (n *node) validateAllOf(v any, at []string, only bool) *verror {
	var failed []*verror
	for _, sub := range n.allOf {
		if e := sub.validate(v, at, only); e != nil {
			failed = append(failed, e)
			if only {
				break
			}
		}
	}
	if failed == nil {
		return nil
	}
	e := n.fail(eGroup, at)
	e.causes = failed
	return e
}

// validateAnyOf is nil when v passes one anyOf branch, else the failure
// of each.
func (n *node) validateAnyOf(v any, at []string, only bool) *verror {
	var failed []*verror
	for _, sub := range n.anyOf {
		e := sub.validate(v, at, only)
		if e == nil {
			return nil
		}
		failed = append(failed, e)
	}
	e := n.fail(eAnyOf, at)
	e.causes = failed
	return e
}

// validateOneOf is nil when v passes exactly one oneOf branch; when it
// passes two, the first two are named; when none, the failure of each.
func (n *node) validateOneOf(v any, at []string, only bool) *verror {
	matched := -1
	var failed []*verror
	for i, sub := range n.oneOf {
		if e := sub.validate(v, at, only || matched != -1); e != nil {
			if matched == -1 {
				failed = append(failed, e)
			}
		} else if matched == -1 {
			matched = i
		} else {
			e := n.fail(eOneOfTwice, at)
			e.got, e.got2 = matched, i
			return e
		}
	}
	if matched != -1 {
		return nil
	}
	e := n.fail(eOneOf, at)
	e.causes = failed
	return e
}

// validateIf is then's failure when v passes if, else else's.
func (n *node) validateIf(v any, at []string, only bool) *verror {
	if n.ifN.validate(v, at, true) == nil {
		if n.thenN != nil {
			return n.thenN.validate(v, at, only)
		}
		return nil
	}
	if n.elseN != nil {
		return n.elseN.validate(v, at, only)
	}
	return nil
}

func (n *node) fail(k errKind, at []string) *verror {
	return &verror{kind: k, at: at, expected: n.expected}
}

func invalidJSON(n *node, at []string, value any) *verror {
	e := n.fail(eInvalidJSON, at)
	e.value = value
	return e
}

// validateObject reports whether the caller may stop (only is set and an
// error was found).
func (n *node) validateObject(obj map[string]any, at []string, only bool, add func(*verror) bool) bool {
	if n.required != nil {
		var missing []string
		for _, name := range n.required {
			if _, ok := obj[name]; !ok {
				missing = append(missing, name)
			}
		}
		if missing != nil {
			e := n.fail(eRequired, at)
			e.names = missing
			if add(e) {
				return true
			}
		}
	}
	if n.properties != nil || n.additional != nil {
		var unexpected []string
		for name, value := range obj {
			if p, ok := n.properties[name]; ok {
				if add(p.validate(value, child(at, name), only)) {
					return true
				}
				continue
			}
			switch a := n.additional; {
			case a == nil:
			case a.isBool:
				if !a.boolValue {
					unexpected = append(unexpected, name)
				}
			default:
				if add(a.validate(value, child(at, name), only)) {
					return true
				}
			}
		}
		if unexpected != nil {
			e := n.fail(eAdditionalProperties, at)
			e.names = unexpected
			if add(e) {
				return true
			}
		}
	}
	if n.propertyNames != nil {
		for name := range obj {
			if n.propertyNames.validate(name, nil, true) != nil {
				e := n.fail(ePropertyNames, at)
				e.names = []string{name}
				if add(e) {
					return true
				}
			}
		}
	}
	return false
}

func (n *node) validateString(s string, at []string, add func(*verror) bool) bool {
	if n.minLength != nil || n.maxLength != nil {
		length := utf8.RuneCountInString(s)
		if n.minLength != nil && length < *n.minLength {
			e := n.fail(eMinLength, at)
			e.got, e.want = length, *n.minLength
			if add(e) {
				return true
			}
		}
		if n.maxLength != nil && length > *n.maxLength {
			e := n.fail(eMaxLength, at)
			e.got, e.want = length, *n.maxLength
			if add(e) {
				return true
			}
		}
	}
	if n.pattern != nil && !n.pattern.MatchString(s) {
		e := n.fail(ePattern, at)
		e.want = n.pattern.String()
		if add(e) {
			return true
		}
	}
	return false
}

func (n *node) validateNumber(v any, at []string, add func(*verror) bool) bool {
	if n.minimum == nil && n.maximum == nil && n.exclMin == nil && n.exclMax == nil {
		return false
	}
	num, ok := rat(v)
	if !ok {
		return false
	}
	bounds := []struct {
		k     errKind
		bound *big.Rat
		fails func(c int) bool
	}{
		{eMinimum, n.minimum, func(c int) bool { return c < 0 }},
		{eMaximum, n.maximum, func(c int) bool { return c > 0 }},
		{eExclusiveMinimum, n.exclMin, func(c int) bool { return c <= 0 }},
		{eExclusiveMaximum, n.exclMax, func(c int) bool { return c >= 0 }},
	}
	for _, b := range bounds {
		if b.bound != nil && b.fails(num.Cmp(b.bound)) {
			e := n.fail(b.k, at)
			e.want = b.bound
			if add(e) {
				return true
			}
		}
	}
	return false
}

// typeOf returns the JSON type of a JSON data model value (every number is a
// number; integer is decided by isInteger), or false for anything else.
func typeOf(v any) (typeSet, bool) {
	switch v := v.(type) {
	case nil:
		return tNull, true
	case bool:
		return tBoolean, true
	case string:
		return tString, true
	case []any:
		return tArray, true
	case map[string]any:
		return tObject, true
	case float64:
		return tNumber, !math.IsNaN(v) && !math.IsInf(v, 0)
	case float32:
		return tNumber, !math.IsNaN(float64(v)) && !math.IsInf(float64(v), 0)
	case json.Number, int, int8, int16, int32, int64, uint, uint8, uint16, uint32, uint64:
		return tNumber, true
	}
	return 0, false
}

// rat returns a number's exact value.
func rat(v any) (*big.Rat, bool) {
	s, ok := v.(json.Number)
	if !ok {
		return new(big.Rat).SetString(fmt.Sprint(v))
	}
	return new(big.Rat).SetString(string(s))
}

// isInteger reports whether a number has no fractional part: 1.0 and 1e2 are
// integers, as JSON Schema counts them.
func isInteger(v any) bool {
	if s, ok := v.(json.Number); ok && isDigits(strings.TrimPrefix(string(s), "-")) {
		return true
	}
	r, ok := rat(v)
	return ok && r.IsInt()
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// equals compares two JSON values as JSON Schema does: numbers by value,
// objects regardless of member order. A value that is not JSON is returned
// as bad.
func equals(a, b any) (eq bool, bad any) {
	switch a := a.(type) {
	case map[string]any:
		bm, ok := b.(map[string]any)
		if !ok || len(a) != len(bm) {
			return false, nil
		}
		for k, av := range a {
			bv, ok := bm[k]
			if !ok {
				return false, nil
			}
			if eq, bad := equals(av, bv); !eq || bad != nil {
				return eq, bad
			}
		}
		return true, nil
	case []any:
		bl, ok := b.([]any)
		if !ok || len(a) != len(bl) {
			return false, nil
		}
		for i := range a {
			if eq, bad := equals(a[i], bl[i]); !eq || bad != nil {
				return eq, bad
			}
		}
		return true, nil
	case nil:
		return b == nil, nil
	case bool:
		bb, ok := b.(bool)
		return ok && a == bb, nil
	case string:
		bs, ok := b.(string)
		return ok && a == bs, nil
	case json.Number, float32, float64, int, int8, int16, int32, int64, uint, uint8, uint16, uint32, uint64:
		if t, ok := typeOf(b); !ok || t != tNumber {
			return false, nil
		}
		ra, ok1 := rat(a)
		rb, ok2 := rat(b)
		return ok1 && ok2 && ra.Cmp(rb) == 0, nil
	}
	return false, a
}

// validFormat checks the formats of supportedFormats (RFC 3339 full-date
// and date-time; a leap second only at 23:59 UTC).
func validFormat(format, s string) bool {
	switch format {
	case "date":
		return validDate(s)
	case "date-time":
		return len(s) >= 20 && (s[10] == 't' || s[10] == 'T') && validDate(s[:10]) && validTime(s[11:])
	}
	return false
}

func validDate(s string) bool {
	_, err := time.Parse("2006-01-02", s)
	return err == nil
}

// validTime checks an RFC 3339 full-time: hh:mm:ss[.frac](Z|±hh:mm).
func validTime(str string) bool {
	if len(str) < 9 || str[2] != ':' || str[5] != ':' {
		return false
	}
	var hms [3]int
	for i, tok := range strings.SplitN(str[:8], ":", 3) {
		v, err := strconv.Atoi(tok)
		if err != nil || v < 0 {
			return false
		}
		hms[i] = v
	}
	h, m, sec := hms[0], hms[1], hms[2]
	if h > 23 || m > 59 || sec > 60 {
		return false
	}
	str = str[8:]
	if rem, ok := strings.CutPrefix(str, "."); ok {
		digits := 0
		for digits < len(rem) && rem[digits] >= '0' && rem[digits] <= '9' {
			digits++
		}
		if digits == 0 {
			return false
		}
		str = rem[digits:]
	}
	if str != "z" && str != "Z" {
		if len(str) != 6 {
			return false
		}
		var sign int
		switch str[0] {
		case '+':
			sign = -1
		case '-':
			sign = +1
		default:
			return false
		}
		str = str[1:]
		if str[2] != ':' {
			return false
		}
		var zhm [2]int
		for i, tok := range strings.SplitN(str, ":", 2) {
			v, err := strconv.Atoi(tok)
			if err != nil || v < 0 {
				return false
			}
			zhm[i] = v
		}
		if zhm[0] > 23 || zhm[1] > 59 {
			return false
		}
		hm := (h*60 + m) + sign*(zhm[0]*60+zhm[1])
		if hm < 0 {
			hm += 24 * 60
		}
		h, m = hm/60, hm%60
	}
	return sec < 60 || h == 23 && m == 59
}
