package policy

import (
	"context"
	"testing"
)

// BenchmarkCompileShipped is the start-up cost of a check without --policy
// folders: parse, compile (without the checking stages) and prepare.
// BenchmarkLoad is the same with every stage, as the tests compile.
func BenchmarkCompileShipped(b *testing.B) {
	for b.Loop() {
		if _, err := compile(context.Background(), Options{}); err != nil {
			b.Fatal(err)
		}
	}
}
