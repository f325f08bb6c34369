package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"slices"
	"strings"

	"github.com/h3a-check/h3a-check/internal/textdist"
	"github.com/h3a-check/h3a-check/schemas"
)

const schemaSuffix = ".schema.json"

// runSchema lists the JSON Schemas built into the binary, or prints one:
// a release has no schemas/ folder to read them from.
func runSchema(_ context.Context, args []string, e *env) int {
	names, err := schemaNames()
	if err != nil {
		return fail(e, err)
	}
	switch len(args) {
	case 0:
		fmt.Fprintf(e.stdout, "%-28s %s\n", "NAME", "TITLE")
		for _, n := range names {
			fmt.Fprintf(e.stdout, "%-28s %s\n", n, schemaTitle(n))
		}
		fmt.Fprintf(e.stdout, "\n\"%s schema NAME\" prints one.\n", Name)
		return ExitPass
	case 1:
	default:
		return fail(e, usageError{"schema takes at most one NAME"})
	}
	name := strings.TrimSuffix(strings.TrimPrefix(args[0], "schemas/"), schemaSuffix)
	if !slices.Contains(names, name) {
		msg := fmt.Sprintf("no schema %q", args[0])
		if near, ok := textdist.Nearest(name, names); ok {
			msg += fmt.Sprintf("; did you mean %q?", near)
		}
		return fail(e, usageError{msg + " (\"" + Name + " schema\" lists them)"})
	}
	b, err := fs.ReadFile(schemas.FS, name+schemaSuffix)
	if err != nil {
		return fail(e, err)
	}
	if _, err := e.stdout.Write(b); err != nil {
		return fail(e, fmt.Errorf("writing the schema: %w", err))
	}
	return ExitPass
}

// schemaNames are the embedded schemas' file names without .schema.json,
// sorted.
func schemaNames() ([]string, error) {
	files, err := fs.Glob(schemas.FS, "*"+schemaSuffix)
	if err != nil {
		return nil, err
	}
	names := make([]string, len(files))
	for i, f := range files {
		names[i] = strings.TrimSuffix(f, schemaSuffix)
	}
	slices.Sort(names)
	return names, nil
}

func schemaTitle(name string) string {
	b, err := fs.ReadFile(schemas.FS, name+schemaSuffix)
	if err != nil {
		return ""
	}
	var doc struct {
		Title string `json:"title"`
	}
	json.Unmarshal(b, &doc)
	return doc.Title
}
