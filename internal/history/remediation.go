package history

import (
	"path"
	"path/filepath"
	"strings"
)

// Placeholders of a history rule's remediation, which every finding fills
// in with its own values: "git checkout BASE -- PATH" restores a file,
// "git show BASE:PATH" shows its base version, "git checkout BASE -- DIR"
// restores a run. The rule's own text (explain, SARIF help) keeps them.
const (
	checkoutPlaceholder    = "git checkout BASE -- PATH"
	showPlaceholder        = "git show BASE:PATH"
	checkoutDirPlaceholder = "git checkout BASE -- DIR"
)

// BaseVersion is a file or run as it was at a base commit, named for the
// commands that restore or show it.
type BaseVersion struct {
	Commit string // the base commit, as the commands name it
	// Dir is the run's folder as reports name it, or the folder holding
	// runs; RepoDir is the same folder from the repository's top level.
	Dir, RepoDir string
	Target       string // the file or run, relative to Dir ("" for Dir itself)
}

// FillRestoreCommands fills the placeholders of remediation with the
// commands that restore b or show it: checkout names it from the working
// directory, show from the repository's top level. With no Dir the text is
// left as it is.
func FillRestoreCommands(remediation string, b BaseVersion) string {
	if b.Dir == "" || !strings.Contains(remediation, "BASE") {
		return remediation
	}
	local := filepath.Join(b.Dir, filepath.FromSlash(b.Target))
	return strings.NewReplacer(
		checkoutPlaceholder, "git checkout "+b.Commit+" -- "+shellQuote(local),
		checkoutDirPlaceholder, "git checkout "+b.Commit+" -- "+shellQuote(local),
		showPlaceholder, "git show "+shellQuote(b.Commit+":"+path.Join(b.RepoDir, b.Target)),
	).Replace(remediation)
}

// shellQuote quotes s for a POSIX shell when it holds anything but the
// characters of ordinary paths, so the command can be pasted as it is.
func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._/:@+-") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
