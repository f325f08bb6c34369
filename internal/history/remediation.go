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

// Restore fills in remediation for the file or run at target (relative to
// dir, the run's folder as reports name it, or to the folder holding runs)
// at base commit: checkout names it from the working directory, show from
// the repository's top level (repoDir being dir from there). With no dir
// the text is left as it is.
func Restore(remediation, commit, dir, repoDir, target string) string {
	if dir == "" || !strings.Contains(remediation, "BASE") {
		return remediation
	}
	local := filepath.Join(dir, filepath.FromSlash(target))
	return strings.NewReplacer(
		checkoutPlaceholder, "git checkout "+commit+" -- "+shellQuote(local),
		checkoutDirPlaceholder, "git checkout "+commit+" -- "+shellQuote(local),
		showPlaceholder, "git show "+shellQuote(commit+":"+path.Join(repoDir, target)),
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
