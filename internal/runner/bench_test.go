package runner

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/h3a-check/h3a-check/internal/audit"
	"github.com/h3a-check/h3a-check/internal/evidence"
	"github.com/h3a-check/h3a-check/internal/jsonpos"
	"github.com/h3a-check/h3a-check/internal/layout"
	"github.com/h3a-check/h3a-check/internal/report"
	"github.com/h3a-check/h3a-check/internal/rundir"
	"github.com/h3a-check/h3a-check/internal/schema"
	"github.com/h3a-check/h3a-check/internal/synth/corpus"
)

// The corpora of BENCHMARKS.md. With -short (the CI smoke run, -benchtime=1x)
// only small stand-ins are generated, so the smoke run stays fast while
// every benchmark still runs once.
type benchCorpus struct {
	name  string
	opts  corpus.Options
	short bool // generated in -short mode too
}

var benchCorpora = []benchCorpus{
	// One run shaped like testdata/runs/ok/complete: the pre-commit case.
	{"typical", corpus.Options{Runs: 1, Artifacts: 8, Size: 8 << 10}, true},
	// The large corpus: 100 runs × 50 artifacts × 64 KiB (330 MB).
	{"100x50x64KiB", corpus.Options{Runs: 100, Artifacts: 50, Size: 64 << 10}, false},
	// A monorepo of many small runs.
	{"1000-small", corpus.Options{Runs: 1000, Artifacts: 6, Size: 1 << 10}, false},
	{"10x10x16KiB", corpus.Options{Runs: 10, Artifacts: 10, Size: 16 << 10}, true},
}

// eachCorpus runs fn as a sub-benchmark per corpus, generated in the
// sub-benchmark's own temporary directory (and so in the page cache).
func eachCorpus(b *testing.B, fn func(b *testing.B, c *corpus.Corpus)) {
	for _, bc := range benchCorpora {
		b.Run(bc.name, func(b *testing.B) {
			if testing.Short() && !bc.short {
				b.Skip("large corpus: not generated with -short")
			}
			c, err := corpus.Generate(b.TempDir(), bc.opts)
			if err != nil {
				b.Fatal(err)
			}
			fn(b, c)
		})
	}
}

// BenchmarkCheck is the whole pipeline, end to end, as the CLI runs it
// (without the report). MB/s counts every byte in the corpus.
func BenchmarkCheck(b *testing.B) {
	eachCorpus(b, func(b *testing.B, c *corpus.Corpus) {
		b.SetBytes(c.Bytes)
		b.ReportAllocs()
		for b.Loop() {
			res, err := Check(context.Background(), Options{Scope: Scope{Paths: []string{c.Dir}}})
			if err != nil {
				b.Fatal(err)
			}
			if g := res.Gate(); g != audit.Pass {
				b.Fatalf("gate %q, want pass", g)
			}
		}
	})
}

// BenchmarkStageDiscover: finding the runs and detecting their layout.
func BenchmarkStageDiscover(b *testing.B) {
	eachCorpus(b, func(b *testing.B, c *corpus.Corpus) {
		b.ReportAllocs()
		for b.Loop() {
			runs, err := rundir.Discover([]string{c.Dir}, layout.Detectors(), "")
			if err != nil || len(runs) != len(c.Runs) {
				b.Fatalf("found %d runs (%v), want %d", len(runs), err, len(c.Runs))
			}
		}
	})
}

// loaded is every layout file of a corpus, read once outside the timer.
type loaded struct {
	file layout.File
	data []byte
}

func loadCorpus(b *testing.B, c *corpus.Corpus, kind layout.Kind) ([]loaded, int64) {
	b.Helper()
	var out []loaded
	var n int64
	for _, r := range c.Runs {
		for _, f := range (layout.H3A{}).Files() {
			if f.Kind != kind {
				continue
			}
			data, err := os.ReadFile(filepath.Join(r.Dir, filepath.FromSlash(f.Path)))
			if err != nil {
				b.Fatal(err)
			}
			out = append(out, loaded{f, data})
			n += int64(len(data))
		}
	}
	return out, n
}

// BenchmarkStageParseJSON: JSON parsing with the pointer → position index.
func BenchmarkStageParseJSON(b *testing.B) {
	eachCorpus(b, func(b *testing.B, c *corpus.Corpus) {
		docs, n := loadCorpus(b, c, layout.JSON)
		b.SetBytes(n)
		b.ReportAllocs()
		for b.Loop() {
			for _, d := range docs {
				if doc, _ := jsonpos.Parse(d.data); doc == nil {
					b.Fatalf("%s did not parse", d.file.Path)
				}
			}
		}
	})
}

// BenchmarkStageParseLedgers: the three Markdown ledgers with line numbers.
func BenchmarkStageParseLedgers(b *testing.B) {
	eachCorpus(b, func(b *testing.B, c *corpus.Corpus) {
		docs, n := loadCorpus(b, c, layout.Markdown)
		b.SetBytes(n)
		b.ReportAllocs()
		for b.Loop() {
			for _, d := range docs {
				if v, problems := d.file.ParseLedger(d.data); v == nil || len(problems) > 0 {
					b.Fatalf("%s: %v", d.file.Path, problems)
				}
			}
		}
	})
}

// BenchmarkStageSecrets: the credential scan of every parsed JSON
// document and ledger, as buildInput runs it.
func BenchmarkStageSecrets(b *testing.B) {
	eachCorpus(b, func(b *testing.B, c *corpus.Corpus) {
		run := &layout.Run{Docs: map[string]*rundir.Document{}}
		var n int64
		for _, kind := range []layout.Kind{layout.JSON, layout.Markdown} {
			docs, size := loadCorpus(b, c, kind)
			n += size
			for i, d := range docs {
				doc := &rundir.Document{Path: fmt.Sprintf("%d/%s", i, d.file.Path), Present: true, Parsed: true}
				if kind == layout.JSON {
					doc.JSON, _ = jsonpos.Parse(d.data)
				} else {
					doc.Ledger, _ = d.file.ParseLedger(d.data)
				}
				run.Files = append(run.Files, layout.Match{Spec: d.file, Path: doc.Path})
				run.Docs[doc.Path] = doc
			}
		}
		b.SetBytes(n)
		b.ReportAllocs()
		for b.Loop() {
			if facts := scanSecrets(run); len(facts) != 0 {
				b.Fatalf("credentials in the corpus: %v", facts)
			}
		}
	})
}

// BenchmarkStageSchema: validating parsed documents with the compiled set.
func BenchmarkStageSchema(b *testing.B) {
	set, err := schema.Default()
	if err != nil {
		b.Fatal(err)
	}
	eachCorpus(b, func(b *testing.B, c *corpus.Corpus) {
		docs, n := loadCorpus(b, c, layout.JSON)
		values := make([]any, len(docs))
		for i, d := range docs {
			doc, _ := jsonpos.Parse(d.data)
			values[i] = doc.Value
		}
		b.SetBytes(n)
		b.ReportAllocs()
		for b.Loop() {
			for i, d := range docs {
				if vs := set.Validate(d.file.Schema, values[i]); len(vs) > 0 {
					b.Fatalf("%s: %+v", d.file.Path, vs)
				}
			}
		}
	})
}

// BenchmarkStageHash: every artifact of the corpus through the confined
// open and the shared hashing pool, as the integrity stage does.
func BenchmarkStageHash(b *testing.B) {
	eachCorpus(b, func(b *testing.B, c *corpus.Corpus) {
		type job struct {
			root *rundir.Root
			path string
		}
		var jobs []job
		var n int64
		for _, r := range c.Runs {
			root, err := rundir.OpenRoot(r.Dir)
			if err != nil {
				b.Fatal(err)
			}
			defer root.Close()
			err = root.Walk(func(rel string, d os.DirEntry) error {
				if d.Type().IsRegular() && filepath.Dir(filepath.Dir(rel)) == "artifacts" {
					info, err := d.Info()
					if err != nil {
						return err
					}
					jobs = append(jobs, job{root, rel})
					n += info.Size()
				}
				return nil
			})
			if err != nil {
				b.Fatal(err)
			}
		}
		b.SetBytes(n)
		b.ReportAllocs()
		pending := make([]*evidence.Pending, len(jobs))
		for b.Loop() {
			h := evidence.NewHasher(0)
			for i, j := range jobs {
				pending[i] = h.Submit(func() (io.ReadCloser, error) {
					f, _, p := j.root.Open(j.path)
					if p != nil {
						return nil, p
					}
					return f, nil
				})
			}
			for _, p := range pending {
				if _, err := p.Wait(); err != nil {
					b.Fatal(err)
				}
			}
			h.Close()
		}
	})
}

// BenchmarkStageReport: rendering the verdicts of one check.
func BenchmarkStageReport(b *testing.B) {
	eachCorpus(b, func(b *testing.B, c *corpus.Corpus) {
		res, err := Check(context.Background(), Options{Scope: Scope{Paths: []string{c.Dir}}, Record: Record{ToolName: "h3a-check", ToolVersion: "bench"}})
		if err != nil {
			b.Fatal(err)
		}
		in := &report.Input{Tool: audit.Tool{Name: "h3a-check", Version: "bench"}, Gate: res.Gate(), Audits: res.Audits}
		for _, format := range report.Formats() {
			f, _ := report.Lookup(format)
			b.Run(format, func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					if err := f.Write(io.Discard, in, report.Options{}); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	})
}
