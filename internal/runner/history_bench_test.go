package runner

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/h3a-check/h3a-check/internal/gitrev/gittest"
)

// benchHistoryFiles are the five history files of each benchmark run.
var benchHistoryFiles = []string{"state.json", "state/SESSION_HANDOFF.json", "state/GATES_LEDGER.md", "state/EVIDENCE_LOG.md", "state/ROADMAP.md"}

// BenchmarkHistory1000Runs checks 1,000 runs of five history files each
// against HEAD (every run's gate events log gained an event since), and
// reports how many cat-file processes the check started: one, whatever
// the number of files. "base=none" is the same check without the history
// stage; "process-per-file" reads the same 5,000 files with one git
// process each, the cost the batch process avoids.
//
//	go test ./internal/runner -run '^$' -bench History1000Runs -benchtime 5x
func BenchmarkHistory1000Runs(b *testing.B) {
	const runs = 1000
	g := gittest.Init(b)
	dir := filepath.Join(g.Dir, "runs")
	example := filepath.Join(exampleRuns, exampleID)
	files := map[string]string{}
	for _, f := range benchHistoryFiles {
		data, err := os.ReadFile(filepath.Join(example, filepath.FromSlash(f)))
		if err != nil {
			b.Fatal(err)
		}
		files[f] = string(data)
	}
	files["state/EVIDENCE_LOG.md"] = "# H3A Evidence Log\n\n## Artifact Index\n"
	all := map[string]string{}
	for i := range runs {
		id := fmt.Sprintf("20250929-134215-8b6f8b9a-7c9f-4c5e-8c6a-%012d", i)
		for f, data := range files {
			all["runs/"+id+"/"+f] = strings.ReplaceAll(data, exampleID, id)
		}
	}
	g.Write(all)
	g.Commit("1,000 runs")
	g.Git("gc", "-q") // a real repository is packed
	for p, data := range all {
		if strings.HasSuffix(p, "GATES_LEDGER.md") {
			all[p] = strings.Replace(data, "mutation score 91.3%\n", "mutation score 91.3%\n[2025-09-30T09:00:00Z] G3_production_ready - STARTED - system - deploy checks\n", 1)
		} else {
			delete(all, p)
		}
	}
	g.Write(all)

	check := func(b *testing.B, base string) *Result {
		res, err := Check(context.Background(), Options{Scope: Scope{Paths: []string{dir}, Base: base, Getenv: noEnv}})
		if err != nil {
			b.Fatal(err)
		}
		if len(res.Audits) != runs {
			b.Fatalf("%d audits, want %d", len(res.Audits), runs)
		}
		return res
	}
	b.Run("base=HEAD", func(b *testing.B) {
		var res *Result
		for b.Loop() {
			res = check(b, "")
		}
		for _, a := range res.Audits {
			for _, f := range a.Findings {
				if f.Category == "append_only" {
					b.Fatalf("%s: %s", a.Run, f.Details)
				}
			}
		}
		if res.CatFileProcesses != 1 {
			b.Fatalf("%d cat-file processes, want 1", res.CatFileProcesses)
		}
		b.ReportMetric(float64(res.CatFileProcesses), "cat-file-processes")
		b.ReportMetric(float64(runs*len(benchHistoryFiles)), "history-files")
	})
	b.Run("base=none", func(b *testing.B) {
		for b.Loop() {
			check(b, "none")
		}
	})
	b.Run("process-per-file", func(b *testing.B) {
		var paths []string
		for i := range runs {
			id := fmt.Sprintf("20250929-134215-8b6f8b9a-7c9f-4c5e-8c6a-%012d", i)
			for _, f := range benchHistoryFiles {
				paths = append(paths, "HEAD:runs/"+id+"/"+f)
			}
		}
		for b.Loop() {
			for _, p := range paths {
				if err := exec.Command("git", "-C", g.Dir, "cat-file", "blob", p).Run(); err != nil {
					b.Fatal(err)
				}
			}
		}
		b.ReportMetric(float64(len(paths)), "git-processes")
	})
}
