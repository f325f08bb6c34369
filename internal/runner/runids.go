// Run ids shared by runs of one check: before any run is checked, the
// files that hold the id of each run of a layout whose run ids are unique
// (layout.UniqueIDs) are read, so that every run sharing an id gets a
// finding naming the others, whichever of them is checked first.

package runner

import (
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/h3a-check/h3a-check/internal/finding"
	"github.com/h3a-check/h3a-check/internal/jsonpos"
	"github.com/h3a-check/h3a-check/internal/layout"
	"github.com/h3a-check/h3a-check/internal/rundir"
)

// idHolder is a run known by an id: its place in the runs, and where the
// id is written in it.
type idHolder struct {
	run           int
	file, pointer string
}

// sharedIDs reads the ids of runs (layout.UniqueIDs) on workers goroutines
// and returns, by run folder, a finding for each id the run shares with
// another: only those runs' findings are kept, and while the ids are read
// only each id's first run. The result does not depend on the order in
// which the ids were read. A staged check reads each run where staged
// says its files are.
func sharedIDs(runs []rundir.Run, staged *stagedScope, maxRead int64, workers int) map[string][]finding.Finding {
	type runIDs struct {
		run int
		ids []layout.RunIDAt
	}
	next := make(chan int)
	read := make(chan runIDs, workers)
	var wg sync.WaitGroup
	for range max(workers, 1) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				read <- runIDs{i, readRunIDs(runs[i], staged, maxRead)}
			}
		}()
	}
	go func() {
		for i, r := range runs {
			if _, ok := layout.ByID(r.Layout).(layout.UniqueIDs); ok && r.Link == "" {
				next <- i
			}
		}
		close(next)
		wg.Wait()
		close(read)
	}()
	first := map[string]idHolder{}
	shared := map[string][]idHolder{}
	for r := range read {
		for _, id := range r.ids {
			h := idHolder{run: r.run, file: id.File, pointer: id.Pointer}
			f, seen := first[id.ID]
			if !seen {
				first[id.ID] = h
				continue
			}
			if len(shared[id.ID]) == 0 {
				shared[id.ID] = []idHolder{f}
			}
			shared[id.ID] = append(shared[id.ID], h)
		}
	}
	if len(shared) == 0 {
		return nil
	}
	out := map[string][]finding.Finding{}
	for _, id := range slices.Sorted(maps.Keys(shared)) {
		holders := shared[id]
		slices.SortFunc(holders, func(a, b idHolder) int { return a.run - b.run })
		for _, h := range holders {
			var others []string
			for _, o := range holders {
				if o.run != h.run {
					others = append(others, fromRun(runs[h.run], runs[o.run]))
				}
			}
			f := finding.DuplicateRunID.New(h.file, "run id %q is also the run id of the run at %s (from this run's folder), checked with it: a run id is globally unique, so at most one of these %d runs is the run it names",
				id, finding.QuoteList(others), len(holders))
			f.Pointer = h.pointer
			out[runs[h.run].Dir] = append(out[runs[h.run].Dir], f)
		}
	}
	return out
}

// fromRun is the folder of other as a path from run's, like the paths of
// a run's findings, the same wherever the check was started.
func fromRun(run, other rundir.Run) string {
	rel, err := filepath.Rel(run.Dir, other.Dir)
	if err != nil {
		return other.Display
	}
	return filepath.ToSlash(rel)
}

// readRunIDs reads the files that hold run's ids, confined to the run,
// and parses each as the load stage would; a file it cannot read or parse
// gives no id.
func readRunIDs(run rundir.Run, staged *stagedScope, maxRead int64) []layout.RunIDAt {
	lay := layout.ByID(run.Layout)
	u := lay.(layout.UniqueIDs)
	dir := run.Dir
	if staged != nil {
		if src, ok := staged.source[dir]; ok {
			dir = src
		}
	}
	r := &layout.Run{Dir: run.Dir, Docs: map[string]*rundir.Document{}}
	root, err := rundir.OpenRoot(dir)
	if err == nil {
		defer root.Close()
		for _, p := range u.IDFiles() {
			data, prob := root.ReadFile(p, maxRead)
			if prob != nil {
				continue
			}
			jd, _ := jsonpos.ParseLimit(data, (budgetPerByte*len(data)+budgetFloor)/valueCost)
			r.Docs[p] = &rundir.Document{Path: p, Present: true, JSON: jd, Parsed: jd != nil}
		}
	}
	ids := u.RunIDs(r)
	for i := range ids {
		ids[i].ID = strings.Clone(ids[i].ID) // not the document it was read from
	}
	return ids
}
