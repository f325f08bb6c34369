package e2e

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestConfigurationFoundLikeGit: the built binary looks for the
// configuration file up to the top of the work tree that git names for
// the working directory, whatever the environment says about git: the
// binary starts that lookup while it initialises, and its answer must be
// the one git gives in the command's folder and environment. Each case
// runs the check (the default command) and config, from a folder below
// the file, with an unparsable fail-level in the file: a check that reads
// it stops with that line's error.
func TestConfigurationFoundLikeGit(t *testing.T) {
	mustHave(t, "git")
	const badConfig = "fail-level: fatal\n"
	const readIt = `.h3a-check.yaml:1:13: fail-level "fatal"`
	tests := []struct {
		name string
		// setup makes the repositories under root and returns the folder
		// the binary runs in and its environment besides gitEnv's.
		setup func(t *testing.T, root string) (dir string, env []string)
		found bool
	}{
		{
			name: "a subfolder of the work tree",
			setup: func(t *testing.T, root string) (string, []string) {
				initRepo(t, root, badConfig)
				return mkdirs(t, root, "runs", "a"), nil
			},
			found: true,
		},
		{
			name: "a ceiling between the folder and the top",
			setup: func(t *testing.T, root string) (string, []string) {
				initRepo(t, root, badConfig)
				return mkdirs(t, root, "runs", "a"), []string{"GIT_CEILING_DIRECTORIES=" + filepath.Join(root, "runs")}
			},
			found: false,
		},
		{
			name: "GIT_DIR and GIT_WORK_TREE naming another repository",
			setup: func(t *testing.T, root string) (string, []string) {
				initRepo(t, root, badConfig)
				other := filepath.Join(t.TempDir(), "other")
				initRepo(t, other, "")
				return mkdirs(t, root, "runs", "a"), []string{"GIT_DIR=" + filepath.Join(other, ".git"), "GIT_WORK_TREE=" + other}
			},
			found: true,
		},
		{
			name: "a linked work tree (a .git file)",
			setup: func(t *testing.T, root string) (string, []string) {
				main := filepath.Join(root, "main")
				initRepo(t, main, badConfig)
				wt := filepath.Join(root, "wt")
				git(t, main, "worktree", "add", "-q", wt)
				return mkdirs(t, wt, "runs", "a"), nil
			},
			found: true,
		},
		{
			name: "a repository inside the work tree",
			setup: func(t *testing.T, root string) (string, []string) {
				initRepo(t, root, badConfig)
				inner := mkdirs(t, root, "vendor", "inner")
				initRepo(t, inner, "")
				return mkdirs(t, inner, "runs"), nil
			},
			found: false,
		},
		{
			name: "a moved work tree (core.worktree)",
			setup: func(t *testing.T, root string) (string, []string) {
				initRepo(t, root, badConfig)
				inner := mkdirs(t, root, "vendor", "inner")
				initRepo(t, inner, "")
				git(t, inner, "config", "core.worktree", filepath.Join(root, "vendor"))
				return mkdirs(t, inner, "runs"), nil
			},
			found: false,
		},
		{
			name: "outside any work tree",
			setup: func(t *testing.T, root string) (string, []string) {
				if err := os.WriteFile(filepath.Join(root, ".h3a-check.yaml"), []byte(badConfig), 0o644); err != nil {
					t.Fatal(err)
				}
				return mkdirs(t, root, "runs"), nil
			},
			found: false,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root, err := filepath.EvalSymlinks(t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			dir, extra := tt.setup(t, root)
			// With gitEnv's GIT_ variables the top level is git's to
			// answer; without them (plain) the binary reads it from the
			// folders wherever that is certainly git's answer.
			envs := map[string][]string{
				"with git's variables": append(gitEnv(t), extra...),
				"plain":                append(baseEnv("HOME="+t.TempDir()), extra...),
			}
			for kind, env := range envs {
				for _, args := range [][]string{{"--format", "json", "--base", "none", "."}, {"config"}} {
					cmd := exec.Command(binary, args...)
					cmd.Dir, cmd.Env = dir, env
					var stdout, stderr bytes.Buffer
					cmd.Stdout, cmd.Stderr = &stdout, &stderr
					_ = cmd.Run()
					if got := strings.Contains(stderr.String(), readIt); got != tt.found {
						t.Errorf("h3a-check %s in %s, %s: read the configuration = %v, want %v\nstderr: %s", strings.Join(args, " "), dir, kind, got, tt.found, stderr.String())
					}
				}
			}
		})
	}
}

func initRepo(t *testing.T, dir, config string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	git(t, dir, "init", "-q", "-b", "main")
	if config != "" {
		if err := os.WriteFile(filepath.Join(dir, ".h3a-check.yaml"), []byte(config), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	git(t, dir, "add", "-A")
	git(t, dir, "commit", "-q", "--allow-empty", "-m", "first")
}

func mkdirs(t *testing.T, parts ...string) string {
	t.Helper()
	p := filepath.Join(parts...)
	if err := os.MkdirAll(p, 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}
