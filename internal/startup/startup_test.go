package startup

import "testing"

// TestFindsConfiguration: the commands that look for the configuration
// start the early lookup (check, also unnamed, config and parse), the
// others start no git.
func TestFindsConfiguration(t *testing.T) {
	tests := []struct {
		args []string
		want bool
	}{
		{nil, true},
		{[]string{"check", "runs"}, true},
		{[]string{"runs/one"}, true},
		{[]string{"--format", "json", "--base", "none", "runs/one"}, true},
		{[]string{"config"}, true},
		{[]string{"parse", "runs/one"}, true},
		{[]string{"version"}, false},
		{[]string{"--version"}, false},
		{[]string{"help"}, false},
		{[]string{"-h"}, false},
		{[]string{"completion", "bash"}, false},
		{[]string{"init"}, false},
		{[]string{"log", "RUN", "FILE", "what"}, false},
		{[]string{"test"}, false},
		{[]string{"rules"}, false},
		{[]string{"explain", "h3a.gates.order"}, false},
		{[]string{"schema"}, false},
	}
	for _, tt := range tests {
		if got := findsConfiguration(tt.args); got != tt.want {
			t.Errorf("findsConfiguration(%q) = %v, want %v", tt.args, got, tt.want)
		}
	}
}
