package report

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
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
	raw, err := encode(v, false)
	if err != nil {
		return nil, err
	}
	b, err := appendSorted(make([]byte, 0, len(raw)*2), bytes.TrimSpace(raw), "")
	if err != nil {
		return nil, err
	}
	return SafeJSON(append(b, '\n')), nil
}

func encode(v any, indent bool) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if indent {
		enc.SetIndent("", "  ")
	}
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
