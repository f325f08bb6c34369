package gitrev

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/h3a-check/h3a-check/internal/gitrev/gittest"
)

// TestStartTopLevel: TopLevel takes the answer of the lookup StartTopLevel
// began only for the same folder under the same environment; any other
// question is asked of git again, so the answer is always git's for the
// folder and environment of the call.
func TestStartTopLevel(t *testing.T) {
	tests := []struct {
		name string
		// change runs between StartTopLevel(sub) finishing and TopLevel;
		// it returns the folder TopLevel is asked about.
		change func(t *testing.T, top, sub string) string
		want   func(top, sub string) string
	}{
		{
			name:   "the same folder: the early answer",
			change: func(t *testing.T, top, sub string) string { return sub },
			want:   func(top, sub string) string { return top },
		},
		{
			// The early answer is the one taken, not a second git
			// process: with .git gone git would say "" now.
			name: "the same folder after .git is gone: still the early answer",
			change: func(t *testing.T, top, sub string) string {
				if err := os.RemoveAll(filepath.Join(top, ".git")); err != nil {
					t.Fatal(err)
				}
				return sub
			},
			want: func(top, sub string) string { return top },
		},
		{
			name:   "another folder: git's answer for it",
			change: func(t *testing.T, top, sub string) string { return t.TempDir() },
			want:   func(top, sub string) string { return "" },
		},
		{
			name: "a ceiling set since: git's answer under it",
			change: func(t *testing.T, top, sub string) string {
				t.Setenv("GIT_CEILING_DIRECTORIES", top)
				return sub
			},
			want: func(top, sub string) string { return "" },
		},
		{
			name: "discovery across file systems allowed since: asked again",
			change: func(t *testing.T, top, sub string) string {
				if err := os.RemoveAll(filepath.Join(top, ".git")); err != nil {
					t.Fatal(err)
				}
				t.Setenv("GIT_DISCOVERY_ACROSS_FILESYSTEM", "1")
				return sub
			},
			want: func(top, sub string) string { return "" },
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := gittest.Init(t)
			top, err := filepath.EvalSymlinks(g.Dir)
			if err != nil {
				t.Fatal(err)
			}
			sub := filepath.Join(top, "runs", "a")
			if err := os.MkdirAll(sub, 0o755); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { early.Store(nil) })
			StartTopLevel(sub)
			<-early.Load().done
			if got := early.Load().top; got != top {
				t.Fatalf("the early lookup = %q, want %q", got, top)
			}
			dir := tt.change(t, top, sub)
			want := tt.want(top, sub)
			if got := TopLevel(context.Background(), dir); got != want {
				t.Errorf("TopLevel(%s) = %q, want %q", dir, got, want)
			}
			early.Store(nil)
			if got := TopLevel(context.Background(), dir); got != want && tt.name != "the same folder after .git is gone: still the early answer" {
				t.Errorf("TopLevel(%s) without an early lookup = %q, want %q", dir, got, want)
			}
		})
	}
}

// TestTopLevelWaitsForTheEarlyLookup: a TopLevel called while the early
// lookup runs waits for it, and a cancelled context ends the wait with
// "", as it ends git.
func TestTopLevelWaitsForTheEarlyLookup(t *testing.T) {
	g := gittest.Init(t)
	top, err := filepath.EvalSymlinks(g.Dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { early.Store(nil) })
	p := &pendingTopLevel{dir: top, env: GitEnv(), done: make(chan struct{})}
	early.Store(p)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if got := TopLevel(ctx, top); got != "" {
		t.Errorf("TopLevel with a cancelled context while the lookup runs = %q, want \"\"", got)
	}
	go func() { p.top = "/the/early/answer"; close(p.done) }()
	if got := TopLevel(context.Background(), top); got != "/the/early/answer" {
		t.Errorf("TopLevel = %q, want the early answer", got)
	}
}
