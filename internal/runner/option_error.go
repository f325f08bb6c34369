package runner

import "fmt"

// Option names a field of Options whose request could not be met.
type Option string

const (
	OptionStaged  Option = "Staged"
	OptionChanged Option = "Changed"
	OptionBase    Option = "Base"
	OptionReports Option = "Reports"
)

// OptionError is an error of what one option asked for. Its text says
// what went wrong, not which option: the caller names the option as its
// user set it (the command line, by its flag and Value).
type OptionError struct {
	Option Option
	Value  string // the option's value the error is about, "" when any
	Err    error
}

func (e *OptionError) Error() string { return e.Err.Error() }
func (e *OptionError) Unwrap() error { return e.Err }

func optionError(o Option, format string, args ...any) error {
	return &OptionError{Option: o, Err: fmt.Errorf(format, args...)}
}
