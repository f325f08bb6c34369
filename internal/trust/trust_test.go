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
	g.Publish(base)
	g.Remove("policies/no_unticking.rego")
	g.Write(map[string]string{
		"policies/lenient.rego": "package h3a.user.lenient\n",
		".h3a-check.yaml":       "fail_level: error\n",
		"head-only.yaml":        "x: 1\n",
	})
	return g, base
}

// ci is the environment of a CI job: the working tree is the change
// under review.
func ci(k string) string { return map[string]string{"CI": "true"}[k] }

// local is a developer's machine: nothing says CI.
func local(string) string { return "" }

func boundary(t *testing.T, getenv func(string) string, asked string, trustWT bool) trust.Boundary {
	t.Helper()
	var l gitrev.Locator
	t.Cleanup(func() { l.Close() })
	return trust.New(&l, asked, getenv, trustWT)
}

// TestPolicyDeletedInPullRequest: a pull request that deletes a policy
// still gets judged by it; its new policy is not used, and every
// difference is a change a reviewer sees.
func TestPolicyDeletedInPullRequest(t *testing.T) {
	g, base := prRepo(t)
	t.Chdir(g.Dir)
	b := boundary(t, ci, "", false)
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
	want := []trust.Change{
		{Path: "policies/lenient.rego", What: "is only in the working tree (a file)"},
		{Path: "policies/no_unticking.rego", What: "is deleted in the working tree"},
	}
	if !slices.Equal(src.Changes, want) {
		t.Errorf("changes %+v, want %+v", src.Changes, want)
	}
	// The line names the revision and why it was chosen.
	if s := src.String(); !strings.HasPrefix(s, "policies: commit "+base[:12]) || !strings.Contains(s, "origin/HEAD "+base[:12]+", the default branch") {
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
	trusted := boundary(t, ci, "", true)
	fsys, src, _, err = trusted.Dir("policies")
	if err != nil || src.Origin != trust.WorkingTree || src.Reason != "the working tree is trusted on request" || src.Changes != nil {
		t.Fatalf("trusted: %+v %v", src, err)
	}
	if _, err := fs.ReadFile(fsys, "lenient.rego"); err != nil {
		t.Errorf("trusted working tree not read: %v", err)
	}
}

// TestWhoseWorkingTree: outside CI and without --base the working tree is
// the person's own and is read as it is; in CI, or with --base, the base.
func TestWhoseWorkingTree(t *testing.T) {
	g, base := prRepo(t)
	t.Chdir(g.Dir)
	for _, tc := range []struct {
		name   string
		getenv func(string) string
		asked  string
		origin trust.Origin
	}{
		{"local", local, "", trust.WorkingTree},
		{"local, --base none", local, "none", trust.WorkingTree},
		{"local, --base HEAD", local, "HEAD", trust.Base},
		{"CI=true", ci, "", trust.Base},
		{"CI=true, --base none", ci, "none", trust.Base},
		{"CI=1", func(k string) string { return map[string]string{"CI": "1"}[k] }, "", trust.Base},
		{"CI=false", func(k string) string { return map[string]string{"CI": "false"}[k] }, "", trust.WorkingTree},
		{"GITHUB_ACTIONS=true", func(k string) string { return map[string]string{"GITHUB_ACTIONS": "true"}[k] }, "", trust.Base},
	} {
		t.Run(tc.name, func(t *testing.T) {
			data, src, _, err := boundary(t, tc.getenv, tc.asked, false).File(".h3a-check.yaml")
			if err != nil || src.Origin != tc.origin {
				t.Fatalf("origin %s (%+v, %v), want %s", src.Origin, src, err, tc.origin)
			}
			want := "fail_level: error\n"
			if tc.origin == trust.Base {
				want = "fail_level: warning\n"
				if src.Commit != base || len(src.Changes) != 1 {
					t.Errorf("source %+v, want base %s and one change", src, base)
				}
			}
			if string(data) != want {
				t.Errorf("read %q, want %q", data, want)
			}
		})
	}
}

func TestConfigFile(t *testing.T) {
	g, base := prRepo(t)
	b := boundary(t, ci, "", false)
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
		{"trusted", filepath.Join(g.Dir, ".h3a-check.yaml"), boundary(t, ci, "", true), "fail_level: error\n", true, trust.WorkingTree, false},
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
			if tc.ignored && (len(src.Changes) != 1 || src.Changes[0].What != "is only in the working tree (a file)") {
				t.Errorf("changes %+v", src.Changes)
			}
			if src.Origin == trust.Base && src.Commit != base {
				t.Errorf("commit %s, want %s", src.Commit, base)
			}
		})
	}
}

// TestReadByPath: at a base, files are read by their path in the base's
// tree; what the working tree holds there (a link to another file or
// folder, nothing) never changes which base objects are read, and a link
// at the base itself is an error.
func TestReadByPath(t *testing.T) {
	g, base := prRepo(t)
	t.Chdir(g.Dir)
	elsewhere := t.TempDir()
	os.WriteFile(filepath.Join(elsewhere, "lenient.rego"), []byte("package h3a.user.lenient\n"), 0o644)
	b := boundary(t, ci, "", false)
	for _, tc := range []struct {
		name  string
		setup func()
		what  string
	}{
		{"config a link to .git/HEAD", func() { relink(t, ".h3a-check.yaml", filepath.Join(".git", "HEAD")) }, "is replaced in the working tree by a symbolic link"},
		{"config a link to a file the base lacks", func() { relink(t, ".h3a-check.yaml", "head-only.yaml") }, "is replaced in the working tree by a symbolic link"},
		{"config deleted", func() { os.Remove(".h3a-check.yaml") }, "is deleted in the working tree"},
		{"config a folder", func() { os.Remove(".h3a-check.yaml"); os.Mkdir(".h3a-check.yaml", 0o755) }, "is replaced in the working tree by a folder"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g.Git("checkout", "-q", "--", ".")
			os.RemoveAll(".h3a-check.yaml")
			g.Git("checkout", "-q", base, "--", ".h3a-check.yaml")
			tc.setup()
			data, src, exists, err := b.File(".h3a-check.yaml")
			if err != nil || !exists || string(data) != "fail_level: warning\n" || src.Origin != trust.Base {
				t.Fatalf("read %q exists=%v %+v %v, want the base's file", data, exists, src, err)
			}
			if len(src.Changes) != 1 || src.Changes[0].What != tc.what {
				t.Errorf("changes %+v, want %q", src.Changes, tc.what)
			}
		})
	}
	for _, tc := range []struct {
		name  string
		setup func()
		what  string
	}{
		{"policy folder a link to a new folder", func() { os.RemoveAll("policies"); os.Symlink(elsewhere, "policies") }, "is replaced in the working tree by a symbolic link"},
		{"policy folder deleted", func() { os.RemoveAll("policies") }, "is deleted in the working tree"},
		{"policy folder renamed", func() { os.Rename("policies", "rules") }, "is deleted in the working tree"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			os.RemoveAll("policies")
			os.RemoveAll("rules")
			g.Git("checkout", "-q", base, "--", "policies")
			tc.setup()
			fsys, src, exists, err := b.Dir("policies")
			if err != nil || !exists || src.Origin != trust.Base {
				t.Fatalf("exists=%v %+v %v, want the base's folder", exists, src, err)
			}
			if got, err := fs.ReadFile(fsys, "no_unticking.rego"); err != nil || string(got) != noUnticking {
				t.Errorf("the base's policy was not read: %q %v", got, err)
			}
			if len(src.Changes) != 1 || src.Changes[0].Path != "policies" || src.Changes[0].What != tc.what {
				t.Errorf("changes %+v, want policies %q", src.Changes, tc.what)
			}
		})
	}
}

// TestLinkAtBase: a configuration or policy that is a link at the base
// itself, or reached through one, is an error, never "nothing there".
func TestLinkAtBase(t *testing.T) {
	g := gittest.Init(t)
	g.Write(map[string]string{"real/cfg.yaml": "fail-level: error\n", "real/p/x.rego": noUnticking})
	os.Symlink(filepath.Join("real", "cfg.yaml"), filepath.Join(g.Dir, ".h3a-check.yaml"))
	os.Symlink("real", filepath.Join(g.Dir, "linked"))
	os.Symlink(filepath.Join("..", "cfg.yaml"), filepath.Join(g.Dir, "real", "p", "y.rego"))
	g.Publish(g.Commit("links"))
	t.Chdir(g.Dir)
	b := boundary(t, ci, "", false)
	for _, p := range []string{".h3a-check.yaml", "linked/cfg.yaml"} {
		if _, _, _, err := b.File(p); err == nil || !strings.Contains(err.Error(), "symbolic link") {
			t.Errorf("%s: err %v, want one naming the link", p, err)
		}
	}
	for _, p := range []string{"linked", "linked/p", "real/p"} {
		if _, _, _, err := b.Dir(p); err == nil || !strings.Contains(err.Error(), "symbolic link") {
			t.Errorf("%s: err %v, want one naming the link", p, err)
		}
	}
}

// relink replaces name by a symbolic link to target.
func relink(t *testing.T, name, target string) {
	t.Helper()
	os.RemoveAll(name)
	if err := os.Symlink(target, name); err != nil {
		t.Fatal(err)
	}
}

func TestOutsideRepository(t *testing.T) {
	prRepo(t)
	b := boundary(t, ci, "", false)
	outside := filepath.Join(t.TempDir(), "cfg.yaml")
	os.WriteFile(outside, []byte("a: 1\n"), 0o644)
	data, src, exists, err := b.File(outside)
	if err != nil || !exists || string(data) != "a: 1\n" || src.Origin != trust.WorkingTree || !strings.Contains(src.Reason, "not inside a git work tree") {
		t.Errorf("%q %+v %v %v", data, src, exists, err)
	}
}

func TestBaseFS(t *testing.T) {
	g, _ := prRepo(t)
	b := boundary(t, ci, "", false)
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

// TestNamedRevisionTheChangeWrote: in CI, a --base or a pre-commit range
// that starts at a commit of the change's own branch (a push's before on
// a feature branch) does not choose the rules: that commit may loosen
// them for the commits after it. The rules come from the revision the
// change cannot write, and the loosening is a change a reviewer sees. A
// revision in that one's history, and any revision off CI, stand.
func TestNamedRevisionTheChangeWrote(t *testing.T) {
	g := gittest.Init(t)
	g.Write(map[string]string{".h3a-check.yaml": "fail-level: warning\n"})
	base := g.Commit("base")
	g.Publish(base)
	g.Write(map[string]string{".h3a-check.yaml": "fail-level: error\n"})
	loosened := g.Commit("loosen the configuration")
	g.Write(map[string]string{"runs/x": "a run\n"})
	g.Commit("the run")
	t.Chdir(g.Dir)
	for _, tc := range []struct {
		name   string
		getenv func(string) string
		b      func(trust.Boundary) trust.Boundary
		asked  string
		want   string // the commit read
	}{
		{"CI, --base the branch's earlier commit", ci, nil, loosened, base},
		{"CI, a range from the branch's earlier commit", ci, func(b trust.Boundary) trust.Boundary { return b.AgainstRangeStart(loosened) }, "", base},
		{"CI, --base the target", ci, nil, base, base},
		{"CI, a range from the target", ci, func(b trust.Boundary) trust.Boundary { return b.AgainstRangeStart(base) }, "", base},
		{"local, --base the branch's earlier commit", local, nil, loosened, loosened},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := boundary(t, tc.getenv, tc.asked, false)
			if tc.b != nil {
				b = tc.b(b)
			}
			data, src, _, err := b.File(".h3a-check.yaml")
			if err != nil || src.Commit != tc.want {
				t.Fatalf("read at %s (%+v, %v), want %s", src.Commit, src, err, tc.want)
			}
			if tc.want == base && (string(data) != "fail-level: warning\n" || len(src.Changes) != 1) {
				t.Errorf("read %q with changes %+v, want the base's file and one change", data, src.Changes)
			}
		})
	}
}
