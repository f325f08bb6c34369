package e2e

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/h3a-check/h3a-check/internal/audit/audittest"
	"github.com/h3a-check/h3a-check/internal/layout"
	"github.com/h3a-check/h3a-check/internal/report"
)

// TestREADMEShowsTheExamples: the workflow and the hook configuration in
// the reference pages and the getting-started guide are the example files,
// verbatim: CI lints the workflow with actionlint, and TestHookDefinitions
// checks the hooks the configuration names.
func TestREADMEShowsTheExamples(t *testing.T) {
	const workflow, hooks = "docs/examples/pull-request.yml", "docs/examples/pre-commit-config.yaml"
	for doc, examples := range map[string][]string{
		"docs/github-action.md":   {workflow},
		"docs/pre-commit.md":      {hooks},
		"docs/getting-started.md": {workflow, hooks},
	} {
		text, err := os.ReadFile(filepath.Join(moduleRoot, filepath.FromSlash(doc)))
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range examples {
			b, err := os.ReadFile(filepath.Join(moduleRoot, filepath.FromSlash(f)))
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(text), "```yaml\n"+string(b)+"```") {
				t.Errorf("%s does not show %s verbatim in a yaml block", doc, f)
			}
		}
	}
}

var (
	shellBlock = regexp.MustCompile("(?s)```sh\n(.*?)```")
	exitStatus = regexp.MustCompile(`^(.*?)\s*# exit status ([0-9]+)$`)
)

// TestGettingStarted runs every sh block of docs/getting-started.md, in
// order, in one shell in an empty folder, with the built h3a-check on
// PATH. Every command must succeed, except a line ending in "# exit status
// N", which must exit N. So the guide's first run (init, log, check, the
// staged check of the hook) stays true.
func TestGettingStarted(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join(moduleRoot, "docs", "getting-started.md"))
	if err != nil {
		t.Fatal(err)
	}
	script := shellScript(string(doc))
	for _, want := range []string{"h3a-check init", "h3a-check log", "h3a-check \"$run\"", "h3a-check check --staged"} {
		if !strings.Contains(script, want) {
			t.Errorf("the guide runs no %q", want)
		}
	}
	out, err := runScript(t, script, t.TempDir())
	if err != nil {
		t.Fatalf("the guide's commands failed: %v\n%s", err, out)
	}
	t.Logf("%s", out)
}

// shellScript turns the sh blocks of a page into one bash script: each
// line is echoed and run, and must succeed, except a line ending in
// "# exit status N", which must exit N.
func shellScript(doc string) string {
	var script strings.Builder
	script.WriteString("set -euo pipefail\n")
	for _, m := range shellBlock.FindAllStringSubmatch(doc, -1) {
		for _, line := range strings.Split(strings.TrimRight(m[1], "\n"), "\n") {
			fmt.Fprintf(&script, "echo %s\n", shellQuote("$ "+line))
			if e := exitStatus.FindStringSubmatch(line); e != nil {
				fmt.Fprintf(&script, "set +e\n%s\ncode=$?\nset -e\n[ \"$code\" -eq %s ] || { echo \"exit status $code, the page says %s\"; exit 1; }\n", e[1], e[2], e[2])
				continue
			}
			script.WriteString(line + "\n")
		}
	}
	return script.String()
}

// runScript runs a script of shellScript in dir, outside any git work
// tree's CI, with the built h3a-check first on PATH.
func runScript(t *testing.T, script, dir string) ([]byte, error) {
	t.Helper()
	env := gitEnv(t)
	for i, kv := range env {
		if strings.HasPrefix(kv, "PATH=") {
			env[i] = "PATH=" + filepath.Dir(binary) + string(os.PathListSeparator) + strings.TrimPrefix(kv, "PATH=")
		}
	}
	cmd := exec.Command("bash", "--noprofile", "--norc", "-c", script)
	cmd.Dir = dir
	cmd.Env = env
	return cmd.CombinedOutput()
}

// exampleFile is a file of a layout page's minimal run: a line that starts
// with the file's path in backquotes and a colon, then a fenced block with
// its content. The fence may be longer than three backquotes, for a file
// that holds a code block itself.
var exampleFile = regexp.MustCompile("(?m)^`([^`]+)`:.*\n\n(`{3,})[a-z]*\n")

// TestLayoutPages: every layout has its page under docs/layouts/, and the
// page's minimal run is true. The files of its "A minimal run that passes"
// section are written as the page shows them, into an empty folder, and
// the section's sh blocks run there with the built h3a-check, each
// command's exit status as the page gives it: the run passes (exit 0), and
// the changes the page makes to it give the outcome it says.
func TestLayoutPages(t *testing.T) {
	readme, err := os.ReadFile(filepath.Join(moduleRoot, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range layout.All() {
		t.Run(l.ID(), func(t *testing.T) {
			if link := "(docs/layouts/" + l.ID() + ".md)"; !strings.Contains(string(readme), link) {
				t.Errorf("README.md's layouts table does not link %s", strings.Trim(link, "()"))
			}
			page := filepath.Join(moduleRoot, "docs", "layouts", l.ID()+".md")
			b, err := os.ReadFile(page)
			if err != nil {
				t.Fatalf("no page for layout %s: %v", l.ID(), err)
			}
			text := string(b)
			for _, h := range []string{"\n## Files\n", "\n## What is checked (layout `" + l.ID() + "`)\n", "\n## Outcome\n"} {
				if !strings.Contains(text, h) {
					t.Errorf("the page has no section %q", strings.TrimSpace(h))
				}
			}
			const heading = "\n## A minimal run that passes\n"
			i := strings.Index(text, heading)
			if i < 0 {
				t.Fatalf("the page has no section %q", strings.TrimSpace(heading))
			}
			// The section is the page's last: the files it shows may hold
			// headings of their own.
			section := text[i+len(heading):]
			dir := t.TempDir()
			files := 0
			for _, m := range exampleFile.FindAllStringSubmatchIndex(section, -1) {
				name, fence := section[m[2]:m[3]], section[m[4]:m[5]]
				body := section[m[1]:]
				end := strings.Index(body, "\n"+fence+"\n")
				if end < 0 {
					t.Fatalf("the block of %s has no closing %s", name, fence)
				}
				if !filepath.IsLocal(filepath.FromSlash(name)) {
					t.Fatalf("the example file %s leaves the folder", name)
				}
				p := filepath.Join(dir, filepath.FromSlash(name))
				if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(p, []byte(body[:end+1]), 0o644); err != nil {
					t.Fatal(err)
				}
				files++
			}
			if files == 0 {
				t.Fatal("the minimal run shows no file")
			}
			script := shellScript(section)
			if !strings.Contains(script, "# exit status 0") {
				t.Error("the minimal run is not checked with an exit status 0")
			}
			out, err := runScript(t, script, dir)
			if err != nil {
				t.Fatalf("the page's commands failed: %v\n%s", err, out)
			}
			t.Logf("%s", out)
		})
	}
}

func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

type hook struct {
	ID            string `yaml:"id"`
	Entry         string `yaml:"entry"`
	Language      string `yaml:"language"`
	Files         string `yaml:"files"`
	PassFilenames *bool  `yaml:"pass_filenames"`
	AlwaysRun     bool   `yaml:"always_run"`
	RequireSerial bool   `yaml:"require_serial"`
}

// TestHookDefinitions: the hooks exist as documented and run on every
// commit in the staged mode, with no file list: pre-commit passes no file
// for a commit that only deletes files, so a hook that waits for files
// never sees a deleted run or artifact. The example configuration names
// real hooks.
func TestHookDefinitions(t *testing.T) {
	var hooks []hook
	b, err := os.ReadFile(filepath.Join(moduleRoot, ".pre-commit-hooks.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if err := yaml.Unmarshal(b, &hooks); err != nil {
		t.Fatal(err)
	}
	byID := map[string]hook{}
	for _, h := range hooks {
		byID[h.ID] = h
	}
	for id, lang := range map[string]string{"h3a-check": "golang", "h3a-check-system": "system"} {
		h, ok := byID[id]
		if !ok {
			t.Errorf("no hook %q", id)
			continue
		}
		if h.Language != lang || !strings.HasPrefix(h.Entry, "h3a-check check --staged") || !h.RequireSerial {
			t.Errorf("hook %s: %+v", id, h)
		}
		if h.PassFilenames == nil || *h.PassFilenames || !h.AlwaysRun || h.Files != "" {
			t.Errorf("hook %s must run on every commit without a file list (pass_filenames: false, always_run: true, no files): %+v", id, h)
		}
	}
	var example struct {
		Repos []struct {
			Hooks []struct {
				ID string `yaml:"id"`
			} `yaml:"hooks"`
		} `yaml:"repos"`
	}
	b, err = os.ReadFile(filepath.Join(moduleRoot, "docs", "examples", "pre-commit-config.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if err := yaml.Unmarshal(b, &example); err != nil {
		t.Fatal(err)
	}
	for _, r := range example.Repos {
		for _, h := range r.Hooks {
			if _, ok := byID[h.ID]; !ok {
				t.Errorf("the example names hook %q, which .pre-commit-hooks.yaml lacks", h.ID)
			}
		}
	}
}

// generatedHeader is the first line Go's convention gives a generated file
// (https://go.dev/s/generatedcode), in Go or Rego comments.
var generatedHeader = regexp.MustCompile(`^(//|#) Code generated .* DO NOT EDIT\.$`)

// TestGeneratedFilesAreMarked: every file a program writes is marked
// linguist-generated in .gitattributes, so review tools fold it away; the
// plan of the shipped rules is also kept out of diffs.
func TestGeneratedFilesAreMarked(t *testing.T) {
	git := mustHave(t, "git")
	if err := exec.Command(git, "-C", moduleRoot, "rev-parse", "--is-inside-work-tree").Run(); err != nil {
		t.Skipf("%s is not a git work tree", moduleRoot)
	}
	out, err := exec.Command(git, "-C", moduleRoot, "ls-files", "-z").Output()
	if err != nil {
		t.Fatal(err)
	}
	var generated []string
	for _, f := range strings.Split(strings.TrimRight(string(out), "\x00"), "\x00") {
		b, err := os.ReadFile(filepath.Join(moduleRoot, filepath.FromSlash(f)))
		if err != nil {
			continue // deleted in the work tree
		}
		first, _, _ := strings.Cut(string(b), "\n")
		if generatedHeader.MatchString(first) {
			generated = append(generated, f)
		}
	}
	if len(generated) < 2 {
		t.Fatalf("found %d generated files (%q), expected at least internal/policy/shipped_plan.go and policies/fixture_h3a_test.rego", len(generated), generated)
	}
	for _, f := range generated {
		want := map[string]string{"linguist-generated": "true"}
		if f == "internal/policy/shipped_plan.go" {
			want["diff"] = "unset"
		}
		for attr, value := range want {
			got, err := exec.Command(git, "-C", moduleRoot, "check-attr", attr, "--", f).Output()
			if err != nil {
				t.Fatal(err)
			}
			if !strings.HasSuffix(strings.TrimSpace(string(got)), ": "+value) {
				t.Errorf(".gitattributes: %s has %s, want %s %s", f, strings.TrimSpace(string(got)), attr, value)
			}
		}
	}
}

// TestFormatsDocumented: every output format has its paragraph in
// docs/formats.md ("**name**"), and is in the --format row of docs/usage.md.
func TestFormatsDocumented(t *testing.T) {
	formats, err := os.ReadFile(filepath.Join(moduleRoot, "docs", "formats.md"))
	if err != nil {
		t.Fatal(err)
	}
	usage, err := os.ReadFile(filepath.Join(moduleRoot, "docs", "usage.md"))
	if err != nil {
		t.Fatal(err)
	}
	row := regexp.MustCompile("(?m)^\\| `--format ([^`]*)`").FindSubmatch(usage)
	if row == nil {
		t.Fatal("docs/usage.md has no --format row")
	}
	listed := strings.Split(strings.ReplaceAll(string(row[1]), `\|`, "|"), "|")
	for _, name := range report.Formats() {
		if !regexp.MustCompile(`(?m)^\*\*` + regexp.QuoteMeta(name) + `\*\*`).Match(formats) {
			t.Errorf("docs/formats.md has no paragraph **%s**", name)
		}
		if !slices.Contains(listed, name) {
			t.Errorf("the --format row of docs/usage.md does not list %s", name)
		}
	}
}

// TestArchitectureIsTrue: ARCHITECTURE.md names files and packages that
// exist, lists every package under internal/, and stays one page.
func TestArchitectureIsTrue(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(moduleRoot, "ARCHITECTURE.md"))
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	if lines := strings.Count(doc, "\n"); lines > 100 {
		t.Errorf("ARCHITECTURE.md has %d lines; keep it to one page (100)", lines)
	}
	// A path in backquotes, without placeholders or globs, is a promise
	// that the file or folder exists; the recipes make the same promise.
	recipes, err := os.ReadFile(filepath.Join(moduleRoot, "CONTRIBUTING.md"))
	if err != nil {
		t.Fatal(err)
	}
	for name, text := range map[string]string{"ARCHITECTURE.md": doc, "CONTRIBUTING.md": string(recipes)} {
		for _, m := range regexp.MustCompile("`([a-z_./-]+/[a-z_./-]*[a-z_.-])`").FindAllStringSubmatch(text, -1) {
			p := strings.TrimSuffix(m[1], "/…")
			if _, err := os.Stat(filepath.Join(moduleRoot, filepath.FromSlash(p))); err != nil {
				t.Errorf("%s names %s, which does not exist", name, p)
			}
		}
	}
	packages, err := filepath.Glob(filepath.Join(moduleRoot, "internal", "*"))
	if err != nil {
		t.Fatal(err)
	}
	for _, dir := range packages {
		name := filepath.Base(dir)
		if info, err := os.Stat(dir); err != nil || !info.IsDir() || name == "textdist" || name == "pathglob" {
			continue // small helpers of the packages listed
		}
		if !strings.Contains(doc, "`"+name+"`") {
			t.Errorf("ARCHITECTURE.md does not say what internal/%s owns", name)
		}
	}
}

var (
	tourLine = regexp.MustCompile(`^go run \./cmd/h3a-check (\S+)\s+#.*: exit ([0-9])$`)
	// The err cases are patches: the tour writes two out into $cases first.
	tourCases       = regexp.MustCompile(`^cases=\$\(mktemp -d\)\s+#.*$`)
	tourMaterialise = regexp.MustCompile(`^go run \./internal/audit/audittest/cmd/materialise -o "\$cases"((?: testdata/runs/err/[a-z0-9_]+)+)$`)
)

// TestREADMETour: the runs the README's tour checks give the exit status
// it says, when checked from the module root as a newcomer does (outside
// CI: the working tree is theirs).
func TestREADMETour(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(moduleRoot, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, tour, ok := strings.Cut(string(b), "Try it on the bundled runs:\n\n```sh\n")
	if !ok {
		t.Fatal("README.md has no tour block (\"Try it on the bundled runs:\")")
	}
	tour, _, _ = strings.Cut(tour, "```")
	seen := map[string]bool{}
	cases := ""
	for _, line := range strings.Split(strings.TrimSpace(tour), "\n") {
		if tourCases.MatchString(line) {
			cases = t.TempDir()
			continue
		}
		if m := tourMaterialise.FindStringSubmatch(line); m != nil && cases != "" {
			for _, c := range strings.Fields(m[1]) {
				if err := audittest.MaterialiseCase(filepath.Join(moduleRoot, "testdata", "runs"), filepath.Join(moduleRoot, c), filepath.Join(cases, filepath.Base(c))); err != nil {
					t.Errorf("tour line %q: %v", line, err)
				}
			}
			continue
		}
		m := tourLine.FindStringSubmatch(line)
		if m == nil {
			t.Errorf("tour line %q is not `go run ./cmd/h3a-check PATH # ...: exit N`, nor one that writes err cases out into $cases", line)
			continue
		}
		seen[m[2]] = true
		path := m[1]
		if rest, ok := strings.CutPrefix(path, `"$cases/`); ok && cases != "" {
			path = filepath.Join(cases, strings.TrimSuffix(rest, `"`))
		}
		cmd := exec.Command(binary, path)
		cmd.Dir = moduleRoot
		cmd.Env = baseEnv()
		out, err := cmd.CombinedOutput()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		if fmt.Sprint(code) != m[2] {
			t.Errorf("h3a-check %s: exit status %d, the README says %s\n%s", m[1], code, m[2], out)
		}
	}
	for _, code := range []string{"0", "1", "3"} {
		if !seen[code] {
			t.Errorf("the tour shows no run that exits %s", code)
		}
	}
}

// TestCIRunsTheREADMETests: CI runs the README's test command as it is
// written, so the command a newcomer copies is the one that is kept green.
func TestCIRunsTheREADMETests(t *testing.T) {
	readme, err := os.ReadFile(filepath.Join(moduleRoot, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, block, ok := strings.Cut(string(readme), "## Two commands\n\n```sh\n")
	if !ok {
		t.Fatal("README.md has no \"Two commands\" block")
	}
	block, _, _ = strings.Cut(block, "```")
	var command string
	for _, line := range strings.Split(block, "\n") {
		cmd, _, _ := strings.Cut(line, "#")
		if cmd = strings.TrimSpace(cmd); strings.Contains(cmd, "go test") {
			command = cmd
		}
	}
	if command == "" {
		t.Fatalf("README.md's two commands have no go test command:\n%s", block)
	}
	ci, err := os.ReadFile(filepath.Join(moduleRoot, ".ci", "run"))
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(strings.Split(string(ci), "\n"), command) {
		t.Errorf(".ci/run has no line %q, the README's test command", command)
	}
}
