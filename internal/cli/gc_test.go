package cli

import (
	"math"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestTuneGC: few runs get GOGC=400, many get the previous value back, the
// environment's GOGC or GOMEMLIMIT is never overridden, and the setting is
// restored when the check ends.
func TestTuneGC(t *testing.T) {
	current := 100
	var calls []int
	setGCPercent = func(p int) int {
		calls = append(calls, p)
		old := current
		current = p
		return old
	}
	limit := int64(math.MaxInt64)
	setMemoryLimit = func(l int64) int64 {
		old := limit
		limit = l
		return old
	}
	// A collection when many runs are found, after the defaults are back
	// (the GOGC it then sets the goal with).
	collections, gogcAtCollection := 0, 0
	collect = func() { collections++; gogcAtCollection = current }
	t.Cleanup(func() {
		setGCPercent, setMemoryLimit, collect = defaultSetGCPercent, defaultSetMemoryLimit, defaultCollect
	})

	tests := []struct {
		name        string
		env         map[string]string
		runs        int
		calls       []int
		collections int
	}{
		{"one run", nil, 1, []int{400, 100}, 0},
		{"at the threshold", nil, fewRuns, []int{400, 100}, 0},
		{"many runs", nil, fewRuns + 1, []int{400, 100, 100}, 1},
		{"GOGC set", map[string]string{"GOGC": "50"}, 1, nil, 0},
		{"GOMEMLIMIT set", map[string]string{"GOMEMLIMIT": "1GiB"}, 1, nil, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			calls, current, collections, gogcAtCollection = nil, 100, 0, 0
			e := &env{getenv: func(k string) string { return tc.env[k] }}
			runsFound, restore := tuneGC(e)
			if want := int64(softLimit); tc.env == nil && limit != want {
				t.Errorf("memory limit %d during the check, want %d", limit, want)
			}
			if runsFound != nil {
				runsFound(tc.runs)
			}
			if tc.runs > fewRuns && limit != math.MaxInt64 {
				t.Errorf("memory limit %d for %d runs, want none", limit, tc.runs)
			}
			restore()
			if limit != math.MaxInt64 {
				t.Errorf("memory limit left at %d after the check", limit)
			}
			if !slices.Equal(calls, tc.calls) {
				t.Errorf("SetGCPercent calls %v, want %v", calls, tc.calls)
			}
			if collections != tc.collections || (collections > 0 && gogcAtCollection != 100) {
				t.Errorf("%d collections (GOGC %d at the last), want %d with GOGC 100", collections, gogcAtCollection, tc.collections)
			}
			if current != 100 {
				t.Errorf("GOGC left at %d after the check, want 100", current)
			}
		})
	}

	// Through the CLI: a check of one run raises and restores it.
	if os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		t.Skip("GOGC or GOMEMLIMIT is set: the CLI leaves the collector alone")
	}
	calls, current = nil, 100
	if code, _, stderr := runMain(filepath.Join(casesDir, "ok", "complete")); code != ExitPass {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !slices.Equal(calls, []int{400, 100}) {
		t.Errorf("a one-run check set GOGC %v, want [400 100]", calls)
	}
}
