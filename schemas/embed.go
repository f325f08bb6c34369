// Package schemas holds the JSON Schemas (draft 2020-12) of the documents in an
// H3A run directory. Each file's $id is
// https://github.com/h3a-check/h3a-check/schemas/<file name>, so cross-file
// references such as "defs.schema.json#/$defs/runId" resolve among the embedded
// files without any file-system or network access.
package schemas

import "embed"

// FS holds every *.schema.json file of this directory.
//
//go:embed *.schema.json
var FS embed.FS
