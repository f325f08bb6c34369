package policy_test

import (
	"context"
	"testing"

	"github.com/h3a-check/h3a-check/internal/runner"
)

// contractPlaces are where FuzzContractPolicies puts its value in the input
// of the two-round contract run.
var contractPlaces = [][]any{
	{"summary"},
	{"rounds", 0, "handoff"}, {"rounds", 0, "verdict"}, {"rounds", 0, "audit"},
	{"rounds", 1, "handoff"}, {"rounds", 1, "verdict"}, {"rounds", 1, "audit"},
	{"rounds"}, {"task_ids"},
}

// FuzzContractPolicies puts an arbitrary JSON value in place of one
// document of a contract run (or of its rounds): the shipped rules must
// evaluate cleanly, as FuzzShippedPolicies requires for an h3a run, and
// their plan must give what OPA's evaluator gives.
func FuzzContractPolicies(f *testing.F) {
	res, err := runner.Check(context.Background(), runner.Options{Scope: runner.Scope{Paths: []string{"../../testdata/runs/ok/contract_rounds"}, Getenv: noCI}, Output: runner.Output{KeepInputs: true}})
	if err != nil || len(res.Inputs) != 1 {
		f.Fatalf("contract run: %v", err)
	}
	base := res.Inputs[0]
	add := seedSample(f, 4)
	for _, seed := range []string{
		`null`, `[]`, `"x"`, `5`, `{}`,
		`{"verdict": "pass", "required_changes": "x", "requirements_missing": [null], "requirements_checked": 5}`,
		`{"gate": "fail", "required_actions": {}, "traceability": {"task_id_match": "pass"}, "risk": null}`,
		`{"smoke_checks": [null, {"status": "fail"}, {"status": "fail", "command": 7}], "requirements_touched": [1, "RQ-1"]}`,
		`{"final_verdict": "pass", "rounds_completed": "2", "audit_gate": "fail", "judge_verdict": 1, "audit_enabled": "no"}`,
		`[{"n": null, "dir": 5, "files": null, "handoff": [], "verdict": {"verdict": "pass"}, "audit": {"gate": "pass"}}]`,
	} {
		for i := range contractPlaces {
			add(uint8(i), []byte(seed))
		}
	}
	e, reference := planAndCompiled(f)
	f.Fuzz(func(t *testing.T, which uint8, doc []byte) {
		v := decodeOrSkip(t, doc)
		in := clone(t, base)
		place := contractPlaces[int(which)%len(contractPlaces)]
		var parent any = in["docs"]
		for _, step := range place[:len(place)-1] {
			switch k := step.(type) {
			case string:
				parent = parent.(map[string]any)[k]
			case int:
				parent = parent.([]any)[k]
			}
		}
		parent.(map[string]any)[place[len(place)-1].(string)] = v
		evaluatesCleanly(t, e, reference, in)
	})
}
