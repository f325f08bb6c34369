//go:build !unix

package rundir

import "testing"

// runUnprivileged is only called by root, which only unix has.
func runUnprivileged(t *testing.T) {
	t.Helper()
	t.Fatal("no unprivileged run on this platform")
}
