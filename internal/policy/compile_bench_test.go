package policy

import (
	"context"
	"reflect"
	"testing"

	"github.com/h3a-check/h3a-check/internal/regoplan"
)

// BenchmarkLinkShipped is the start-up cost of the policy stage of a check
// without --policy folders: loading the shipped rules' linked plan.
func BenchmarkLinkShipped(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, err := linkShipped(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCompileShipped is what the shipped rules cost to parse, compile
// (without the checking stages) and prepare when OPA evaluates them: with
// --debug, and with --policy folders before their own files are added.
func BenchmarkCompileShipped(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, err := compile(context.Background(), Options{}); err != nil {
			b.Fatal(err)
		}
	}
}

// TestShippedLinkedIsThePlanLinked: the linked plan a check loads
// (shippedLinked, written out by plangen) is exactly what linking the
// shipped plan gives now, so the generator's writer and the Go compiler's
// layout of it change nothing; and it verifies and loads.
func TestShippedLinkedIsThePlanLinked(t *testing.T) {
	want, err := regoplan.LinkData(shippedPlan, Capabilities())
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(shippedLinked, want) {
		t.Fatal("shippedLinked differs from the shipped plan linked: run go generate ./internal/policy")
	}
	if err := shippedLinked.Verify(); err != nil {
		t.Fatal(err)
	}
	if _, err := regoplan.Load(shippedLinked, Capabilities()); err != nil {
		t.Fatal(err)
	}
}
