package layout

import (
	"reflect"
	"testing"
)

func TestExpand(t *testing.T) {
	files := []File{
		{Path: "summary.json"},
		{Path: "rounds/round-*/verdict.json"},
		{Path: "logs/log_unit_*.jsonl"},
		{Path: "state.json"},
	}
	present := []string{
		"rounds/round-2/verdict.json", "rounds/round-1/verdict.json", "rounds/round-1/nested/x/verdict.json",
		"logs/log_unit_1.jsonl", "logs/old/log_unit_0.jsonl", "state.json", "other.json",
	}
	var got []string
	for _, m := range Expand(files, present) {
		got = append(got, m.Spec.Path+" -> "+m.Path)
	}
	want := []string{
		"summary.json -> summary.json", // literal files are listed present or not
		"rounds/round-*/verdict.json -> rounds/round-1/verdict.json",
		"rounds/round-*/verdict.json -> rounds/round-2/verdict.json",
		"logs/log_unit_*.jsonl -> logs/log_unit_1.jsonl", // "*" does not cross "/"
		"state.json -> state.json",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Expand:\n got %q\nwant %q", got, want)
	}
}

// TestH3AFilesAreLiteral: the H3A layout names fixed files; a pattern there
// would change what "required" means.
func TestH3AFilesAreLiteral(t *testing.T) {
	for _, f := range (H3A{}).Files() {
		if f.IsPattern() {
			t.Errorf("%s is a pattern", f.Path)
		}
	}
}
