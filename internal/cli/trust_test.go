package cli

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/h3a-check/h3a-check/internal/config"
	"github.com/h3a-check/h3a-check/internal/gitrev/gittest"
)

// TestConfigReadFromBase: a change that breaks an artifact and adds a
// waiver for it in its own .h3a-check.yaml is judged by the configuration
// at the base, so the waiver does not apply; --trust-working-tree (for the
// change that edits the configuration on purpose) uses it, and says so.
func TestConfigReadFromBase(t *testing.T) {
	gittest.Isolate(t)
	dir := configRepo(t, "hash_mismatch", "")
	repo := gittest.At(t, dir)
	repo.Git("init", "-q")
	repo.Write(map[string]string{config.DefaultFile: "fail-level: error\n"})
	repo.Git("add", "-A")
	repo.Commit("base: runs and a configuration without waivers")
	repo.Write(map[string]string{config.DefaultFile: fmt.Sprintf(hashWaiver, "2999-12-31")})

	tests := []struct {
		name     string
		args     []string
		wantCode int
		origin   string
		waived   bool
	}{
		{"base in use: the working tree's waiver is not read", []string{"runs"}, ExitFail, "base", false},
		{"--trust-working-tree reads it", []string{"--trust-working-tree", "runs"}, ExitPass, "working-tree", true},
		{"--base none has no base to read from", []string{"--base", "none", "runs"}, ExitPass, "working-tree", true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, audits, stderr := jsonReport(t, tc.args...)
			if code != tc.wantCode {
				t.Fatalf("exit %d, want %d: %s", code, tc.wantCode, stderr)
			}
			a := audits[0]
			if len(a.Sources) != 1 || a.Sources[0].Origin != tc.origin || a.Sources[0].Path != config.DefaultFile {
				t.Fatalf("sources %+v, want %s from %s", a.Sources, config.DefaultFile, tc.origin)
			}
			if waived := a.Counts.Waived > 0; waived != tc.waived {
				t.Errorf("waived %v, want %v (counts %+v)", waived, tc.waived, a.Counts)
			}
		})
	}
}

// TestConfigOnlyInHead: a configuration the base does not have is ignored
// with a warning naming the way to use it on purpose.
func TestConfigOnlyInHead(t *testing.T) {
	gittest.Isolate(t)
	dir := configRepo(t, "hash_mismatch", "")
	repo := gittest.At(t, dir)
	repo.Git("init", "-q")
	repo.Git("add", "-A")
	repo.Commit("base: runs only")
	repo.Write(map[string]string{config.DefaultFile: fmt.Sprintf(hashWaiver, "2999-12-31")})

	var out, errb bytes.Buffer
	code := Main([]string{"--color", "never", "runs"}, nil, &out, &errb)
	if code != ExitFail {
		t.Fatalf("exit %d, want 1 (the waiver must not apply): %s", code, errb.String())
	}
	if !strings.Contains(errb.String(), ".h3a-check.yaml exists only in the working tree") || !strings.Contains(errb.String(), "--trust-working-tree") {
		t.Errorf("no warning about the ignored configuration: %q", errb.String())
	}
	if !strings.Contains(out.String(), "read: .h3a-check.yaml from base") {
		t.Errorf("the text report does not say where the configuration came from:\n%s", out.String())
	}
}
