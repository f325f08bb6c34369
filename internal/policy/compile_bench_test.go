package policy

import (
	"context"
	"github.com/h3a-check/h3a-check/internal/regoplan"
	"testing"
)

// BenchmarkLinkShipped is the start-up cost of the policy stage of a check
// without --policy folders: linking the shipped rules' generated plan.
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

// TestShippedPlanLinks: the shipped plan links whole. A check links each
// rule when a run first reaches it (linkShipped), where a rule that could
// not be linked would be an evaluation error: here it is the build's.
func TestShippedPlanLinks(t *testing.T) {
	if _, err := regoplan.Link(shippedPlan, Capabilities()); err != nil {
		t.Fatal(err)
	}
}
