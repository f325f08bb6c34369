package layout

import "testing"

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
