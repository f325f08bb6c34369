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
// The audits are encoded one at a time, so the memory a report takes does not
// grow with the number of runs beyond the audits themselves; the bytes are
// those of encoding the whole document at once ("audits" sorts first).
func JSON(w io.Writer, in *Input, _ Options) error {
	bw := bufio.NewWriter(w)
	bw.WriteString("{\n  \"audits\": [")
	for i, a := range in.Audits {
		b, err := MarshalSorted(a)
		if err != nil {
			return err
		}
		if i > 0 {
			bw.WriteString(",")
		}
		bw.WriteString("\n    ")
		var ind bytes.Buffer
		if err := json.Indent(&ind, bytes.TrimSpace(b), "    ", "  "); err != nil {
			return err
		}
		bw.Write(ind.Bytes())
	}
	if len(in.Audits) > 0 {
		bw.WriteString("\n  ")
	}
	bw.WriteString("],\n")
	// The rest of the document, with its opening brace dropped.
	rest, err := MarshalSorted(map[string]any{"gate": in.Gate, "tool": in.Tool})
	if err != nil {
		return err
	}
	bw.Write(bytes.TrimPrefix(rest, []byte("{\n")))
	return bw.Flush()
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
