package rundir

import (
	"github.com/h3a-check/h3a-check/internal/jsonpos"
	"github.com/h3a-check/h3a-check/internal/yamlpos"
)

// Document is one file a layout names, as loaded from a run.
type Document struct {
	Path    string // relative to the run, slash-separated
	Present bool   // the file exists and was read
	Data    []byte // raw bytes, nil unless Present
	SHA256  string // hex digest of Data
	// Parsed is true when the document parsed without a fatal problem; only
	// then is the field of its kind set: JSON, Lines, YAML or Ledger.
	Parsed bool
	JSON   *jsonpos.Document // JSON documents
	Lines  *jsonpos.Lines    // JSON Lines documents
	YAML   *yamlpos.Document // YAML documents
	Ledger any               // Markdown ledgers, as their parser returns them
	// SchemaValid is meaningful only when Parsed and the layout names a schema.
	SchemaValid bool
}

// Value is the decoded data of a structured document (JSON, JSON Lines or
// YAML), nil for anything else or when it did not parse.
func (d *Document) Value() any {
	switch {
	case d == nil || !d.Parsed:
		return nil
	case d.JSON != nil:
		return d.JSON.Value
	case d.Lines != nil:
		return d.Lines.Value
	case d.YAML != nil:
		return d.YAML.Value
	}
	return nil
}

// Position maps a JSON pointer into the document to a line and column;
// ok is false when the document has no positions to give.
func (d *Document) Position(pointer string) (line, col int, ok bool) {
	switch {
	case d == nil:
		return 0, 0, false
	case d.JSON != nil:
		line, col, _ = d.JSON.Position(pointer)
		return line, col, true
	case d.Lines != nil:
		line, col, _ = d.Lines.Position(pointer)
		return line, col, true
	case d.YAML != nil:
		line, col, _ = d.YAML.Position(pointer)
		return line, col, true
	}
	return 0, 0, false
}
