// Package startup starts, while the program's packages initialise, the
// work a check begins with that needs none of them: the git process that
// finds the top of the work tree, where the configuration file is looked
// for (gitrev.StartTopLevel). cmd/h3a-check imports it for that alone.
// Its import path sorts before the large packages (OPA's and their
// dependencies), and it needs only gitrev, so Go initialises it early
// (the spec: packages in import-path order, each once its imports are
// initialised); git then runs during the rest of the initialisation,
// a few milliseconds of a one-run check.
package startup

import (
	"os"
	"path/filepath"

	"github.com/h3a-check/h3a-check/internal/gitrev"
)

func init() {
	if !findsConfiguration(os.Args[1:]) {
		return
	}
	wd, err := os.Getwd()
	if err != nil {
		return
	}
	// The folder the configuration lookup asks about: the working
	// directory with symbolic links resolved (trusted.configCandidates,
	// cli.repoRoot). Another folder asks git itself.
	if r, err := filepath.EvalSymlinks(wd); err == nil {
		wd = r
	}
	gitrev.StartTopLevel(wd)
}

// findsConfiguration reports whether the command line runs a command that
// looks for the configuration file: check (also without its name, the
// default), config and parse. The other commands are named here so that
// they start no git; a command missing from this list only starts a git
// process it does not wait for, and a check is answered the same either
// way (TopLevel asks git itself when nothing was started).
func findsConfiguration(args []string) bool {
	if len(args) == 0 {
		return true
	}
	switch args[0] {
	case "init", "log", "test", "rules", "explain", "schema", "completion", "version", "help", "-h", "-help", "--help", "-version", "--version":
		return false
	}
	return true
}
