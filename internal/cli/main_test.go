package cli

import (
	"os"
	"testing"
)

// TestMain clears what the environment of a CI runner would change: the
// default format follows GITHUB_ACTIONS, the github format writes to the
// files GITHUB_OUTPUT and GITHUB_STEP_SUMMARY name, and on a pull_request
// event the default base would be the pull request's, which a shallow
// clone may not hold.
func TestMain(m *testing.M) {
	for _, k := range []string{"GITHUB_ACTIONS", "GITHUB_OUTPUT", "GITHUB_STEP_SUMMARY", "GITHUB_WORKSPACE", "GITHUB_EVENT_NAME", "NO_COLOR"} {
		os.Unsetenv(k)
	}
	os.Exit(m.Run())
}
