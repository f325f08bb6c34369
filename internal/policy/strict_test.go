package policy

import (
	"context"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/h3a-check/h3a-check/internal/longtest"
	"github.com/h3a-check/h3a-check/policies"
)

// validUserPolicies are the folders of internal/cli/testdata/policies that
// are meant to load (the others, hijack and typo, are refused on purpose).
var validUserPolicies = []string{"team", "partial", "failing", "debug", "slow"}

// TestRegoStrict holds every shipped policy, and the user policies the CLI
// tests load as valid, to OPA's strict compile (what opa check --strict
// does: unused variables, imports and arguments, shadowed names, deprecated
// built-ins are errors), their tests included (the shipped *_test.rego
// files are compiled strictly by TestRegoPolicies).
func TestRegoStrict(t *testing.T) {
	longtest.Skip(t) // .ci/run's Rego step runs it first
	t.Parallel()
	if _, err := Load(context.Background(), Options{Strict: true}); err != nil {
		t.Errorf("shipped policies, strict: %v", err)
	}
	for _, d := range validUserPolicies {
		dir := filepath.Join("..", "cli", "testdata", "policies", d)
		if _, err := Load(context.Background(), Options{Dirs: []string{dir}, Strict: true}); err != nil {
			t.Errorf("%s, strict: %v", dir, err)
		}
		if tests, _ := filepath.Glob(filepath.Join(dir, "*_test.rego")); len(tests) == 0 {
			continue
		}
		if _, err := RunTests(context.Background(), TestOptions{Dirs: []string{dir}, Strict: true, Timeout: time.Minute}); err != nil {
			t.Errorf("%s, its tests strict: %v", dir, err)
		}
	}
}

// TestRegoStrictCatchesUnusedVariable: the strict compile of
// TestRegoStrict refuses a shipped rule with a variable it never uses.
func TestRegoStrictCatchesUnusedVariable(t *testing.T) {
	names, err := fs.Glob(policies.FS, "*.rego")
	if err != nil {
		t.Fatal(err)
	}
	sloppy := fstest.MapFS{}
	for _, name := range names {
		b, err := fs.ReadFile(policies.FS, name)
		if err != nil {
			t.Fatal(err)
		}
		sloppy[name] = &fstest.MapFile{Data: b}
	}
	sloppy["sloppy.rego"] = &fstest.MapFile{Data: []byte("package h3a.rules.gates\n\nunused_helper if {\n\tnever_read := 1\n\ttrue\n}\n")}
	orig := shippedFS
	defer func() { shippedFS = orig }()
	shippedFS = sloppy
	_, err = Load(context.Background(), Options{Strict: true})
	if err == nil || !strings.Contains(err.Error(), "policies/sloppy.rego:4") || !strings.Contains(err.Error(), "never_read") {
		t.Fatalf("err = %v, want the unused variable at policies/sloppy.rego:4", err)
	}
}
