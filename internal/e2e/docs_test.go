package e2e

import (
	"os"
	"path/filepath"
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
