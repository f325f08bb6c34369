package cli

import (
	"fmt"
	"os"
	"testing"

	"github.com/h3a-check/h3a-check/internal/gitrev"
)

// TestMain clears what the environment of a CI runner would change: the
// default format follows GITHUB_ACTIONS, the github format writes to the
// files GITHUB_OUTPUT and GITHUB_STEP_SUMMARY name, on a pull_request
// event the default base would be the pull request's, which a shallow
// clone may not hold, and in CI (CI, GITHUB_ACTIONS or another CI service's
// variable set: gitrev.CIVariables) rules and
// configuration are read from the base. A test that wants CI says so.
func TestMain(m *testing.M) {
	for _, k := range []string{"CI", "GITHUB_ACTIONS", "GITHUB_OUTPUT", "GITHUB_STEP_SUMMARY", "GITHUB_WORKSPACE", "GITHUB_EVENT_NAME", "GITHUB_EVENT_PATH", "GITLAB_CI", "NO_COLOR", "BUILD_TAG"} {
		os.Unsetenv(k)
	}
	for _, k := range gitrev.CIVariables {
		os.Unsetenv(k)
	}
	os.Exit(runTests(m))
}

// scratch holds what tests make once and copy (stagedRepo's repository);
// TestMain removes it.
var scratch string

func runTests(m *testing.M) int {
	tmp, err := os.MkdirTemp("", "h3a-cli-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(tmp)
	scratch = tmp
	return m.Run()
}
