package e2e

import (
	"encoding/json"
	"fmt"
	"hash/fnv"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/h3a-check/h3a-check/internal/longtest"
)

// The fail-closed matrix: runs that fail under the rules the repository
// holds, combined with each way a change under review could weaken those
// rules, checked by the built binary in real repositories as CI checks a
// pull request. No combination may pass: each run's own gate stays fail
// (exit 1), or the check refuses to run (exit 2). Never exit 0.

// failingRuns fail under the base's rules, each through another kind of
// check, and each layout has one. They sit in one repository, each in a
// folder of its own.
type failingRun struct {
	folder, kind, errCase string
	run                   string                         // the run's folder in the case; "" for runID (an h3a run, see caseRun)
	edit                  func(t *testing.T, run string) // made so after it is copied from its case
	long                  bool                           // only in the long tests (matrixRuns)
}

var failingRuns = []failingRun{
	{folder: "integrity", kind: "err", errCase: "hash_mismatch"},        // a logged artifact edited after logging (Go)
	{folder: "gates", kind: "err", errCase: "gate_order"},               // a gate skipped (shipped Rego)
	{folder: "retries", kind: "err", errCase: "over_limit"},             // retries over the limit (shipped Rego)
	{folder: "config", kind: "err", errCase: "ledger_time_backwards"},   // a warning the base's fail-level makes fail
	{folder: "ledger", kind: "err", errCase: "evidence_table_row"},      // an evidence entry written as a table row (Go)
	{folder: "planning", kind: "err", errCase: "g0_dod_repeated"},       // G0 on a DoD item written three times (shipped Rego)
	{folder: "team", kind: "ok", errCase: "complete", edit: madeOnMain}, // the base's team policy
	// A run of each other layout, in a folder named as in its case.
	{folder: "contract", kind: "err", errCase: "contract_audit_before_pass", run: "TASK-0042-20260216-130000"}, // contract: an audit of a round its judge rejected (shipped Rego)
	{folder: "hybrid-os", kind: "err", errCase: "hybrid_retry_limit", run: "greeter"},                          // hybrid-os: a task retried over the limit (shipped Rego)
	{folder: "stigmergy", kind: "err", errCase: "stigmergy_dependency_incomplete", run: "greeter"},             // stigmergy: a task started before its dependency completed (shipped Rego)
	{folder: "gate-state", kind: "err", errCase: "gate_state_unfinished", run: "app"},                          // gate-state: a pipeline marked SUCCESS at gate 2 of 4 (shipped Rego)
	{folder: "handoff", kind: "err", errCase: "gate_state_handoff", run: "app", edit: respellGuideAgents},      // gate-state: gate outputs the next gate cannot use, by agents spelt another way (shipped Rego)
	// Values the rules once skipped or misread, a run of each layout.
	{folder: "gate-id", kind: "err", errCase: "ledger_gate_leading_zero"},                                                // h3a: a failed G2 written G02 (shipped Rego)
	{folder: "number-range", kind: "err", errCase: "hybrid_retry_count_range", run: "greeter"},                           // hybrid-os: a retry count beyond 64 bits (Go)
	{folder: "merge-key", kind: "err", errCase: "stigmergy_blueprint_merge_key", run: "greeter"},                         // stigmergy: a blueprint task written with a YAML merge key (Go, shipped Rego)
	{folder: "score", kind: "err", errCase: "gate_state_score_variant_rounded", run: "app"},                              // gate-state: a score just under the bar, once rounded up to it (Go)
	{folder: "notes", kind: "err", errCase: "contract_audit_check_named_not_accepted", run: "TASK-0042-20260216-130000"}, // contract: audit notes naming a failed check without accepting it (shipped Rego)
	{folder: "blank", kind: "err", errCase: "evidence_blank_artifact"},                                                   // h3a: a required artifact of white space alone (Go, shipped Rego)
	{folder: "own-document", kind: "err", errCase: "evidence_artifact_run_document"},                                     // h3a: a gate's artifact that is one of the run's own documents (shipped Rego)
	{folder: "current-gate", kind: "err", errCase: "current_gate_evidence_missing"},                                      // h3a: evidence a passed gate's Current Gate section requires, missing (Go, shipped Rego)
	// Files and records a reader sees that the checks once left unread or
	// misread. A finding of those that asks for a human fails here by the
	// base's fail-level. Each but the first is a kind of check the rows
	// above already hold, so they run in the long tests only (matrixRuns).
	{folder: "lookalike", kind: "err", errCase: "state_file_lookalike"},                                                             // h3a: a second CURRENT_TASK.json whose C is Cyrillic, escalated (Go)
	{folder: "two-ledgers", kind: "err", errCase: "stigmergy_two_ledgers", run: "greeter", long: true},                              // stigmergy: a halted .stigmergy/state/current.json beside .ai/state.json (shipped Rego)
	{folder: "two-states", kind: "err", errCase: "hybrid_two_states", run: "greeter", long: true},                                   // hybrid-os: a blocked vX.2 state.txt beside the v1.4 state.json (shipped Rego)
	{folder: "eval-results", kind: "err", errCase: "contract_eval_failed_under_pass", run: "TASK-0042-20260216-130000", long: true}, // contract: a pass over a failed command of eval-results.json (Go, shipped Rego)
	{folder: "smoke-exit", kind: "err", errCase: "contract_smoke_exit_code", run: "TASK-0042-20260216-130000", long: true},          // contract: a pass over a smoke check of status pass and exit code 1 (shipped Rego)
	{folder: "last-error", kind: "err", errCase: "hybrid_x2_last_error", run: "app", long: true},                                    // hybrid-os: a vX.2 last_error under READY, never logged (shipped Rego)
	{folder: "audit-check", kind: "err", errCase: "contract_audit_check_false", run: "TASK-0042-20260216-130000", long: true},       // contract: an audit gate pass over its own check written as an object that failed (shipped Rego)
	{folder: "criterion", kind: "err", errCase: "roadmap_complete_open_criterion", long: true},                                      // h3a: a roadmap Complete with a success criterion open (Go, shipped Rego)
	{folder: "collapsed", kind: "err", errCase: "collapsed_gate_pass", long: true},                                                  // h3a: a failed G2 passed in a collapsed <details> block (Go, shipped Rego)
	{folder: "quoted-table", kind: "err", errCase: "gate_table_block_quote", long: true},                                            // h3a: a gate table in a block quote saying G2 failed (Go, shipped Rego)
	{folder: "err-snippet", kind: "err", errCase: "hybrid_err_snippet_unlogged", run: "greeter", long: true},                        // hybrid-os: an err snippet under READY that no log entry records (shipped Rego)
	{folder: "round-summary", kind: "err", errCase: "contract_summary_in_round", run: "TASK-0042-20260216-130000", long: true},      // contract: a summary.json of reject under rounds/ (shipped Rego)
	{folder: "fence", kind: "err", errCase: "evidence_fence_closed_too_deep", long: true},                                           // h3a: an evidence entry after a fence closed too deep, with a wrong hash (Go)
	{folder: "zero-width", kind: "err", errCase: "current_gate_zero_width", long: true},                                             // h3a: a Current Gate heading with a zero-width space, its G2 failed (Go, shipped Rego)
}

// matrixRuns is failingRuns without the rows marked long, unless the long
// tests run: every weakening re-checks every run, so each row costs every
// case of the matrix, and the README's test command keeps one run of each
// kind of check and of each layout.
func matrixRuns() []failingRun {
	if longtest.Enabled() {
		return failingRuns
	}
	var runs []failingRun
	for _, r := range failingRuns {
		if !r.long {
			runs = append(runs, r)
		}
	}
	return runs
}

// caseRun is the run's folder in the repository: for an h3a run (the
// entry names no folder) an id of its own, derived from the folder it sits
// in, since the matrix checks every run at once and a run id is globally
// unique (h3a.traceability.duplicate_run_id); otherwise the folder the
// entry names, as in its case.
func caseRun(folder, run string) string {
	if run == "" {
		sum := fnv.New64a()
		sum.Write([]byte(folder))
		return fmt.Sprintf("%s%012x", runID[:len(runID)-12], sum.Sum64()&(1<<48-1))
	}
	return run
}

// The rules the base holds.
const (
	baseConfig = "fail-level: warning\npolicies: [policies/team]\n"
	teamRule   = `package h3a.user.team

import data.h3a.lib

# METADATA
# title: Run made on main
# description: Runs come from feature branches.
# custom:
#   id: h3a.user.team.main_branch
#   remediation: run the agents on a feature branch
deny contains f if {
	input.docs.state.meta.branch == "main"
	f := lib.finding(rego.metadata.rule(), {"msg": "run made on main", "file": "state.json", "pointer": "/meta/branch"})
}
`
	// lenientRule is a policy that never fires: a folder of it checks nothing.
	lenientRule = `package h3a.user.team

import data.h3a.lib

# METADATA
# title: Never
# description: Never fires.
# custom:
#   id: h3a.user.team.never
deny contains f if {
	false
	f := lib.finding(rego.metadata.rule(), {"msg": "never"})
}
`
	everyWaiver = `fail-level: error
waivers:
  - rule: "h3a.*"
    path: "runs/**"
    reason: accepted in this change
    expires: 2999-12-31
`
	// lowSeverities keeps the team policy folder: a severity for a rule
	// that no loaded policy holds is exit 2, and the weakening would not
	// even try.
	lowSeverities = `fail-level: error
policies: [policies/team]
severity:
  h3a.integrity.hash_mismatch: info
  h3a.evidence.required_artifact: info
  h3a.gates.order: info
  h3a.retries.over_limit: info
  h3a.gates.ledger_time_backwards: info
  h3a.structure.malformed_record: info
  h3a.evidence.g0_exit_criteria: info
  h3a.user.team.main_branch: info
  h3a.gates.contract_audit_before_pass: info
  h3a.retries.hybrid_retry_limit: info
  h3a.gates.stigmergy_dependency_incomplete: info
  h3a.gates.gate_state_unfinished: info
  h3a.gates.gate_state_handoff: info
  h3a.gates.ledger_unread_event: info
  h3a.schema.number_range: info
  h3a.traceability.stigmergy_blueprint_mismatch: info
  h3a.gates.gate_state_score: info
  h3a.gates.contract_audit_gate_contradiction: info
  h3a.structure.name_case: info
  h3a.structure.stigmergy_two_ledgers: info
  h3a.structure.hybrid_two_states: info
  h3a.gates.contract_eval_failed_under_pass: info
  h3a.gates.contract_pass_with_open_items: info
  h3a.gates.hybrid_err_snippet_unlogged: info
  h3a.traceability.roadmap_complete_with_open_criterion: info
  h3a.gates.ledger_collapsed_status: info
  h3a.gates.sources_disagree: info
  h3a.structure.contract_summary_in_round: info
  h3a.evidence.replaced_after_gate: info
  h3a.gates.current_gate_disagrees: info
`
)

// weakening is one change a pull request can make to get a green result.
type weakening struct {
	name  string
	apply func(t *testing.T, repo string)
	args  []string // instead of "runs"
	// passesTrusted: the weakening names the rules every failing run
	// fails on, so with the working tree trusted it passes them all
	// (checked by a control in TestFailClosedMatrix).
	passesTrusted bool
}

var weakenings = []weakening{
	{name: "none", apply: func(*testing.T, string) {}},
	{name: "a waiver added", apply: writeFiles(map[string]string{".h3a-check.yaml": everyWaiver}), passesTrusted: true},
	{name: "severities lowered", apply: writeFiles(map[string]string{".h3a-check.yaml": lowSeverities}), passesTrusted: true},
	{name: "the team rule deleted", apply: removeAll("policies/team/main_branch.rego")},
	{name: "the configuration a link to .git/HEAD", apply: symlink(".h3a-check.yaml", ".git/HEAD")},
	{name: "the configuration a link to a lenient file", apply: func(t *testing.T, repo string) {
		writeFiles(map[string]string{"lenient.yaml": everyWaiver})(t, repo)
		symlink(".h3a-check.yaml", "lenient.yaml")(t, repo)
	}},
	{name: "the configuration deleted", apply: removeAll(".h3a-check.yaml")},
	{name: "the configuration renamed", apply: rename(".h3a-check.yaml", "h3a-check.yaml.old")},
	{name: "the policy folder a link to a lenient folder", apply: func(t *testing.T, repo string) {
		writeFiles(map[string]string{"lenient/never.rego": lenientRule})(t, repo)
		removeAll("policies/team")(t, repo)
		symlink("policies/team", "../lenient")(t, repo)
	}},
	{name: "the policy folder deleted", apply: removeAll("policies")},
	{name: "the policy folder renamed", apply: rename("policies", "rules")},
	{name: "a report dropped at the root", apply: dropReport("audit.json"), args: []string{"."}},
	{name: "a report dropped in runs/", apply: dropReport("runs/audit.json")},
	{name: "a layout forced by flag", apply: func(*testing.T, string) {}, args: []string{"--layout", "contract", "runs"}},
	// pre-commit's hook in a CI job: in CI, HEAD is the change itself.
	{name: "a waiver added, checked as the pre-commit hook checks", apply: writeFiles(map[string]string{".h3a-check.yaml": everyWaiver}), args: []string{"--staged", "runs"}},
	{name: "a layout forced by the configuration", apply: writeFiles(map[string]string{".h3a-check.yaml": "layout: contract\n"})},
	// A run no search finds is a run no check fails.
	{name: "a failing run's state folder renamed State", apply: rename("runs/integrity/"+caseRun("integrity", "")+"/state", "runs/integrity/"+caseRun("integrity", "")+"/State")},
	{name: "a failing run's state folder deleted", apply: removeAll("runs/integrity/" + caseRun("integrity", "") + "/state")},
	// Each run with a retry limit of its own raises it: the h3a task's
	// max_iterations, the hybrid-os plan's max_rt.
	{name: "the runs' own retry limits raised", apply: func(t *testing.T, repo string) {
		replaceIn(t, filepath.Join(repo, "runs", "retries", caseRun("retries", "")), "state/CURRENT_TASK.json", `"max_iterations": 2`, `"max_iterations": 100`)
		replaceIn(t, filepath.Join(repo, "runs", "hybrid-os", "greeter"), "plans/core/p_greet.json", `"max_rt": 3`, `"max_rt": 100`)
	}},
}

// otherCIs are CI services that set no CI variable: a job there is CI
// all the same (the working tree is the change under review).
var otherCIs = []struct{ name, env string }{
	{"Jenkins", "BUILD_TAG=jenkins-agents-PR-7-1"},
	{"Azure Pipelines", "TF_BUILD=True"},
}

// sampledInReadme are the weakenings the README's test command tries, as a
// pull request and as an uncommitted change in CI: one of each kind (the
// configuration, a policy folder, a report, a link, a hidden run). Each
// case runs git and a check of every failing run, and the long tests,
// which .ci/run runs, try every weakening in every mode.
var sampledInReadme = map[string]bool{
	"none": true, "a waiver added": true, "the team rule deleted": true, "a report dropped in runs/": true,
	"the configuration a link to .git/HEAD": true, "a failing run's state folder renamed State": true,
}

func TestFailClosedMatrix(t *testing.T) {
	for name := range sampledInReadme {
		if !slices.ContainsFunc(weakenings, func(w weakening) bool { return w.name == name }) {
			t.Errorf("sampledInReadme names %q, which is no weakening", name)
		}
	}
	for _, w := range weakenings {
		sampled := longtest.Enabled() || sampledInReadme[w.name]
		if w.passesTrusted && sampled {
			// The control: were the change trusted, the weakening would
			// pass. A rule renamed, or a failing run added whose rule it
			// does not name, fails here, not silently in the matrix. A
			// finding that asks for a person still does at a lowered
			// severity: such a run may end needs-human (exit 3), never
			// fail.
			t.Run("trusted/"+w.name, func(t *testing.T) {
				t.Parallel()
				repo := publishedBaseRepo(t)
				w.apply(t, repo)
				code, stdout, stderr := runBinary(t, repo, []string{"CI=true"}, []string{"--trust-working-tree", "runs"})
				if code != 0 && (code != 3 || failingGates(t, stdout) > 0) {
					t.Fatalf("exit %d, want 0 (or 3, no run failing): trusted, the weakening must lift every failing run's fail, or the matrix never tries it\nstderr: %s\nstdout: %s", code, stderr, stdout)
				}
			})
		}
		t.Run("uncommitted in CI/"+w.name, func(t *testing.T) {
			// An uncommitted change: the rules are read at origin/HEAD.
			if !sampled {
				t.Skip("every weakening uncommitted: H3A_LONG=1")
			}
			t.Parallel()
			repo := publishedBaseRepo(t) // CI reads the rules at origin/HEAD
			w.apply(t, repo)
			checkStaysFailing(t, repo, []string{"CI=true"}, w.args)
		})
		for _, ci := range otherCIs {
			t.Run("uncommitted in "+ci.name+"/"+w.name, func(t *testing.T) {
				// The README's test command takes one weakening of each
				// kind of trust (configuration, policy folder); the long
				// tests take them all.
				if !longtest.Enabled() && w.name != "a waiver added" && w.name != "the team rule deleted" {
					t.Skip("every weakening in every CI: H3A_LONG=1")
				}
				t.Parallel()
				repo := publishedBaseRepo(t)
				w.apply(t, repo)
				checkStaysFailing(t, repo, []string{ci.env}, w.args)
			})
		}
		t.Run("pull request/"+w.name, func(t *testing.T) {
			if !sampled {
				t.Skip("every weakening as a pull request: H3A_LONG=1")
			}
			t.Parallel()
			repo := baseRepo(t)
			target := head(t, repo)
			git(t, repo, "checkout", "-q", "-b", "change")
			w.apply(t, repo)
			git(t, repo, "add", "-A")
			git(t, repo, "commit", "-q", "--allow-empty", "-m", "the change: "+w.name)
			checkStaysFailing(t, repo, eventEnv(t, "pull_request", target), w.args)
		})
	}
	// A change forked before its target branch gained the rules is judged
	// by them, whichever event names the target. The events check copies
	// of one repository (forkTemplate), made once.
	for _, event := range []string{"pull_request", "pull_request_target", "merge_group"} {
		t.Run("fork point/"+event, func(t *testing.T) {
			t.Parallel()
			repo, commits := copyTemplate(t, &forkTemplate, func(t *testing.T, repo string) []string {
				writeRuns(t, repo)
				fork := commitAll(t, repo, "runs, before the rules")
				writeFiles(map[string]string{".h3a-check.yaml": baseConfig, "policies/team/main_branch.rego": teamRule})(t, repo)
				target := commitAll(t, repo, "the rules")
				git(t, repo, "checkout", "-q", "-b", "change", fork)
				writeFiles(map[string]string{"notes.txt": "the change\n"})(t, repo)
				commitAll(t, repo, "the change, forked before the rules")
				return []string{target}
			})
			checkStaysFailing(t, repo, eventEnv(t, event, commits[0]), nil)
		})
	}
}

// forkTemplate is TestFailClosedMatrix's change forked before its target
// gained the rules; its build returns the target's commit.
var forkTemplate repoTemplate

// baseRepo is a repository whose last commit holds the failing runs and
// the rules that fail them: a copy of one made once for the package's
// tests, since each of the matrix's dozens of cases starts from it.
func baseRepo(t *testing.T) string {
	t.Helper()
	repo, _ := copyTemplate(t, &baseTemplate, func(t *testing.T, repo string) []string {
		buildBase(t, repo)
		return nil
	})
	return repo
}

// publishedBaseRepo is baseRepo published as origin's main (publish), as a
// CI clone holds it: a copy of the repository and its origin, which it
// names by a relative path.
func publishedBaseRepo(t *testing.T) string {
	t.Helper()
	repo, _ := copyTemplate(t, &publishedTemplate, func(t *testing.T, repo string) []string {
		buildBase(t, repo)
		publishAt(t, repo, filepath.Join(repo, "..", "origin.git"), "../origin.git")
		return nil
	})
	return repo
}

func buildBase(t *testing.T, repo string) {
	t.Helper()
	writeRuns(t, repo)
	writeFiles(map[string]string{".h3a-check.yaml": baseConfig, "policies/team/main_branch.rego": teamRule})(t, repo)
	commitAll(t, repo, "runs and rules")
}

// repoTemplate is a repository made once (in scratch) and copied.
type repoTemplate struct {
	once    sync.Once
	dir     string   // holds repo/ and, published, origin.git/
	commits []string // what its build returned
}

var baseTemplate, publishedTemplate, changeTemplate repoTemplate

// copyTemplate returns a copy of tpl's repository, which build makes in
// an empty repository the first time, and the commits build returned.
func copyTemplate(t *testing.T, tpl *repoTemplate, build func(t *testing.T, repo string) []string) (repo string, commits []string) {
	t.Helper()
	tpl.once.Do(func() {
		dir, err := os.MkdirTemp(scratch, "base-")
		if err != nil {
			t.Fatal(err)
		}
		repo := filepath.Join(dir, "repo")
		git(t, dir, "init", "-q", "-b", "main", repo)
		commits := build(t, repo)
		// Each of the matrix's dozens of cases copies the template: one
		// pack and no sample hooks are a tenth of the files to copy.
		git(t, repo, "repack", "-a", "-d", "-q")
		for _, gitDir := range []string{filepath.Join(repo, ".git"), filepath.Join(dir, "origin.git")} {
			if err := os.RemoveAll(filepath.Join(gitDir, "hooks")); err != nil {
				t.Fatal(err)
			}
		}
		tpl.dir, tpl.commits = dir, commits
	})
	if tpl.dir == "" {
		t.Fatal("the base repository could not be made in an earlier test")
	}
	dst := t.TempDir()
	if err := os.CopyFS(dst, os.DirFS(tpl.dir)); err != nil {
		t.Fatal(err)
	}
	return filepath.Join(dst, "repo"), tpl.commits
}

func writeRuns(t *testing.T, repo string) {
	t.Helper()
	for _, r := range matrixRuns() {
		run := filepath.Join(repo, "runs", r.folder, caseRun(r.folder, r.run))
		if r.run == "" {
			copyCaseAs(t, r.kind, r.errCase, caseRun(r.folder, r.run), run)
		} else {
			copyCaseRun(t, r.kind, r.errCase, r.run, run)
		}
		if r.edit != nil {
			r.edit(t, run)
		}
	}
}

// madeOnMain records the run as made on main, which the team policy
// refuses.
func madeOnMain(t *testing.T, run string) {
	t.Helper()
	replaceIn(t, run, "state.json", `"branch": "feature/jwt-auth"`, `"branch": "main"`)
}

// respellGuideAgents writes the guide's agents of a gate-state run with
// spaces and underscores, as their handoff checks once failed to
// recognise them (and, before, in another case).
func respellGuideAgents(t *testing.T, run string) {
	t.Helper()
	replaceIn(t, run, ".state/demoqa_com-student_registration-gate1-output.json", `"agent": "TestCaseDesigner"`, `"agent": "Test Case Designer"`)
	replaceIn(t, run, ".state/demoqa_com-student_registration-gate2-output.json", `"agent": "DOMAgent"`, `"agent": "dom_agent"`)
}

// eventEnv is the environment of a GitHub Actions job for event, whose
// target branch is at target.
func eventEnv(t *testing.T, event, target string) []string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "event.json")
	doc := fmt.Sprintf(`{"pull_request": {"base": {"sha": %q}}, "merge_group": {"base_sha": %q}}`, target, target)
	if err := os.WriteFile(p, []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	return []string{"CI=true", "GITHUB_ACTIONS=true", "GITHUB_EVENT_NAME=" + event, "GITHUB_EVENT_PATH=" + p}
}

// checkStaysFailing runs the binary in repo and requires exit 2, or exit
// 1 with every failing run's own gate fail.
func checkStaysFailing(t *testing.T, repo string, env, args []string) {
	t.Helper()
	code, stdout, stderr := runBinary(t, repo, env, args)
	staysFailing(t, code, stdout, stderr)
}

// staysFailing requires of one check's exit code and output what
// checkStaysFailing does.
// failingGates counts the audits of a JSON report whose gate is fail.
func failingGates(t *testing.T, stdout string) int {
	t.Helper()
	var doc struct {
		Audits []struct{ Gate string } `json:"audits"`
	}
	if err := json.Unmarshal([]byte(stdout), &doc); err != nil {
		t.Fatalf("stdout is not JSON: %v\n%s", err, stdout)
	}
	n := 0
	for _, a := range doc.Audits {
		if a.Gate == "fail" {
			n++
		}
	}
	return n
}

func staysFailing(t *testing.T, code int, stdout, stderr string) {
	t.Helper()
	switch code {
	case 2:
		return // refused to check: fail closed
	case 1:
	default:
		t.Fatalf("exit %d, want 1 or 2 (never a pass)\nstderr: %s\nstdout: %s", code, stderr, stdout)
	}
	var doc struct {
		Audits []struct {
			Run, Gate string
		} `json:"audits"`
	}
	if err := json.Unmarshal([]byte(stdout), &doc); err != nil {
		t.Fatalf("stdout is not JSON: %v\n%s", err, stdout)
	}
	for _, r := range matrixRuns() {
		want := "runs/" + r.folder + "/" + caseRun(r.folder, r.run)
		found := false
		for _, a := range doc.Audits {
			if strings.TrimPrefix(a.Run, "./") == want {
				found = true
				if a.Gate != "fail" {
					t.Errorf("%s: gate %s, want fail", want, a.Gate)
				}
			}
		}
		if !found {
			t.Errorf("%s was not checked\n%s", want, stdout)
		}
	}
}

func writeFiles(files map[string]string) func(*testing.T, string) {
	return func(t *testing.T, repo string) {
		t.Helper()
		for name, content := range files {
			p := filepath.Join(repo, filepath.FromSlash(name))
			if err := os.RemoveAll(p); err != nil {
				t.Fatal(err)
			}
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
}

func removeAll(name string) func(*testing.T, string) {
	return func(t *testing.T, repo string) {
		t.Helper()
		if err := os.RemoveAll(filepath.Join(repo, filepath.FromSlash(name))); err != nil {
			t.Fatal(err)
		}
	}
}

func rename(from, to string) func(*testing.T, string) {
	return func(t *testing.T, repo string) {
		t.Helper()
		if err := os.Rename(filepath.Join(repo, from), filepath.Join(repo, to)); err != nil {
			t.Fatal(err)
		}
	}
}

func symlink(name, target string) func(*testing.T, string) {
	return func(t *testing.T, repo string) {
		t.Helper()
		p := filepath.Join(repo, filepath.FromSlash(name))
		if err := os.RemoveAll(p); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(filepath.FromSlash(target), p); err != nil {
			t.Fatal(err)
		}
	}
}

// dropReport writes, at name, the report of a clean run as --output
// json=FILE writes it.
func dropReport(name string) func(*testing.T, string) {
	return func(t *testing.T, repo string) {
		t.Helper()
		src := filepath.Join(moduleRoot, "testdata", "runs", "ok", "complete")
		cmd := exec.Command(binary, "--format", "json", "--base", "none", src)
		cmd.Env = gitEnv(t)
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("the clean run's report: %v", err)
		}
		writeFiles(map[string]string{name: string(out)})(t, repo)
	}
}
