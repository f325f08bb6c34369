package cli

import (
	"bytes"
	"path/filepath"
	"runtime/debug"
	"syscall"
	"testing"
)

// closedPipe is stdout whose reader went away.
type closedPipe struct{}

func (closedPipe) Write([]byte) (int, error) { return 0, syscall.EPIPE }

// TestClosedStdout: a reader that goes away (completion bash | head -1)
// ends the command as SIGPIPE would, 141, without a word on stderr; a
// check never passes for it.
func TestClosedStdout(t *testing.T) {
	for _, args := range [][]string{
		{"completion", "bash"},
		{"schema", "state"},
		{"rules"},
		{"--base", "none", filepath.Join(casesDir, "ok", "complete")},
	} {
		var errb bytes.Buffer
		if code := Main(args, nil, closedPipe{}, &errb); code != ExitBrokenPipe || errb.Len() > 0 {
			t.Errorf("%v: exit %d, stderr %q; want 141 and nothing", args, code, errb.String())
		}
	}
}

func TestVCSText(t *testing.T) {
	bi := func(kv ...string) *debug.BuildInfo {
		b := &debug.BuildInfo{}
		for i := 0; i < len(kv); i += 2 {
			b.Settings = append(b.Settings, debug.BuildSetting{Key: kv[i], Value: kv[i+1]})
		}
		return b
	}
	tests := []struct {
		bi   *debug.BuildInfo
		want string
	}{
		{bi("vcs.revision", "1a2b3c4d5e6f7a8b9c0d", "vcs.modified", "false"), " (revision 1a2b3c4d5e6f)"},
		{bi("vcs.revision", "1a2b3c4d5e6f7a8b9c0d", "vcs.modified", "true"), " (revision 1a2b3c4d5e6f, modified)"},
		{bi(), ""},
	}
	for _, tc := range tests {
		if got := vcsText(tc.bi, true); got != tc.want {
			t.Errorf("vcsText(%v) = %q, want %q", tc.bi.Settings, got, tc.want)
		}
	}
}
