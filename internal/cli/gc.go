package cli

import (
	"runtime"
	"runtime/debug"
)

// The garbage collector is given more room when few runs are checked.
//
// A check keeps one audit per run (about 1.5 KiB) for the report and drops
// the rest of a run when it is done, so with few runs almost nothing stays
// live and the heap never leaves Go's 4 MiB minimum: on 100 runs of fifty
// 64 KiB artifacts that is 26 collections in 0.2 s, each with two short
// stop-the-world pauses that also stop the hashing workers. GOGC=400 lifts
// the minimum to 16 MiB (6 collections) for a few MiB more memory.
//
// But a run with large documents is heavy on its own, and GOGC=400 would
// let five times its live heap build up: a soft memory limit of softLimit
// makes the collector work harder before the heap passes it (a run whose
// live heap is above the limit only makes the collector run more often).
//
// With many runs GOGC=400 would let the heap grow to five times what is
// live, and the bookkeeping of every run found (about 0.5 KiB a run, 50 MiB
// for 100,000 runs) would keep a soft limit busy collecting: there the
// defaults stay. They come back when discovery ends, and with them a
// collection: the last collection of discovery saw its own listings
// still live (69 MB for 100,000 runs, against 33 MB once they are
// dropped), and GOGC=100 over that figure let the heap reach 117 MB
// before the next; peak RSS 148 MiB, against 127 MiB with the collection.
// A GOGC or GOMEMLIMIT set in the environment always wins.
const (
	fewRuns     = 500
	fewRunsGOGC = 400
	softLimit   = 48 << 20
)

// tuneGC raises GOGC for the start of a check, sets the soft memory limit,
// and returns what to call with the number of runs found (it sets GOGC back
// for many runs) and what restores the settings when the check is over.
func tuneGC(e *env) (runsFound func(int), restore func()) {
	if e.getenv("GOGC") != "" || e.getenv("GOMEMLIMIT") != "" {
		return nil, func() {}
	}
	previous := setGCPercent(fewRunsGOGC)
	previousLimit := setMemoryLimit(softLimit)
	runsFound = func(runs int) {
		if runs > fewRuns {
			setGCPercent(previous)
			setMemoryLimit(previousLimit)
			collect()
		}
	}
	return runsFound, func() { setGCPercent(previous); setMemoryLimit(previousLimit) }
}

// setGCPercent, setMemoryLimit and collect are debug.SetGCPercent,
// debug.SetMemoryLimit and runtime.GC; tests replace them.
var (
	setGCPercent   = defaultSetGCPercent
	setMemoryLimit = defaultSetMemoryLimit
	collect        = defaultCollect
)

var (
	defaultSetGCPercent   = debug.SetGCPercent
	defaultSetMemoryLimit = debug.SetMemoryLimit
	defaultCollect        = runtime.GC
)
