package runner

import (
	"context"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/h3a-check/h3a-check/internal/rundir"
	"github.com/h3a-check/h3a-check/internal/synth/corpus"
)

func TestParseShard(t *testing.T) {
	tests := []struct {
		in   string
		want Shard
		err  string
	}{
		{"1/1", Shard{1, 1}, ""},
		{"2/4", Shard{2, 4}, ""},
		{" 3/3 ", Shard{3, 3}, ""},
		{"0/3", Shard{}, "1 <= I <= N"},
		{"4/3", Shard{}, "1 <= I <= N"},
		{"1/0", Shard{}, "1 <= I <= N"},
		{"-1/2", Shard{}, "1 <= I <= N"},
		{"3", Shard{}, "expected I/N"},
		{"a/b", Shard{}, "expected I/N"},
		{"1/2/3", Shard{}, "expected I/N"},
		{"", Shard{}, "expected I/N"},
	}
	for _, tc := range tests {
		got, err := ParseShard(tc.in)
		switch {
		case tc.err == "" && err != nil:
			t.Errorf("ParseShard(%q): %v", tc.in, err)
		case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
			t.Errorf("ParseShard(%q) error %v, want one saying %q", tc.in, err, tc.err)
		case got != tc.want:
			t.Errorf("ParseShard(%q) = %v, want %v", tc.in, got, tc.want)
		}
	}
}

// runIDs makes n run directories named like real runs.
func runIDs(n int, seed uint64) []rundir.Run {
	rng := rand.New(rand.NewPCG(seed, 1))
	runs := make([]rundir.Run, n)
	for i := range runs {
		id := fmt.Sprintf("2025%02d%02d-%02d%02d%02d-%08x-%04x-4%03x-%04x-%012x",
			1+rng.IntN(12), 1+rng.IntN(28), rng.IntN(24), rng.IntN(60), rng.IntN(60),
			rng.Uint32(), rng.IntN(1<<16), rng.IntN(1<<12), 0x8000|rng.IntN(1<<14), rng.Uint64()>>16)
		runs[i] = rundir.Run{Dir: filepath.Join("/repo", "runs", id), Layout: "h3a"}
	}
	slices.SortFunc(runs, func(a, b rundir.Run) int { return strings.Compare(a.Dir, b.Dir) })
	return runs
}

// TestShardsPartition: for every N, the N shards are disjoint, keep the
// discovery order, and together hold every run exactly once.
func TestShardsPartition(t *testing.T) {
	runs := runIDs(500, 1)
	for n := 1; n <= 9; n++ {
		seen := map[string]int{}
		for i := 1; i <= n; i++ {
			part := Shard{i, n}.Select(runs)
			if !slices.IsSortedFunc(part, func(a, b rundir.Run) int { return strings.Compare(a.Dir, b.Dir) }) {
				t.Errorf("shard %d/%d is out of discovery order", i, n)
			}
			for _, r := range part {
				seen[r.Dir]++
			}
		}
		for _, r := range runs {
			if seen[r.Dir] != 1 {
				t.Fatalf("N=%d: %s is in %d shards, want exactly 1", n, filepath.Base(r.Dir), seen[r.Dir])
			}
		}
		if len(seen) != len(runs) {
			t.Fatalf("N=%d: shards hold %d runs, discovered %d", n, len(seen), len(runs))
		}
	}
	if got := (Shard{}).Select(runs); len(got) != len(runs) {
		t.Errorf("the zero shard holds %d of %d runs", len(got), len(runs))
	}
}

// TestShardStable: a run's shard depends on its id alone, not on which
// other runs exist or where the run lives.
func TestShardStable(t *testing.T) {
	all := runIDs(300, 2)
	some := all[100:180]
	for i := 1; i <= 4; i++ {
		s := Shard{i, 4}
		want := slices.DeleteFunc(slices.Clone(s.Select(all)), func(r rundir.Run) bool {
			return !slices.ContainsFunc(some, func(o rundir.Run) bool { return o.Dir == r.Dir })
		})
		if got := s.Select(some); !slices.EqualFunc(got, want, func(a, b rundir.Run) bool { return a.Dir == b.Dir }) {
			t.Errorf("shard %v of a subset differs from the subset of the shard", s)
		}
	}
	moved := filepath.Join("/elsewhere", "deeper", filepath.Base(all[0].Dir))
	for i := 1; i <= 5; i++ {
		s := Shard{i, 5}
		if s.Holds(all[0].Dir) != s.Holds(moved) {
			t.Errorf("moving a run changed its shard under %v", s)
		}
	}
}

// TestShardBalance: random run ids spread evenly, so N jobs share the work.
func TestShardBalance(t *testing.T) {
	runs := runIDs(10000, 3)
	for _, n := range []int{2, 4, 8} {
		for i := 1; i <= n; i++ {
			got, mean := len(Shard{i, n}.Select(runs)), len(runs)/n
			if got < mean*9/10 || got > mean*11/10 {
				t.Errorf("shard %d/%d holds %d runs, want within 10%% of %d", i, n, got, mean)
			}
		}
	}
}

// TestCheckShards: checking each shard of a corpus checks every run once.
func TestCheckShards(t *testing.T) {
	c, err := corpus.Generate(t.TempDir(), corpus.Options{Runs: 12, Artifacts: 6, Size: 100, Seed: 4})
	if err != nil {
		t.Fatal(err)
	}
	const n = 5
	var checked []string
	for i := 1; i <= n; i++ {
		res, err := Check(context.Background(), Options{Scope: Scope{Paths: []string{c.Dir}, Shard: Shard{i, n}}})
		if err != nil {
			t.Fatalf("shard %d/%d: %v", i, n, err)
		}
		for _, a := range res.Audits {
			checked = append(checked, a.RunID)
		}
	}
	var want []string
	for _, r := range c.Runs {
		want = append(want, r.ID)
	}
	slices.Sort(checked)
	slices.Sort(want)
	if !slices.Equal(checked, want) {
		t.Errorf("the %d shards checked\n%v\nwant every run once:\n%v", n, checked, want)
	}
}

// FuzzParseShard: any text is refused or gives a shard that spells itself
// back and selects a part of the runs.
func FuzzParseShard(f *testing.F) {
	for _, seed := range []string{"1/1", "2/4", " 3/3 ", "0/3", "4/3", "1/0", "-1/2", "a/b", "1/2/3", "", "9223372036854775807/9223372036854775807"} {
		f.Add(seed)
	}
	runs := runIDs(50, 5)
	f.Fuzz(func(t *testing.T, s string) {
		sh, err := ParseShard(s)
		if err != nil {
			if sh != (Shard{}) {
				t.Fatalf("ParseShard(%q) failed with %v but returned %v", s, err, sh)
			}
			return
		}
		if sh.Index < 1 || sh.Index > sh.Count {
			t.Fatalf("ParseShard(%q) = %v, outside 1 <= I <= N", s, sh)
		}
		if again, err := ParseShard(sh.String()); err != nil || again != sh {
			t.Fatalf("%v spells %q, which parses as %v, %v", sh, sh.String(), again, err)
		}
		for _, r := range sh.Select(runs) {
			if !sh.Holds(r.Dir) {
				t.Fatalf("%v selected %s, which it does not hold", sh, r.Dir)
			}
		}
	})
}
