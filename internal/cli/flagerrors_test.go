package cli

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/h3a-check/h3a-check/internal/gitrev"
	"github.com/h3a-check/h3a-check/internal/gitrev/gittest"
	"github.com/h3a-check/h3a-check/internal/runner"
	"github.com/h3a-check/h3a-check/internal/trusted"
)

// TestWithFlags: the runner's option errors are named by the flag that
// set the option, with its value where the error is about it; an error
// that naming a revision resolves ends with how to name it; other errors
// are left as they are.
func TestWithFlags(t *testing.T) {
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
		{&trusted.PolicyDirError{Dir: "team", Err: fmt.Errorf("cannot decide where to read team from: %w", &gitrev.RemedyError{Remedy: gitrev.NameTheBase, Err: errors.New("CI_MERGE_REQUEST_TARGET_BRANCH_SHA is \"x\", not a full commit name")})},
			`--policy team: cannot decide where to read team from: CI_MERGE_REQUEST_TARGET_BRANCH_SHA is "x", not a full commit name; pass --base <sha> to say what to compare with`},
		{fmt.Errorf("cannot decide where to read policies from: %w", &gitrev.RemedyError{Remedy: gitrev.NameTheBase, Err: errors.New("GITHUB_EVENT_NAME is \"push\" but GITHUB_EVENT_PATH is not set")}),
			`cannot decide where to read policies from: GITHUB_EVENT_NAME is "push" but GITHUB_EVENT_PATH is not set; pass --base <sha> to say what to compare with`},
		{&gitrev.RemedyError{Remedy: gitrev.NameTheTarget, Err: errors.New("fetch the default branch (git fetch)")},
			"fetch the default branch (git fetch) or pass --base <sha> naming the commit the change is to land on"},
		{&runner.OptionError{Option: runner.OptionStaged, Err: &gitrev.RemedyError{Remedy: gitrev.NameInFull, Example: "refs/heads/v1", Err: errors.New(`revision "v1" is ambiguous: it names refs/heads/v1 and refs/tags/v1; pass the one you mean in full`)}},
			`--staged: revision "v1" is ambiguous: it names refs/heads/v1 and refs/tags/v1; pass the one you mean in full (e.g. --base refs/heads/v1, or a commit's full name)`},
	}
	for _, tt := range tests {
		if got := withFlags(tt.err).Error(); got != tt.want {
			t.Errorf("withFlags(%q) = %q, want %q", tt.err, got, tt.want)
		}
	}
}

// TestRemedyNamesTheFlag: in CI, an event the checker cannot read is exit
// 2 ending with how to name the base on the command line.
func TestRemedyNamesTheFlag(t *testing.T) {
	repo := gittest.Init(t)
	if err := os.CopyFS(filepath.Join(repo.Dir, "runs", filepath.Base(copyRun(t))), os.DirFS(copyRun(t))); err != nil {
		t.Fatal(err)
	}
	repo.Commit("a run")
	t.Chdir(repo.Dir)
	vars := map[string]string{"CI": "true", "GITHUB_ACTIONS": "true", "GITHUB_EVENT_NAME": "pull_request"}
	var out, errb bytes.Buffer
	code := run(context.Background(), []string{"--format", "json", "runs"}, &env{stdout: &out, stderr: &errb, getenv: func(k string) string { return vars[k] }})
	want := `GITHUB_EVENT_NAME is "pull_request" but GITHUB_EVENT_PATH is not set; pass --base <sha> to say what to compare with` + "\n"
	if code != ExitError || !strings.Contains(errb.String(), want) {
		t.Errorf("exit %d, stderr %q; want 2 and a line ending %q", code, errb.String(), want)
	}
}
