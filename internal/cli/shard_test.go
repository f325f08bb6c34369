package cli

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/h3a-check/h3a-check/internal/runner"
)

// TestShardFlag: N jobs with --shard 1/N … N/N check every run of the
// test cases exactly once, and each keeps the exit code of its own runs.
func TestShardFlag(t *testing.T) {
	t.Parallel()
	cases := someCases(t)
	_, all, stderr := checkJSON(t, cases)
	if len(all) < 10 {
		t.Fatalf("expected the test cases to hold many runs, got %d: %s", len(all), stderr)
	}
	var want []string
	for _, a := range all {
		want = append(want, a.Run)
	}
	const n = 3
	var got []string
	for i := 1; i <= n; i++ {
		shard := runner.Shard{Index: i, Count: n}.String()
		code, audits, stderr := checkJSON(t, "--shard", shard, cases)
		if code == ExitError {
			t.Fatalf("--shard %s: exit 2: %s", shard, stderr)
		}
		gate := ExitPass
		for _, a := range audits {
			got = append(got, a.Run)
			switch {
			case a.Gate == "fail":
				gate = ExitFail
			case a.Gate == "needs-human" && gate != ExitFail:
				gate = ExitNeedsHuman
			}
		}
		if code != gate {
			t.Errorf("--shard %s: exit %d, but its runs call for %d", shard, code, gate)
		}
	}
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("%d shards checked %d runs, want each of the %d runs once:\ngot  %v\nwant %v", n, len(got), len(want), got, want)
	}
}

// TestShardEmpty: a shard that holds none of the runs found checks
// nothing and passes, saying so; other jobs check those runs.
func TestShardEmpty(t *testing.T) {
	matches, _ := filepath.Glob(filepath.Join(casesDir, "ok", "complete", "2*"))
	if len(matches) != 1 {
		t.Fatalf("expected one run in ok/complete, found %v", matches)
	}
	const n = 2
	empty := runner.Shard{Index: 1, Count: n}
	if empty.Holds(matches[0]) {
		empty.Index = 2
	}
	code, stdout, stderr := runMain("--shard", empty.String(), matches[0])
	if code != ExitPass || !strings.Contains(stderr, "holds none of the runs") {
		t.Errorf("empty shard %s: exit %d, stderr %q; want 0 and a note\nstdout: %s", empty, code, stderr, stdout)
	}
}

func TestShardFlagInvalid(t *testing.T) {
	for _, tc := range []struct{ arg, want string }{
		{"0/2", "1 <= I <= N"},
		{"3/2", "1 <= I <= N"},
		{"half", "expected I/N"},
	} {
		code, _, stderr := runMain("--shard", tc.arg, casesDir)
		if code != ExitError || !strings.Contains(stderr, tc.want) {
			t.Errorf("--shard %s: exit %d, stderr %q; want 2 and %q", tc.arg, code, stderr, tc.want)
		}
	}
}
