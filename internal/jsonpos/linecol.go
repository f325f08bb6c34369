package jsonpos

import (
	"bytes"
	"unicode/utf8"
)

var utf8BOM = []byte{0xEF, 0xBB, 0xBF}

// LineCol converts a byte offset into data to a 1-based line and code-point
// column. Offsets outside data are clamped to it. An offset in the middle of
// a multi-byte character gets that character's column, and a leading BOM
// takes no column, as in an editor.
func LineCol(data []byte, offset int) (line, col int) {
	c := newLineCounter(data)
	return c.advance(offset)
}

// lineCounter turns increasing byte offsets into line and column in time
// linear in the distance covered, so that positions for many offsets cost
// one pass over the data instead of one pass each.
type lineCounter struct {
	data []byte
	off  int // a character boundary at or after the BOM
	line int
	col  int
}

func newLineCounter(data []byte) lineCounter {
	c := lineCounter{data: data, line: 1, col: 1}
	if bytes.HasPrefix(data, utf8BOM) {
		c.off = len(utf8BOM)
	}
	return c
}

// advance moves to offset and returns its line and column. Moving backwards
// is allowed but restarts from the beginning of data.
func (c *lineCounter) advance(offset int) (line, col int) {
	offset = min(max(offset, 0), len(c.data))
	if offset < c.off {
		*c = newLineCounter(c.data)
		if offset < c.off { // inside the BOM
			return 1, 1
		}
	}
	offset = runeStart(c.data, c.off, offset)
	seg := c.data[c.off:offset]
	if nl := bytes.LastIndexByte(seg, '\n'); nl >= 0 {
		c.line += bytes.Count(seg, []byte{'\n'})
		c.col = 1 + utf8.RuneCount(seg[nl+1:])
	} else {
		c.col += utf8.RuneCount(seg)
	}
	c.off = offset
	return c.line, c.col
}

// runeStart returns the start of the character holding the byte at offset,
// decoding as utf8.DecodeRune does from the boundary floor onwards: a
// continuation byte belongs to the character before it only if that
// character's valid encoding reaches it.
func runeStart(data []byte, floor, offset int) int {
	if offset >= len(data) || utf8.RuneStart(data[offset]) {
		return offset
	}
	for back := 1; back < utf8.UTFMax && offset-back >= floor; back++ {
		lead := data[offset-back]
		if !utf8.RuneStart(lead) {
			continue
		}
		if lead >= utf8.RuneSelf {
			if _, size := utf8.DecodeRune(data[offset-back:]); size > back {
				return offset - back
			}
		}
		break
	}
	return offset
}
