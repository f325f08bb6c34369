package runner

import (
	"fmt"
	"strings"
	"testing"

	"github.com/h3a-check/h3a-check/internal/finding"
)

func TestCapPerRule(t *testing.T) {
	var fs []finding.Finding
	for i := range 250 {
		fs = append(fs, finding.SchemaViolation.New("state.json", "bad value %d", i))
		fs[len(fs)-1].Line = i + 1
	}
	fs = append(fs, finding.BOM.New("state.json", "bom"))
	got := capPerRule(fs, 100)
	if len(got) != 102 {
		t.Fatalf("%d findings, want 100 listed + 1 count + 1 other rule", len(got))
	}
	var counted int
	for _, f := range got {
		if strings.Contains(f.Details, "more h3a.schema.violation findings") {
			counted++
			if !strings.HasPrefix(f.Details, fmt.Sprint(150)) {
				t.Errorf("count finding says %q, want 150 more", f.Details)
			}
		}
	}
	if counted != 1 {
		t.Errorf("%d count findings, want 1", counted)
	}
}
