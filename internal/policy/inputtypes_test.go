package policy

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/h3a-check/h3a-check/policies"
)

// layoutRule renders a user rule whose metadata declares the input schema
// of a layout ("" for none); body is the rule body before f is built, its
// first line being line 11 of the file (line 13 with a declaration), the
// rule's head line 10 (12).
func layoutRule(layout, body string) string {
	schemas := ""
	if layout != "" {
		schemas = "# schemas:\n#   - input: " + layout + "\n"
	}
	return header + fmt.Sprintf(`
# METADATA
# title: A user rule
# description: Used by the tests.
%s# custom:
#   id: h3a.user.team.x
deny contains f if {
%s
	f := lib.finding(rego.metadata.rule(), {"msg": "x"})
}
`, schemas, body)
}

// TestTypeCheckRefusesUnknownFields: a --policy rule reading a field that
// no layout's input has does not load (exit 2), and the problem names the
// file, line and column of the field and its nearest known name.
func TestTypeCheckRefusesUnknownFields(t *testing.T) {
	t.Parallel() // each case compiles the shipped rules with its own
	tests := []struct {
		name, layout, body string
		want               string // "" when the rule loads
	}{
		{"top-level field", "", "\tinput.curent_task.goal == 1",
			`a.rego:11:8: unknown input field "curent_task" in input.curent_task (known here: docs, evidence, files, history, meanings, params, run, secrets, tree)`},
		{"document", "", "\tinput.docs.curent_task.goal == 1",
			`a.rego:11:13: unknown input field "curent_task" in input.docs.curent_task: did you mean "current_task"?`},
		{"field of a document", "", "\tinput.docs.current_task.gaal == 1",
			`a.rego:11:26: unknown input field "gaal" in input.docs.current_task.gaal: did you mean "goal"?`},
		{"through a variable", "", "\tsome v in input.docs.validator_report.verdicts\n\tv.verification_results.mutaton.score == \"1\"",
			`a.rego:12:25: unknown field "mutaton" in v.verification_results.mutaton: did you mean "mutation"?`},
		{"contract round", "", "\tsome r in input.docs.rounds\n\tr.verdict.verdikt == \"pass\"",
			`a.rego:12:12: unknown field "verdikt" in r.verdict.verdikt: did you mean "verdict"?`},
		{"known fields", "", "\tinput.docs.current_task.goal == \"x\"\n\tsome v in input.docs.validator_report.verdicts\n\tv.verification_results.mutation.score == \"1\"", ""},
		{"another layout's document", "schema.input.contract", "\tinput.docs.state.gates.G0_planning == \"passed\"",
			`a.rego:13:13: unknown input field "state" in input.docs.state (known here: provenance, rounds, summary, task_ids, task_ids_agree)`},
		{"one layout's field", "schema.input.h3a", "\tinput.docs.state.gates.G0_planing == \"passed\"",
			`a.rego:13:25: unknown input field "G0_planing" in input.docs.state.gates.G0_planing: did you mean "G0_planning"?`},
		{"one layout, known field", "schema.input.h3a", "\tinput.docs.state.gates.G0_planning == \"passed\"", ""},
		{"no such layout", `schema.input["gate_state"]`, "\tinput.docs.pipelines",
			`a.rego:12: schemas annotation names schema.input.gate_state, which is not a layout's input: expected one of schema.input.contract, schema.input["gate-state"]`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := userDir(t, map[string]string{"a.rego": layoutRule(tc.layout, tc.body)})
			_, err := Load(context.Background(), Options{Dirs: []string{dir}})
			if tc.want == "" {
				if err != nil {
					t.Fatalf("a rule reading known fields was refused: %v", err)
				}
				return
			}
			var ce *CompileError
			if !errors.As(err, &ce) || len(ce.Problems) != 1 {
				t.Fatalf("err = %v, want one problem", err)
			}
			if got := filepath.ToSlash(ce.Problems[0]); !strings.HasPrefix(got, filepath.ToSlash(dir)+"/"+tc.want) {
				t.Errorf("problem\n%s\nwant it to start with\n%s/%s", got, filepath.ToSlash(dir), tc.want)
			}
		})
	}
}

// TestTestsAreTypeChecked: h3a-check test compiles the rules under test
// the same way, so a typo fails there too.
func TestTestsAreTypeChecked(t *testing.T) {
	dir := userDir(t, map[string]string{
		"a.rego":      layoutRule("", "\tinput.docs.curent_task.goal == 1"),
		"a_test.rego": "package h3a.user.team_test\n\nimport data.h3a.user.team\n\ntest_x if count(team.deny) == 0\n",
	})
	_, err := RunTests(context.Background(), TestOptions{Dirs: []string{dir}})
	if err == nil || !strings.Contains(err.Error(), `a.rego:11:13: unknown input field "curent_task"`) {
		t.Fatalf("err = %v, want the unknown field with its position", err)
	}
}

// TestShippedPoliciesAreTypeChecked: a typo in a shipped rule fails the
// strict compile that the plan's generator and the tests make; a check's
// start-up does not repeat it (TestShippedPlanIsCurrent keeps the plan in
// step with the rules that passed it).
func TestShippedPoliciesAreTypeChecked(t *testing.T) {
	typo := fstest.MapFS{}
	names, err := fs.Glob(policies.FS, "*.rego")
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, name := range names {
		b, err := fs.ReadFile(policies.FS, name)
		if err != nil {
			t.Fatal(err)
		}
		src := string(b)
		if name == "gates.rego" {
			found = strings.Contains(src, "input.docs.state.gates")
			src = strings.Replace(src, "input.docs.state.gates", "input.docs.state.gaets", 1)
		}
		typo[name] = &fstest.MapFile{Data: []byte(src)}
	}
	if !found {
		t.Fatal("policies/gates.rego no longer reads input.docs.state.gates: pick another field to misspell")
	}
	orig := shippedFS
	defer func() { shippedFS = orig }()
	shippedFS = typo
	_, err = Load(context.Background(), Options{Strict: true})
	if err == nil || !strings.Contains(err.Error(), `unknown input field "gaets" in input.docs.state.gaets: did you mean "gates"?`) {
		t.Fatalf("err = %v, want the misspelt field", err)
	}
}
