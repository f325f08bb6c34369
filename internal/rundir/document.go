package rundir

import "github.com/h3a-check/h3a-check/internal/jsonpos"

// Document is one file a layout names, as loaded from a run.
type Document struct {
	Path    string // relative to the run, slash-separated
	Present bool   // the file exists and was read
	Data    []byte // raw bytes, nil unless Present
	SHA256  string // hex digest of Data
	// Parsed is true when the document parsed without a fatal problem; only
	// then is JSON (for JSON documents) or Parsed-ledger (for Markdown) set.
	Parsed bool
	JSON   *jsonpos.Document
	Ledger any
	// SchemaValid is meaningful only when Parsed and the layout names a schema.
	SchemaValid bool
}
