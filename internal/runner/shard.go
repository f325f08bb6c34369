// --shard: which part of the discovered runs one CI job checks.

package runner

import (
	"fmt"
	"hash/fnv"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/h3a-check/h3a-check/internal/rundir"
)

// Shard is part Index (1-based) of Count parts of the discovered runs, so
// that Count CI jobs each check one part and together check every run
// exactly once. The zero Shard is every run.
//
// A run's part depends on its run id alone: the FNV-1a hash of the run
// directory's name (in the h3a layout, the name is the run id, which
// state.json must repeat), modulo Count. Adding, removing or moving other
// runs never moves a run to another part, and no file is read to decide.
type Shard struct {
	Index, Count int
}

// ParseShard reads "I/N", e.g. "2/4", with 1 <= I <= N.
func ParseShard(s string) (Shard, error) {
	i, n, ok := strings.Cut(strings.TrimSpace(s), "/")
	index, err1 := strconv.Atoi(i)
	count, err2 := strconv.Atoi(n)
	if !ok || err1 != nil || err2 != nil {
		return Shard{}, fmt.Errorf("shard %q: expected I/N, e.g. 2/4 for the second of four parts", s)
	}
	if count < 1 || index < 1 || index > count {
		return Shard{}, fmt.Errorf("shard %q: expected 1 <= I <= N, e.g. 1/%d to %d/%d", s, max(count, 1), max(count, 1), max(count, 1))
	}
	return Shard{Index: index, Count: count}, nil
}

func (s Shard) String() string {
	if s.Count == 0 {
		return "all"
	}
	return fmt.Sprintf("%d/%d", s.Index, s.Count)
}

// All reports whether the shard is every run.
func (s Shard) All() bool { return s.Count <= 1 }

// Holds reports whether the run in runDir belongs to the shard.
func (s Shard) Holds(runDir string) bool {
	if s.All() {
		return true
	}
	return partOf(filepath.Base(runDir), s.Count) == s.Index
}

// Select returns the runs the shard holds, in their order.
func (s Shard) Select(runs []rundir.Run) []rundir.Run {
	if s.All() {
		return runs
	}
	var out []rundir.Run
	for _, r := range runs {
		if s.Holds(r.Dir) {
			out = append(out, r)
		}
	}
	return out
}

// partOf is the 1-based part of n that a run id falls in.
func partOf(runID string, n int) int {
	h := fnv.New64a()
	h.Write([]byte(runID))
	return int(h.Sum64()%uint64(n)) + 1
}
