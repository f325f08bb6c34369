package jsonpos

import (
	"bytes"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// realWorld holds files copied from other people's repositories; the
// repository sits beside it in the workspace.
const realWorld = "../../../shared/realworld"

// TestRealWorld parses every JSON-ish file (including .txt files that hold
// JSON): no panic, the same verdict as encoding/json, and a broken file's
// problem lies within the file.
func TestRealWorld(t *testing.T) {
	if _, err := os.Stat(realWorld); err != nil {
		t.Skipf("no real-world files at %s: %v", realWorld, err)
	}
	parsed := 0
	err := filepath.WalkDir(realWorld, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		ext := filepath.Ext(path)
		if ext != ".json" && ext != ".txt" {
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if trimmed := bytes.TrimLeft(bytes.TrimPrefix(data, utf8BOM), " \t\r\n"); len(trimmed) == 0 || (trimmed[0] != '{' && trimmed[0] != '[') {
			return nil // prose, not JSON
		}
		parsed++
		doc, problems := Parse(data)
		checkProblems(t, data, doc, problems)
		valid := json.Valid(bytes.TrimPrefix(data, utf8BOM))
		if valid != (doc != nil) {
			t.Errorf("%s: Parse gives a document: %v, encoding/json says valid: %v (%s)", path, doc != nil, valid, formatProblems(problems))
		}
		if doc != nil {
			checkPositions(t, doc)
			return nil
		}
		fatal := problems[len(problems)-1]
		if lines := bytes.Count(data, []byte("\n")) + 1; fatal.Line > lines {
			t.Errorf("%s: problem at line %d, but the file has %d lines", path, fatal.Line, lines)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if parsed < 50 {
		t.Errorf("parsed only %d real-world files; the corpus has more than 50", parsed)
	}
}

// TestRealWorldBroken pins the problems of the known-broken files to the
// lines that hold the mistake.
func TestRealWorldBroken(t *testing.T) {
	if _, err := os.Stat(realWorld); err != nil {
		t.Skipf("no real-world files at %s: %v", realWorld, err)
	}
	tests := []struct {
		path      string
		line, col int
		lineText  string // the offending line, trimmed
		at        byte   // the byte at line:col
		message   string
	}{
		// Of the seven committed versions of this state file, one has a
		// stray "}" that closes an object no one opened.
		{"stigmergy/randy888chan__gaming/history/d4b911957b37329963b96766c48dfe79d67078fc/.ai/state.json", 160, 5, "}, {", '}',
			`unexpected "}" after array element; expected "," or "]" (the array opened at line 141, column 19 is still open)`},
		{"hybrid-ai-os/Rwb3n__worldchef-staging/history/179b926c3186998ca849173e3c2de3afd9de3266/plans/plan_poc1_stage1_setupv2.txt", 3, 38,
			`"id": "plan_poc1_stage1_setup_v2", // Added v2 to indicate revision`, '/',
			`unexpected "/" after ","; expected a quoted member name (comments are not allowed in json)`},
		{"hybrid-ai-os/Rwb3n__cultif/plans/plan_cycle0_webreact_prototype_g112.txt", 7, 104, "", '\\',
			`invalid escape "\'" in string; expected one of \" \\ \/ \b \f \n \r \t \uXXXX (a single quote needs no escape in json)`},
	}
	for _, tt := range tests {
		data, err := os.ReadFile(filepath.Join(realWorld, filepath.FromSlash(tt.path)))
		if err != nil {
			t.Errorf("%s: %v", tt.path, err)
			continue
		}
		doc, problems := Parse(data)
		if doc != nil || len(problems) != 1 {
			t.Errorf("%s: Parse = %v, %s; want one fatal problem", tt.path, doc, formatProblems(problems))
			continue
		}
		p := problems[0]
		if p.Kind != Syntax || p.Line != tt.line || p.Column != tt.col || p.Message != tt.message {
			t.Errorf("%s: got %s at %d:%d %q\nwant syntax at %d:%d %q", tt.path, p.Kind, p.Line, p.Column, p.Message, tt.line, tt.col, tt.message)
		}
		if off, ok := offsetOf(data, p.Line, p.Column); !ok || data[off] != tt.at || off != p.Offset {
			t.Errorf("%s: %d:%d is not the %q at offset %d", tt.path, p.Line, p.Column, tt.at, p.Offset)
		}
		if tt.lineText != "" {
			lines := strings.Split(string(data), "\n")
			if got := strings.TrimSpace(lines[p.Line-1]); got != tt.lineText {
				t.Errorf("%s: line %d reads %q, want %q", tt.path, p.Line, got, tt.lineText)
			}
		}
	}

	// Exactly one version of the gaming state file is broken, the one above.
	versions, _ := filepath.Glob(filepath.Join(realWorld, "stigmergy/randy888chan__gaming/history/*/.ai/state.json"))
	broken := 0
	for _, path := range versions {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if doc, _ := Parse(data); doc == nil {
			broken++
		}
	}
	if len(versions) != 7 || broken != 1 {
		t.Errorf("gaming state.json: %d of %d versions broken, want 1 of 7", broken, len(versions))
	}
}
