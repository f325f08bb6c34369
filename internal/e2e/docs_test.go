package e2e

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

// TestREADMEShowsTheExamples: the workflow and the hook configuration in
// the README are the example files, verbatim: CI lints the workflow with
// actionlint, and TestHookDefinitions checks the hooks the configuration
// names.
func TestREADMEShowsTheExamples(t *testing.T) {
	readme, err := os.ReadFile(filepath.Join(moduleRoot, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"docs/examples/pull-request.yml", "docs/examples/pre-commit-config.yaml"} {
		b, err := os.ReadFile(filepath.Join(moduleRoot, filepath.FromSlash(f)))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(readme), "```yaml\n"+string(b)+"```") {
			t.Errorf("README.md does not show %s verbatim in a yaml block", f)
		}
	}
}

type hook struct {
	ID            string `yaml:"id"`
	Entry         string `yaml:"entry"`
	Language      string `yaml:"language"`
	Files         string `yaml:"files"`
	RequireSerial bool   `yaml:"require_serial"`
}

// TestHookDefinitions: the hooks exist as documented, pick files inside
// run directories only, and the example configuration names real hooks.
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
		if h.Language != lang || !strings.HasPrefix(h.Entry, "h3a-check check") || !h.RequireSerial {
			t.Errorf("hook %s: %+v", id, h)
		}
		re, err := regexp.Compile(h.Files)
		if err != nil {
			t.Fatalf("hook %s files: %v", id, err)
		}
		for path, want := range map[string]bool{
			"runs/" + runID + "/state.json":               true,
			"project/runs/" + runID + "/state/ROADMAP.md": true,
			"runs/README.md":                              false,
			"src/main.go":                                 false,
		} {
			if re.MatchString(path) != want {
				t.Errorf("hook %s: files %q matches %s: %v, want %v", id, h.Files, path, !want, want)
			}
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
