package cli

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/h3a-check/h3a-check/internal/finding"
	"github.com/h3a-check/h3a-check/internal/gitrev/gittest"
)

// goRulesFiredElsewhere are the Go rules no err case or history case
// fires, each with the test that does: their condition is not a run
// folder alone (a configuration, a repository with CI or a submodule, a
// run written by the checker, a folder's name), or it is a history the
// txtar cases do not build. TestEveryGoRuleIsCataloguedAndFired checks
// that the test exists and names the rule, and that no case fires a rule
// listed here (an entry that is no longer needed is removed).
var goRulesFiredElsewhere = []struct {
	rule       finding.Rule
	file, test string // the test that fires it, from the repository's top
	names      string // what the test names the rule by, if not by its id
}{
	{rule: finding.TooLarge, file: "internal/cli/cases_test.go", test: "TestTooLarge"},                          // --max-json-size
	{rule: finding.CheckerTmpLeftover, file: "internal/cli/writeaudit_test.go", test: "TestWriteAuditLeftover"}, // the checker's own interrupted write
	{rule: finding.SubmoduleNotChecked, file: "internal/cli/staged_test.go", test: "TestStagedSubmodule"},       // a git submodule
	// The evidence-log parser refuses a hash that is not hex first (as
	// h3a.structure.malformed_record), so no run reaches this rule today;
	// the token it would judge is tested.
	{rule: finding.HashMalformed, file: "internal/evidence/token_test.go", test: "TestParseToken", names: "malformed: true"},
	{rule: finding.HashTooShort, file: "internal/cli/evidence_digits_test.go", test: "TestMinHashDigits", names: "finding.HashTooShort"}, // evidence: min-hash-digits in the configuration
	{rule: finding.WaiverExpired, file: "internal/cli/config_test.go", test: "TestConfigWaivers"},                                        // a configuration's waiver
	{rule: finding.WaiverUnused, file: "internal/cli/config_test.go", test: "TestConfigWaivers"},                                         // a configuration's waiver
	{rule: finding.WaiverNewRun, file: "internal/cli/trust_test.go", test: "TestWaiverNewRun"},                                           // a base waiver and a new run in a repository
	{rule: finding.RulesChanged, file: "internal/cli/trust_test.go", test: "TestConfigOnlyInHead"},                                       // CI and a configuration the change adds
	{rule: finding.HybridVersionDecreased, file: "internal/history/hybrid_test.go", test: "TestHybridHistory"},                           // history of a hybrid run
	{rule: finding.HybridLogShrunk, file: "internal/cli/gorules_test.go", test: "TestGoRulesOfEditedRuns"},                               // history of a hybrid run's log
	{rule: finding.HybridRetriesLowered, file: "internal/history/hybrid_test.go", test: "TestHybridHistory"},                             // history of a hybrid run's retry counts
	{rule: finding.StigmergyIssueReopened, file: "internal/history/stigmergy_test.go", test: "TestStigmergyHistory"},                     // history of a stigmergy run
	{rule: finding.SchemaVersionChanged, file: "internal/history/stigmergy_test.go", test: "TestStigmergyHistory"},                       // history of a stigmergy run
	{rule: finding.StigmergyIssueClosed, file: "internal/history/stigmergy_test.go", test: "TestStigmergyOpenIssueHistory"},              // history of a stigmergy run's open issue
	{rule: finding.StigmergyTaskDropped, file: "internal/history/stigmergy_test.go", test: "TestStigmergyHistory"},                       // history of a stigmergy run's manifest
	{rule: finding.StigmergyHaltLifted, file: "internal/history/stigmergy_test.go", test: "TestStigmergyHaltHistory"},                    // history of a halted stigmergy run
	{rule: finding.ContractNeedsHumanLifted, file: "internal/history/contract_test.go", test: "TestContractFlatHistory"},                 // history of a flat contract run
	// h3a.structure.unreadable needs a file the operating system refuses
	// to read, which a test running as root (as the tests do here) cannot
	// make; no test fires it.
	{rule: finding.Unreadable},
}

// TestEveryGoRuleIsCataloguedAndFired: each Go rule (finding.GoRules) is in
// the catalogue rules and explain list, and has an err case or a history
// case that fires it, as TestEveryPolicyRuleHasAnErrCase asks of the
// policy rules, or is in goRulesFiredElsewhere with the test that fires it.
func TestEveryGoRuleIsCataloguedAndFired(t *testing.T) {
	entries, err := catalog(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	listed := map[string]bool{}
	for _, e := range entries {
		listed[e.ID] = true
	}
	fired := firedByCases(t)
	elsewhere := map[string]bool{}
	for _, x := range goRulesFiredElsewhere {
		elsewhere[x.rule.ID] = true
		if where, ok := fired[x.rule.ID]; ok {
			t.Errorf("%s is in goRulesFiredElsewhere, but %s fires it: remove the entry", x.rule.ID, where)
		}
		if x.file == "" {
			continue
		}
		src, err := os.ReadFile(filepath.Join("..", "..", filepath.FromSlash(x.file)))
		if err != nil {
			t.Errorf("%s: %v", x.rule.ID, err)
			continue
		}
		names := x.names
		if names == "" {
			names = x.rule.ID
		}
		if !strings.Contains(string(src), "func "+x.test+"(") || !strings.Contains(string(src), names) {
			t.Errorf("%s: %s holds no %s naming the rule (%q)", x.rule.ID, x.file, x.test, names)
		}
	}
	for _, r := range finding.GoRules {
		if !listed[r.ID] {
			t.Errorf("%s is not in the catalogue rules and explain list", r.ID)
		}
		if _, ok := fired[r.ID]; !ok && !elsewhere[r.ID] {
			t.Errorf("no err case under %s, nor history case, fires %s: add a case, or an entry in goRulesFiredElsewhere naming the test that fires it",
				filepath.Join(casesDir, "err"), r.ID)
		}
	}
}

// firedByCases maps each rule that an err case or a history case fires
// to one such case. An err case is read by name: its findings
// (<case>.want) and its expectation (<case>/expect); a history case by
// its expect and want sections.
func firedByCases(t *testing.T) map[string]string {
	t.Helper()
	fired := map[string]string{}
	note := func(where, text string) {
		for line := range strings.Lines(text) {
			// .want lines end in "[rule]"; expect lines are "fires: SEVERITY RULE ...".
			if i := strings.LastIndexByte(line, '['); i >= 0 && strings.HasSuffix(strings.TrimSpace(line), "]") {
				id := strings.TrimSuffix(strings.TrimSpace(line[i+1:]), "]")
				if _, ok := fired[id]; !ok {
					fired[id] = where
				}
			}
			if f := strings.Fields(line); len(f) >= 3 && f[0] == "fires:" {
				if _, ok := fired[f[2]]; !ok {
					fired[f[2]] = where
				}
			}
		}
	}
	errCases, err := os.ReadDir(filepath.Join(casesDir, "err"))
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, c := range errCases {
		if !c.IsDir() {
			continue
		}
		n++
		for _, p := range []string{filepath.Join(casesDir, "err", c.Name()+".want"), filepath.Join(casesDir, "err", c.Name(), "expect")} {
			if b, err := os.ReadFile(p); err == nil {
				note("err case "+c.Name(), string(b))
			}
		}
	}
	histories, err := filepath.Glob(filepath.Join(casesDir, "..", "history", "*.txtar"))
	if err != nil || len(histories) == 0 || n == 0 {
		t.Fatalf("%d err cases, %d history cases (%v)", n, len(histories), err)
	}
	for _, h := range histories {
		b, err := os.ReadFile(h)
		if err != nil {
			t.Fatal(err)
		}
		note("history case "+strings.TrimSuffix(filepath.Base(h), ".txtar"), string(b))
	}
	return fired
}

// TestGoRulesOfEditedRuns fires the Go rules no err case or history case
// fires, each on a copy of an ok case with one thing broken.
func TestGoRulesOfEditedRuns(t *testing.T) {
	// copyCase copies the one run folder of testdata/runs/ok/<name> into
	// dir, and returns the copy.
	copyCase := func(t *testing.T, name, dir string) string {
		t.Helper()
		src, err := filepath.Glob(filepath.Join(casesDir, "ok", name, "*"))
		if err != nil || len(src) != 1 {
			t.Fatalf("ok case %s: %v %v", name, src, err)
		}
		dst := filepath.Join(dir, filepath.Base(src[0]))
		if err := os.CopyFS(dst, os.DirFS(src[0])); err != nil {
			t.Fatal(err)
		}
		return dst
	}
	edit := func(t *testing.T, path, old, new string) {
		t.Helper()
		b, err := os.ReadFile(path)
		if err != nil || !strings.Contains(string(b), old) {
			t.Fatalf("%s lacks %q (%v)", path, old, err)
		}
		if err := os.WriteFile(path, []byte(strings.Replace(string(b), old, new, 1)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Run("a blueprint that is not YAML", func(t *testing.T) {
		run := copyCase(t, "stigmergy_complete", t.TempDir())
		edit(t, filepath.Join(run, "execution-blueprint.yml"), "  - id: T02\n", "  - id: [T02\n")
		code, audits, stderr := checkJSON(t, run)
		if code != ExitFail || !hasRule(audits, "h3a.schema.yaml_syntax", "") {
			t.Errorf("exit %d, no %s: %s\n%s", code, finding.YAMLSyntax.ID, stderr, wantText(code, audits))
		}
	})
	t.Run("a hybrid log unit that lost a record since the base", func(t *testing.T) {
		repo := gittest.Init(t)
		run := copyCase(t, "hybrid_complete", filepath.Join(repo.Dir, "runs"))
		repo.Commit("a hybrid run")
		edit(t, filepath.Join(run, "logs", "log_unit_1.jsonl"), `{"id": 5, "L": "I", "ph": "C", "plan": "p_greet", "task": "t1", "msg": "t1 retried"}`+"\n", "")
		t.Chdir(repo.Dir)
		code, audits, stderr := checkWithBase(t, "HEAD", "runs")
		found := false
		for _, a := range audits {
			for _, f := range a.Findings {
				found = found || (f.Rule == "h3a.append_only.hybrid_log_shrunk" && strings.Contains(f.Details, "records were removed"))
			}
		}
		if code != ExitFail || !found {
			t.Errorf("exit %d, no %s: %s\n%+v", code, finding.HybridLogShrunk.ID, stderr, audits)
		}
	})
}
