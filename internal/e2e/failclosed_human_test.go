package e2e

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/h3a-check/h3a-check/internal/longtest"
)

// A human decision counts only when its provenance lies outside the change
// under review (docs/trust-model.md). Each case below is a change, made in
// a pull request, that records a human's decision in the one place a rule
// accepts it. Written by the change itself, the decision is claimed: the
// run needs a human (exit 3), never pass, and never the fail the rule
// gives with no decision at all. Committed with a signature by a key the
// base lists as a human's, it counts.

// humanRun is the run every case checks, under runs/ of the repository.
const humanRun = "runs/" + runID

// The line a change appends to a gates ledger to claim a decision.
const humanLine = "[2025-09-29T16:00:00Z] G2_validation - REVIEWED - human - Human review: proceed"

// humanCase is a change that records a human decision. base makes the
// run as the base holds it (nil: the run is new in the change); change
// edits it. Without the human's line, the run's gate is withoutHuman.
type humanCase struct {
	name         string
	run          string // the run's folder in the repository; "" for humanRun
	base         func(t *testing.T, run string)
	change       func(t *testing.T, run string, withHuman bool)
	withoutHuman string // the gate with no decision recorded
}

var humanCases = []humanCase{
	{
		// CURRENT_TASK.json says escalation_required: only a person clears it.
		name: "escalation cleared",
		change: func(t *testing.T, run string, withHuman bool) {
			copyCase(t, "err", "escalation", run)
			if withHuman {
				addEvents(t, run, humanLine)
			}
		},
		withoutHuman: "needs-human",
	},
	{
		// iteration_count goes down only after a human reset it.
		name: "iteration_count lowered",
		base: func(t *testing.T, run string) {
			copyCase(t, "ok", "complete", run)
			replaceIn(t, run, "state/CURRENT_TASK.json", `"iteration_count": 1`, `"iteration_count": 2`)
		},
		change: func(t *testing.T, run string, withHuman bool) {
			replaceIn(t, run, "state/CURRENT_TASK.json", `"iteration_count": 2`, `"iteration_count": 0`)
			if withHuman {
				addEvents(t, run, humanLine)
			}
		},
		withoutHuman: "fail",
	},
	{
		// A third attempt at G2 passes only after an escalation and a
		// human's decision.
		name: "third attempt licensed",
		change: func(t *testing.T, run string, withHuman bool) {
			copyCase(t, "ok", "complete", run)
			events := []string{
				"[2025-09-29T14:51:00Z] G2_validation - FAILED - validator - mutation score 70%",
				"[2025-09-29T14:52:00Z] G2_validation - STARTED - validator - second attempt",
				"[2025-09-29T14:53:00Z] G2_validation - FAILED - validator - mutation score 75%",
				"[2025-09-29T14:54:00Z] G2_validation - ESCALATION - validator - two failed attempts",
			}
			if withHuman {
				events = append(events, "[2025-09-29T14:55:00Z] G2_validation - REVIEWED - human - Human review: proceed")
			}
			events = append(events, "[2025-09-29T14:56:00Z] G2_validation - STARTED - validator - third attempt")
			replaceIn(t, run, "state/GATES_LEDGER.md", "[2025-09-29T15:00:00Z] G2_validation - PASSED",
				strings.Join(events, "\n")+"\n[2025-09-29T15:00:00Z] G2_validation - PASSED")
		},
		withoutHuman: "fail",
	},
	{
		// The judge of round 1 said needs-human; round 2 goes on. The base
		// holds the loop waiting for a person.
		name: "contract needs-human resolved",
		run:  contractRun,
		base: func(t *testing.T, run string) {
			copyContractRun(t, run, "rounds/round-1/handoff.json", "rounds/round-1/verdict.json", "rounds/round-1/patch.diff")
			replaceIn(t, run, "rounds/round-1/verdict.json", `"verdict": "reject"`, `"verdict": "needs-human"`)
		},
		change: func(t *testing.T, run string, withHuman bool) {
			if withHuman {
				copyContractRun(t, run, "rounds/round-2/handoff.json", "rounds/round-2/verdict.json",
					"rounds/round-2/patch.diff", "rounds/round-2/audit.json", "summary.json")
			}
		},
		withoutHuman: "needs-human",
	},
}

// contractRun is the contract run of the contract cases.
const contractRun = ".orchestrator/runs/TASK-0042-20260216-130000"

// copyContractRun copies files of the two-round contract example into run.
func copyContractRun(t *testing.T, run string, files ...string) {
	t.Helper()
	src := filepath.Join(moduleRoot, "testdata", "runs", "ok", "contract_rounds", "TASK-0042-20260216-130000")
	for _, f := range files {
		b, err := os.ReadFile(filepath.Join(src, filepath.FromSlash(f)))
		if err != nil {
			t.Fatal(err)
		}
		writeFiles(map[string]string{f: string(b)})(t, run)
	}
}

func (c humanCase) dir() string {
	if c.run == "" {
		return humanRun
	}
	return c.run
}

// signer is who signs the change's commit: nobody, a person the base
// lists, or a key the base does not list.
type signer int

const (
	unsigned signer = iota
	listedKey
	unlistedKey
)

func TestHumanDecisionProvenance(t *testing.T) {
	mustHave(t, "git")
	mustHave(t, "ssh-keygen")
	keys := t.TempDir()
	alice, alicePub := newSSHKey(t, keys, "alice")
	mallory, malloryPub := newSSHKey(t, keys, "mallory")
	signers := map[signer]string{listedKey: alice, unlistedKey: mallory}

	for i, c := range humanCases {
		// The README's test command tries every signer on the first act,
		// and on the others the two that decide (the change's own claim,
		// a listed key): which key signed is read alike for every act.
		// The long tests, which .ci/run runs, try every pair.
		sampled := func(t *testing.T, name string) {
			if i > 0 && !longtest.Enabled() && name != "claimed by the change" && name != "signed by a key the base lists" {
				t.Skipf("every signer on every act: %s=1", longtest.Env)
			}
		}
		t.Run(c.name+"/no decision", func(t *testing.T) {
			sampled(t, "no decision")
			t.Parallel()
			repo, target := humanRepo(t, c, alicePub)
			c.change(t, filepath.Join(repo, c.dir()), false)
			commitSigned(t, repo, "", "the change, no decision")
			if gate, code := checkPR(t, repo, target, c.dir()); gate != c.withoutHuman {
				t.Fatalf("gate %s (exit %d), want %s: the case does not exercise the rule", gate, code, c.withoutHuman)
			}
		})
		for _, s := range []struct {
			name   string
			signer signer
			gate   string
		}{
			{"claimed by the change", unsigned, "needs-human"},
			{"signed by a key the base lists", listedKey, "pass"},
			{"signed by a key the base does not list", unlistedKey, "needs-human"},
		} {
			t.Run(c.name+"/"+s.name, func(t *testing.T) {
				sampled(t, s.name)
				t.Parallel()
				repo, target := humanRepo(t, c, alicePub)
				c.change(t, filepath.Join(repo, c.dir()), true)
				commitSigned(t, repo, signers[s.signer], "the change, with a human's decision")
				gate, code := checkPR(t, repo, target, c.dir())
				if gate != s.gate {
					t.Fatalf("gate %s (exit %d), want %s", gate, code, s.gate)
				}
			})
		}
	}

	// The change lists its own key at the path the base's configuration
	// names: the base's list is the one that counts.
	t.Run("the change adds its key to the allowed signers", func(t *testing.T) {
		t.Parallel()
		c := humanCases[0]
		repo, target := humanRepo(t, c, alicePub)
		c.change(t, filepath.Join(repo, c.dir()), true)
		writeFiles(map[string]string{".github/h3a-humans.allowed_signers": "mallory@example.com namespaces=\"git\" " + malloryPub + "\n"})(t, repo)
		commitSigned(t, repo, mallory, "the change, signed by a key it lists itself")
		if gate, code := checkPR(t, repo, target, c.dir()); gate != "needs-human" || code != 3 {
			t.Fatalf("gate %s (exit %d), want needs-human (exit 3)", gate, code)
		}
	})
}

// humanRepo makes a repository whose main branch (the target) lists
// alice's key as a human's and holds the case's base run, and checks out
// a branch for the change.
func humanRepo(t *testing.T, c humanCase, alicePub string) (repo, target string) {
	t.Helper()
	repo = newRepo(t)
	writeFiles(map[string]string{
		".h3a-check.yaml":                    "humans:\n  allowed-signers: .github/h3a-humans.allowed_signers\n",
		".github/h3a-humans.allowed_signers": "alice@example.com namespaces=\"git\" " + alicePub + "\n",
		"README.md":                          "a project\n",
	})(t, repo)
	if c.base != nil {
		c.base(t, filepath.Join(repo, c.dir()))
	}
	target = commitAll(t, repo, "base")
	git(t, repo, "checkout", "-q", "-b", "change")
	return repo, target
}

// newSSHKey makes an ed25519 key without a passphrase; it returns the
// private key's path and the public key.
func newSSHKey(t *testing.T, dir, name string) (key, pub string) {
	t.Helper()
	key = filepath.Join(dir, name)
	if out, err := exec.Command("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", name+"@example.com", "-f", key).CombinedOutput(); err != nil {
		t.Fatalf("ssh-keygen: %v\n%s", err, out)
	}
	b, err := os.ReadFile(key + ".pub")
	if err != nil {
		t.Fatal(err)
	}
	return key, strings.TrimSpace(string(b))
}

// commitSigned commits everything, signed with the SSH key when one is
// given.
func commitSigned(t *testing.T, repo, key, msg string) {
	t.Helper()
	git(t, repo, "add", "-A")
	if key == "" {
		git(t, repo, "commit", "-q", "--allow-empty", "-m", msg)
		return
	}
	git(t, repo, "-c", "gpg.format=ssh", "-c", "user.signingkey="+key, "commit", "-q", "--allow-empty", "-S", "-m", msg)
}

// checkPR runs the binary on the run as CI checks a pull request into
// target, and returns the run's gate and the exit code. An exit code that
// disagrees with the gate fails the test.
func checkPR(t *testing.T, repo, target, run string) (gate string, code int) {
	t.Helper()
	cmd := exec.Command(binary, "--format", "json", "--color", "never", run)
	cmd.Dir = repo
	cmd.Env = append(gitEnv(t), eventEnv(t, "pull_request", target)...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	if code == 2 {
		t.Fatalf("exit 2: %s", errb.String())
	}
	var doc struct {
		Audits []struct {
			Run, Gate string
			Findings  []struct{ Rule, Details string }
		} `json:"audits"`
	}
	if err := json.Unmarshal(out.Bytes(), &doc); err != nil {
		t.Fatalf("stdout is not JSON: %v\n%s", err, out.String())
	}
	for _, a := range doc.Audits {
		if strings.TrimPrefix(a.Run, "./") == run {
			gate = a.Gate
		}
	}
	want := map[string]int{"pass": 0, "fail": 1, "needs-human": 3}[gate]
	if gate == "" || code != want {
		t.Fatalf("gate %q with exit %d\n%s", gate, code, out.String())
	}
	if testing.Verbose() {
		t.Logf("gate %s\n%s", gate, out.String())
	}
	return gate, code
}

// addEvents puts events after the last event of the run's gates ledger.
func addEvents(t *testing.T, run string, events ...string) {
	t.Helper()
	p := filepath.Join(run, "state", "GATES_LEDGER.md")
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(b), "\n")
	last := -1
	for i, l := range lines {
		if strings.HasPrefix(l, "[") {
			last = i
		}
	}
	if last < 0 {
		t.Fatalf("%s has no event", p)
	}
	var added []string
	for _, e := range events {
		added = append(added, e+"\n")
	}
	lines = append(lines[:last+1], append(added, lines[last+1:]...)...)
	if err := os.WriteFile(p, []byte(strings.Join(lines, "")), 0o644); err != nil {
		t.Fatal(err)
	}
}

// replaceIn replaces the one occurrence of old in a file of the run.
func replaceIn(t *testing.T, run, file, old, new string) {
	t.Helper()
	p := filepath.Join(run, filepath.FromSlash(file))
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(b), old); n != 1 {
		t.Fatalf("%s: %q occurs %d times, want once", file, old, n)
	}
	if err := os.WriteFile(p, []byte(strings.Replace(string(b), old, new, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestHumanDecisionMovedFromAnotherRun: a person signs a decision in the
// ledger of another run, and unsigned commits of the same change move that
// ledger onto the escalated run's. git blames the line on the signed
// commit, but under the other run's path: the decision was not made for
// this run, so it is claimed and the run still needs a human.
func TestHumanDecisionMovedFromAnotherRun(t *testing.T) {
	mustHave(t, "git")
	mustHave(t, "ssh-keygen")
	alice, alicePub := newSSHKey(t, t.TempDir(), "alice")
	const other = "runs/20250930-000000-aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa"
	for _, moved := range []bool{false, true} {
		t.Run(map[bool]string{false: "signed in place", true: "moved from another run"}[moved], func(t *testing.T) {
			t.Parallel()
			c := humanCase{base: func(t *testing.T, run string) { copyCase(t, "err", "escalation", run) }}
			repo, target := humanRepo(t, c, alicePub)
			ledger := "/state/GATES_LEDGER.md"
			if !moved {
				addEvents(t, filepath.Join(repo, humanRun), humanLine)
				commitSigned(t, repo, alice, "alice decides for the run")
			} else {
				copyCase(t, "err", "escalation", filepath.Join(repo, other))
				commitSigned(t, repo, "", "another run")
				addEvents(t, filepath.Join(repo, other), humanLine)
				commitSigned(t, repo, alice, "alice decides for the other run")
				git(t, repo, "rm", "-q", humanRun+ledger)
				commitSigned(t, repo, "", "the run's ledger removed")
				git(t, repo, "mv", other+ledger, humanRun+ledger)
				git(t, repo, "rm", "-rq", other)
				commitSigned(t, repo, "", "the other run's ledger moved onto the run's")
			}
			want := map[bool]string{false: "pass", true: "needs-human"}[moved]
			if gate, code := checkPR(t, repo, target, humanRun); gate != want {
				t.Fatalf("gate %s (exit %d), want %s", gate, code, want)
			}
		})
	}
}

// TestHumanDecisionBeforeInsertedEvents: a person signs a decision at
// the end of a run's events log; a later unsigned commit of the same
// change inserts an escalation above it. git still blames the decision on
// the signed commit, but the person never saw that escalation: the
// decision resolves what its commit's log held before it, not what the
// change wrote there since. Appended after the decision, the same
// escalation is needs-human; inserted before it, it must be too.
func TestHumanDecisionBeforeInsertedEvents(t *testing.T) {
	mustHave(t, "git")
	mustHave(t, "ssh-keygen")
	alice, alicePub := newSSHKey(t, t.TempDir(), "alice")
	escalation := []string{
		"[2025-09-29T14:20:00Z] G1_implementation - FAILED - executor - 3 tests still red",
		"[2025-09-29T14:21:00Z] G1_implementation - ESCALATION - executor - cannot fix the key store",
		"[2025-09-29T14:22:00Z] G1_implementation - STARTED - executor - second attempt",
	}
	const passedG1 = "[2025-09-29T14:45:00Z] G1_implementation - PASSED"
	for _, tt := range []struct {
		name   string
		change func(t *testing.T, run string)
		gate   string
	}{
		{"nothing changed after the signed commit", func(*testing.T, string) {}, "pass"},
		{"an escalation inserted above the decision", func(t *testing.T, run string) {
			replaceIn(t, run, "state/GATES_LEDGER.md", passedG1, strings.Join(escalation, "\n")+"\n"+passedG1)
		}, "needs-human"},
		{"an event above the decision reworded", func(t *testing.T, run string) {
			replaceIn(t, run, "state/GATES_LEDGER.md", "G1_implementation - PASSED - executor - All tests green", "G1_implementation - PASSED - executor - Most tests green")
		}, "needs-human"},
		{"an event appended after the decision", func(t *testing.T, run string) {
			addEvents(t, run, "[2025-09-29T16:10:00Z] G3_production - STARTED - system - deploy checks")
		}, "pass"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c := humanCase{change: func(t *testing.T, run string, _ bool) { copyCase(t, "ok", "complete", run) }}
			repo, target := humanRepo(t, c, alicePub)
			run := filepath.Join(repo, humanRun)
			c.change(t, run, true)
			addEvents(t, run, humanLine)
			commitSigned(t, repo, alice, "the run, and a person's decision")
			tt.change(t, run)
			commitSigned(t, repo, "", "an agent's commit")
			if gate, code := checkPR(t, repo, target, humanRun); gate != tt.gate {
				t.Fatalf("gate %s (exit %d), want %s", gate, code, tt.gate)
			}
		})
	}
}

// TestContractDecisionAfterEditedRounds: a contract run new in the change;
// an agent's commit writes a round whose judge says needs-human, and a
// person signs the commit of the next round. A later unsigned commit of the
// same change edits the round the person decided on: the person never saw
// that round as it now reads, so the next round is a claimed decision, as
// an event a later commit rewords above a signed gates ledger decision is.
func TestContractDecisionAfterEditedRounds(t *testing.T) {
	mustHave(t, "git")
	mustHave(t, "ssh-keygen")
	alice, alicePub := newSSHKey(t, t.TempDir(), "alice")
	for _, tt := range []struct {
		name   string
		change func(t *testing.T, run string)
		gate   string
	}{
		{"nothing changed after the signed commit", func(*testing.T, string) {}, "pass"},
		{"a file outside the run changed", func(t *testing.T, run string) {
			writeFiles(map[string]string{"NOTES.md": "later\n"})(t, filepath.Join(run, "..", "..", ".."))
		}, "pass"},
		{"the needs-human round's reasons reworded", func(t *testing.T, run string) {
			replaceIn(t, run, "rounds/round-1/verdict.json", "2 failures in tests/test_reset.py", "requirements unclear")
		}, "needs-human"},
		{"the needs-human round's handoff edited", func(t *testing.T, run string) {
			replaceIn(t, run, "rounds/round-1/handoff.json", "Implemented password reset endpoint", "Implemented password reset and account deletion")
		}, "needs-human"},
		{"the needs-human round's patch edited", func(t *testing.T, run string) {
			writeFiles(map[string]string{"rounds/round-1/patch.diff": "diff --git a/src/admin.py b/src/admin.py\n"})(t, run)
		}, "needs-human"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			repo, target := humanRepo(t, humanCase{run: contractRun}, alicePub)
			run := filepath.Join(repo, contractRun)
			copyContractRun(t, run, "rounds/round-1/handoff.json", "rounds/round-1/verdict.json", "rounds/round-1/patch.diff")
			replaceIn(t, run, "rounds/round-1/verdict.json", `"verdict": "reject"`, `"verdict": "needs-human"`)
			commitSigned(t, repo, "", "an agent's round, asking for a person")
			copyContractRun(t, run, "rounds/round-2/handoff.json", "rounds/round-2/verdict.json",
				"rounds/round-2/patch.diff", "rounds/round-2/audit.json", "summary.json")
			commitSigned(t, repo, alice, "a person's decision: the next round")
			tt.change(t, run)
			commitSigned(t, repo, "", "an agent's commit")
			if gate, code := checkPR(t, repo, target, contractRun); gate != tt.gate {
				t.Fatalf("gate %s (exit %d), want %s", gate, code, tt.gate)
			}
		})
	}
}
