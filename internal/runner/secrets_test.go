package runner

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/h3a-check/h3a-check/internal/jsonpos"
	"github.com/h3a-check/h3a-check/internal/layout"
	"github.com/h3a-check/h3a-check/internal/ledger"
	"github.com/h3a-check/h3a-check/internal/rundir"
	"github.com/h3a-check/h3a-check/internal/yamlpos"
)

const (
	awsKey   = "AKIAIOSFODNN7EXAMPLE"
	awsMask  = "AKIA… (20 characters, masked)"
	ghToken  = "ghp_0123456789abcdefghijABCDEFGHIJ012345"
	ghMask   = "ghp_… (40 characters, masked)"
	password = "s3cr3t-Pa55"
	pwMask   = "s3cr… (11 characters, masked)"
)

// TestScanSecretsEveryKind: one mechanism for every kind of document;
// facts come by file, then by position in the file (not by pointer), and
// a document that did not parse is not scanned.
func TestScanSecretsEveryKind(t *testing.T) {
	jd, _ := jsonpos.Parse([]byte(`{"z": "` + awsKey + `",` + "\n" + `"a": {"Password": "` + password + `"}}`))
	lines, _ := jsonpos.ParseLines([]byte(`{"msg": "ok"}` + "\n" + `{"msg": "token=` + ghToken + `"}` + "\n"))
	yd, _ := yamlpos.Parse([]byte("name: x\nnotes: key " + awsKey + "\n"))
	gates := &ledger.GatesLedger{Events: []ledger.Event{{Note: "fine", Line: 20}, {Note: "used " + ghToken, Line: 26}}}
	run := &layout.Run{
		Files: []layout.Match{
			{Path: "b.json"}, {Path: "logs/a.jsonl"}, {Path: "blueprint.yml"}, {Path: "state/GATES_LEDGER.md"}, {Path: "broken.json"}, {Path: "missing.json"},
		},
		Docs: map[string]*rundir.Document{
			"b.json":                {Path: "b.json", Present: true, Parsed: true, JSON: jd},
			"logs/a.jsonl":          {Path: "logs/a.jsonl", Present: true, Parsed: true, Lines: lines},
			"blueprint.yml":         {Path: "blueprint.yml", Present: true, Parsed: true, YAML: yd},
			"state/GATES_LEDGER.md": {Path: "state/GATES_LEDGER.md", Present: true, Parsed: true, Ledger: gates},
			"broken.json":           {Path: "broken.json", Present: true, Data: []byte(`{"password": "` + password)},
		},
	}
	want := []any{
		map[string]any{"file": "b.json", "pointer": "/z", "kind": "an AWS access key id", "masked": awsMask},
		map[string]any{"file": "b.json", "pointer": "/a/Password", "kind": "a credential member", "member": "Password", "masked": pwMask},
		map[string]any{"file": "blueprint.yml", "pointer": "/notes", "kind": "an AWS access key id", "masked": awsMask},
		map[string]any{"file": "logs/a.jsonl", "pointer": "/1/msg", "kind": "a GitHub token", "masked": ghMask},
		map[string]any{"file": "state/GATES_LEDGER.md", "line": 26, "kind": "a GitHub token", "masked": ghMask},
	}
	if got := scanSecrets(run); !reflect.DeepEqual(got, want) {
		t.Errorf("scanSecrets =\n%v\nwant\n%v", got, want)
	}
}

// TestScanSecretsLedgerRecords: the free text of every kind of ledger
// record is scanned, located by the record's line, and bounded.
func TestScanSecretsLedgerRecords(t *testing.T) {
	type ledgerCase struct {
		name   string
		ledger any
		want   []int
	}
	tests := []ledgerCase{
		{"roadmap", &ledger.Roadmap{Tasks: []ledger.Task{{Text: "rotate passwd: Winter2025!", Line: 21}, {Text: "plain", Line: 22}}}, []int{21}},
		{"gates ledger", &ledger.GatesLedger{Events: []ledger.Event{{Note: "used token=" + ghToken + ", auth_token: x1y2z3w4", Line: 26}}}, []int{26, 26}},
		{"evidence log", &ledger.EvidenceLog{Entries: []ledger.Entry{{Description: awsKey, Line: 14}}}, []int{14}},
	}
	many := &ledger.EvidenceLog{}
	for i := range 300 {
		many.Entries = append(many.Entries, ledger.Entry{Description: awsKey, Line: i + 1})
	}
	var bounded []int
	for i := range 100 {
		bounded = append(bounded, i+1)
	}
	tests = append(tests, ledgerCase{"bounded", many, bounded})
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			run := &layout.Run{Files: []layout.Match{{Path: "L.md"}}, Docs: map[string]*rundir.Document{"L.md": {Present: true, Parsed: true, Ledger: tt.ledger}}}
			var lines []int
			for _, f := range scanSecrets(run) {
				fact := f.(map[string]any)
				if _, ok := fact["pointer"]; ok {
					t.Errorf("ledger fact has a pointer: %v", fact)
				}
				lines = append(lines, fact["line"].(int))
			}
			if !reflect.DeepEqual(lines, tt.want) {
				t.Errorf("lines %v, want %v", lines, tt.want)
			}
		})
	}
}

// TestSecretsInEveryLayout: a credential written into a document of any
// layout's ok run reaches input.secrets and is reported, with the pointer
// naming members as the file writes them.
func TestSecretsInEveryLayout(t *testing.T) {
	tests := []struct {
		run, file, old, new string
		pointer             string
	}{
		{"complete", "state/CURRENT_TASK.json", "{", `{"api_key": "` + password + `",`, "/api_key"},
		{"hybrid_complete", "logs/log_unit_2.jsonl", "{", `{"note": "` + awsKey + `",`, "/0/note"},
		{"hybrid_x2", "state.txt", "{", `{"token": "` + password + `",`, "/token"},
		{"stigmergy_complete", "execution-blueprint.yml", "tasks:", "password: " + password + "\ntasks:", "/password"},
		{"gate_state_variant", ".state/demoqa_com-student_registration-gate2-output.json", `"outputData": {`, `"outputData": {"secret": "` + password + `",`, "/outputData/secret"},
		{"contract_rounds", "rounds/round-2/audit.json", "{", `{"comment": "` + ghToken + `",`, "/comment"},
	}
	for _, tt := range tests {
		t.Run(tt.run, func(t *testing.T) {
			src, err := filepath.Glob(filepath.Join(testRuns, "ok", tt.run, "*"))
			if err != nil {
				t.Fatal(err)
			}
			var dir string
			for _, s := range src {
				if info, err := os.Stat(s); err == nil && info.IsDir() {
					dir = filepath.Join(t.TempDir(), filepath.Base(s))
					if err := os.CopyFS(dir, os.DirFS(s)); err != nil {
						t.Fatal(err)
					}
				}
			}
			path := filepath.Join(dir, filepath.FromSlash(tt.file))
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(data), tt.old) {
				t.Fatalf("%s lacks %q", tt.file, tt.old)
			}
			if err := os.WriteFile(path, []byte(strings.Replace(string(data), tt.old, tt.new, 1)), 0o644); err != nil {
				t.Fatal(err)
			}
			res, err := Check(context.Background(), Options{Scope: Scope{Paths: []string{dir}, Base: "none"}, Output: Output{KeepInputs: true}})
			if err != nil || len(res.Inputs) != 1 {
				t.Fatalf("check: %v", err)
			}
			reported := false
			for _, f := range res.Audits[0].Findings {
				reported = reported || f.Rule == "h3a.security.secret" && f.File == tt.file && f.Pointer == tt.pointer
			}
			if !reported {
				t.Errorf("no h3a.security.secret finding at %s %s: %+v", tt.file, tt.pointer, res.Audits[0].Findings)
			}
			facts, _ := res.Inputs[0]["secrets"].([]any)
			found := false
			for _, f := range facts {
				fact := f.(map[string]any)
				if fact["file"] != tt.file {
					t.Errorf("unexpected fact %v", fact)
					continue
				}
				found = found || fact["pointer"] == tt.pointer
			}
			if !found {
				t.Errorf("input.secrets = %v, want a fact at %s %s", facts, tt.file, tt.pointer)
			}
		})
	}
}
