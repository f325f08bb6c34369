package jsonpos

import (
	"bytes"
	"math"
	"strconv"
)

// Lines is a JSON Lines text: one JSON value per non-blank line. Its Value
// is the array of those values, so a pointer "/3/msg" names the member msg
// of the fourth record, wherever blank lines put it.
type Lines struct {
	Value []any
	Data  []byte
	// Values counts the values of every record.
	Values  int
	records []lineRecord
}

type lineRecord struct {
	line int // 1-based line of the record
	doc  *Document
}

// ParseLines parses every non-blank line as one JSON document. Problems
// carry the line of the record and pointers prefixed with its index. A
// record that fails to parse is left out of Value (its index is not
// reused, so later records keep their index: it stands as nil) and the
// result is still returned: one bad log line must not hide the others.
func ParseLines(data []byte) (*Lines, []Problem) {
	return ParseLinesLimit(data, math.MaxInt)
}

// ParseLinesLimit is ParseLines building at most maxValues values in all;
// past them there is no result, only the record's TooManyValues problem.
func ParseLinesLimit(data []byte, maxValues int) (*Lines, []Problem) {
	l := &Lines{Data: data, Value: []any{}}
	var problems []Problem
	lineNo := 0
	rest := data
	offset := 0
	for len(rest) > 0 {
		lineNo++
		end := bytes.IndexByte(rest, '\n')
		var text []byte
		if end < 0 {
			text, rest = rest, nil
		} else {
			text, rest = rest[:end], rest[end+1:]
		}
		start := offset
		offset += len(text) + 1
		if len(bytes.TrimSpace(text)) == 0 {
			continue
		}
		index := len(l.records)
		doc, ps := ParseLimit(bytes.TrimSuffix(text, []byte("\r")), maxValues-l.Values)
		prefix := "/" + strconv.Itoa(index)
		for _, p := range ps {
			p.Line = lineNo
			p.Offset += start
			p.Pointer = prefix + p.Pointer
			problems = append(problems, p)
			if p.Kind == TooManyValues {
				return nil, problems
			}
		}
		l.records = append(l.records, lineRecord{line: lineNo, doc: doc})
		if doc == nil {
			l.Value = append(l.Value, nil)
			continue
		}
		l.Value = append(l.Value, doc.Value)
		l.Values += doc.Values
	}
	return l, problems
}

// Line returns the 1-based line of record i, or 0.
func (l *Lines) Line(i int) int {
	if i < 0 || i >= len(l.records) {
		return 0
	}
	return l.records[i].line
}

// Position is Document.Position for a pointer into the records.
func (l *Lines) Position(pointer string) (line, col int, exact bool) {
	toks, err := SplitPointer(pointer)
	if err != nil || len(toks) == 0 {
		return 1, 1, pointer == ""
	}
	i, err := strconv.Atoi(toks[0])
	if err != nil || i < 0 || i >= len(l.records) {
		return 1, 1, false
	}
	r := l.records[i]
	if r.doc == nil {
		return r.line, 1, len(toks) == 1
	}
	_, col, exact = r.doc.Position(Pointer(toks[1:]...))
	return r.line, col, exact
}
