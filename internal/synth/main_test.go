package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestRun(t *testing.T) {
	out := t.TempDir()
	tests := []struct {
		name   string
		args   []string
		code   int
		output string
	}{
		{"writes runs", []string{"-runs", "2", "-artifacts", "6", "-size", "10", "-out", out}, 0, "wrote 2 runs (0 broken)"},
		{"no out", []string{"-runs", "2"}, 2, "expected -out DIR"},
		{"stray argument", []string{"-out", out, "extra"}, 2, "expected -out DIR"},
		{"bad option", []string{"-out", out, "-artifacts", "1"}, 1, "at least 6"},
		{"unknown flag", []string{"-out", out, "-nope"}, 2, "flag provided but not defined"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := run(tc.args, &stdout, &stderr)
			if code != tc.code {
				t.Fatalf("exit %d, want %d; stderr %s", code, tc.code, stderr.String())
			}
			if got := stdout.String() + stderr.String(); !strings.Contains(got, tc.output) {
				t.Errorf("output %q does not mention %q", got, tc.output)
			}
		})
	}
	ents, err := os.ReadDir(filepath.Join(out, "runs"))
	if err != nil || len(ents) != 2 {
		t.Errorf("runs/ holds %d entries (%v), want 2", len(ents), err)
	}
}
