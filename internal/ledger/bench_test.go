package ledger

import (
	"bytes"
	"fmt"
	"testing"
)

const benchSize = 1 << 20

// generate repeats record lines under a header until the document reaches
// benchSize bytes.
func generate(header string, record func(i int) string) []byte {
	var b bytes.Buffer
	b.WriteString(header)
	for i := 1; b.Len() < benchSize; i++ {
		b.WriteString(record(i))
	}
	return b.Bytes()
}

func benchmarkParse(b *testing.B, data []byte, parse func([]byte) int) {
	if parse(data) == 0 {
		b.Fatal("generated ledger yields no records")
	}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		parse(data)
	}
}

func BenchmarkParseRoadmap(b *testing.B) {
	data := generate("# H3A System Roadmap\n**Status:** Execution Phase\n\n## Task Decomposition\n\n### Task Queue\n",
		func(i int) string {
			return fmt.Sprintf("- [x] T%04d: Implement step %d of the plan ✅ (Completed: 2025-09-29T14:45:00Z)\n", i, i)
		})
	benchmarkParse(b, data, func(d []byte) int { r, _ := ParseRoadmap(d); return len(r.Tasks) })
}

func BenchmarkParseGatesLedger(b *testing.B) {
	data := generate("# H3A Gates Ledger\n\n| Gate | Owner | Purpose | Status |\n|---|---|---|---|\n| **G0: Planning** | Planner | Plan | 🟢 Passed |\n\n## Gate History\n\n### Gate Events Log\n",
		func(i int) string {
			return fmt.Sprintf("[2025-09-29T13:42:15Z] G1_implementation - STARTED - executor - TDD cycle T%04d - attempt %d\n", i, i)
		})
	benchmarkParse(b, data, func(d []byte) int { g, _ := ParseGatesLedger(d); return len(g.Events) })
}

func BenchmarkParseEvidenceLog(b *testing.B) {
	data := generate("# H3A Evidence Log\n\n## Artifact Index\n",
		func(i int) string {
			return fmt.Sprintf("- `artifacts/executor/test_output_%d.txt` - [hash:e4f6c1d92a8b3f57] - 2025-09-29T14:30:00Z - GREEN phase %d\n", i, i)
		})
	benchmarkParse(b, data, func(d []byte) int { e, _ := ParseEvidenceLog(d); return len(e.Entries) })
}
