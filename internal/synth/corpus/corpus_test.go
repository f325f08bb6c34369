package corpus_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"github.com/h3a-check/h3a-check/internal/finding"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/h3a-check/h3a-check/internal/audit"
	"github.com/h3a-check/h3a-check/internal/rundir"
	"github.com/h3a-check/h3a-check/internal/runner"
	"github.com/h3a-check/h3a-check/internal/synth/corpus"
)

func generate(t *testing.T, opts corpus.Options) *corpus.Corpus {
	t.Helper()
	c, err := corpus.Generate(t.TempDir(), opts)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func check(t *testing.T, dir string) *runner.Result {
	t.Helper()
	// A generated corpus has no history: say so, and drop the one note
	// that says so from every audit, so "no finding" means no finding.
	res, err := runner.Check(context.Background(), runner.Options{Scope: runner.Scope{Paths: []string{dir}, Base: "none"}, Record: runner.Record{ToolName: "h3a-check", ToolVersion: "test"}})
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range res.Audits {
		a.Findings = slices.DeleteFunc(slices.Clone(a.Findings), func(f finding.Finding) bool { return f.Rule == finding.HistoryNotCompared.ID })
	}
	return res
}

// TestValidRunsPass: generated valid runs pass with no finding at all,
// whatever their artifact count and size.
func TestValidRunsPass(t *testing.T) {
	tests := []struct {
		name string
		opts corpus.Options
	}{
		{"minimal", corpus.Options{Runs: 1, Artifacts: corpus.MinArtifacts, Size: 0}},
		{"typical", corpus.Options{Runs: 3, Artifacts: 8, Size: 4096, Seed: 7}},
		{"many artifacts", corpus.Options{Runs: 2, Artifacts: 40, Size: 300_000, Seed: 9}},
		{"a long evidence log", corpus.Options{Runs: 1, Artifacts: corpus.MinArtifacts, Size: 100, LogEntries: 500}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := generate(t, tc.opts)
			res := check(t, c.Dir)
			if len(res.Audits) != tc.opts.Runs {
				t.Fatalf("checked %d runs, generated %d", len(res.Audits), tc.opts.Runs)
			}
			for _, a := range res.Audits {
				if a.Gate != audit.Pass || len(a.Findings) != 0 {
					t.Errorf("%s: gate %q with %d findings, want pass with none: %+v", a.Run, a.Gate, len(a.Findings), a.Findings)
				}
				if why := rundir.CheckRunID(a.RunID); why != "" || filepath.Base(a.Run) != a.RunID {
					t.Errorf("run %s: id %q: %s", a.Run, a.RunID, why)
				}
				// Every artifact plus the three reports is logged and verified.
				want := tc.opts.Artifacts + 3
				if a.Notes != fmt.Sprintf("%d of %d logged artifacts verified", want, want) {
					t.Errorf("%s: notes %q, want all %d logged artifacts verified", a.Run, a.Notes, want)
				}
				log, err := os.ReadFile(filepath.Join(a.Run, "state", "EVIDENCE_LOG.md"))
				if n := strings.Count(string(log), " - re-check "); err != nil || n != tc.opts.LogEntries {
					t.Errorf("%s: %d entries logged again, want %d (%v)", a.Run, n, tc.opts.LogEntries, err)
				}
			}
		})
	}
}

// TestBrokenRunsFail: every breakage fails its run with the rule it names,
// and the runs left valid still pass.
func TestBrokenRunsFail(t *testing.T) {
	n := 3 * len(corpus.Breakages)
	c := generate(t, corpus.Options{Runs: n, Artifacts: 7, Size: 1000, Broken: 0.5, Seed: 3})
	res := check(t, c.Dir)
	byDir := map[string]*audit.Audit{}
	for _, a := range res.Audits {
		byDir[filepath.Base(a.Run)] = a
	}
	seen := map[string]bool{}
	broken := 0
	for _, r := range c.Runs {
		a := byDir[filepath.Base(r.Dir)]
		if a == nil {
			t.Fatalf("run %s was not checked", r.Dir)
		}
		if r.Broken.Name == "" {
			if a.Gate != audit.Pass || len(a.Findings) != 0 {
				t.Errorf("valid run %s: gate %q, findings %+v", r.ID, a.Gate, a.Findings)
			}
			continue
		}
		broken++
		seen[r.Broken.Name] = true
		if a.Gate != audit.Fail {
			t.Errorf("%s run %s: gate %q, want fail", r.Broken.Name, r.ID, a.Gate)
		}
		// Other rules may follow from the same break (a missing artifact
		// is also missing evidence); the named one must be among them.
		var errorRules []string
		for _, f := range a.Findings {
			if f.Severity.String() == "error" {
				errorRules = append(errorRules, f.Rule)
			}
		}
		if !slices.Contains(errorRules, r.Broken.Rule) {
			t.Errorf("%s run %s: error findings %v, want one of rule %s", r.Broken.Name, r.ID, errorRules, r.Broken.Rule)
		}
	}
	if want := (n + 1) / 2; broken != want {
		t.Errorf("%d broken runs, want %d (half of %d)", broken, want, n)
	}
	for _, b := range corpus.Breakages {
		if !seen[b.Name] {
			t.Errorf("breakage %q was never applied", b.Name)
		}
	}
}

// TestDeterministic: the same seed gives the same bytes whatever the number
// of writers; another seed gives other runs.
func TestDeterministic(t *testing.T) {
	opts := corpus.Options{Runs: 6, Artifacts: 9, Size: 3000, Broken: 0.5, Seed: 42}
	one := opts
	one.Workers = 1
	many := opts
	many.Workers = 4
	a, b := digestTree(t, generate(t, one).Dir), digestTree(t, generate(t, many).Dir)
	if !slices.Equal(a, b) {
		t.Fatalf("same seed, different corpus:\n%v\n%v", a, b)
	}
	other := opts
	other.Seed = 43
	if c := digestTree(t, generate(t, other).Dir); slices.Equal(a, c) {
		t.Fatal("seeds 42 and 43 gave the same corpus")
	}
}

// digestTree lists "path sha256" for every file below dir.
func digestTree(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		sum := sha256.Sum256(b)
		rel, _ := filepath.Rel(dir, p)
		out = append(out, rel+" "+hex.EncodeToString(sum[:]))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestCountsMatchDisk(t *testing.T) {
	for _, size := range []int64{0, 11, 777} {
		c := generate(t, corpus.Options{Runs: 4, Artifacts: 7, Size: size, Broken: 1, Seed: 5})
		files, total := 0, int64(0)
		filepath.WalkDir(c.Dir, func(p string, d fs.DirEntry, err error) error {
			if err == nil && d.Type().IsRegular() {
				info, _ := d.Info()
				files++
				total += info.Size()
			}
			return err
		})
		if files != c.Files || total != c.Bytes {
			t.Errorf("size %d: reported %d files, %d bytes; on disk %d files, %d bytes", size, c.Files, c.Bytes, files, total)
		}
	}
}

func TestInvalidOptions(t *testing.T) {
	tests := []struct {
		name string
		opts corpus.Options
		want string
	}{
		{"negative runs", corpus.Options{Runs: -1, Artifacts: 6}, "runs: got -1"},
		{"too few artifacts", corpus.Options{Runs: 1, Artifacts: 5}, "at least 6"},
		{"negative size", corpus.Options{Runs: 1, Artifacts: 6, Size: -5}, "size: got -5"},
		{"fraction over one", corpus.Options{Runs: 1, Artifacts: 6, Broken: 1.5}, "broken: got 1.5"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := corpus.Generate(t.TempDir(), tc.opts)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want one mentioning %q", err, tc.want)
			}
		})
	}
}
