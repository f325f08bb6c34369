package report

import (
	"bytes"
	"encoding/json"
	"io"
)

// JSON prints {"audits": [...], "gate": ..., "tool": ...} with keys sorted
// at every level, two-space indentation and a final newline, so the same
// results always give the same bytes.
func JSON(w io.Writer, in *Input, _ Options) error {
	doc := map[string]any{"tool": in.Tool, "gate": in.Gate, "audits": in.Audits}
	b, err := MarshalSorted(doc)
	if err != nil {
		return err
	}
	_, err = w.Write(b)
	return err
}

// MarshalSorted encodes v as indented JSON with object keys sorted: struct
// fields are re-encoded through a generic value, whose maps encoding/json
// sorts. HTML characters are left as they are.
func MarshalSorted(v any) ([]byte, error) {
	raw, err := encode(v, false)
	if err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var generic any
	if err := dec.Decode(&generic); err != nil {
		return nil, err
	}
	return encode(generic, true)
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
