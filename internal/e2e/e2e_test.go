// Package e2e runs the built h3a-check the way users meet it: as the
// GitHub Action (action.yml's own scripts, under a simulated runner) and
// as a pre-commit hook (the real pre-commit). The binary is built once,
// by the action's build step.
package e2e

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/h3a-check/h3a-check/internal/audit/audittest"
	"github.com/h3a-check/h3a-check/internal/gitrev/gittest"
)

// moduleRoot is the checkout under test.
var moduleRoot = func() string {
	abs, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		panic(err)
	}
	return abs
}()

// binary is the h3a-check built by action.yml's build step in TestMain.
var binary string

// scratch is a folder for the whole run of the package's tests, removed
// when they end; what tests share (sharedHookRepo) lives there.
var scratch string

func TestMain(m *testing.M) {
	os.Exit(run(m))
}

func run(m *testing.M) int {
	tmp, err := os.MkdirTemp("", "h3a-e2e-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(tmp)
	scratch = tmp
	binary, err = buildWithAction(tmp)
	if err != nil {
		fmt.Fprintf(os.Stderr, "building h3a-check with action.yml's build step: %v\n", err)
		return 1
	}
	return m.Run()
}

// TestSourcesNoted looks at every file the binary and its hooks are built
// from. go test caches a package's result keyed by the files its tests
// read (from the first test on: not in TestMain), and these tests build
// the binary in a child process, whose reads it does not see: without
// this, a change to the checker would leave a cached pass of the old
// binary in place.
func TestSourcesNoted(t *testing.T) {
	if err := noteSources(); err != nil {
		t.Fatalf("listing the sources the binary is built from: %v", err)
	}
}

func noteSources() error {
	for _, f := range []string{"go.mod", "go.sum", "action.yml", ".pre-commit-hooks.yaml"} {
		if _, err := os.Stat(filepath.Join(moduleRoot, f)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
	}
	for _, dir := range []string{"cmd", "internal", "policies", "schemas"} {
		err := filepath.WalkDir(filepath.Join(moduleRoot, dir), func(p string, d fs.DirEntry, err error) error {
			switch {
			case err != nil:
				return err
			case d.IsDir() && d.Name() == "testdata":
				return fs.SkipDir
			case d.IsDir() || strings.HasSuffix(p, "_test.go"):
				return nil
			}
			_, err = os.Stat(p)
			return err
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// mustHave skips a test when a tool is missing, except under .ci/run
// (H3A_CI=1), where every end-to-end test must run.
func mustHave(t *testing.T, tool string) string {
	t.Helper()
	p, err := exec.LookPath(tool)
	if err != nil {
		if os.Getenv("H3A_CI") != "" {
			t.Fatalf("%s is required in CI (.ci/run installs it): %v", tool, err)
		}
		t.Skipf("%s not installed: %v", tool, err)
	}
	return p
}

// action is the part of action.yml the tests read.
type action struct {
	Inputs map[string]struct {
		Default string `yaml:"default"`
	} `yaml:"inputs"`
	Outputs map[string]struct {
		Value string `yaml:"value"`
	} `yaml:"outputs"`
	Runs struct {
		Using string `yaml:"using"`
		Steps []step `yaml:"steps"`
	} `yaml:"runs"`
}

type step struct {
	Name  string            `yaml:"name"`
	ID    string            `yaml:"id"`
	If    string            `yaml:"if"`
	Uses  string            `yaml:"uses"`
	Shell string            `yaml:"shell"`
	Env   map[string]string `yaml:"env"`
	Run   string            `yaml:"run"`
	With  map[string]string `yaml:"with"`
}

func loadAction() (*action, error) {
	b, err := os.ReadFile(filepath.Join(moduleRoot, "action.yml"))
	if err != nil {
		return nil, err
	}
	var a action
	dec := yaml.NewDecoder(bytes.NewReader(b))
	if err := dec.Decode(&a); err != nil {
		return nil, fmt.Errorf("action.yml: %w", err)
	}
	return &a, nil
}

func (a *action) step(id string) (step, error) {
	for _, s := range a.Runs.Steps {
		if s.ID == id {
			return s, nil
		}
	}
	return step{}, fmt.Errorf("action.yml has no step with id %q", id)
}

var expression = regexp.MustCompile(`\$\{\{\s*(.*?)\s*\}\}`)

// expand evaluates the only expressions the runner would: plain context
// references. One the simulation does not know is an error, so action.yml
// cannot come to depend on something these tests do not provide.
func expand(s string, ctx map[string]string) (string, error) {
	var missing []string
	out := expression.ReplaceAllStringFunc(s, func(m string) string {
		name := expression.FindStringSubmatch(m)[1]
		v, ok := ctx[name]
		if !ok {
			missing = append(missing, name)
		}
		return v
	})
	if len(missing) > 0 {
		return "", fmt.Errorf("unknown expressions %q", missing)
	}
	return out, nil
}

// runStep runs one `run:` step of action.yml as the runner does for
// `shell: bash` (bash --noprofile --norc -eo pipefail FILE), with the
// step's env expanded from ctx on top of base.
func runStep(s step, ctx map[string]string, base []string, dir string) (stdout, stderr string, code int, err error) {
	if s.Shell != "bash" {
		return "", "", 0, fmt.Errorf("step %q: shell %q, want bash", s.ID, s.Shell)
	}
	env := append([]string(nil), base...)
	for k, v := range s.Env {
		ev, err := expand(v, ctx)
		if err != nil {
			return "", "", 0, fmt.Errorf("step %q env %s: %w", s.ID, k, err)
		}
		env = append(env, k+"="+ev)
	}
	script := filepath.Join(dir, ".step-"+s.ID+".sh")
	if err := os.WriteFile(script, []byte(s.Run), 0o600); err != nil {
		return "", "", 0, err
	}
	defer os.Remove(script)
	cmd := exec.Command("bash", "--noprofile", "--norc", "-eo", "pipefail", script)
	cmd.Env = env
	cmd.Dir = dir
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err = cmd.Run()
	if ee, ok := err.(*exec.ExitError); ok {
		return out.String(), errb.String(), ee.ExitCode(), nil
	}
	return out.String(), errb.String(), 0, err
}

// runCommand runs a program in a clean environment (baseEnv: never the
// CI of the machine running the tests) and returns its output and exit
// code.
func runCommand(name string, args ...string) (stdout, stderr string, code int, err error) {
	cmd := exec.Command(name, args...)
	cmd.Env = baseEnv()
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err = cmd.Run()
	if ee, ok := err.(*exec.ExitError); ok {
		return out.String(), errb.String(), ee.ExitCode(), nil
	}
	return out.String(), errb.String(), 0, err
}

func itoa(n int) string { return fmt.Sprint(n) }

// baseEnv is a clean environment: what any process needs, nothing from a
// real runner that would leak into the simulation.
func baseEnv(extra ...string) []string {
	var env []string
	for _, k := range []string{"PATH", "HOME", "TMPDIR", "GOPATH", "GOMODCACHE", "GOCACHE", "GOPROXY", "GOFLAGS", "GOTOOLCHAIN", "LANG"} {
		if v, ok := os.LookupEnv(k); ok {
			env = append(env, k+"="+v)
		}
	}
	return append(env, extra...)
}

// buildWithAction runs action.yml's build step with an empty version
// input: it builds the action's own source, as on a runner.
func buildWithAction(tmp string) (string, error) {
	a, err := loadAction()
	if err != nil {
		return "", err
	}
	build, err := a.step("build")
	if err != nil {
		return "", err
	}
	outputs := filepath.Join(tmp, "build-output")
	env := baseEnv(
		"GITHUB_ACTIONS=true",
		"GITHUB_ACTION_PATH="+moduleRoot,
		"GITHUB_ACTION_REF=e2e", // a branch: build from source
		"GITHUB_OUTPUT="+outputs,
		"RUNNER_TEMP="+tmp,
		"RUNNER_OS=Linux",
	)
	ctx := map[string]string{"inputs.version": ""}
	stdout, stderr, code, err := runStep(build, ctx, env, tmp)
	if err != nil || code != 0 {
		return "", fmt.Errorf("exit %d, %v\n%s%s", code, err, stdout, stderr)
	}
	got, err := readOutputs(outputs)
	if err != nil {
		return "", err
	}
	bin := got["binary"]
	if info, err := os.Stat(bin); err != nil || info.Mode()&0o111 == 0 {
		return "", fmt.Errorf("build step output binary=%q is not an executable: %v", bin, err)
	}
	return bin, nil
}

// readOutputs parses a GITHUB_OUTPUT file: name=value lines and
// name<<DELIMITER ... DELIMITER blocks.
func readOutputs(path string) (map[string]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	out := map[string]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if name, delim, ok := strings.Cut(line, "<<"); ok && !strings.Contains(name, "=") {
			var val []string
			closed := false
			for sc.Scan() {
				if sc.Text() == delim {
					closed = true
					break
				}
				val = append(val, sc.Text())
			}
			if !closed {
				return nil, fmt.Errorf("%s: output %q never closed by %q", path, name, delim)
			}
			out[name] = strings.Join(val, "\n")
			continue
		}
		if name, val, ok := strings.Cut(line, "="); ok {
			out[name] = val
			continue
		}
		return nil, fmt.Errorf("%s: malformed line %q", path, line)
	}
	return out, sc.Err()
}

// git runs git in dir with an isolated configuration and a fixed identity.
func git(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	// Without maintenance.auto, a commit starts no "git maintenance run
	// --auto" process, which finds nothing to do in a test's repository.
	cmd.Env = append(gitEnv(t), "GIT_CONFIG_COUNT=1", "GIT_CONFIG_KEY_0=maintenance.auto", "GIT_CONFIG_VALUE_0=false")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}

func gitEnv(t *testing.T) []string {
	return baseEnv(
		"GIT_CONFIG_GLOBAL="+filepath.Join(t.TempDir(), "gitconfig"),
		"GIT_CONFIG_NOSYSTEM=1",
		"GIT_AUTHOR_NAME=h3a-check tests", "GIT_AUTHOR_EMAIL=tests@h3a-check.invalid",
		"GIT_COMMITTER_NAME=h3a-check tests", "GIT_COMMITTER_EMAIL=tests@h3a-check.invalid",
	)
}

const runID = "20250929-134215-8b6f8b9a-7c9f-4c5e-8c6a-2f0f0d2e9c1a"

// copyCase copies the run of a testdata case into dst. An err case is a
// patch over an ok case (internal/audit/audittest): it is written out first.
func copyCase(t *testing.T, kind, name, dst string) {
	t.Helper()
	copyCaseRun(t, kind, name, runID, dst)
}

// copyCaseAs is copyCase with the run's id written as id, in its folder's
// name and in every file outside artifacts/ that names it, the hashes its
// evidence log gives those files updated: a run id is globally unique,
// and a run new in a change under the id of a run the base holds is a
// copy (h3a.append_only.run_copied).
func copyCaseAs(t *testing.T, kind, name, id, dst string) {
	t.Helper()
	copyCase(t, kind, name, dst)
	var hashes []string // old, new: the hashes of the files rewritten
	err := filepath.WalkDir(dst, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			if err == nil && d.Name() == "artifacts" {
				return fs.SkipDir // no artifact names its run
			}
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil || !bytes.Contains(data, []byte(runID)) {
			return err
		}
		edited := bytes.ReplaceAll(data, []byte(runID), []byte(id))
		hashes = append(hashes, "[hash:"+loggedHash(data)+"]", "[hash:"+loggedHash(edited)+"]")
		return os.WriteFile(p, edited, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	logPath := filepath.Join(dst, "state", "EVIDENCE_LOG.md")
	log, err := os.ReadFile(logPath)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(logPath, []byte(strings.NewReplacer(hashes...).Replace(string(log))), 0o644); err != nil {
		t.Fatal(err)
	}
}

// loggedHash is the hash an evidence log gives b: the first 16 hex digits
// of its SHA-256.
func loggedHash(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])[:16]
}

// copyCaseRun is copyCase for a case whose run is the folder run of it:
// the runs of layouts other than h3a have names of their own (greeter,
// app, TASK-0042-20260216-130000).
func copyCaseRun(t *testing.T, kind, name, run, dst string) {
	t.Helper()
	runs := filepath.Join(moduleRoot, "testdata", "runs")
	caseDir := filepath.Join(runs, kind, name)
	if kind == "err" {
		full := filepath.Join(t.TempDir(), name)
		if err := audittest.MaterialiseCase(runs, caseDir, full); err != nil {
			t.Fatal(err)
		}
		caseDir = full
	}
	if err := os.CopyFS(dst, os.DirFS(filepath.Join(caseDir, filepath.FromSlash(run)))); err != nil {
		t.Fatal(err)
	}
}

// newRepo makes an empty git repository in a temp dir.
func newRepo(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	git(t, dir, "init", "-q", "-b", "main")
	return dir
}

func commitAll(t *testing.T, dir, msg string) string {
	t.Helper()
	git(t, dir, "add", "-A")
	git(t, dir, "commit", "-q", "-m", msg)
	return head(t, dir)
}

// head is the commit HEAD names in the work tree dir, read from the files
// when it can be (gittest.LooseHead), else from git.
func head(t *testing.T, dir string) string {
	t.Helper()
	if commit, ok := gittest.LooseHead(dir); ok {
		return commit
	}
	return git(t, dir, "rev-parse", "HEAD")
}

// breakArtifact changes one byte of a logged artifact: a hash mismatch.
func breakArtifact(t *testing.T, run string) {
	t.Helper()
	p := filepath.Join(run, "artifacts", "executor", "test_output_green.txt")
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	b[0] ^= 1
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// hookRepo is the one snapshot of the checkout and the one pre-commit
// cache every pre-commit test uses: pre-commit clones a hook repository
// and builds a golang hook once per cache and rev, which was most of each
// test's time. Tests use the snapshot read-only.
var hookRepo struct {
	once           sync.Once
	dir, rev, home string
}

// sharedHookRepo returns the snapshot of the checkout (snapshotModule),
// its rev, and the PRE_COMMIT_HOME that holds pre-commit's clone of it.
func sharedHookRepo(t *testing.T) (dir, rev, preCommitHome string) {
	t.Helper()
	hookRepo.once.Do(func() {
		dir := filepath.Join(scratch, "hook-repo")
		if err := os.Mkdir(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		git(t, dir, "init", "-q", "-b", "main")
		rev := snapshotModule(t, dir)
		hookRepo.dir, hookRepo.rev, hookRepo.home = dir, rev, filepath.Join(scratch, "pre-commit-home")
	})
	if hookRepo.dir == "" {
		t.Fatal("the snapshot of the checkout failed in an earlier test")
	}
	return hookRepo.dir, hookRepo.rev, hookRepo.home
}

// snapshotModule copies the checkout under test (tracked and untracked,
// not ignored files; or the whole tree outside a git work tree) into the
// empty repository dir and commits it, as a hook repository pinned at a
// rev.
func snapshotModule(t *testing.T, dir string) (rev string) {
	t.Helper()
	var files []string
	cmd := exec.Command("git", "ls-files", "-z", "--cached", "--others", "--exclude-standard")
	cmd.Dir = moduleRoot
	if out, err := cmd.Output(); err == nil {
		for _, f := range strings.Split(string(out), "\x00") {
			if f != "" {
				files = append(files, f)
			}
		}
	} else {
		err := filepath.WalkDir(moduleRoot, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() && d.Name() == ".git" {
				return fs.SkipDir
			}
			if !d.IsDir() {
				rel, _ := filepath.Rel(moduleRoot, p)
				files = append(files, rel)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range files {
		src := filepath.Join(moduleRoot, f)
		info, err := os.Lstat(src)
		if err != nil {
			continue // deleted in the work tree but still in the index
		}
		dst := filepath.Join(dir, f)
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			t.Fatal(err)
		}
		switch {
		case info.Mode()&fs.ModeSymlink != 0:
			target, err := os.Readlink(src)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(target, dst); err != nil {
				t.Fatal(err)
			}
		case info.Mode().IsRegular():
			b, err := os.ReadFile(src)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(dst, b, info.Mode().Perm()); err != nil {
				t.Fatal(err)
			}
		}
	}
	return commitAll(t, dir, "snapshot of the checkout under test")
}
