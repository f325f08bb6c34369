// Run ids shared by runs of one check: before any run is checked, the
// files that hold the id of each run of a layout whose run ids are unique
// (layout.UniqueIDs) are read, so that every run sharing an id gets a
// finding naming the others, whichever of them is checked first.

package runner

import (
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strconv"
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
	run               int
	id, file, pointer string
}

// sharedIDs reads the ids of runs (layout.UniqueIDs) on workers goroutines
// and returns, by run folder, a finding for each id the run shares with
// another: only those runs' findings are kept, and while the ids are read
// only each id's first run. The result does not depend on the order in
// which the ids were read. A staged check reads each run where staged
// says its files are.
func sharedIDs(runs []rundir.Run, staged *stagedScope, maxRead int64, workers int) map[string][]finding.Finding {
	unique := 0
	for _, r := range runs {
		if _, ok := layout.ByID(r.Layout).(layout.UniqueIDs); ok && r.Link == "" {
			unique++
		}
	}
	if unique < 2 {
		return nil // nothing to share an id with: no file read
	}
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
			h := idHolder{run: r.run, id: id.ID, file: id.File, pointer: id.Pointer}
			f, seen := first[id.Key]
			if !seen {
				first[id.Key] = h
				continue
			}
			if len(shared[id.Key]) == 0 {
				shared[id.Key] = []idHolder{f}
			}
			shared[id.Key] = append(shared[id.Key], h)
		}
	}
	if len(shared) == 0 {
		return nil
	}
	out := map[string][]finding.Finding{}
	for _, key := range slices.Sorted(maps.Keys(shared)) {
		holders := shared[key]
		slices.SortFunc(holders, func(a, b idHolder) int { return a.run - b.run })
		for _, h := range holders {
			f := sharedIDFinding(runs, h, holders)
			out[runs[h.run].Dir] = append(out[runs[h.run].Dir], f)
		}
	}
	return out
}

// sharedIDFinding is the finding of h, whose id the holders share: it
// names the others by their folder, and by their id when it is another
// (written with another time, the same UUID).
func sharedIDFinding(runs []rundir.Run, h idHolder, holders []idHolder) finding.Finding {
	const show = 5 // as finding.QuoteList
	var named []string
	sameID := true
	for _, o := range holders {
		if o.run == h.run {
			continue
		}
		if len(named) == show {
			named = append(named, fmt.Sprintf("and %d more", len(holders)-1-show))
			break
		}
		at := strconv.Quote(fromRun(runs[h.run], runs[o.run]))
		if o.id != h.id {
			at += fmt.Sprintf(" (run id %q)", o.id)
			sameID = false
		}
		named = append(named, at)
	}
	var f finding.Finding
	if sameID {
		f = finding.DuplicateRunID.New(h.file, "run id %q is also the run id of the run at %s (from this run's folder), checked with it: a run id is globally unique, so at most one of these %d runs is the run it names",
			h.id, strings.Join(named, ", "), len(holders))
	} else {
		f = finding.DuplicateRunID.New(h.file, "run id %q has the UUID of the run at %s (from this run's folder), checked with it: a run id is globally unique by its UUID, whatever its time, so at most one of these %d runs is the run it names",
			h.id, strings.Join(named, ", "), len(holders))
	}
	f.Pointer = h.pointer
	return f
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
	for i, id := range ids {
		// Not the document it was read from: the key is a part of the id.
		ids[i].ID = strings.Clone(id.ID)
		if strings.HasSuffix(id.ID, id.Key) {
			ids[i].Key = ids[i].ID[len(id.ID)-len(id.Key):]
		} else {
			ids[i].Key = strings.Clone(id.Key)
		}
	}
	return ids
}
