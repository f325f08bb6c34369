//go:build linux

package gitrev

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/h3a-check/h3a-check/internal/gitrev/gittest"
)

// TestTopLevelFromFilesIsGits: where the top level is read from the
// folders without git, the answer is git's own for the same folder (git
// run in the same repositories), and every case git might answer
// differently (a submodule, a moved work tree, a bare repository, another
// owner, an environment that sets git's variables, ...) is left to git.
func TestTopLevelFromFilesIsGits(t *testing.T) {
	const (
		fast   = "read from the folders"
		asGit  = "left to git"
		either = "either"
	)
	plainEnv := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir(), "LC_ALL=C"}
	write := func(t *testing.T, p, s string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	mkdir := func(t *testing.T, p string) string {
		t.Helper()
		if err := os.MkdirAll(p, 0o755); err != nil {
			t.Fatal(err)
		}
		return p
	}
	repo := func(t *testing.T, dir string) *gittest.Repo {
		t.Helper()
		mkdir(t, dir)
		r := gittest.At(t, dir)
		r.Git("init", "-q")
		r.Write(map[string]string{"f.txt": "x\n"})
		r.Commit("first")
		return r
	}
	tests := []struct {
		name  string
		setup func(t *testing.T, root string) (dir string, env []string)
		want  string
	}{
		{"the top of a work tree", func(t *testing.T, root string) (string, []string) {
			repo(t, root)
			return root, plainEnv
		}, fast},
		{"a folder below the top", func(t *testing.T, root string) (string, []string) {
			repo(t, root)
			return mkdir(t, filepath.Join(root, "runs", "a")), plainEnv
		}, fast},
		{"a repository inside a work tree", func(t *testing.T, root string) (string, []string) {
			repo(t, root)
			repo(t, filepath.Join(root, "vendor", "inner"))
			return mkdir(t, filepath.Join(root, "vendor", "inner", "runs")), plainEnv
		}, fast},
		{"a linked work tree", func(t *testing.T, root string) (string, []string) {
			r := repo(t, filepath.Join(root, "main"))
			r.Git("worktree", "add", "-q", filepath.Join(root, "wt"))
			return mkdir(t, filepath.Join(root, "wt", "runs")), plainEnv
		}, fast},
		{"a linked work tree with a relative gitdir", func(t *testing.T, root string) (string, []string) {
			r := repo(t, filepath.Join(root, "main"))
			r.Git("worktree", "add", "-q", filepath.Join(root, "wt"))
			write(t, filepath.Join(root, "wt", ".git"), "gitdir: ../main/.git/worktrees/wt\n")
			return mkdir(t, filepath.Join(root, "wt", "runs")), plainEnv
		}, fast},
		{"outside any work tree", func(t *testing.T, root string) (string, []string) {
			return mkdir(t, filepath.Join(root, "runs")), plainEnv
		}, either},
		{"a submodule", func(t *testing.T, root string) (string, []string) {
			sub := repo(t, filepath.Join(root, "upstream"))
			_ = sub
			r := repo(t, filepath.Join(root, "super"))
			r.Git("-c", "protocol.file.allow=always", "submodule", "add", "-q", filepath.Join(root, "upstream"), "mod")
			return mkdir(t, filepath.Join(root, "super", "mod", "runs")), plainEnv
		}, asGit},
		{"core.worktree in the configuration", func(t *testing.T, root string) (string, []string) {
			r := repo(t, filepath.Join(root, "r"))
			r.Git("config", "core.worktree", root)
			return mkdir(t, filepath.Join(root, "r", "runs")), plainEnv
		}, asGit},
		{"an include in the configuration", func(t *testing.T, root string) (string, []string) {
			r := repo(t, filepath.Join(root, "r"))
			write(t, filepath.Join(root, "inc"), "[core]\n\tworktree = "+root+"\n")
			r.Git("config", "include.path", filepath.Join(root, "inc"))
			return mkdir(t, filepath.Join(root, "r", "runs")), plainEnv
		}, asGit},
		{"per-work-tree configuration", func(t *testing.T, root string) (string, []string) {
			r := repo(t, filepath.Join(root, "r"))
			r.Git("config", "extensions.worktreeConfig", "true")
			return mkdir(t, filepath.Join(root, "r", "runs")), plainEnv
		}, asGit},
		{"a bare repository", func(t *testing.T, root string) (string, []string) {
			mkdir(t, filepath.Join(root, "bare.git"))
			gittest.At(t, filepath.Join(root, "bare.git")).Git("init", "-q", "--bare")
			return mkdir(t, filepath.Join(root, "bare.git", "refs", "heads")), plainEnv
		}, asGit},
		{"inside .git", func(t *testing.T, root string) (string, []string) {
			repo(t, root)
			return filepath.Join(root, ".git", "refs"), plainEnv
		}, asGit},
		{"an empty .git folder below a work tree", func(t *testing.T, root string) (string, []string) {
			repo(t, root)
			mkdir(t, filepath.Join(root, "a", ".git"))
			return mkdir(t, filepath.Join(root, "a", "b")), plainEnv
		}, asGit},
		{"a .git file that names nothing", func(t *testing.T, root string) (string, []string) {
			repo(t, root)
			write(t, filepath.Join(root, "a", ".git"), "gitdir: /nowhere\n")
			return mkdir(t, filepath.Join(root, "a", "b")), plainEnv
		}, asGit},
		{"a .git link", func(t *testing.T, root string) (string, []string) {
			repo(t, filepath.Join(root, "r"))
			mkdir(t, filepath.Join(root, "w"))
			if err := os.Symlink(filepath.Join(root, "r", ".git"), filepath.Join(root, "w", ".git")); err != nil {
				t.Fatal(err)
			}
			return mkdir(t, filepath.Join(root, "w", "runs")), plainEnv
		}, asGit},
		{"a HEAD file in a folder above", func(t *testing.T, root string) (string, []string) {
			write(t, filepath.Join(root, "HEAD"), "ref: refs/heads/main\n")
			return mkdir(t, filepath.Join(root, "runs")), plainEnv
		}, asGit},
		{"GIT_DIR set", func(t *testing.T, root string) (string, []string) {
			repo(t, filepath.Join(root, "r"))
			repo(t, filepath.Join(root, "other"))
			return mkdir(t, filepath.Join(root, "r", "runs")), append(plainEnv, "GIT_DIR="+filepath.Join(root, "other", ".git"))
		}, asGit},
		{"the network's variables set", func(t *testing.T, root string) (string, []string) {
			repo(t, root)
			return mkdir(t, filepath.Join(root, "runs")), append(plainEnv, "GIT_SSL_CAINFO=/etc/ssl/certs/ca-certificates.crt", "GIT_TERMINAL_PROMPT=0", "GIT_AUTHOR_NAME=someone")
		}, fast},
		{"configuration given in the environment", func(t *testing.T, root string) (string, []string) {
			repo(t, filepath.Join(root, "r"))
			return mkdir(t, filepath.Join(root, "r", "runs")), append(plainEnv, "GIT_CONFIG_COUNT=1", "GIT_CONFIG_KEY_0=core.worktree", "GIT_CONFIG_VALUE_0="+root)
		}, asGit},
		{"a discovery across file systems allowed", func(t *testing.T, root string) (string, []string) {
			repo(t, root)
			return mkdir(t, filepath.Join(root, "runs")), append(plainEnv, "GIT_DISCOVERY_ACROSS_FILESYSTEM=1")
		}, asGit},
		{"a ceiling set", func(t *testing.T, root string) (string, []string) {
			repo(t, root)
			return mkdir(t, filepath.Join(root, "runs", "a")), append(plainEnv, "GIT_CEILING_DIRECTORIES="+filepath.Join(root, "runs"))
		}, asGit},
		{"another owner", func(t *testing.T, root string) (string, []string) {
			if os.Geteuid() != 0 {
				t.Skip("needs root to give the work tree to another user")
			}
			repo(t, filepath.Join(root, "r"))
			for _, p := range []string{filepath.Join(root, "r"), filepath.Join(root, "r", ".git")} {
				if err := os.Chown(p, 54321, 54321); err != nil {
					t.Fatal(err)
				}
			}
			return mkdir(t, filepath.Join(root, "r", "runs")), plainEnv
		}, asGit},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			gittest.Isolate(t)
			root, err := filepath.EvalSymlinks(t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			dir, env := tt.setup(t, root)
			top, ok := topLevelFromFiles(dir, env)
			switch {
			case ok && tt.want == asGit:
				t.Fatalf("answered %q without git; want it left to git", top)
			case !ok && tt.want == fast:
				t.Fatalf("left to git; want it read from the folders")
			}
			gitTop := gitShowTopLevel(t, dir, env)
			if ok && top != gitTop {
				t.Errorf("read from the folders: %q, git says %q", top, gitTop)
			}
			if ok {
				switch repo, err := openAtEnv(dir, env); {
				case gitTop == "" && !errors.Is(err, ErrNotWorkTree):
					t.Errorf("opened outside a work tree: %v, %v", repo, err)
				case gitTop != "" && (err != nil || repo.Root != gitTop):
					t.Errorf("opened %v, %v; git says the top is %q", repo, err, gitTop)
				}
			}
			if got := topLevel(t.Context(), dir, env); got != gitTop {
				t.Errorf("topLevel = %q, git says %q", got, gitTop)
			}
		})
	}
}

// gitShowTopLevel is git's own answer, in env with the test's isolated
// configuration, symbolic links resolved as TopLevel resolves them.
func gitShowTopLevel(t *testing.T, dir string, env []string) string {
	t.Helper()
	cmd := exec.Command("git", "rev-parse", "--show-toplevel")
	cmd.Dir = dir
	for _, kv := range os.Environ() {
		if strings.HasPrefix(kv, "GIT_CONFIG") || strings.HasPrefix(kv, "HOME=") || strings.HasPrefix(kv, "XDG_CONFIG_HOME=") {
			env = append(env, kv)
		}
	}
	cmd.Env = env
	out, err := cmd.Output()
	if err != nil {
		return ""
	}
	top := strings.TrimSpace(string(out))
	if r, err := filepath.EvalSymlinks(top); err == nil {
		return r
	}
	return top
}

// TestOpenStartsNoGitInAPlainClone: opening a plain clone, as a check
// does first, reads the top level from the folders and starts no git.
func TestOpenStartsNoGitInAPlainClone(t *testing.T) {
	r := gittest.Init(t)
	r.Write(map[string]string{"runs/a/f.txt": "x"})
	r.Commit("first")
	dir, err := filepath.EvalSymlinks(filepath.Join(r.Dir, "runs", "a"))
	if err != nil {
		t.Fatal(err)
	}
	started := gittest.LogGit(t)
	env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir(), "LC_ALL=C"}
	repo, err := openAtEnv(dir, env)
	if err != nil {
		t.Fatal(err)
	}
	if want, _ := filepath.EvalSymlinks(r.Dir); repo.Root != want {
		t.Errorf("top level %q, want %q", repo.Root, want)
	}
	if got := started(); len(got) > 0 {
		t.Errorf("git started: %q", got)
	}
}
