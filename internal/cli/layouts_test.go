package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestMixedLayouts: one folder holding runs of several layouts is checked
// in one call, each run under its own layout.
func TestMixedLayouts(t *testing.T) {
	root := t.TempDir()
	for _, src := range []string{"ok/complete", "ok/contract_rounds", "ok/contract_flat", "err/contract_task_id"} {
		if err := os.CopyFS(filepath.Join(root, filepath.Base(src)), os.DirFS(caseDir(t, src))); err != nil {
			t.Fatal(err)
		}
		os.Remove(filepath.Join(root, filepath.Base(src), "CASE.md"))
	}
	code, audits, stderr := checkJSON(t, root)
	if code != ExitFail {
		t.Fatalf("exit %d, want 1 (the contract_task_id run fails); stderr %s", code, stderr)
	}
	var got []string
	for _, a := range audits {
		rel, _ := filepath.Rel(root, a.Run)
		got = append(got, filepath.ToSlash(rel)+" "+a.Layout+" "+a.Gate)
	}
	want := []string{
		"complete/20250929-134215-8b6f8b9a-7c9f-4c5e-8c6a-2f0f0d2e9c1a h3a pass",
		"contract_flat/flat-run contract pass",
		"contract_rounds/TASK-0042-20260216-130000 contract pass",
		"contract_task_id/TASK-0042-20260216-130000 contract fail",
	}
	if !slices.Equal(got, want) {
		t.Errorf("audits:\n%q\nwant\n%q", got, want)
	}
}

// TestEveryLayoutInOneCall: a folder holding a run of each layout is
// checked in one call, each run under its own layout, and all pass.
func TestEveryLayoutInOneCall(t *testing.T) {
	dir := t.TempDir()
	for _, run := range []struct{ src, dst string }{
		{"ok/complete/20250929-134215-8b6f8b9a-7c9f-4c5e-8c6a-2f0f0d2e9c1a", "runs/20250929-134215-8b6f8b9a-7c9f-4c5e-8c6a-2f0f0d2e9c1a"},
		{"ok/contract_rounds/TASK-0042-20260216-130000", "contract/TASK-0042-20260216-130000"},
		{"ok/contract_flat/flat-run", "contract-flat"},
		{"ok/hybrid_complete/greeter", "hybrid"},
		{"ok/hybrid_x2/app", "hybrid-x2"},
		{"ok/stigmergy_complete/greeter", "stigmergy"},
		{"ok/gate_state_complete/app", "gate-state"},
	} {
		if err := os.CopyFS(filepath.Join(dir, run.dst), os.DirFS(filepath.Join(casesDir, run.src))); err != nil {
			t.Fatal(err)
		}
	}
	code, audits, stderr := checkJSON(t, dir)
	if code != ExitPass {
		t.Fatalf("exit %d, want 0: %s\n%s", code, stderr, wantText(code, audits))
	}
	var got []string
	for _, a := range audits {
		rel, _ := filepath.Rel(dir, a.Run)
		got = append(got, filepath.ToSlash(rel)+" "+a.Layout)
	}
	want := []string{
		"contract-flat contract",
		"contract/TASK-0042-20260216-130000 contract",
		"gate-state gate-state",
		"hybrid hybrid-os",
		"hybrid-x2 hybrid-os",
		"runs/20250929-134215-8b6f8b9a-7c9f-4c5e-8c6a-2f0f0d2e9c1a h3a",
		"stigmergy stigmergy",
	}
	if !slices.Equal(got, want) {
		t.Errorf("audits:\n%q\nwant\n%q", got, want)
	}
}

// TestParseContract: parse shows a contract run's documents, round by round.
func TestParseContract(t *testing.T) {
	code, out, stderr := runMain("parse", filepath.Join(casesDir, "ok", "contract_rounds"))
	if code != ExitPass {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var in struct {
		Run  struct{ Layout string }
		Docs struct {
			Summary map[string]any
			Rounds  []struct {
				Dir     string
				Files   map[string]string
				Verdict map[string]any
			}
			TaskIDsAgree bool `json:"task_ids_agree"`
		}
	}
	if err := json.Unmarshal([]byte(out), &in); err != nil {
		t.Fatal(err)
	}
	if in.Run.Layout != "contract" || in.Docs.Summary["final_verdict"] != "pass" || !in.Docs.TaskIDsAgree || len(in.Docs.Rounds) != 2 {
		t.Fatalf("parse output: %s", out)
	}
	r2 := in.Docs.Rounds[1]
	if r2.Dir != "rounds/round-2" || r2.Files["audit"] != "rounds/round-2/audit.json" || r2.Verdict["verdict"] != "pass" {
		t.Errorf("round 2: %+v", r2)
	}
}

// TestParseGateState: parse shows a gate-state run's pipelines, the
// sibling documents' names read as the guide's.
func TestParseGateState(t *testing.T) {
	code, out, stderr := runMain("parse", filepath.Join(casesDir, "ok", "gate_state_variant", "app"))
	if code != ExitPass {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var in struct {
		Run  struct{ Layout string }
		Docs struct {
			Pipelines []struct {
				Prefix   string
				Pipeline map[string]any
				Gates    map[string]struct {
					Path     string
					Doc      map[string]any
					Variants []string
				}
			}
		}
	}
	if err := json.Unmarshal([]byte(out), &in); err != nil {
		t.Fatal(err)
	}
	if in.Run.Layout != "gate-state" || len(in.Docs.Pipelines) != 1 || in.Docs.Pipelines[0].Prefix != "demoqa_com-student_registration" {
		t.Fatalf("parse output: %s", out)
	}
	g2 := in.Docs.Pipelines[0].Gates["2"]
	val, _ := g2.Doc["validation"].(map[string]any)
	if g2.Doc["agent"] != "DOMAgent" || val["score"] != float64(87) || !slices.Equal(g2.Variants, []string{"agentName", "outputData", "validationResult", "executionTrace"}) {
		t.Errorf("gate 2: %+v", g2)
	}
}
