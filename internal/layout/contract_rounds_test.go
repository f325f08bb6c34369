package layout

import (
	"os"
	"path/filepath"
	"testing"
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
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			docs := map[string]string{}
			for _, f := range tt.folders {
				p := "rounds/" + f + "/verdict.json"
				docs[p] = `{"task_id": "T-1"}`
				if err := os.MkdirAll(filepath.Join(dir, "rounds", f), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(dir, filepath.FromSlash(p)), []byte(docs[p]), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			for _, f := range tt.empty {
				if err := os.MkdirAll(filepath.Join(dir, "rounds", f), 0o755); err != nil {
					t.Fatal(err)
				}
			}
			root, err := os.OpenRoot(dir)
			if err != nil {
				t.Fatal(err)
			}
			defer root.Close()
			got, err := ContractLastRound(root)
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
