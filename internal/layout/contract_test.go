package layout

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/h3a-check/h3a-check/internal/finding"
	"github.com/h3a-check/h3a-check/internal/jsonpos"
	"github.com/h3a-check/h3a-check/internal/rundir"
)

// contractRun loads docs (path -> JSON text) the way the runner does.
func contractRun(dir string, docs map[string]string) *Run { return loadedRun(Contract{}, dir, docs) }

// loadedRun is a run of lay at dir holding docs (path -> JSON text),
// listed and parsed the way the runner does.
func loadedRun(lay Layout, dir string, docs map[string]string) *Run {
	var present []string
	for p := range docs {
		present = append(present, p)
	}
	r := &Run{Dir: dir, Files: Expand(lay.Files(), present), Docs: map[string]*rundir.Document{}}
	for p, text := range docs {
		d := &rundir.Document{Path: p, Present: true, Data: []byte(text)}
		d.JSON, _ = jsonpos.Parse(d.Data)
		d.Parsed = d.JSON != nil
		r.Docs[p] = d
	}
	return r
}

func TestContractDetect(t *testing.T) {
	tests := []struct {
		name  string
		files []string
		dir   string // the folder asked about, relative
		want  bool
	}{
		{"flat handoff and verdict", []string{"handoff.json", "verdict.json"}, ".", true},
		{"flat verdict alone", []string{"verdict.json"}, ".", false},
		{"flat handoff alone", []string{"handoff.json"}, ".", false},
		// A run that lost its verdict.json is still a run: its check
		// reports what is missing.
		{"flat handoff and audit", []string{"handoff.json", "audit.json"}, ".", true},
		{"flat handoff and summary", []string{"handoff.json", "summary.json"}, ".", true},
		{"handoff and a folder named summary.json", []string{"handoff.json", "summary.json/x"}, ".", false},
		{"audit alone (a saved report)", []string{"audit.json"}, ".", false},
		{"audit and summary", []string{"audit.json", "summary.json"}, ".", false},
		{"round artifact", []string{"rounds/round-1/handoff.json"}, ".", true},
		{"round folder, any file", []string{"rounds/round-12/notes.txt"}, ".", true},
		{"summary alone", []string{"summary.json"}, ".", false},
		{"round folder is no run", []string{"rounds/round-1/handoff.json", "rounds/round-1/verdict.json"}, "rounds/round-1", false},
		{"unrelated rounds", []string{"rounds/final/handoff.json"}, ".", false},
		{"unnumbered round", []string{"rounds/round-x/handoff.json"}, ".", false},
		{"verdict is a folder", []string{"handoff.json", "verdict.json/x"}, ".", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			for _, f := range tc.files {
				p := filepath.Join(root, filepath.FromSlash(f))
				if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(p, []byte("{}"), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			if got := (Contract{}).Detect(os.DirFS(root), tc.dir); got != tc.want {
				t.Errorf("Detect = %v, want %v", got, tc.want)
			}
		})
	}
}

// Rounds are ordered by number, not by name: round-10 comes after round-2,
// and the task ids are read in that order, the run folder's name first.
func TestContractRoundOrder(t *testing.T) {
	r := contractRun("/x/TASK-7-20260216-130000", map[string]string{
		"rounds/round-10/verdict.json": `{"task_id": "TASK-7"}`,
		"rounds/round-2/verdict.json":  `{"task_id": "TASK-7"}`,
		"rounds/round-1/handoff.json":  `{"task_id": "TASK-8"}`,
	})
	var dirs []string
	for _, rd := range (Contract{}).rounds(r) {
		dirs = append(dirs, rd.Dir)
	}
	if want := []string{"rounds/round-1", "rounds/round-2", "rounds/round-10"}; !slices.Equal(dirs, want) {
		t.Errorf("rounds %q, want %q", dirs, want)
	}
	docs := (Contract{}).Docs(r)
	var ids []string
	for _, ref := range docs["task_ids"].([]any) {
		m := ref.(map[string]any)
		ids = append(ids, fmt.Sprintf("%s=%s", m["file"], m["task_id"]))
	}
	if want := []string{"=TASK-7", "rounds/round-1/handoff.json=TASK-8", "rounds/round-2/verdict.json=TASK-7", "rounds/round-10/verdict.json=TASK-7"}; !slices.Equal(ids, want) {
		t.Errorf("task_ids %q, want %q", ids, want)
	}
	if docs["task_ids_agree"] != false {
		t.Errorf("task_ids_agree = %v, want false", docs["task_ids_agree"])
	}
}

func TestDeletedIn(t *testing.T) {
	patch := "diff --git a/gone.py b/gone.py\ndeleted file mode 100644\n--- a/gone.py\r\n+++ /dev/null\n@@ -1 +0,0 @@\n-x\n" +
		"diff --git a/kept.py b/kept.py\n--- a/kept.py\n+++ b/kept.py\n@@ -1 +1 @@\n--- a/not-a-header\n+y\n"
	got := deletedIn([]byte(patch))
	if !got["gone.py"] || len(got) != 1 {
		t.Errorf("deletedIn = %v, want only gone.py", got)
	}
	if got := deletedIn(nil); len(got) != 0 {
		t.Errorf("absent patch deletes %v", got)
	}
}

// FuzzContract: whatever the artifacts hold, the layout neither panics nor
// loses a finding's file.
func FuzzContract(f *testing.F) {
	f.Add([]byte(`{"task_id": "TASK-1", "rounds_completed": 1}`), []byte(`{"task_id": "TASK-1", "files_touched": ["a"]}`), []byte(`{"task_id": 7}`))
	f.Add([]byte(`[]`), []byte(`null`), []byte(`{"task_id": ""}`))
	f.Fuzz(func(t *testing.T, summary, handoff, verdict []byte) {
		r := contractRun("/x/.orchestrator/runs/TASK-1-20260216-130000", map[string]string{
			"summary.json":                string(summary),
			"rounds/round-1/handoff.json": string(handoff),
			"rounds/round-2/verdict.json": string(verdict),
		})
		l := Contract{}
		for _, fd := range l.Check(r) {
			if fd.Rule == "" || (fd.File == "" && fd.Rule != "h3a.structure.contract_summary_missing") {
				t.Errorf("finding without rule or file: %+v", fd)
			}
		}
		_ = l.Docs(r)
		_ = l.TaskID(r)
		_ = l.RequirementsKnown(r)
	})
}

// TestContractFlatBesideRounds: role files at the top of a run are its one
// round only when there is no round folder; beside round folders they are
// an error at the first of them, whatever the folders hold.
func TestContractFlatBesideRounds(t *testing.T) {
	tests := []struct {
		name  string
		files []string // documents of the run, each {"task_id": "T-1"}
		file  string   // where h3a.structure.contract_flat_and_rounds fires, "" for nowhere
		msg   string   // the start of its message
	}{
		{name: "a flat run", files: []string{"handoff.json", "verdict.json", "audit.json", "summary.json"}},
		{name: "rounds only", files: []string{"rounds/round-1/handoff.json", "rounds/round-2/verdict.json", "summary.json"}},
		{
			name:  "all three roles beside two rounds",
			files: []string{"handoff.json", "verdict.json", "audit.json", "rounds/round-1/handoff.json", "rounds/round-2/verdict.json"},
			file:  "handoff.json",
			msg:   "handoff.json, verdict.json and audit.json sit at the top of the run beside 2 round folders (rounds/round-1 to rounds/round-2): ",
		},
		{
			name:  "one role beside one round",
			files: []string{"verdict.json", "rounds/round-1/handoff.json", "summary.json"},
			file:  "verdict.json",
			msg:   "verdict.json sits at the top of the run beside rounds/round-1: ",
		},
		{
			name:  "beside a round whose number cannot be read",
			files: []string{"handoff.json", "verdict.json", "rounds/round-99999999999999999999/verdict.json"},
			file:  "handoff.json",
			msg:   "handoff.json and verdict.json sit at the top of the run beside rounds/round-99999999999999999999: ",
		},
		{name: "summary at the top is no round", files: []string{"summary.json", "rounds/round-1/verdict.json"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			docs := map[string]string{}
			for _, f := range tt.files {
				docs[f] = `{"task_id": "T-1"}`
			}
			var got []string
			for _, f := range (Contract{}).Check(contractRun("/x/T-1-20260216-130000", docs)) {
				if f.Rule != finding.ContractFlatAndRounds.ID {
					continue
				}
				got = append(got, f.File)
				if f.Severity != finding.Error || !strings.HasPrefix(f.Details, tt.msg) {
					t.Errorf("%s %q; want an error starting %q", f.Severity, f.Details, tt.msg)
				}
			}
			var want []string
			if tt.file != "" {
				want = []string{tt.file}
			}
			if !slices.Equal(got, want) {
				t.Errorf("contract_flat_and_rounds at %q, want %q", got, want)
			}
		})
	}
}
