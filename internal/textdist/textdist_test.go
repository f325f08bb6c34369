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

func TestNearest(t *testing.T) {
	tests := []struct {
		word       string
		candidates []string
		want       string
		ok         bool
	}{
		{"PASSED", []string{"pass", "passed", "failed"}, "passed", true},
		{"passed", []string{"pass", "fail"}, "pass", true},
		{"in-progress", []string{"in_progress", "pending"}, "in_progress", true},
		{"taskId", []string{"task_id", "agent"}, "task_id", true},
		{"stauts", []string{"status"}, "status", true},
		{"tset", []string{"rules", "test"}, "test", true},
		{"gaol", []string{"goal", "gate"}, "goal", true},
		{"tsta", []string{"test"}, "", false},
		{"G1", []string{"G0_planning", "G1_implementation"}, "G1_implementation", true},
		{"G", []string{"G0_planning", "G1_implementation"}, "", false},
		{"done", []string{"pending", "passed", "failed"}, "", false},
		{"cmd", []string{"command"}, "", false},
		{"", []string{"a"}, "", false},
	}
	for _, tt := range tests {
		got, ok := Nearest(tt.word, tt.candidates)
		if got != tt.want || ok != tt.ok {
			t.Errorf("Nearest(%q, %q) = %q, %v; want %q, %v", tt.word, tt.candidates, got, ok, tt.want, tt.ok)
		}
	}
}
