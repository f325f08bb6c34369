// Package jsonpos decodes a JSON text once and answers, for any RFC 6901 JSON
// pointer, the line and column where that value (or its member name) starts.
//
// Schema errors and policy findings name pointers; this package turns them
// into file:line:col. It is strict RFC 8259 and, unlike encoding/json, reports
// the things a reader of a hand-edited or machine-written state file needs to
// know: duplicate member names, a byte order mark, invalid UTF-8, and syntax
// errors with the exact position and what was expected there.
//
// Positions are 1-based. A column counts Unicode code points from the start
// of the line; only LF ends a line, so a CR before LF belongs to the line it
// ends. A leading byte order mark is invisible to columns (editors hide it),
// while Problem.Offset stays a raw byte offset into Document.Data.
package jsonpos

import (
	"fmt"
	"sync"
)

// MaxDepth is the deepest nesting of arrays and objects Parse accepts. Real
// state files nest a handful of levels; the limit keeps recursion bounded.
const MaxDepth = 1000

// Document is one parsed JSON text. Value holds the JSON data model exactly as
// encoding/json with UseNumber would produce it: nil, bool, json.Number, string,
// []any, map[string]any. Data is the input as given (a BOM, if any, included).
type Document struct {
	Value any
	Data  []byte
	// Values counts the values Value holds (itself, and every element and
	// member value within).
	Values int

	// The pointer index costs a second scan, and most documents never need
	// a position, so it is built on the first Position or KeyPosition call.
	indexOnce sync.Once
	index     *pointerIndex
}

// ProblemKind classifies a Problem.
type ProblemKind int

const (
	// Syntax is fatal: unexpected token, unterminated string, bad number,
	// bad escape, control character in a string, empty input.
	Syntax ProblemKind = iota
	// TrailingData is fatal: non-whitespace after the top-level value.
	TrailingData
	// TooDeep is fatal: nesting deeper than MaxDepth.
	TooDeep
	// DuplicateKey is not fatal: the later member wins, as in encoding/json.
	DuplicateKey
	// BOM is not fatal: a leading UTF-8 byte order mark, skipped.
	BOM
	// InvalidUTF8 is not fatal: invalid UTF-8 inside a string, replaced
	// with U+FFFD as encoding/json does. Outside strings any such byte is
	// already a Syntax problem.
	InvalidUTF8
	// TooManyValues is fatal: the document holds more values than the
	// reader was allowed to build (ParseLimit).
	TooManyValues
	// NumberRange is not fatal: a whole number that an int64 cannot hold,
	// kept as written.
	NumberRange

	numProblemKinds // keep last
)

var problemKindNames = [...]string{
	Syntax:        "syntax",
	TrailingData:  "trailing-data",
	TooDeep:       "too-deep",
	DuplicateKey:  "duplicate-key",
	BOM:           "bom",
	InvalidUTF8:   "invalid-utf8",
	TooManyValues: "too-many-values",
	NumberRange:   "number-range",
}

// String returns the kind's stable name, as used in reports.
func (k ProblemKind) String() string {
	if k >= 0 && int(k) < len(problemKindNames) {
		return problemKindNames[k]
	}
	return fmt.Sprintf("problem-kind-%d", int(k))
}

// Fatal reports whether a problem of this kind leaves no usable document.
func (k ProblemKind) Fatal() bool {
	return k == Syntax || k == TrailingData || k == TooDeep || k == TooManyValues
}

// Problem is one thing wrong with a JSON text.
type Problem struct {
	Kind    ProblemKind
	Offset  int    // byte offset into Data
	Line    int    // 1-based
	Column  int    // 1-based, code points
	Pointer string // pointer of the value concerned, when known ("" = root); for DuplicateKey the member's pointer
	Message string // lower-case and concrete; says what was found and what was expected
}
