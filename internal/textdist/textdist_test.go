package textdist

import (
	"strings"
	"testing"
)

func TestLevenshtein(t *testing.T) {
	tests := []struct {
		a, b string
		want int
	}{
		{"", "", 0},
		{"waivers", "waiver", 1},
		{"hsitory", "history", 2},
		{"pass", "passed", 2},
		{"kitten", "sitting", 3},
		{"énoncé", "enonce", 2}, // runes, not bytes
		{"abc", "", 3},
		{"status", "stauts", 2},
		{"≥95", "≤95", 1},
		{strings.Repeat("a", MaxRunes+1), "a", MaxRunes + 1},
	}
	for _, tc := range tests {
		if got := Levenshtein(tc.a, tc.b); got != tc.want {
			t.Errorf("Levenshtein(%q, %q) = %d, want %d", tc.a, tc.b, got, tc.want)
		}
	}
}
