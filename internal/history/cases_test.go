package history_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/h3a-check/h3a-check/internal/audit"
	"github.com/h3a-check/h3a-check/internal/audit/audittest"
	"github.com/h3a-check/h3a-check/internal/gitrev/gittest"
	"github.com/h3a-check/h3a-check/internal/runner"
	"github.com/h3a-check/h3a-check/internal/txtar"
)

var update = flag.Bool("update", false, "rewrite the want section of testdata/history/*.txtar")

const (
	casesDir = "../../testdata/history"
	template = "../../testdata/runs/ok/complete"
	runName  = "20250929-134215-8b6f8b9a-7c9f-4c5e-8c6a-2f0f0d2e9c1a"
)

// TestHistoryCases turns each testdata/history/<case>.txtar into a real git
// repository holding the complete example run under runs/: the base commit
// is the example with the case's base/ files applied, and the working tree
// then gets its head/ files. The check (default base: HEAD) must give
// exactly the case's want section.
//
// Archive files: "base/PATH" and "head/PATH" replace a file of the run;
// "base/PATH.edit" and "head/PATH.edit" edit one with blocks of
// "<<<<\nold\n====\nnew\n>>>>\n" (old, without the line break before
// "====", must occur once; new may be empty); "want" is the
// expected output, rewritten by -update; "expect" is the expectation written
// by hand from the comment (gate and rule, format in internal/audit/audittest),
// which every case must have and -update never rewrites, so that a
// regression written over by -update still fails. In any file, {{hash PATH}} becomes the first 16 hex
// digits of the SHA-256 of that file of the same tree. Comment lines
// "delete: PATH" delete from head ("." is the whole run), "new-run"
// leaves the run out of the base commit, "template: KIND/CASE" makes the
// run of testdata/runs/KIND/CASE (its one folder) the example, "move: DIR"
// moves the run in head into DIR (from the repository's top, after the
// edits), "copy: DIR [NAME]" copies it there (before a move), as NAME when given,
// "copy-as: DIR ID" copies it there as the run ID (audittest.CopyRunAs), "search: DIR..." names the folders checked (runs/ unless
// told), "local" checks the working tree as the person's own (a human
// decision in it counts), "changed" checks only the runs changed since
// the base (--changed), and "staged" stages the whole working tree and
// checks what its commit would record (--staged).
func TestHistoryCases(t *testing.T) {
	paths, err := filepath.Glob(filepath.Join(casesDir, "*.txtar"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no cases in %s (%v)", casesDir, err)
	}
	for _, p := range paths {
		t.Run(strings.TrimSuffix(filepath.Base(p), ".txtar"), func(t *testing.T) {
			ar := readArchive(t, p)
			got, audits := runCase(t, ar)
			checkExpectation(t, ar, audits)
			if *update {
				ar.Set("want", got)
				if err := os.WriteFile(p, ar.Format(), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, ok := ar.Get("want")
			if !ok {
				t.Fatalf("%s has no want section (run with -update to write it)", p)
			}
			if want != got {
				t.Errorf("findings differ (rerun with -update and review the diff)\n--- want\n%s--- got\n%s", want, got)
			}
		})
	}
}

// checkExpectation holds the check to the case's expect section, with and
// without -update.
func checkExpectation(t *testing.T, ar *archive, audits []*audit.Audit) {
	t.Helper()
	text, ok := ar.Get("expect")
	if !ok {
		t.Errorf("no expect section: write one by hand from the case's comment (gate and rule; format in internal/audit/audittest)")
		return
	}
	exp, err := audittest.Parse([]byte(text))
	if err != nil {
		t.Errorf("expect section: %v", err)
		return
	}
	for _, msg := range exp.Mismatches(audits) {
		t.Errorf("expect section: %s", msg)
	}
}

func runCase(t *testing.T, ar *archive) (string, []*audit.Audit) {
	g := gittest.Init(t)
	directives := ar.directives()
	example := exampleDir(t, ar.directive("template: "))
	runDir := filepath.Join(g.Dir, "runs", filepath.Base(example))
	g.Write(map[string]string{"README.md": "history case\n"})
	if !slices.Contains(directives, "new-run") {
		copyTemplate(t, example, runDir)
		applyTree(t, ar, "base/", runDir)
	}
	base := g.Commit("base") // HEAD from here on
	if slices.Contains(directives, "new-run") {
		copyTemplate(t, example, runDir)
	}
	applyTree(t, ar, "head/", runDir)
	for _, d := range directives {
		if p, ok := strings.CutPrefix(d, "delete: "); ok {
			if err := os.RemoveAll(filepath.Join(runDir, filepath.FromSlash(p))); err != nil {
				t.Fatal(err)
			}
		}
	}
	if to := ar.directive("copy: "); to != "" {
		dir, name, _ := strings.Cut(to, " ")
		if name == "" {
			name = filepath.Base(runDir)
		}
		if err := os.CopyFS(filepath.Join(g.Dir, filepath.FromSlash(dir), name), os.DirFS(runDir)); err != nil {
			t.Fatal(err)
		}
	}
	if to := ar.directive("copy-as: "); to != "" {
		dir, id, _ := strings.Cut(to, " ")
		if err := audittest.CopyRunAs(runDir, filepath.Join(g.Dir, filepath.FromSlash(dir), id), filepath.Base(runDir), id); err != nil {
			t.Fatal(err)
		}
	}
	if to := ar.directive("move: "); to != "" {
		dst := filepath.Join(g.Dir, filepath.FromSlash(to), filepath.Base(runDir))
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(runDir, dst); err != nil {
			t.Fatal(err)
		}
	}
	searched := []string{filepath.Join(g.Dir, "runs")}
	if dirs := ar.directive("search: "); dirs != "" {
		searched = nil
		for _, d := range strings.Fields(dirs) {
			dir := filepath.Join(g.Dir, filepath.FromSlash(d))
			if err := os.MkdirAll(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			searched = append(searched, dir)
		}
	}

	// The change under review is the working tree; "local" makes it the
	// person's own, whose human decisions count.
	staged := slices.Contains(directives, "staged")
	if staged {
		g.Git("add", "-A")
	}
	res, err := runner.Check(context.Background(), runner.Options{
		Scope: runner.Scope{
			Paths:   searched,
			Getenv:  func(string) string { return "" }, // not a pull request, even in CI
			Changed: slices.Contains(directives, "changed"),
			Staged:  staged,
		},
		Rules: runner.Rules{Humans: &runner.Humans{Local: slices.Contains(directives, "local")}},
	})
	if err != nil {
		return "error: " + err.Error() + "\n", nil
	}
	var b strings.Builder
	for _, a := range res.Audits {
		run := filepath.Base(a.Run)
		if rel, err := filepath.Rel(g.Dir, a.Run); err == nil && len(searched) > 1 {
			run = filepath.ToSlash(rel) // which folder holds it matters
		}
		fmt.Fprintf(&b, "run %s gate %s\n", run, a.Gate)
		for _, f := range a.Findings {
			loc := f.Location()
			if loc == "" {
				loc = "."
			}
			fmt.Fprintf(&b, "%s: %s: %s [%s]\n", loc, f.Severity, f.Details, f.Rule)
		}
	}
	if n := res.CatFileProcesses; n > 1 {
		t.Errorf("%d cat-file processes, want at most 1", n)
	}
	out := strings.ReplaceAll(b.String(), base[:12], "<base>")
	return strings.ReplaceAll(out, filepath.ToSlash(g.Dir)+"/", ""), res.Audits
}

func copyTemplate(t *testing.T, src, dst string) {
	t.Helper()
	if err := os.CopyFS(dst, os.DirFS(src)); err != nil {
		t.Fatal(err)
	}
}

// exampleDir is the run a case starts from: the complete example, or the
// one run folder of testdata/runs/<kindCase> ("ok/contract_rounds").
func exampleDir(t *testing.T, kindCase string) string {
	t.Helper()
	if kindCase == "" {
		return filepath.Join(template, runName)
	}
	dir := filepath.Join(template, "..", "..", filepath.FromSlash(kindCase))
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var runs []string
	for _, e := range entries {
		if e.IsDir() {
			runs = append(runs, e.Name())
		}
	}
	if len(runs) != 1 {
		t.Fatalf("template %s holds %d folders, want one run", kindCase, len(runs))
	}
	return filepath.Join(dir, runs[0])
}

// applyTree writes the archive's files under prefix into the run, then
// expands {{hash PATH}} once every plain file is in place.
func applyTree(t *testing.T, ar *archive, prefix, runDir string) {
	t.Helper()
	var templated []string
	for _, f := range ar.Files {
		rel, ok := strings.CutPrefix(f.Name, prefix)
		if !ok {
			continue
		}
		content := f.Data
		if edit, ok := strings.CutSuffix(rel, ".edit"); ok {
			rel = edit
			old, err := os.ReadFile(filepath.Join(runDir, filepath.FromSlash(rel)))
			if err != nil {
				t.Fatalf("%s: %v", f.Name, err)
			}
			content = applyEdits(t, f.Name, string(old), f.Data)
		}
		full := filepath.Join(runDir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		if strings.Contains(content, "{{hash ") {
			templated = append(templated, full)
		}
	}
	hashRef := regexp.MustCompile(`\{\{hash ([^}]+)\}\}`)
	for _, full := range templated {
		data, _ := os.ReadFile(full)
		out := hashRef.ReplaceAllFunc(data, func(m []byte) []byte {
			ref := string(hashRef.FindSubmatch(m)[1])
			target, err := os.ReadFile(filepath.Join(runDir, filepath.FromSlash(ref)))
			if err != nil {
				t.Fatalf("{{hash %s}}: %v", ref, err)
			}
			sum := sha256.Sum256(target)
			return []byte(hex.EncodeToString(sum[:])[:16])
		})
		if err := os.WriteFile(full, out, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

var editBlock = regexp.MustCompile(`(?s)<<<<\n(.*?)\n====\n(?:(.*?)\n)?>>>>\n`)

func applyEdits(t *testing.T, name, content, edits string) string {
	t.Helper()
	blocks := editBlock.FindAllStringSubmatch(edits, -1)
	if len(blocks) == 0 {
		t.Fatalf("%s holds no <<<< ==== >>>> block", name)
	}
	for _, b := range blocks {
		old, new := b[1], b[2]
		if n := strings.Count(content, old); n != 1 {
			t.Fatalf("%s: %q occurs %d times, want once", name, old, n)
		}
		content = strings.Replace(content, old, new, 1)
	}
	return content
}

// archive is a case: a txtar file (internal/txtar) whose comment holds
// the directives.
type archive struct{ *txtar.Archive }

func readArchive(t *testing.T, path string) *archive {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return &archive{txtar.Parse(data)}
}

func (a *archive) directives() []string {
	var ds []string
	for _, l := range strings.Split(a.Comment, "\n") {
		if strings.HasPrefix(l, "delete: ") || l == "new-run" || strings.HasPrefix(l, "template: ") || strings.HasPrefix(l, "move: ") || strings.HasPrefix(l, "copy: ") || strings.HasPrefix(l, "copy-as: ") || strings.HasPrefix(l, "search: ") || l == "local" || l == "changed" || l == "staged" {
			ds = append(ds, l)
		}
	}
	return ds
}

// directive is the rest of the first directive that starts with prefix, "" for none.
func (a *archive) directive(prefix string) string {
	for _, d := range a.directives() {
		if rest, ok := strings.CutPrefix(d, prefix); ok {
			return rest
		}
	}
	return ""
}
