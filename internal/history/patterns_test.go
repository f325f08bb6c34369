package history

import (
	"strings"
	"testing"
)

// TestPatternEntries: a table entry naming a family of files works the same
// for every layout: each file the base holds is compared with head's, one
// head lacks is removed, one only head has is new.
func TestPatternEntries(t *testing.T) {
	tests := []struct {
		name          string
		layout        string
		base, head    map[string]string
		rule, file    string
		detailsSubstr string
	}{
		{"hybrid-os plan grew", "hybrid-os",
			map[string]string{"plans/core/p1.json": `{"v": 1, "id": "p1"}`},
			map[string]string{"plans/core/p1.json": `{"v": 2, "id": "p1"}`, "plans/core/p2.json": `{"v": 1, "id": "p2"}`},
			"", "", ""},
		{"hybrid-os plan version went down", "hybrid-os",
			map[string]string{"plans/core/p1.json": `{"v": 3, "id": "p1"}`},
			map[string]string{"plans/core/p1.json": `{"v": 2, "id": "p1"}`},
			"h3a.append_only.hybrid_version_decreased", "plans/core/p1.json", "3"},
		{"hybrid-os plan removed", "hybrid-os",
			map[string]string{"plans/core/p1.json": `{"v": 1, "id": "p1"}`, "registry/code/a.json": `{"v": 1, "id": "a"}`},
			map[string]string{"registry/code/a.json": `{"v": 1, "id": "a"}`},
			"h3a.append_only.file_removed", "plans/core/p1.json", "exists at base"},
		{"contract round added", "contract",
			map[string]string{"rounds/round-1/handoff.json": `{"task_id": "T"}`},
			map[string]string{"rounds/round-1/handoff.json": `{"task_id": "T"}`, "rounds/round-2/handoff.json": `{"task_id": "T"}`},
			"", "", ""},
		{"contract round removed", "contract",
			map[string]string{"rounds/round-1/handoff.json": `{"task_id": "T"}`, "rounds/round-2/handoff.json": `{"task_id": "T"}`},
			map[string]string{"rounds/round-2/handoff.json": `{"task_id": "T"}`},
			"h3a.append_only.file_removed", "rounds/round-1/handoff.json", "exists at base"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			head := contractHead(tc.head)
			head.Layout = tc.layout
			_, b := fakeBase(tc.base)
			res, err := Compare(head, b, commit)
			if err != nil {
				t.Fatal(err)
			}
			f, ok := soleFinding(t, res.Findings, tc.rule)
			if !ok {
				return
			}
			if f.Rule != tc.rule || f.File != tc.file || !strings.Contains(f.Details, tc.detailsSubstr) {
				t.Errorf("got %s %q: %s\nwant %s %q, details containing %q", f.Rule, f.File, f.Details, tc.rule, tc.file, tc.detailsSubstr)
			}
		})
	}
}
