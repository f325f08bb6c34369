package gitrev

import (
	"context"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// TopLevel is the top of the git work tree holding dir, with symbolic
// links resolved, or "" outside one (or when git does not answer within
// ten seconds): where the configuration file is looked for, and what
// report paths are relative to.
func TopLevel(ctx context.Context, dir string) string {
	return topLevel(ctx, dir, GitEnv())
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
