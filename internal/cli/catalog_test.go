package cli

import (
	"encoding/json"
	"path/filepath"
	"slices"
	"testing"
)

// TestOneCatalogue: a check's report describes the same rules, in the
// same order, as rules and explain list, with and without a --policy
// folder: one catalogue serves all three.
func TestOneCatalogue(t *testing.T) {
	t.Parallel()
	run := filepath.Join(casesDir, "ok", "complete")
	for _, extra := range [][]string{nil, {"--policy", filepath.Join(userPolicies, "team")}} {
		code, out, stderr := runMain(append([]string{"rules", "--format", "json"}, extra...)...)
		if code != ExitPass {
			t.Fatalf("rules %q: exit %d: %s", extra, code, stderr)
		}
		var listed struct {
			Rules []struct{ ID, Title string } `json:"rules"`
		}
		if err := json.Unmarshal([]byte(out), &listed); err != nil {
			t.Fatal(err)
		}
		var want []string
		for _, r := range listed.Rules {
			want = append(want, r.ID)
		}
		// explain reads the same list (each call loads the policies, so
		// the first and the last rule stand for all).
		for _, id := range []string{want[0], want[len(want)-1]} {
			if code, _, stderr := runMain(append([]string{"explain"}, append(extra, id)...)...); code != ExitPass {
				t.Errorf("rules lists %s, explain %q does not know it: exit %d: %s", id, extra, code, stderr)
			}
		}

		code, out, stderr = checkNoBase(append([]string{"--format", "sarif"}, append(extra, run)...)...)
		if code != ExitPass {
			t.Fatalf("check %q: exit %d: %s", extra, code, stderr)
		}
		var sarif struct {
			Runs []struct {
				Tool struct {
					Driver struct {
						Rules []struct{ ID string } `json:"rules"`
					} `json:"driver"`
				} `json:"tool"`
			} `json:"runs"`
		}
		if err := json.Unmarshal([]byte(out), &sarif); err != nil || len(sarif.Runs) != 1 {
			t.Fatalf("check --format sarif: %v", err)
		}
		var got []string
		for _, r := range sarif.Runs[0].Tool.Driver.Rules {
			got = append(got, r.ID)
		}
		if !slices.Equal(got, want) {
			t.Errorf("with %q the check's report describes %d rules, rules lists %d:\nreport %q\nrules  %q", extra, len(got), len(want), got, want)
		}
	}
}
