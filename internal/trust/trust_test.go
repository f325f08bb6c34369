package trust_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/h3a-check/h3a-check/internal/gitrev"
	"github.com/h3a-check/h3a-check/internal/gitrev/gittest"
	"github.com/h3a-check/h3a-check/internal/trust"
)

const noUnticking = `package h3a.user.roadmap

# METADATA
# title: Completed tasks stay completed
deny contains f if { some t in input.docs.roadmap.tasks; t.reopened; f := {"msg": "task reopened"} }
`

// prRepo is a repository whose base commit holds a policy and a config,
// and whose working tree is a pull request that deletes the policy, adds a
// lenient one, and relaxes the config.
func prRepo(t *testing.T) (*gittest.Repo, string) {
	t.Helper()
	g := gittest.Init(t)
	g.Write(map[string]string{
		"policies/no_unticking.rego": noUnticking,
		"policies/lib/util.rego":     "package h3a.user.lib\n",
		".h3a-check.yaml":            "fail_level: warning\n",
	})
	base := g.Commit("base")
	g.Remove("policies/no_unticking.rego")
	g.Write(map[string]string{
		"policies/lenient.rego": "package h3a.user.lenient\n",
		".h3a-check.yaml":       "fail_level: error\n",
		"head-only.yaml":        "x: 1\n",
	})
	return g, base
}

func boundary(t *testing.T, dir, asked string, trustWT bool) trust.Boundary {
	t.Helper()
	var l gitrev.Locator
	t.Cleanup(func() { l.Close() })
	b, err := trust.Resolve(&l, dir, asked, func(string) string { return "" }, trustWT)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestPolicyDeletedInPullRequest: a pull request that deletes a policy
// still gets judged by it, and its new policy is ignored with a warning.
func TestPolicyDeletedInPullRequest(t *testing.T) {
	g, base := prRepo(t)
	t.Chdir(g.Dir)
	b := boundary(t, g.Dir, "", false)
	if b.Commit != base {
		t.Fatalf("base %q, want %s", b.Commit, base)
	}
	fsys, src, exists, err := b.Dir("policies")
	if err != nil || !exists {
		t.Fatalf("Dir: %v %v", exists, err)
	}
	got, err := fs.ReadFile(fsys, "no_unticking.rego")
	if err != nil || string(got) != noUnticking {
		t.Fatalf("the deleted policy is not served from the base: %q %v", got, err)
	}
	if _, err := fs.ReadFile(fsys, "lenient.rego"); err == nil {
		t.Error("a policy that exists only in the pull request was used")
	}
	if src.Origin != trust.Base || src.Commit != base || !slices.Equal(src.Ignored, []string{"lenient.rego"}) {
		t.Errorf("source %+v", src)
	}
	w := src.Warnings()
	if len(w) != 1 || !strings.Contains(w[0], "policies/lenient.rego exists only in the working tree") || !strings.Contains(w[0], "--trust-working-tree") {
		t.Errorf("warnings %q", w)
	}
	if s := src.String(); !strings.HasPrefix(s, "policies: base "+base[:12]) {
		t.Errorf("report line %q", s)
	}
	var names []string
	fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			names = append(names, p)
		}
		return err
	})
	if !slices.Equal(names, []string{"lib/util.rego", "no_unticking.rego"}) {
		t.Errorf("walk: %v", names)
	}

	// The branch that changes the policies on purpose.
	trusted := boundary(t, g.Dir, "", true)
	fsys, src, _, err = trusted.Dir("policies")
	if err != nil || src.Origin != trust.WorkingTree || src.Reason != "--trust-working-tree" {
		t.Fatalf("trusted: %+v %v", src, err)
	}
	if _, err := fs.ReadFile(fsys, "lenient.rego"); err != nil {
		t.Errorf("trusted working tree not read: %v", err)
	}
}

func TestConfigFile(t *testing.T) {
	g, base := prRepo(t)
	b := boundary(t, g.Dir, "", false)
	tests := []struct {
		name, path string
		b          trust.Boundary
		want       string
		exists     bool
		origin     trust.Origin
		ignored    bool
	}{
		{"changed in head: base wins", filepath.Join(g.Dir, ".h3a-check.yaml"), b, "fail_level: warning\n", true, trust.Base, false},
		{"only in head: ignored", filepath.Join(g.Dir, "head-only.yaml"), b, "", false, trust.Base, true},
		{"nowhere", filepath.Join(g.Dir, "nope.yaml"), b, "", false, trust.Base, false},
		{"no base", filepath.Join(g.Dir, ".h3a-check.yaml"), trust.Boundary{}, "fail_level: error\n", true, trust.WorkingTree, false},
		{"--base none", filepath.Join(g.Dir, "head-only.yaml"), boundary(t, g.Dir, "none", false), "x: 1\n", true, trust.WorkingTree, false},
		{"trusted", filepath.Join(g.Dir, ".h3a-check.yaml"), boundary(t, g.Dir, "", true), "fail_level: error\n", true, trust.WorkingTree, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			data, src, exists, err := tc.b.File(tc.path)
			if err != nil || string(data) != tc.want || exists != tc.exists || src.Origin != tc.origin {
				t.Fatalf("got %q exists=%v origin=%s err=%v", data, exists, src.Origin, err)
			}
			if got := len(src.Ignored) > 0; got != tc.ignored {
				t.Errorf("ignored %v, want %v", src.Ignored, tc.ignored)
			}
			if tc.ignored && (len(src.Warnings()) != 1 || !strings.Contains(src.Warnings()[0], "not at base "+base[:12])) {
				t.Errorf("warnings %q", src.Warnings())
			}
		})
	}
}

func TestOutsideRepository(t *testing.T) {
	g, _ := prRepo(t)
	b := boundary(t, g.Dir, "", false)
	outside := filepath.Join(t.TempDir(), "cfg.yaml")
	os.WriteFile(outside, []byte("a: 1\n"), 0o644)
	data, src, exists, err := b.File(outside)
	if err != nil || !exists || string(data) != "a: 1\n" || src.Origin != trust.WorkingTree || !strings.Contains(src.Reason, "outside the repository") {
		t.Errorf("%q %+v %v %v", data, src, exists, err)
	}
	if nb := boundary(t, t.TempDir(), "", false); nb.Commit != "" {
		t.Errorf("outside any work tree there is no base: %+v", nb)
	}
}

func TestBaseFS(t *testing.T) {
	g, _ := prRepo(t)
	b := boundary(t, g.Dir, "", false)
	fsys, _, _, err := b.Dir(filepath.Join(g.Dir, "policies"))
	if err != nil {
		t.Fatal(err)
	}
	if err := fstest.TestFS(fsys, "no_unticking.rego", "lib/util.rego"); err != nil {
		t.Fatal(err)
	}
	if _, _, exists, err := b.Dir(filepath.Join(g.Dir, "no-such-dir")); exists || err != nil {
		t.Errorf("missing policy dir: %v %v", exists, err)
	}
}
