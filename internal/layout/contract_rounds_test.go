package layout

import (
	"slices"
	"strings"
	"testing"

	"github.com/h3a-check/h3a-check/internal/finding"
)

// TestContractLastRoundAgreesWithRounds: the folder the auditor's
// audit.json is written to is the last of the rounds the check reads, by
// the same numbering: round-10 after round-9, and a folder whose name is
// not round-<digits> (round-+11, round-x) numbered by neither.
func TestContractLastRoundAgreesWithRounds(t *testing.T) {
	tests := []struct {
		name    string
		folders []string // round folders holding a verdict.json
		empty   []string // round folders holding nothing
		want    string
		wantErr bool
	}{
		{name: "no rounds folder", want: "."},
		{name: "by number, not by name", folders: []string{"round-9", "round-10", "round-2"}, want: "rounds/round-10"},
		{name: "an empty higher folder is not a round", folders: []string{"round-1"}, empty: []string{"round-7"}, want: "rounds/round-1"},
		{name: "a signed number is not a round number", folders: []string{"round-3", "round-+11", "round-x"}, want: "rounds/round-3"},
		{name: "two folders of one number", folders: []string{"round-2", "round-02", "round-1"}, wantErr: true},
		{name: "a number too large to read", folders: []string{"round-1", "round-99999999999999999999", "round-2"}, wantErr: true},
		{name: "an empty folder too large to read is not a round", folders: []string{"round-1"}, empty: []string{"round-99999999999999999999"}, want: "rounds/round-1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			docs := map[string]string{}
			var entries []ContractRoundFolder
			for _, f := range tt.folders {
				docs["rounds/"+f+"/verdict.json"] = `{"task_id": "T-1"}`
				entries = append(entries, ContractRoundFolder{Name: f, Files: []string{"notes.md", "verdict.json"}})
			}
			for _, f := range tt.empty {
				entries = append(entries, ContractRoundFolder{Name: f})
			}
			got, err := ContractLastRound(entries)
			if (err != nil) != tt.wantErr || got != tt.want {
				t.Fatalf("ContractLastRound = %q, %v; want %q (error: %v)", got, err, tt.want, tt.wantErr)
			}
			if tt.wantErr || len(tt.folders) == 0 {
				return
			}
			// The last numbered round the check reads is the same folder.
			last := ""
			for _, rd := range (Contract{}).rounds(contractRun(dir, docs)) {
				if rd.N >= 0 {
					last = rd.Dir
				}
			}
			if last != got {
				t.Errorf("the check's last numbered round is %q, the audit is written to %q", last, got)
			}
		})
	}
}

// TestContractLastRoundRefusesLinks: a symbolic link where a round would
// be is an error; one with another name is not a round at all.
func TestContractLastRoundRefusesLinks(t *testing.T) {
	if _, err := ContractLastRound([]ContractRoundFolder{{Name: "round-1", Files: []string{"verdict.json"}}, {Name: "round-2", Symlink: true}}); err == nil {
		t.Error("a link named round-2 was taken")
	}
	got, err := ContractLastRound([]ContractRoundFolder{{Name: "round-1", Files: []string{"verdict.json"}}, {Name: "latest", Symlink: true}})
	if err != nil || got != "rounds/round-1" {
		t.Errorf("ContractLastRound = %q, %v; want rounds/round-1", got, err)
	}
}

// TestContractRoundNumberUnreadable: a round folder whose number cannot be
// read is an error at that folder, and it is ordered after every numbered
// round, never first, where it would hide the true last round.
func TestContractRoundNumberUnreadable(t *testing.T) {
	tests := []struct {
		name    string
		folders []string // round folders holding a verdict.json
		flat    bool     // a verdict.json at the top of the run too
		order   []string // the rounds as the check orders them
		fires   []string // the folders h3a.structure.contract_round_number names
		msg     string   // a part of the first finding's message
	}{
		{
			name:    "numbered rounds",
			folders: []string{"round-2", "round-10", "round-1"},
			order:   []string{"rounds/round-1", "rounds/round-2", "rounds/round-10"},
		},
		{
			name:    "too large to read, last",
			folders: []string{"round-99999999999999999999", "round-1", "round-2"},
			order:   []string{"rounds/round-1", "rounds/round-2", "rounds/round-99999999999999999999"},
			fires:   []string{"rounds/round-99999999999999999999"},
			msg:     "its number 99999999999999999999 is too large to read",
		},
		{
			name:    "too large, ordered by value",
			folders: []string{"round-100000000000000000000", "round-99999999999999999999", "round-000099999999999999999999", "round-3"},
			order:   []string{"rounds/round-3", "rounds/round-000099999999999999999999", "rounds/round-99999999999999999999", "rounds/round-100000000000000000000"},
			fires:   []string{"rounds/round-000099999999999999999999", "rounds/round-99999999999999999999", "rounds/round-100000000000000000000"},
		},
		{
			name:    "no number at all, after the numbered ones",
			folders: []string{"round-x", "round-2", "round-1"},
			order:   []string{"rounds/round-1", "rounds/round-2", "rounds/round-x"},
			fires:   []string{"rounds/round-x"},
			msg:     `"x" is not a round number`,
		},
		{
			name:    "leading zeros are a number",
			folders: []string{"round-01", "round-2"},
			order:   []string{"rounds/round-01", "rounds/round-2"},
		},
		{
			name:    "the flat round first",
			folders: []string{"round-99999999999999999999"},
			flat:    true,
			order:   []string{"", "rounds/round-99999999999999999999"},
			fires:   []string{"rounds/round-99999999999999999999"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			docs := map[string]string{}
			for _, f := range tt.folders {
				docs["rounds/"+f+"/verdict.json"] = `{"task_id": "T-1"}`
			}
			if tt.flat {
				docs["verdict.json"] = `{"task_id": "T-1"}`
			}
			r := contractRun("/x/T-1-20260216-130000", docs)
			var order []string
			for _, rd := range (Contract{}).rounds(r) {
				order = append(order, rd.Dir)
			}
			if !slices.Equal(order, tt.order) {
				t.Errorf("rounds %q, want %q", order, tt.order)
			}
			var fired []string
			for _, f := range (Contract{}).checkRoundNames(r) {
				if f.Rule != finding.ContractRoundNumber.ID || f.Severity != finding.Error {
					t.Errorf("finding %s (%s), want an error of %s", f.Rule, f.Severity, finding.ContractRoundNumber.ID)
				}
				fired = append(fired, f.File)
				if len(fired) == 1 && !strings.Contains(f.Details, tt.msg) {
					t.Errorf("message %q does not say %q", f.Details, tt.msg)
				}
			}
			if !slices.Equal(fired, tt.fires) {
				t.Errorf("contract_round_number at %q, want %q", fired, tt.fires)
			}
			// The policies see n null for such a folder, and its place.
			rounds := (Contract{}).Docs(r)["rounds"].([]any)
			for i, rd := range rounds {
				m := rd.(map[string]any)
				if slices.Contains(tt.fires, m["dir"].(string)) && m["n"] != nil {
					t.Errorf("round %d (%s) n = %v, want null", i, m["dir"], m["n"])
				}
			}
		})
	}
}

// TestContractResultsJoinTheirRound: the judge's eval-results.json and the
// auditor's audit-results.json are given in the round whose folder holds
// them, flat or in rounds/round-<n>/; a folder holding only results makes
// no round, and a round without them gives null.
func TestContractResultsJoinTheirRound(t *testing.T) {
	tests := []struct {
		name string
		docs []string
		want map[string]map[string]string // round dir -> key -> file ("" for null)
	}{
		{
			name: "in round folders",
			docs: []string{"rounds/round-1/verdict.json", "rounds/round-1/eval-results.json", "rounds/round-2/verdict.json", "rounds/round-2/audit.json", "rounds/round-2/audit-results.json"},
			want: map[string]map[string]string{
				"rounds/round-1": {"eval_results": "rounds/round-1/eval-results.json", "audit_results": ""},
				"rounds/round-2": {"eval_results": "", "audit_results": "rounds/round-2/audit-results.json"},
			},
		},
		{
			name: "flat",
			docs: []string{"handoff.json", "verdict.json", "eval-results.json", "audit-results.json"},
			want: map[string]map[string]string{
				"": {"eval_results": "eval-results.json", "audit_results": "audit-results.json"},
			},
		},
		{
			name: "results alone make no round",
			docs: []string{"rounds/round-1/verdict.json", "rounds/round-2/eval-results.json", "audit-results.json"},
			want: map[string]map[string]string{
				"rounds/round-1": {"eval_results": "", "audit_results": ""},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			docs := map[string]string{}
			for _, p := range tt.docs {
				docs[p] = `{"task_id": "T-1", "results": []}`
			}
			rounds, _ := (Contract{}).Docs(contractRun(t.TempDir(), docs))["rounds"].([]any)
			if len(rounds) != len(tt.want) {
				t.Fatalf("%d rounds, want %d: %v", len(rounds), len(tt.want), rounds)
			}
			for _, r := range rounds {
				round := r.(map[string]any)
				dir := round["dir"].(string)
				want, ok := tt.want[dir]
				if !ok {
					t.Fatalf("round %q, want none", dir)
				}
				files := round["files"].(map[string]any)
				for key, file := range want {
					got, _ := files[key].(string)
					if got != file {
						t.Errorf("round %q files[%s] = %q, want %q", dir, key, got, file)
					}
					if (round[key] == nil) != (file == "") {
						t.Errorf("round %q %s = %v, want the document of %q", dir, key, round[key], file)
					}
				}
			}
		})
	}
}
