package cli

import (
	"errors"
	"fmt"
	"testing"

	"github.com/h3a-check/h3a-check/internal/runner"
)

// TestWithFlag: the runner's option errors are named by the flag that set
// the option, with its value where the error is about it; other errors
// are left as they are.
func TestWithFlag(t *testing.T) {
	staged := &runner.OptionError{Option: runner.OptionStaged, Err: errors.New("reading the index: broken")}
	tests := []struct {
		err  error
		want string
	}{
		{staged, "--staged: reading the index: broken"},
		{&runner.OptionError{Option: runner.OptionBase, Value: "main", Err: errors.New("runs is not inside a git work tree")}, "--base main: runs is not inside a git work tree"},
		{&runner.OptionError{Option: runner.OptionChanged, Err: errors.New("listing the files changed since abc: gone")}, "--changed: listing the files changed since abc: gone"},
		{&runner.OptionError{Option: runner.OptionReports, Value: "r.json", Err: errors.New("the report is inside the run x")}, "--output r.json: the report is inside the run x"},
		{fmt.Errorf("cannot read runs/a: %w", staged), "--staged: cannot read runs/a: reading the index: broken"},
		{errors.New("no run found"), "no run found"},
	}
	for _, tt := range tests {
		if got := withFlag(tt.err).Error(); got != tt.want {
			t.Errorf("withFlag(%q) = %q, want %q", tt.err, got, tt.want)
		}
	}
}
