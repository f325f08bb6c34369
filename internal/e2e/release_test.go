package e2e

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"

	"gopkg.in/yaml.v3"
)

// releaseURL is where action.yml fetches releases from. The tests point
// it at a server on the loopback interface by rewriting this constant in
// the script they run: the action itself has no setting that could point
// it elsewhere.
const releaseURL = "https://github.com/h3a-check/h3a-check/releases/download"

// fakeRelease serves files at /<version>/<name> on 127.0.0.1 and records
// every path asked for.
type fakeRelease struct {
	base  string
	mu    sync.Mutex
	files map[string][]byte
	asked []string
}

func newFakeRelease(t *testing.T, version string, files map[string][]byte) *fakeRelease {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	f := &fakeRelease{base: "http://" + ln.Addr().String(), files: map[string][]byte{}}
	for name, b := range files {
		f.files["/"+version+"/"+name] = b
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f.mu.Lock()
		f.asked = append(f.asked, r.URL.Path)
		b, ok := f.files[r.URL.Path]
		f.mu.Unlock()
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Write(b)
	})}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return f
}

func (f *fakeRelease) requests() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.asked)
}

// checksums renders a checksums.txt as goreleaser writes it.
func checksums(files map[string][]byte) []byte {
	var b bytes.Buffer
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		sum := sha256.Sum256(files[n])
		fmt.Fprintf(&b, "%s  %s\n", hex.EncodeToString(sum[:]), n)
	}
	return b.Bytes()
}

type buildResult struct {
	code           int
	stdout, stderr string
	outputs        map[string]string
	binDir         string
}

// runBuildStep runs action.yml's build step for a version on a runner of
// the given OS and architecture (RUNNER_OS, RUNNER_ARCH), with the
// release address pointed at base.
func runBuildStep(t *testing.T, version, base, runnerOS, runnerArch string, env ...string) buildResult {
	t.Helper()
	a, err := loadAction()
	if err != nil {
		t.Fatal(err)
	}
	build, err := a.step("build")
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(build.Run, releaseURL); n != 1 {
		t.Fatalf("the build step names %s %d times, want once", releaseURL, n)
	}
	build.Run = strings.Replace(build.Run, releaseURL, base, 1)
	tmp := t.TempDir()
	outputs := filepath.Join(tmp, "output")
	env = baseEnv(append([]string{"GITHUB_ACTIONS=true", "GITHUB_ACTION_PATH=" + moduleRoot, "GITHUB_OUTPUT=" + outputs,
		"RUNNER_TEMP=" + tmp, "RUNNER_OS=" + runnerOS, "RUNNER_ARCH=" + runnerArch}, env...)...)
	stdout, stderr, code, err := runStep(build, map[string]string{"inputs.version": version}, env, tmp)
	if err != nil {
		t.Fatal(err)
	}
	r := buildResult{code: code, stdout: stdout, stderr: stderr, binDir: filepath.Join(tmp, "h3a-check-bin")}
	r.outputs, _ = readOutputs(outputs)
	return r
}

// hostRunner names this machine as a runner does.
func hostRunner(t *testing.T) (runnerOS, runnerArch, asset string) {
	t.Helper()
	switch runtime.GOOS {
	case "linux":
		runnerOS = "Linux"
	case "darwin":
		runnerOS = "macOS"
	default:
		t.Skipf("the action's scripts are simulated on Linux and macOS, not %s", runtime.GOOS)
	}
	switch runtime.GOARCH {
	case "amd64":
		runnerArch = "X64"
	case "arm64":
		runnerArch = "ARM64"
	default:
		t.Skipf("no release binary for %s", runtime.GOARCH)
	}
	return runnerOS, runnerArch, "h3a-check_" + runtime.GOOS + "_" + runtime.GOARCH
}

// TestActionDownloadsARelease: with a version, the build step downloads
// that release's binary for the runner and runs it only when its SHA-256
// is the one checksums.txt lists. A wrong checksum, a missing asset, a
// checksums file without the asset, a missing checksums file and a
// version that is not a tag all fail the step with no binary given to the
// check step. The release is served on the loopback interface.
func TestActionDownloadsARelease(t *testing.T) {
	runnerOS, runnerArch, asset := hostRunner(t)
	real, err := os.ReadFile(binary)
	if err != nil {
		t.Fatal(err)
	}
	const version = "v9.8.7"
	other := map[string][]byte{"h3a-check_windows_amd64.exe": []byte("another platform\n")}
	with := func(extra map[string][]byte) map[string][]byte {
		m := map[string][]byte{}
		for k, v := range other {
			m[k] = v
		}
		for k, v := range extra {
			m[k] = v
		}
		return m
	}
	good := with(map[string][]byte{asset: real})
	wrongSums := checksums(with(map[string][]byte{asset: []byte("not the binary served\n")}))

	tests := []struct {
		name    string
		version string
		served  map[string][]byte
		ok      bool
		stderr  string
	}{
		{"good checksum", version, with(map[string][]byte{asset: real, "checksums.txt": checksums(good)}), true, ""},
		{"wrong checksum", version, with(map[string][]byte{asset: real, "checksums.txt": wrongSums}), false, "hashes to"},
		{"missing asset", version, with(map[string][]byte{"checksums.txt": checksums(good)}), false, "404"},
		{"asset not in checksums.txt", version, with(map[string][]byte{asset: real, "checksums.txt": checksums(other)}), false, "lists no single SHA-256 for " + asset},
		{"missing checksums.txt", version, with(map[string][]byte{asset: real}), false, "404"},
		{"a version that is not a tag", "v1.0.0/../../elsewhere", good, false, "is not a release tag"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := newFakeRelease(t, version, tt.served)
			r := runBuildStep(t, tt.version, srv.base, runnerOS, runnerArch)
			bin := filepath.Join(r.binDir, "h3a-check")
			if !tt.ok {
				if r.code == 0 {
					t.Fatalf("the step succeeded; it must fail closed\n%s%s", r.stdout, r.stderr)
				}
				if !strings.Contains(r.stderr, tt.stderr) {
					t.Errorf("stderr lacks %q:\n%s", tt.stderr, r.stderr)
				}
				if _, ok := r.outputs["binary"]; ok {
					t.Errorf("binary output %q set by a failed step", r.outputs["binary"])
				}
				if _, err := os.Stat(bin); err == nil {
					t.Errorf("%s exists after a failed step", bin)
				}
				if tt.version != version && len(srv.requests()) > 0 {
					t.Errorf("requests sent for a bad version: %v", srv.requests())
				}
				return
			}
			if r.code != 0 || r.outputs["binary"] != bin {
				t.Fatalf("exit %d, outputs %v\n%s%s", r.code, r.outputs, r.stdout, r.stderr)
			}
			if got := srv.requests(); !slices.Equal(got, []string{"/" + version + "/checksums.txt", "/" + version + "/" + asset}) {
				t.Errorf("requests %v", got)
			}
			// The downloaded binary is the one served, and it runs.
			stdout, stderr, code, err := runCommand(bin, "--base", "none", filepath.Join(moduleRoot, "testdata", "runs", "ok", "complete"))
			if err != nil || code != 0 || !strings.Contains(stdout, "overall: pass") {
				t.Errorf("the downloaded binary: exit %d, %v\n%s%s", code, err, stdout, stderr)
			}
		})
	}
}

// TestActionPinnedToARelease: one pin says which h3a-check runs: with no
// version input, an action pinned to a release tag downloads and checks
// that release's binary; pinned to a branch or commit it builds from
// source; a ref that looks like a release and is not fails closed.
func TestActionPinnedToARelease(t *testing.T) {
	runnerOS, runnerArch, asset := hostRunner(t)
	real, err := os.ReadFile(binary)
	if err != nil {
		t.Fatal(err)
	}
	const version = "v9.8.7"
	files := map[string][]byte{asset: real}
	files["checksums.txt"] = checksums(map[string][]byte{asset: real})
	srv := newFakeRelease(t, version, files)
	r := runBuildStep(t, "", srv.base, runnerOS, runnerArch, "GITHUB_ACTION_REF="+version)
	if r.code != 0 || !slices.Equal(srv.requests(), []string{"/" + version + "/checksums.txt", "/" + version + "/" + asset}) {
		t.Fatalf("pinned to %s: exit %d, requests %v\n%s%s", version, r.code, srv.requests(), r.stdout, r.stderr)
	}
	r = runBuildStep(t, "", srv.base, runnerOS, runnerArch, "GITHUB_ACTION_REF=v1.x")
	if r.code == 0 || !strings.Contains(r.stderr, "is not a release tag") {
		t.Errorf("pinned to v1.x: exit %d, stderr %q; want the step to fail", r.code, r.stderr)
	}
}

// TestActionAssetNames: for every platform the release builds, the build
// step asks for the asset goreleaser names (name_template of the binary
// archive, .exe on Windows), and the release builds every platform a
// runner can be.
func TestActionAssetNames(t *testing.T) {
	var cfg struct {
		ProjectName string `yaml:"project_name"`
		Builds      []struct {
			Goos    []string `yaml:"goos"`
			Goarch  []string `yaml:"goarch"`
			Ldflags []string `yaml:"ldflags"`
		} `yaml:"builds"`
		Archives []struct {
			Formats      []string `yaml:"formats"`
			NameTemplate string   `yaml:"name_template"`
		} `yaml:"archives"`
		Checksum struct {
			NameTemplate string `yaml:"name_template"`
			Algorithm    string `yaml:"algorithm"`
		} `yaml:"checksum"`
	}
	b, err := os.ReadFile(filepath.Join(moduleRoot, ".goreleaser.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if err := yaml.Unmarshal(b, &cfg); err != nil {
		t.Fatal(err)
	}
	if len(cfg.Builds) != 1 || len(cfg.Archives) != 1 || !slices.Equal(cfg.Archives[0].Formats, []string{"binary"}) ||
		cfg.Checksum.NameTemplate != "checksums.txt" || cfg.Checksum.Algorithm != "sha256" {
		t.Fatalf("expected one build, one archive of bare binaries and checksums.txt of SHA-256: %+v", cfg)
	}
	if ld := strings.Join(cfg.Builds[0].Ldflags, " "); !strings.Contains(ld, "-X github.com/h3a-check/h3a-check/internal/cli.version=v{{ .Version }}") {
		t.Errorf("ldflags %q do not stamp the version into h3a-check version", ld)
	}
	runnerOS := map[string]string{"linux": "Linux", "darwin": "macOS", "windows": "Windows"}
	runnerArch := map[string]string{"amd64": "X64", "arm64": "ARM64"}
	build := cfg.Builds[0]
	if len(build.Goos) != len(runnerOS) || len(build.Goarch) != len(runnerArch) {
		t.Errorf("release platforms %v × %v, want linux, darwin, windows × amd64, arm64", build.Goos, build.Goarch)
	}
	const version = "v1.2.3"
	for _, goos := range build.Goos {
		for _, goarch := range build.Goarch {
			name := strings.NewReplacer("{{ .ProjectName }}", cfg.ProjectName, "{{ .Os }}", goos, "{{ .Arch }}", goarch).Replace(cfg.Archives[0].NameTemplate)
			if goos == "windows" {
				name += ".exe"
			}
			files := map[string][]byte{name: []byte(name)}
			files["checksums.txt"] = checksums(files)
			srv := newFakeRelease(t, version, files)
			r := runBuildStep(t, version, srv.base, runnerOS[goos], runnerArch[goarch])
			if r.code != 0 {
				t.Errorf("%s/%s: exit %d, asked for %v\n%s", goos, goarch, r.code, srv.requests(), r.stderr)
			}
		}
	}
	r := runBuildStep(t, version, "http://127.0.0.1:9", "FreeBSD", "X64")
	if r.code == 0 || !strings.Contains(r.stderr, "no release binary for runner OS") {
		t.Errorf("an unknown runner OS: exit %d\n%s", r.code, r.stderr)
	}
}

// TestGoreleaserPinned: the release workflow installs the goreleaser that
// .ci/run checks the configuration with.
func TestGoreleaserPinned(t *testing.T) {
	ci, err := os.ReadFile(filepath.Join(moduleRoot, ".ci", "run"))
	if err != nil {
		t.Fatal(err)
	}
	workflow, err := os.ReadFile(filepath.Join(moduleRoot, ".github", "workflows", "release.yml"))
	if err != nil {
		t.Fatal(err)
	}
	pinned := regexp.MustCompile(`(?m)^GORELEASER_VERSION=(v[0-9.]+)$`).FindSubmatch(ci)
	if pinned == nil {
		t.Fatal(".ci/run pins no GORELEASER_VERSION")
	}
	if want := "github.com/goreleaser/goreleaser/v2@" + string(pinned[1]); !bytes.Contains(workflow, []byte(want)) {
		t.Errorf("release.yml does not install %s, the version .ci/run checks with", want)
	}
}

var indentedShell = regexp.MustCompile("(?s)\n( *)```sh\n(.*?)\n *```")

// TestREADMEInstall: the README's Install section is true. Its go install
// names this module's command, and its release block, run against a
// release served on the loopback interface, downloads, verifies and
// installs a binary that runs.
func TestREADMEInstall(t *testing.T) {
	readme, err := os.ReadFile(filepath.Join(moduleRoot, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	text := string(readme)
	start := strings.Index(text, "\n## Install\n")
	if start < 0 {
		t.Fatal("README.md has no Install section")
	}
	section := text[start:]
	section = section[:strings.Index(section[1:], "\n## ")+1]
	gomod, err := os.ReadFile(filepath.Join(moduleRoot, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	module := strings.TrimSpace(strings.TrimPrefix(strings.SplitN(string(gomod), "\n", 2)[0], "module "))
	if !strings.Contains(section, "go install "+module+"/cmd/h3a-check@latest") {
		t.Errorf("the Install section does not say go install %s/cmd/h3a-check@latest", module)
	}
	if _, err := os.Stat(filepath.Join(moduleRoot, "cmd", "h3a-check", "main.go")); err != nil {
		t.Error(err)
	}
	for _, want := range []string{"completion bash", "completion zsh", "completion fish", "h3a-check-system", "h3a-check/h3a-check@v1."} {
		if !strings.Contains(section, want) {
			t.Errorf("the Install section does not mention %q", want)
		}
	}

	if runtime.GOOS != "linux" {
		t.Skip("the release block is run on Linux (sha256sum)")
	}
	m := indentedShell.FindStringSubmatch(section)
	if m == nil || !strings.Contains(m[2], releaseURL) {
		t.Fatalf("the Install section has no sh block fetching from %s", releaseURL)
	}
	var lines []string
	for _, l := range strings.Split(m[2], "\n") {
		lines = append(lines, strings.TrimPrefix(l, m[1]))
	}
	block := strings.Join(lines, "\n")
	version := regexp.MustCompile(`(?m)^version=(v[0-9.]+)$`).FindStringSubmatch(block)
	if version == nil {
		t.Fatalf("the block sets no version:\n%s", block)
	}
	real, err := os.ReadFile(binary)
	if err != nil {
		t.Fatal(err)
	}
	files := map[string][]byte{"h3a-check_linux_amd64": real, "h3a-check_darwin_arm64": []byte("another platform\n")}
	files["checksums.txt"] = checksums(files)
	srv := newFakeRelease(t, version[1], files)
	home := t.TempDir()
	if err := os.MkdirAll(filepath.Join(home, ".local", "bin"), 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("bash", "--noprofile", "--norc", "-euo", "pipefail", "-c", strings.Replace(block, releaseURL, srv.base, 1))
	cmd.Dir = t.TempDir()
	cmd.Env = baseEnv("HOME="+home, "PATH="+filepath.Join(home, ".local", "bin")+string(os.PathListSeparator)+os.Getenv("PATH"))
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "h3a-check_linux_amd64: OK") || !strings.Contains(string(out), "h3a-check ") {
		t.Fatalf("the README's release block: %v\n%s", err, out)
	}
}
