package gitrev

import (
	"context"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"time"
)

// TopLevel is the top of the git work tree holding dir, with symbolic
// links resolved, or "" outside one (or when git does not answer within
// ten seconds): where the configuration file is looked for, and what
// report paths are relative to. When StartTopLevel began the same lookup
// (the same folder, git's environment unchanged since), its answer is
// taken instead of starting git again.
func TopLevel(ctx context.Context, dir string) string {
	env := GitEnv()
	if p := early.Load(); p != nil && p.dir == dir && slices.Equal(p.env, env) {
		select {
		case <-p.done:
			return p.top
		case <-ctx.Done():
			return ""
		}
	}
	return topLevel(ctx, dir, env)
}

// StartTopLevel starts TopLevel(dir) on its own goroutine and returns at
// once. A check asks for the top level before it reads anything else, so
// the command starts the lookup while the program initialises
// (internal/startup) and git's process start is off the critical path.
// It is the same git command with the same environment as TopLevel's; a
// later TopLevel of another folder, or after the environment changed,
// asks git itself.
func StartTopLevel(dir string) {
	p := &pendingTopLevel{dir: dir, env: GitEnv(), done: make(chan struct{})}
	go func() {
		defer close(p.done)
		p.top = topLevel(context.Background(), p.dir, p.env)
	}()
	early.Store(p)
}

// early is the lookup StartTopLevel began, nil before.
var early atomic.Pointer[pendingTopLevel]

type pendingTopLevel struct {
	dir  string
	env  []string
	done chan struct{} // closed when top is set
	top  string
}

func topLevel(ctx context.Context, dir string, env []string) string {
	if top, ok := topLevelFromFiles(dir, env); ok {
		return top
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "git", "rev-parse", "--show-toplevel")
	cmd.Dir = dir
	cmd.Env = env
	out, err := cmd.Output()
	if err != nil {
		return ""
	}
	top := strings.TrimSpace(string(out))
	if top == "" {
		return ""
	}
	if r, err := filepath.EvalSymlinks(top); err == nil {
		return r
	}
	return top
}
