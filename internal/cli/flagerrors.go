package cli

import (
	"errors"
	"fmt"

	"github.com/h3a-check/h3a-check/internal/gitrev"
	"github.com/h3a-check/h3a-check/internal/runner"
	"github.com/h3a-check/h3a-check/internal/trust"
	"github.com/h3a-check/h3a-check/internal/trusted"
)

// optionFlags are the flags that set each runner option.
var optionFlags = map[runner.Option]string{
	runner.OptionStaged:  "--staged",
	runner.OptionChanged: "--changed",
	runner.OptionBase:    "--base",
	runner.OptionReports: "--output",
}

// withFlags adds what only the command line knows to an error of a lower
// package: the flag whose request could not be met ("--base main: runs is
// not inside a git work tree", "--policy DIR: ..."), and how to name a revision where naming
// one is the fix ("...; pass --base <sha> to say what to compare with").
// The lower packages say what went wrong without naming flags.
func withFlags(err error) error {
	var de *trusted.PolicyDirError
	if errors.As(err, &de) {
		err = fmt.Errorf("--policy %s: %w", de.Dir, de.Err)
	}
	var re *gitrev.RemedyError
	if errors.As(err, &re) {
		// Callers wrap errors by prefixing context, so the remedy still
		// ends the message, as git's own words did.
		switch re.Remedy {
		case gitrev.NameTheBase:
			err = fmt.Errorf("%w; pass --base <sha> to say what to compare with", err)
		case gitrev.NameTheTarget:
			err = fmt.Errorf("%w or pass --base <sha> naming the commit the change is to land on", err)
		case gitrev.NameInFull:
			err = fmt.Errorf("%w (e.g. --base %s, or a commit's full name)", err, re.Example)
		}
	}
	var oe *runner.OptionError
	if errors.As(err, &oe) {
		name := optionFlags[oe.Option]
		if name == "" {
			name = string(oe.Option)
		}
		if oe.Value != "" {
			name += " " + oe.Value
		}
		err = fmt.Errorf("%s: %w", name, err)
	}
	return err
}

// trustReasons words why the trust boundary reads the rules where it does
// by the flags that asked for it (base is --base), for the audit's
// sources and the text report.
func trustReasons(base string) func(trust.Why) string {
	return func(w trust.Why) string {
		switch w {
		case trust.WhyTrusted:
			return "--trust-working-tree"
		case trust.WhyBase:
			return "--base " + base + " was given"
		case trust.WhyLocal:
			return "not in CI and no --base given: the working tree is your own"
		}
		return ""
	}
}
