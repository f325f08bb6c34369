package runner

import (
	"context"
	"maps"
	"runtime"
	"testing"

	"github.com/h3a-check/h3a-check/internal/audit"
	"github.com/h3a-check/h3a-check/internal/longtest"
	"github.com/h3a-check/h3a-check/internal/policy"
	"github.com/h3a-check/h3a-check/internal/schema"
	"github.com/h3a-check/h3a-check/internal/synth/corpus"
)

// TestAuditsRetainLittle: after a check, what stays reachable is the
// audits, under 2 KiB per run, not the runs' documents (about 20 KiB of
// JSON and Markdown each here, several times that once parsed).
func TestAuditsRetainLittle(t *testing.T) {
	if testing.Short() {
		t.Skip("generates 300 runs")
	}
	longtest.Skip(t)
	const runs = 300
	c, err := corpus.Generate(t.TempDir(), corpus.Options{Runs: runs, Artifacts: 6, Size: 1 << 10, Seed: 8})
	if err != nil {
		t.Fatal(err)
	}
	// Compiled once per process, not per check: built before measuring.
	if _, err := schema.Default(); err != nil {
		t.Fatal(err)
	}
	if _, err := policy.Load(context.Background(), policy.Options{}); err != nil {
		t.Fatal(err)
	}
	// So are the caches a check fills (interned names, pools): a first
	// check fills them, and the second one's audits are what is measured.
	if _, err := Check(context.Background(), Options{Scope: Scope{Paths: []string{c.Dir}}}); err != nil {
		t.Fatal(err)
	}
	var before, after runtime.MemStats
	settle()
	runtime.ReadMemStats(&before)
	res, err := Check(context.Background(), Options{Scope: Scope{Paths: []string{c.Dir}}})
	if err != nil {
		t.Fatal(err)
	}
	settle()
	runtime.ReadMemStats(&after)
	perRun := (int64(after.HeapAlloc) - int64(before.HeapAlloc)) / runs
	if len(res.Audits) != runs || res.Inputs != nil {
		t.Fatalf("%d audits and %d input documents, want %d and none", len(res.Audits), len(res.Inputs), runs)
	}
	runtime.KeepAlive(res)
	// An audit of a clean run keeps about 1.3-1.4 KiB of its own: the
	// struct, its one info finding (no base, so no history), its run id
	// and task id, and its inputs as raw digests under names shared with
	// every other run. With each input's hex digest and a map of them it
	// was about 3 KiB; documents would be tens of KiB per run.
	const limit = 2 << 10
	if perRun > limit {
		t.Errorf("a check keeps %d bytes per run, want at most %d: only the audit may outlive a run", perRun, limit)
	}
	t.Logf("%d bytes kept per run", perRun)
}

// settle collects twice: what sync.Pools hold (the hashing buffers, 256
// KiB each) survives one collection in the pools' victim caches, and would
// count as kept by the runs depending on when the last one was released.
func settle() {
	runtime.GC()
	runtime.GC()
}

func TestPolicyMapsShared(t *testing.T) {
	var p policyMaps
	a := map[string]string{"schema": "pass", "integrity": "fail"}
	b := maps.Clone(a)
	c := map[string]string{"schema": "pass", "integrity": "pass"}
	if got := p.intern(a); !sameMap(got, a) {
		t.Fatal("the first map of its kind must be kept")
	}
	if got := p.intern(b); !sameMap(got, a) {
		t.Error("an equal map must be replaced by the first one")
	}
	if got := p.intern(c); !sameMap(got, c) || !maps.Equal(got, c) {
		t.Error("a different map must stay itself")
	}
	// Keys that would collide if joined naively stay apart.
	d := map[string]string{"a": "b=c"}
	e := map[string]string{"a=b": "c"}
	if got := p.intern(e); sameMap(p.intern(d), got) {
		t.Error(`{"a": "b=c"} and {"a=b": "c"} were taken for the same map`)
	}
}

func sameMap(x, y map[string]string) bool {
	if len(x) != len(y) {
		return false
	}
	x["\x00probe"] = "1"
	_, ok := y["\x00probe"]
	delete(x, "\x00probe")
	return ok
}

// TestEmitKeepsNoAudit: with Options.Output.Emit the audits come in the order of
// a check that keeps them, and the check keeps none: what a check of any
// number of runs holds is the audits of the runs in flight.
func TestEmitKeepsNoAudit(t *testing.T) {
	if testing.Short() {
		t.Skip("generates 300 runs")
	}
	longtest.Skip(t)
	const runs = 300
	c, err := corpus.Generate(t.TempDir(), corpus.Options{Runs: runs, Artifacts: 6, Size: 1 << 10, Seed: 9, Broken: 0.3})
	if err != nil {
		t.Fatal(err)
	}
	kept, err := Check(context.Background(), Options{Scope: Scope{Paths: []string{c.Dir}}, Workers: 4})
	if err != nil {
		t.Fatal(err)
	}
	var order []string
	emitted := 0
	emit := func(a *audit.Audit) error {
		if emitted < len(kept.Audits) && a.Run != kept.Audits[emitted].Run {
			order = append(order, a.Run)
		}
		emitted++
		return nil
	}
	var before, after runtime.MemStats
	settle()
	runtime.ReadMemStats(&before)
	res, err := Check(context.Background(), Options{Scope: Scope{Paths: []string{c.Dir}}, Output: Output{Emit: emit}, Workers: 4})
	if err != nil {
		t.Fatal(err)
	}
	settle()
	runtime.ReadMemStats(&after)
	if emitted != runs || res.Runs != runs || res.Audits != nil || res.Gate() != kept.Gate() {
		t.Fatalf("emitted %d, counted %d, kept %d audits, gate %s; want %d, %d, none, %s", emitted, res.Runs, len(res.Audits), res.Gate(), runs, runs, kept.Gate())
	}
	if len(order) > 0 {
		t.Errorf("%d audits out of order, first %s", len(order), order[0])
	}
	runtime.KeepAlive(res)
	if perRun := (int64(after.HeapAlloc) - int64(before.HeapAlloc)) / runs; perRun > 64 {
		t.Errorf("a check that emits its audits keeps %d bytes per run, want none", perRun)
	}
}
