package jsonpos

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// realisticState builds an H3A-style state.json of at least size bytes:
// indented, mostly short strings and keys, hashes, timestamps, some
// non-ASCII text and escapes, numbers, nulls, nested arrays of records.
func realisticState(size int) []byte {
	var b bytes.Buffer
	b.WriteString(`{
  "run_id": "20250929-134215-8b6f8b9a-3c1d-4e5f-9a7b-2c4d6e8f0a1b",
  "h3a_version": "1.0.0",
  "created_at": "2025-09-29T13:42:15Z",
  "meta": {"repo": "18_Jobs_Excellense_Coding", "branch": "feature/h3a-system", "commit": "a3f5c8d21f4e9b76", "ci_green": false, "dirty": true},
  "gates": {"G0_planning": "passed", "G1_implementation": "passed", "G2_validation": "in_progress", "G3_production_ready": "not_started"},
  "steps": [`)
	agents := []string{"planner", "executor", "validator", "auditor"}
	for i := 0; b.Len() < size; i++ {
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, `
    {
      "task_id": "T%03d",
      "agent": %q,
      "timestamp": "2025-09-29T14:%02d:%02d+07:00",
      "summary": "Step %d done — coverage ≥ 95 %%, \"red\" → \"green\"\nrefactor: extract key management",
      "gate": "G%d_implementation",
      "status": "passed",
      "score": %d.%d,
      "retries": %d,
      "blocked_by": null,
      "artifacts": [
        {"path": "artifacts/%s/test_output_%d.txt", "sha256": "%016x", "bytes": %d},
        {"path": "artifacts/%s/report_%d.json", "sha256": "%016x", "bytes": %d}
      ],
      "checks": {"lint": true, "tests": true, "security": %t, "notes": []}
    }`, i, agents[i%len(agents)], i/60%60, i%60, i, i%4, 50+i%50, i%10, i%3,
			agents[i%len(agents)], i, uint64(i)*0x9E3779B97F4A7C15, 1000+i*37,
			agents[i%len(agents)], i, uint64(i+1)*0xC2B2AE3D27D4EB4F, 2000+i*91, i%7 != 0)
	}
	b.WriteString("\n  ],\n  \"task_id\": null,\n  \"notes\": \"Zoë ☃ 😀 日本語\"\n}\n")
	return b.Bytes()
}

// Measured on the development machine for the same 100 KiB document, as the
// fastest of 300 interleaved runs (the machine was shared, so ns/op from
// go test -bench varied threefold between runs):
//
//	Parse                                        0.52 ms   6256 allocs, 374 KB
//	encoding/json Decoder.UseNumber().Decode     1.20 ms   9930 allocs, 712 KB
//	building the pointer index (first Position)  0.34 ms   25 allocs
//	Position once the index is built             ~0.3 µs   no allocation
//
// Parse does more (duplicate detection, positions for problems) and is still
// about twice as fast: it scans once where encoding/json scans twice
// (validate, then decode), sizes arrays and maps once, and shares repeated
// member names.
func BenchmarkParse(b *testing.B) {
	data := realisticState(100 << 10)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if doc, problems := Parse(data); doc == nil || len(problems) != 0 {
			b.Fatalf("Parse failed: %s", formatProblems(problems))
		}
	}
}

// BenchmarkEncodingJSONUseNumber is the reference: what decoding the same
// document costs with encoding/json.
func BenchmarkEncodingJSONUseNumber(b *testing.B) {
	data := realisticState(100 << 10)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		dec := json.NewDecoder(bytes.NewReader(data))
		dec.UseNumber()
		var v any
		if err := dec.Decode(&v); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkPosition looks up one pointer in a document whose index is
// already built, the common case when reporting many findings in one file.
func BenchmarkPosition(b *testing.B) {
	doc := mustParse(b, string(realisticState(100<<10)))
	pointers := []string{"/steps/120/artifacts/1/sha256", "/gates/G2_validation", "/steps/7/checks/security", "/notes"}
	doc.Position("") // build the index outside the loop
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		if _, _, exact := doc.Position(pointers[i%len(pointers)]); !exact {
			b.Fatalf("Position(%q) is not exact", pointers[i%len(pointers)])
		}
		i++
	}
}

// BenchmarkPositionFirstCall includes building the index: the cost of the
// first finding in a file.
func BenchmarkPositionFirstCall(b *testing.B) {
	data := realisticState(100 << 10)
	doc := mustParse(b, string(data))
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		fresh := &Document{Value: doc.Value, Data: data}
		if _, _, exact := fresh.Position("/steps/120/artifacts/1/sha256"); !exact {
			b.Fatal("Position is not exact")
		}
	}
}

func TestRealisticStateIsValid(t *testing.T) {
	data := realisticState(100 << 10)
	if !json.Valid(data) || len(data) < 100<<10 || !strings.Contains(string(data), `"T120"`) {
		t.Fatalf("realisticState is not the document the benchmarks expect (%d bytes)", len(data))
	}
	checkAgainstReference(t, data)
}
