package cli

import (
	"strings"
	"testing"

	"github.com/h3a-check/h3a-check/internal/config"
	"github.com/h3a-check/h3a-check/internal/gitrev/gittest"
)

// TestAllowedSignersFromBase: the allowed signers file that names people's
// keys is read where the configuration is read from. In CI that is the
// base: a file the change adds is not used (exit 2, the check cannot say
// whose keys count), and one the change edits is reported as a rules
// change. Locally the working tree is the person's own.
func TestAllowedSignersFromBase(t *testing.T) {
	gittest.Isolate(t)
	const signers = ".github/h3a-humans.allowed_signers"
	dir := configRepo(t, "escalation", "humans:\n  allowed-signers: "+signers+"\n")
	repo := gittest.At(t, dir)
	repo.Git("init", "-q")
	repo.Publish(repo.Commit("base: the configuration names a file it does not hold"))

	t.Setenv("CI", "true")
	repo.Write(map[string]string{signers: "mallory@example.com ssh-ed25519 AAAA\n"})
	code, _, stderr := jsonReport(t, "runs")
	if code != ExitError || !strings.Contains(stderr, config.DefaultFile+":2:20: humans: allowed-signers: "+signers+" does not exist where the configuration is read from") {
		t.Fatalf("a file only the change holds: exit %d, %s", code, stderr)
	}

	t.Setenv("CI", "")
	if code, _, stderr := jsonReport(t, "runs"); code != ExitNeedsHuman {
		t.Fatalf("local: exit %d, want %d: %s", code, ExitNeedsHuman, stderr)
	}

	repo.Publish(repo.Commit("the file"))
	repo.Write(map[string]string{signers: "mallory@example.com ssh-ed25519 BBBB\n"})
	t.Setenv("CI", "true")
	code, audits, stderr := jsonReport(t, "runs")
	if code != ExitNeedsHuman {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	found := false
	for _, a := range audits {
		for _, f := range a.Findings {
			found = found || (f.Rule == "h3a.security.rules_changed" && f.File == signers)
		}
	}
	if !found {
		t.Errorf("the edited allowed signers file is not reported as a rules change: %+v", audits)
	}
}
