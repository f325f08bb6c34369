package e2e

import (
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode"
)

// docPages lists the Markdown pages whose links are checked: the README,
// ARCHITECTURE.md and every page under docs/, as paths from the module root.
func docPages(t *testing.T) []string {
	t.Helper()
	pages := []string{"README.md", "ARCHITECTURE.md", "BENCHMARKS.md"}
	err := filepath.WalkDir(filepath.Join(moduleRoot, "docs"), func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && strings.HasSuffix(p, ".md") {
			rel, err := filepath.Rel(moduleRoot, p)
			if err != nil {
				return err
			}
			pages = append(pages, filepath.ToSlash(rel))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return pages
}

var (
	fenceLine  = regexp.MustCompile("^ {0,3}(`{3,}|~{3,})(.*)$")
	codeSpan   = regexp.MustCompile("``[^`].*?``|`[^`]*`")
	inlineLink = regexp.MustCompile(`!?\[[^\]]*\]\(([^()\s]+)(?:\s+"[^"]*")?\)`)
	atxHeading = regexp.MustCompile(`^(#{1,6})\s+(.*?)\s*#*\s*$`)
	linkText   = regexp.MustCompile(`!?\[([^\]]*)\]\([^)]*\)`)
)

// proseLines returns the lines of a Markdown page outside fenced code
// blocks, by their 1-based numbers. A block ends at a fence of the same
// character at least as long as the one that opened it, with no info
// string, so a page can quote a file that holds a code block of its own.
func proseLines(text string) map[int]string {
	lines := map[int]string{}
	open := ""
	for i, l := range strings.Split(text, "\n") {
		m := fenceLine.FindStringSubmatch(l)
		switch {
		case open == "" && m != nil:
			open = m[1]
		case open != "":
			if m != nil && m[1][0] == open[0] && len(m[1]) >= len(open) && strings.TrimSpace(m[2]) == "" {
				open = ""
			}
		default:
			lines[i+1] = l
		}
	}
	return lines
}

// headingAnchors returns the anchors GitHub gives the headings of a page:
// the heading's text as rendered (no code backquotes, links reduced to
// their text), lower-cased, with every character that is not a letter,
// digit, space, hyphen or underscore dropped and spaces turned into
// hyphens; a repeated anchor gets -1, -2, … in order.
func headingAnchors(text string) map[string]bool {
	anchors := map[string]bool{}
	seen := map[string]int{}
	lines := proseLines(text)
	for n := 1; n <= strings.Count(text, "\n")+1; n++ {
		l, ok := lines[n]
		if !ok {
			continue
		}
		m := atxHeading.FindStringSubmatch(l)
		if m == nil {
			continue
		}
		anchor := slug(m[2])
		if k := seen[anchor]; k > 0 {
			seen[anchor]++
			anchor = fmt.Sprintf("%s-%d", anchor, k)
		} else {
			seen[anchor] = 1
		}
		anchors[anchor] = true
	}
	return anchors
}

func slug(heading string) string {
	heading = linkText.ReplaceAllString(heading, "$1")
	var b strings.Builder
	for _, r := range strings.ToLower(heading) {
		switch {
		case r == ' ':
			b.WriteRune('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

// TestSlug: the anchors of the headings the pages link to, as GitHub
// writes them.
func TestSlug(t *testing.T) {
	for heading, want := range map[string]string{
		"History (append-only)":                   "history-append-only",
		"JSON output and audit.json":              "json-output-and-auditjson",
		"Many runs: `--shard` in a CI matrix":     "many-runs---shard-in-a-ci-matrix",
		"What is checked (layout `gate-state`)":   "what-is-checked-layout-gate-state",
		"`h3a-check` as the auditor":              "h3a-check-as-the-auditor",
		"See [the guide](getting-started.md) now": "see-the-guide-now",
	} {
		if got := slug(heading); got != want {
			t.Errorf("slug(%q) = %q, want %q", heading, got, want)
		}
	}
	if got := headingAnchors("# A\n```\n# B\n```\n## A\n````md\n```sh\n# C\n```\n# D\n````\n# E\n"); !got["a"] || !got["a-1"] || got["b"] || got["c"] || got["d"] || !got["e"] {
		t.Errorf("headingAnchors: %v, want a, a-1 and e, not b, c or d (inside code blocks)", got)
	}
}

// TestDocLinksResolve: every relative link in the README, ARCHITECTURE.md,
// BENCHMARKS.md and the pages under docs/ names a file or folder of the
// repository, and every #anchor a heading of the page it points into.
func TestDocLinksResolve(t *testing.T) {
	anchorsOf := map[string]map[string]bool{}
	anchors := func(page string) (map[string]bool, error) {
		if a, ok := anchorsOf[page]; ok {
			return a, nil
		}
		b, err := os.ReadFile(filepath.Join(moduleRoot, filepath.FromSlash(page)))
		if err != nil {
			return nil, err
		}
		anchorsOf[page] = headingAnchors(string(b))
		return anchorsOf[page], nil
	}
	links := 0
	for _, page := range docPages(t) {
		b, err := os.ReadFile(filepath.Join(moduleRoot, filepath.FromSlash(page)))
		if err != nil {
			t.Fatal(err)
		}
		for n, line := range proseLines(string(b)) {
			for _, m := range inlineLink.FindAllStringSubmatch(codeSpan.ReplaceAllString(line, ""), -1) {
				target := m[1]
				if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
					continue
				}
				links++
				file, anchor, _ := strings.Cut(target, "#")
				dest := page
				if file != "" {
					dest = path.Clean(path.Join(path.Dir(page), file))
					if strings.HasPrefix(dest, "../") {
						t.Errorf("%s:%d: %s leaves the repository", page, n, target)
						continue
					}
					if _, err := os.Stat(filepath.Join(moduleRoot, filepath.FromSlash(dest))); err != nil {
						t.Errorf("%s:%d: %s: no such file or folder %s", page, n, target, dest)
						continue
					}
				}
				if anchor == "" {
					continue
				}
				if !strings.HasSuffix(dest, ".md") {
					t.Errorf("%s:%d: %s: an anchor into %s, which is not a Markdown page", page, n, target, dest)
					continue
				}
				a, err := anchors(dest)
				if err != nil {
					t.Errorf("%s:%d: %s: %v", page, n, target, err)
					continue
				}
				if !a[anchor] {
					t.Errorf("%s:%d: %s: %s has no heading with the anchor #%s", page, n, target, dest, anchor)
				}
			}
		}
	}
	if links < 50 {
		t.Errorf("found %d relative links in the pages; the link pattern is broken", links)
	}
}

// docReference is a page of the reference as code, messages and schemas
// name it.
var docReference = regexp.MustCompile(`docs/[a-z0-9/_-]+\.md`)

// stageDocuments are the files a Stigmergy project keeps under its own
// docs/: files of a checked run, not pages of this reference.
var stageDocuments = map[string]bool{"docs/brief.md": true, "docs/prd.md": true, "docs/architecture.md": true}

// TestMessagesNameExistingPages: a reference page named in a message, a
// rule's text, a policy, a schema's description or action.yml exists.
func TestMessagesNameExistingPages(t *testing.T) {
	named := 0
	for _, dir := range []string{"internal", "policies", "schemas", "cmd"} {
		err := filepath.WalkDir(filepath.Join(moduleRoot, dir), func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() {
				if d.Name() == "testdata" {
					return filepath.SkipDir
				}
				return nil
			}
			switch filepath.Ext(p) {
			case ".go", ".rego", ".json", ".yml", ".yaml":
			default:
				return nil
			}
			if strings.HasSuffix(p, "_test.go") || strings.HasSuffix(p, "_test.rego") {
				return nil // fixtures name files of runs
			}
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			for _, ref := range docReference.FindAllString(string(b), -1) {
				if stageDocuments[ref] {
					continue
				}
				named++
				if _, err := os.Stat(filepath.Join(moduleRoot, filepath.FromSlash(ref))); err != nil {
					rel, _ := filepath.Rel(moduleRoot, p)
					t.Errorf("%s names %s, which does not exist", rel, ref)
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{"action.yml", ".ci/run"} {
		b, err := os.ReadFile(filepath.Join(moduleRoot, filepath.FromSlash(f)))
		if err != nil {
			t.Fatal(err)
		}
		for _, ref := range docReference.FindAllString(string(b), -1) {
			named++
			if _, err := os.Stat(filepath.Join(moduleRoot, filepath.FromSlash(ref))); err != nil {
				t.Errorf("%s names %s, which does not exist", f, ref)
			}
		}
	}
	if named == 0 {
		t.Error("no file names a reference page; the pattern is broken")
	}
}
