package history

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/h3a-check/h3a-check/internal/gitrev"
	"github.com/h3a-check/h3a-check/internal/gitrev/gittest"
)

// fileByFile hides a repository's batch reads, so a run's base is read
// one file per round trip.
type fileByFile struct{ repo *gitrev.Repo }

func (f fileByFile) Read(rev, p string) ([]byte, bool, error) { return f.repo.Read(rev, p) }
func (f fileByFile) List(rev, dir string) ([]string, error)   { return f.repo.List(rev, dir) }
func (f fileByFile) TreeID(rev, dir string) (string, bool, error) {
	return f.repo.TreeID(rev, dir)
}
func (f fileByFile) Stream(rev, p string, fn func(io.Reader) error) (bool, error) {
	return f.repo.Stream(rev, p, fn)
}

// BenchmarkCompare1000Runs is the history stage alone: 1,000 runs of five
// history files (every run's gate events log gained an event) compared
// with their base by GOMAXPROCS workers sharing one cat-file process.
// "folders" reads each run's folders in one exchange and only the
// contents that differ in a second; "file-by-file" reads every file in a
// round trip of its own.
//
//	go test ./internal/history -run '^$' -bench Compare1000Runs -benchtime 5x
func BenchmarkCompare1000Runs(b *testing.B) {
	const runs = 1000
	const exampleID = "20250929-134215-8b6f8b9a-7c9f-4c5e-8c6a-2f0f0d2e9c1a"
	example := filepath.Join("../../testdata/runs/ok/complete", exampleID)
	names := []string{"state.json", "state/SESSION_HANDOFF.json", "state/GATES_LEDGER.md", "state/EVIDENCE_LOG.md", "state/ROADMAP.md"}
	files := map[string]string{}
	for _, f := range names {
		data, err := os.ReadFile(filepath.Join(example, filepath.FromSlash(f)))
		if err != nil {
			b.Fatal(err)
		}
		files[f] = string(data)
	}
	files["state/EVIDENCE_LOG.md"] = "# H3A Evidence Log\n\n## Artifact Index\n"
	g := gittest.Init(b)
	all := map[string]string{}
	heads := make([]Head, runs)
	ids := make([]string, runs)
	for i := range runs {
		ids[i] = fmt.Sprintf("20250929-134215-8b6f8b9a-7c9f-4c5e-8c6a-%012d", i)
		head := map[string]string{}
		for f, data := range files {
			data = strings.ReplaceAll(data, exampleID, ids[i])
			all["runs/"+ids[i]+"/"+f] = data
			head[f] = data
		}
		head["state/GATES_LEDGER.md"] = strings.Replace(head["state/GATES_LEDGER.md"], "mutation score 91.3%\n",
			"mutation score 91.3%\n[2025-09-30T09:00:00Z] G3_production_ready - STARTED - system - deploy checks\n", 1)
		heads[i] = Head{Layout: "h3a", Run: headRun(b, head), Open: memHead(b, nil, nil).Open}
	}
	g.Write(all)
	sha := g.Commit("1,000 runs")
	g.Git("gc", "-q")

	compareAll := func(b *testing.B, tree func(*gitrev.Repo) gitrev.Tree) *gitrev.Repo {
		repo, err := gitrev.Open(g.Dir)
		if err != nil {
			b.Fatal(err)
		}
		defer repo.Close()
		next := make(chan int)
		var wg sync.WaitGroup
		for range runtime.GOMAXPROCS(0) {
			wg.Go(func() {
				for i := range next {
					res, err := Compare(heads[i], At(tree(repo), sha, "runs/"+ids[i]), sha)
					if err != nil || res.New || len(res.Findings) != 0 {
						b.Errorf("%s: %v %+v", ids[i], err, res)
					}
				}
			})
		}
		for i := range runs {
			next <- i
		}
		close(next)
		wg.Wait()
		return repo
	}
	for _, v := range []struct {
		name string
		tree func(*gitrev.Repo) gitrev.Tree
	}{
		{"folders", func(r *gitrev.Repo) gitrev.Tree { return r }},
		{"file-by-file", func(r *gitrev.Repo) gitrev.Tree { return fileByFile{r} }},
	} {
		b.Run(v.name, func(b *testing.B) {
			var repo *gitrev.Repo
			for b.Loop() {
				repo = compareAll(b, v.tree)
			}
			b.ReportMetric(float64(repo.Processes()), "cat-file-processes")
			exchanges, contents := repo.Traffic()
			b.ReportMetric(float64(exchanges), "exchanges")
			b.ReportMetric(float64(contents), "contents-read")
		})
	}
}
