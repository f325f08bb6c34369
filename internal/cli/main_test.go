package cli

import (
	"os"
	"testing"
)

// TestMain clears what the environment of a CI runner would change: the
// default format follows GITHUB_ACTIONS, and the github format writes to
// the files GITHUB_OUTPUT and GITHUB_STEP_SUMMARY name.
func TestMain(m *testing.M) {
	for _, k := range []string{"GITHUB_ACTIONS", "GITHUB_OUTPUT", "GITHUB_STEP_SUMMARY", "GITHUB_WORKSPACE", "NO_COLOR"} {
		os.Unsetenv(k)
	}
	os.Exit(m.Run())
}
