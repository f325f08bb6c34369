package report

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"slices"
)

// JSON prints {"audits": [...], "gate": ..., "tool": ...} with keys sorted
// at every level, two-space indentation and a final newline, so the same
// results always give the same bytes.
//
// The audits are encoded one at a time (jsonStream), so the memory a
// report takes does not grow with the number of runs beyond the audits
// themselves.
func JSON(w io.Writer, in *Input, _ Options) error {
	return writeAll(&jsonStream{bw: bufio.NewWriter(w), tool: in.Tool}, in)
}

// MarshalSorted encodes v as indented JSON with object keys sorted at every
// level (struct fields too) and a final newline. HTML characters are left
// as they are; what Escape shows escaped is written as \u escapes
// (SafeJSON).
func MarshalSorted(v any) ([]byte, error) {
	b, err := appendMarshalSorted(nil, v, "")
	if err != nil {
		return nil, err
	}
	return SafeJSON(append(b, '\n')), nil
}

// appendMarshalSorted appends v as encoding/json encodes it, with keys
// sorted and indented as appendSorted writes them, every line after the
// first starting with prefix.
func appendMarshalSorted(dst []byte, v any, prefix string) ([]byte, error) {
	raw, err := encode(v)
	if err != nil {
		return dst, err
	}
	return appendSorted(slices.Grow(dst, 2*len(raw)), bytes.TrimSpace(raw), prefix)
}

// encode is encoding/json's compact encoding of v, HTML characters left as
// they are.
func encode(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
