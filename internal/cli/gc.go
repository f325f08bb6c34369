package cli

import "runtime/debug"

// The garbage collector is given more room when few runs are checked.
//
// A check keeps one audit per run (about 1.5 KiB) for the report and drops
// the rest of a run when it is done, so with few runs almost nothing stays
// live and the heap never leaves Go's 4 MiB minimum: on 100 runs of fifty
// 64 KiB artifacts that is 26 collections in 0.2 s, each with two short
// stop-the-world pauses that also stop the hashing workers. GOGC=400 lifts
// the minimum to 16 MiB (6 collections) for a few MiB more memory.
//
// With many runs the audits are the heap, and GOGC=400 would let the heap
// of 10,000 runs grow to five times what is live; there the default stays,
// and the check scales linearly from 1,000 runs up. A GOGC or GOMEMLIMIT set
// in the environment always wins.
const (
	fewRuns     = 500
	fewRunsGOGC = 400
)

// tuneGC raises GOGC for the start of a check and returns what to call
// with the number of runs found (it sets GOGC back for many runs) and what
// restores the setting when the check is over.
func tuneGC(e *env) (runsFound func(int), restore func()) {
	if e.getenv("GOGC") != "" || e.getenv("GOMEMLIMIT") != "" {
		return nil, func() {}
	}
	previous := setGCPercent(fewRunsGOGC)
	runsFound = func(runs int) {
		if runs > fewRuns {
			setGCPercent(previous)
		}
	}
	return runsFound, func() { setGCPercent(previous) }
}

// setGCPercent is debug.SetGCPercent; tests replace it.
var setGCPercent = defaultSetGCPercent

var defaultSetGCPercent = debug.SetGCPercent
