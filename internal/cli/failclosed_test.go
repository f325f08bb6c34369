package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/h3a-check/h3a-check/internal/gitrev/gittest"
)

// TestNoFileHidesRuns: a file dropped beside or above runs never turns the
// folder holding them into one run and hides the runs below it. The
// failing run (a hash mismatch) is found and fails in every case, whether
// the dropped files make a run or not.
func TestNoFileHidesRuns(t *testing.T) {
	var clean bytes.Buffer
	if code := Main([]string{"--format", "json", "--base", "none", filepath.Join(casesDir, "ok", "complete")}, nil, &clean, &bytes.Buffer{}); code != ExitPass {
		t.Fatalf("the clean run's report: exit %d", code)
	}
	report := clean.String() // what --output json=audit.json writes
	const verdict = `{"task_id": "T1", "verdict": "pass"}`
	tests := []struct {
		name   string
		files  map[string]string // dropped into the repository
		path   string            // what is checked
		holder string            // a run that holds the failing one, when the files make one
	}{
		{"the checker's report saved in runs/", map[string]string{"runs/audit.json": report}, "runs", ""},
		{"the checker's report saved at the root", map[string]string{"audit.json": report}, ".", ""},
		{"a summary in runs/", map[string]string{"runs/summary.json": `{"task_id": "T1"}`}, "runs", ""},
		{"an audit and a summary in runs/", map[string]string{"runs/audit.json": report, "runs/summary.json": `{"task_id": "T1"}`}, "runs", ""},
		{"a lone handoff in runs/", map[string]string{"runs/handoff.json": verdict}, "runs", ""},
		{"a contract run made of runs/", map[string]string{"runs/handoff.json": verdict, "runs/verdict.json": verdict}, "runs", "runs"},
		{"an h3a run made of the root", map[string]string{"state.json": "{}", "state/ROADMAP.md": "# Roadmap\n"}, ".", "."},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := configRepo(t, "hash_mismatch", "")
			for name, content := range tc.files {
				p := filepath.Join(dir, filepath.FromSlash(name))
				if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			code, audits, stderr := jsonReport(t, "--base", "none", tc.path)
			if code != ExitFail {
				t.Fatalf("exit %d, want 1: %s\n%s", code, stderr, wantText(code, audits))
			}
			if !hasRule(audits, "h3a.integrity.hash_mismatch", "test_output_green.txt") {
				t.Errorf("the failing run was not checked:\n%s", wantText(code, audits))
			}
			held := hasRule(audits, "h3a.structure.nested_run", runID)
			if held != (tc.holder != "") {
				t.Errorf("nested_run finding %v, want %v:\n%s", held, tc.holder != "", wantText(code, audits))
			}
		})
	}
}

// TestForcedLayoutNeedsItsFiles: forcing a layout on a folder that holds
// none of its defining files is exit 2 naming what is missing, never a
// pass of a folder that was never a run. A run of that layout is still
// checked when forced.
func TestForcedLayoutNeedsItsFiles(t *testing.T) {
	dir := configRepo(t, "hash_mismatch", "")
	for _, layout := range []string{"contract", "gate-state", "stigmergy", "hybrid-os"} {
		t.Run(layout, func(t *testing.T) {
			for _, args := range [][]string{{"--layout", layout, "runs"}, {"--layout", layout, "runs/" + runID}} {
				var out, errb bytes.Buffer
				code := Main(append([]string{"--base", "none"}, args...), nil, &out, &errb)
				if code != ExitError {
					t.Fatalf("%v: exit %d, want 2\n%s", args, code, out.String())
				}
				if !strings.Contains(errb.String(), "holds no "+layout+" run") || !strings.Contains(errb.String(), " holds ") {
					t.Errorf("%v: stderr does not say what is missing: %s", args, errb.String())
				}
			}
		})
	}
	t.Run("from the configuration", func(t *testing.T) {
		if err := os.WriteFile(filepath.Join(dir, ".h3a-check.yaml"), []byte("layout: contract\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		defer os.Remove(filepath.Join(dir, ".h3a-check.yaml"))
		var errb bytes.Buffer
		if code := Main([]string{"--base", "none", "runs"}, nil, &bytes.Buffer{}, &errb); code != ExitError {
			t.Fatalf("exit %d, want 2: %s", code, errb.String())
		}
	})
	t.Run("a run of the forced layout", func(t *testing.T) {
		code, audits, stderr := jsonReport(t, "--base", "none", "--layout", "h3a", "runs")
		if code != ExitFail || len(audits) != 1 {
			t.Fatalf("exit %d with %d audits, want 1 with one: %s", code, len(audits), stderr)
		}
	})
	t.Run("an h3a run broken beyond recognition", func(t *testing.T) {
		broken := filepath.Join(dir, "broken")
		if err := os.MkdirAll(broken, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(broken, "state.json"), []byte("{"), 0o644); err != nil {
			t.Fatal(err)
		}
		code, audits, stderr := jsonReport(t, "--base", "none", "--layout", "h3a", "broken")
		if code != ExitFail || !hasRule(audits, "h3a.structure.missing_file", "") {
			t.Fatalf("exit %d, want 1 with the missing files reported: %s\n%s", code, stderr, wantText(code, audits))
		}
	})
}

// TestForcedLayoutAmongOtherLayouts: a forced layout (flag or
// configuration) on a folder that also holds runs of another layout is
// exit 2 naming them, in every mode that finds runs (a whole check,
// --changed, --staged): they would not be checked, and a failing one would
// pass unseen. A run of another layout named itself is checked as forced.
func TestForcedLayoutAmongOtherLayouts(t *testing.T) {
	flat, err := filepath.Abs(filepath.Join(casesDir, "ok", "contract_flat", "flat-run"))
	if err != nil {
		t.Fatal(err)
	}
	g := stagedRepo(t)
	// A passing contract run beside the h3a runs, one of which fails.
	if err := os.CopyFS(filepath.Join(g.Dir, "runs", "flat-run"), os.DirFS(flat)); err != nil {
		t.Fatal(err)
	}
	g.Commit("a contract run")
	base := g.Git("rev-parse", "HEAD")
	// The change under review breaks an h3a run.
	g.Write(map[string]string{"runs/" + completeID + "/" + greenRel: "edited after logging\n"})
	g.Git("add", "-A")
	refused := func(t *testing.T, code int, stderr string) {
		t.Helper()
		if code != ExitError || !strings.Contains(stderr, `layout "contract" is forced, but runs of other layouts lie below the paths`) || !strings.Contains(stderr, completeID+" (h3a)") {
			t.Errorf("exit %d, want 2 naming the h3a run: %s", code, stderr)
		}
	}
	tests := []struct {
		name string
		args []string
		yaml string
	}{
		{"by flag", []string{"--base", "none", "--layout", "contract", "runs"}, ""},
		{"by flag, the repository's root", []string{"--base", "none", "--layout", "contract", "."}, ""},
		{"by the configuration", []string{"--base", "none", "runs"}, "layout: contract\n"},
		{"by flag, --changed", []string{"--base", base, "--changed", "--layout", "contract", "runs"}, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if tc.yaml != "" {
				if err := os.WriteFile(filepath.Join(g.Dir, ".h3a-check.yaml"), []byte(tc.yaml), 0o644); err != nil {
					t.Fatal(err)
				}
				defer os.Remove(filepath.Join(g.Dir, ".h3a-check.yaml"))
			}
			var errb bytes.Buffer
			code := Main(tc.args, nil, &bytes.Buffer{}, &errb)
			refused(t, code, errb.String())
		})
	}
	t.Run("--staged", func(t *testing.T) {
		code, _, stderr := runStaged(t, nil, "--layout", "contract", "runs")
		refused(t, code, stderr)
	})
	t.Run("a run of the other layout named itself", func(t *testing.T) {
		var errb bytes.Buffer
		if code := Main([]string{"--base", "none", "--layout", "contract", "runs/flat-run"}, nil, &bytes.Buffer{}, &errb); code != ExitPass {
			t.Errorf("exit %d, want 0: %s", code, errb.String())
		}
	})
	t.Run("not forced", func(t *testing.T) {
		if code := Main([]string{"--base", "none", "runs"}, nil, &bytes.Buffer{}, &bytes.Buffer{}); code != ExitFail {
			t.Errorf("exit %d, want 1", code)
		}
	})
}

// TestOutputNeverInsideARun: a report written into a run would be read as
// one of its files by the next check, so --output refuses such a path and
// writes nothing.
func TestOutputNeverInsideARun(t *testing.T) {
	configRepo(t, "hash_mismatch", "")
	inside := filepath.Join("runs", runID, "h3a-report.json")
	var errb bytes.Buffer
	code := Main([]string{"--base", "none", "--output", "json=" + inside, "runs"}, nil, &bytes.Buffer{}, &errb)
	if code != ExitError || !strings.Contains(errb.String(), "--output "+inside+": the report is inside the run") {
		t.Fatalf("exit %d, want 2 naming the run: %s", code, errb.String())
	}
	if _, err := os.Stat(inside); !os.IsNotExist(err) {
		t.Errorf("the report was written into the run: %v", err)
	}
	if code := Main([]string{"--base", "none", "--output", "json=h3a-report.json", "runs"}, nil, &bytes.Buffer{}, &bytes.Buffer{}); code != ExitFail {
		t.Errorf("a report beside the runs: exit %d, want 1", code)
	}
}

// TestEventTrustsTheTarget: on pull_request, pull_request_target and
// merge_group the rules and configuration come from the tip of the branch
// the change lands on, not from where the change forked: a change forked
// before its target gained a severity override is judged by it. History
// is still compared with the change's own diff (the merge base).
func TestEventTrustsTheTarget(t *testing.T) {
	g := gittest.Init(t)
	src := filepath.Join(errCaseDir(t, "ledger_time_backwards"), runID)
	abs, _ := filepath.Abs(src)
	if err := os.CopyFS(filepath.Join(g.Dir, "runs", runID), os.DirFS(abs)); err != nil {
		t.Fatal(err)
	}
	fork := g.Commit("runs; the ledger's warning passes by default")
	g.Git("checkout", "-q", "-b", "change")
	g.Write(map[string]string{"notes.txt": "the change\n"})
	g.Commit("the change, forked before main hardened the rules")
	g.Git("checkout", "-q", "main")
	g.Write(map[string]string{".h3a-check.yaml": "severity:\n  h3a.gates.ledger_time_backwards: error\n"})
	target := g.Commit("main: time running backwards is an error")
	g.Git("checkout", "-q", "change")
	t.Chdir(g.Dir)

	event := filepath.Join(t.TempDir(), "event.json")
	os.WriteFile(event, []byte(`{"pull_request": {"base": {"sha": "`+target+`"}}, "merge_group": {"base_sha": "`+target+`"}}`), 0o644)
	for _, name := range []string{"pull_request", "pull_request_target", "merge_group"} {
		t.Run(name, func(t *testing.T) {
			vars := map[string]string{"CI": "true", "GITHUB_ACTIONS": "true", "GITHUB_EVENT_NAME": name, "GITHUB_EVENT_PATH": event}
			var out, errb bytes.Buffer
			code := run(context.Background(), []string{"--format", "json", "runs"}, &env{stdout: &out, stderr: &errb, getenv: func(k string) string { return vars[k] }})
			if code != ExitFail {
				t.Fatalf("exit %d, want 1 (the target's configuration makes the warning an error): %s\n%s", code, errb.String(), out.String())
			}
			var doc struct{ Audits []*auditT }
			if err := json.Unmarshal(out.Bytes(), &doc); err != nil || len(doc.Audits) == 0 {
				t.Fatalf("%v\n%s", err, out.String())
			}
			if a := doc.Audits[0]; a.Base == nil || *a.Base != fork {
				t.Errorf("history base %v, want the merge base %s", a.Base, fork)
			}
			// The change did not touch the configuration: it only lacks
			// what the target gained since, which is no edit of its own.
			if len(doc.Audits) != 1 {
				t.Errorf("%d audits, want the run's alone (no rules_changed):\n%s", len(doc.Audits), out.String())
			}
		})
	}
}

// TestLocalRulesAreYours: outside CI and without --base, a policy folder or
// a configuration not committed yet is the person's own and is used, so a
// broken policy or a mistyped key is exit 2 at once, never a pass. In CI
// the same working tree is a change under review: its rules are not used,
// and each is a finding on its file.
func TestLocalRulesAreYours(t *testing.T) {
	dir := configRepo(t, "hash_mismatch", "")
	g := gittest.At(t, dir)
	g.Git("init", "-q")
	g.Git("add", "-A")
	g.Publish(g.Commit("runs"))
	for _, tc := range []struct {
		name  string
		files map[string]string
		args  []string
	}{
		{"a broken policy", map[string]string{"team/broken.rego": "package h3a.user.team\n\ndeny contains f if {\n"}, []string{"--policy", "team"}},
		{"a mistyped key", map[string]string{".h3a-check.yaml": "fail-levle: warning\n"}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g.Write(tc.files)
			defer func() {
				for name := range tc.files {
					os.RemoveAll(filepath.Join(dir, strings.Split(name, "/")[0]))
				}
			}()
			args := append(append([]string{"--format", "json"}, tc.args...), "runs")
			var out, errb bytes.Buffer
			if code := Main(args, nil, &out, &errb); code != ExitError {
				t.Errorf("local: exit %d, want 2: %s", code, errb.String())
			}
			t.Setenv("CI", "true")
			code, audits, stderr := jsonReport(t, append(tc.args, "runs")...)
			if code != ExitFail || !hasRule(audits, "h3a.security.rules_changed", "is only in the working tree") {
				t.Errorf("CI: exit %d, want 1 with the change to the rules reported: %s\n%s", code, stderr, wantText(code, audits))
			}
		})
	}
	t.Run("a policy folder in neither place", func(t *testing.T) {
		for _, ci := range []string{"", "true"} {
			t.Setenv("CI", ci)
			var errb bytes.Buffer
			if code := Main([]string{"--policy", "nowhere", "runs"}, nil, &bytes.Buffer{}, &errb); code != ExitError || !strings.Contains(errb.String(), "does not exist") {
				t.Errorf("CI=%q: exit %d, want 2: %s", ci, code, errb.String())
			}
		}
	})
}

// TestNoFolderNameHidesRuns: a run is found below any folder a change can
// add, whatever its name: a failing run put under vendor/ or node_modules/
// beside a clean one, or inside a clean run, fails the check, in a full
// check and with --changed.
func TestNoFolderNameHidesRuns(t *testing.T) {
	for _, at := range []string{"runs/vendor/", "runs/node_modules/", "runs/" + runID + "/artifacts/vendor/"} {
		t.Run(at, func(t *testing.T) {
			gittest.Isolate(t)
			failing := filepath.Join(errCaseDir(t, "hash_mismatch"), runID)
			clean, err := filepath.Abs(filepath.Join(casesDir, "ok", "complete", runID))
			if err != nil {
				t.Fatal(err)
			}
			g := gittest.Init(t)
			t.Chdir(g.Dir)
			if err := os.CopyFS(filepath.Join(g.Dir, "runs", runID), os.DirFS(clean)); err != nil {
				t.Fatal(err)
			}
			g.Commit("a clean run")
			if err := os.CopyFS(filepath.Join(g.Dir, filepath.FromSlash(at), runID), os.DirFS(failing)); err != nil {
				t.Fatal(err)
			}
			g.Commit("a failing run under " + at)
			for _, args := range [][]string{{"--base", "none", "runs"}, {"--base", "HEAD~1", "runs"}, {"--base", "HEAD~1", "--changed", "runs"}} {
				code, audits, stderr := jsonReport(t, args...)
				if code != ExitFail || !hasRule(audits, "h3a.integrity.hash_mismatch", "test_output_green.txt") {
					t.Errorf("%v: exit %d, want 1 with the failing run's hash mismatch: %s\n%s", args, code, stderr, wantText(code, audits))
				}
			}
		})
	}
}

// TestNoStateFileHidesAHybridRoot: a stopped hybrid-os root added beside a
// clean one, holding an empty file named state, is found and answers
// needs-human in a full check, against the base and with --changed. A
// file named state is not the state/ folder that makes an H3A run, so it
// must not make the root no run of either layout.
func TestNoStateFileHidesAHybridRoot(t *testing.T) {
	gittest.Isolate(t)
	blocked := filepath.Join(errCaseDir(t, "hybrid_state_file"), "blocked")
	clean, err := filepath.Abs(filepath.Join(casesDir, "ok", "hybrid_complete", "greeter"))
	if err != nil {
		t.Fatal(err)
	}
	g := gittest.Init(t)
	t.Chdir(g.Dir)
	if err := os.CopyFS(filepath.Join(g.Dir, "runs", "greeter"), os.DirFS(clean)); err != nil {
		t.Fatal(err)
	}
	g.Commit("a clean hybrid-os root")
	if err := os.CopyFS(filepath.Join(g.Dir, "runs", "blocked"), os.DirFS(blocked)); err != nil {
		t.Fatal(err)
	}
	g.Commit("a stopped root with a file named state")
	for _, args := range [][]string{{"--base", "none", "runs"}, {"--base", "HEAD~1", "runs"}, {"--base", "HEAD~1", "--changed", "runs"}} {
		code, audits, stderr := jsonReport(t, args...)
		if code != ExitNeedsHuman || !hasRule(audits, "h3a.gates.hybrid_stopped", `"BLK_CON"`) {
			t.Errorf("%v: exit %d, want 3 with the stopped root's hybrid_stopped: %s\n%s", args, code, stderr, wantText(code, audits))
		}
	}
}

// TestOutputNeverThroughALink: a folder below the working directory on the
// way to a report or a profile that is a symbolic link (which a change can
// commit) is refused, exit 2, and nothing is written where it leads: into
// a run, or out of the repository.
func TestOutputNeverThroughALink(t *testing.T) {
	dir := configRepo(t, "hash_mismatch", "")
	elsewhere := t.TempDir()
	for name, target := range map[string]string{"reports": filepath.Join("runs", runID, "artifacts"), "out": elsewhere} {
		if err := os.Symlink(target, filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.MkdirAll(filepath.Join(dir, "real", "deeper"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"--output", "json=reports/h3a.json"},
		{"--output", "sarif=out/h3a.sarif"},
		{"--output", "json=real/ok.json", "--output", "text=out/deeper/h3a.txt"},
		{"--cpuprofile", "out/cpu.prof"},
	} {
		var errb bytes.Buffer
		code := Main(append(append([]string{"--base", "none"}, args...), "runs"), nil, &bytes.Buffer{}, &errb)
		if code != ExitError || !strings.Contains(errb.String(), "is a symbolic link") {
			t.Errorf("%v: exit %d, want 2 naming the link: %s", args, code, errb.String())
		}
	}
	for _, p := range []string{filepath.Join(dir, "runs", runID, "artifacts", "h3a.json"), filepath.Join(elsewhere, "h3a.sarif"), filepath.Join(elsewhere, "cpu.prof"), filepath.Join(dir, "real", "ok.json")} {
		if _, err := os.Lstat(p); !os.IsNotExist(err) {
			t.Errorf("%s was written: %v", p, err)
		}
	}
	// A real folder is written to.
	if code := Main([]string{"--base", "none", "--output", "json=real/deeper/ok.json", "runs"}, nil, &bytes.Buffer{}, &bytes.Buffer{}); code != ExitFail {
		t.Errorf("a report in a real folder: exit %d, want 1", code)
	}
	if _, err := os.Stat(filepath.Join(dir, "real", "deeper", "ok.json")); err != nil {
		t.Errorf("the report in a real folder was not written: %v", err)
	}
}
