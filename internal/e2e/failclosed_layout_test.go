package e2e

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// A run's history must not be lost by changing what the run looks like,
// nor by moving it: checked by the built binary on a pull request in a
// real repository, neither may pass.

// otherLayouts are a passing run of each layout but h3a: the ok case and
// its one run folder.
var otherLayouts = []struct{ layout, okCase, folder string }{
	{"contract", "contract_flat", "flat-run"},
	{"hybrid-os", "hybrid_complete", "greeter"},
	{"stigmergy", "stigmergy_complete", "greeter"},
	{"gate-state", "gate_state_complete", "app"},
}

// TestLayoutSwitchFails: a change deletes a committed h3a run's state
// files (state/ and state.json) and puts a passing run of another layout
// in its folder. On its own that run passes, as a new run; as the same
// folder it is a run whose layout changed and whose history is gone:
// exit 1, never 0.
func TestLayoutSwitchFails(t *testing.T) {
	for _, other := range otherLayouts {
		t.Run("h3a to "+other.layout, func(t *testing.T) {
			t.Parallel()
			repo := newRepo(t)
			run := filepath.Join(repo, "runs", runID)
			copyCase(t, "ok", "complete", run)
			target := commitAll(t, repo, "an h3a run")
			env := eventEnv(t, "pull_request", target)
			if code, out := check(t, repo, env, "runs"); code != 0 {
				t.Fatalf("the h3a run alone: exit %d, want 0\n%s", code, out)
			}

			git(t, repo, "checkout", "-q", "-b", "change")
			removeAll("runs/"+runID+"/state")(t, repo)
			removeAll("runs/"+runID+"/state.json")(t, repo)
			src := filepath.Join(moduleRoot, "testdata", "runs", "ok", other.okCase, other.folder)
			if err := os.CopyFS(run, os.DirFS(src)); err != nil {
				t.Fatal(err)
			}
			commitAll(t, repo, "the run becomes a "+other.layout+" run")

			code, out := check(t, repo, env, "runs")
			if code != 1 {
				t.Fatalf("exit %d, want 1 (never a pass)\n%s", code, out)
			}
			a := auditOf(t, out, "runs/"+runID)
			if a.Layout != other.layout || a.Gate != "fail" || !slices.Contains(a.rules(), "h3a.append_only.layout_changed") || !slices.Contains(a.rules(), "h3a.append_only.file_removed") {
				t.Errorf("layout %s, gate %s, rules %v: want a failing %s run with layout_changed and file_removed", a.Layout, a.Gate, a.rules(), other.layout)
			}
		})
	}
}

// TestArchivedRunNeedsHuman: a change archives a run (git mv runs/<id>
// archive/<id>, as the H3A spec's Retention section lets a person do) and
// both folders are checked. The run is intact, so it was not deleted, but
// the change cannot show that a person moved it: exit 3, never 0.
func TestArchivedRunNeedsHuman(t *testing.T) {
	repo := newRepo(t)
	copyCase(t, "ok", "complete", filepath.Join(repo, "runs", runID))
	// Another run stays in runs/, which a move would otherwise empty.
	if err := os.CopyFS(filepath.Join(repo, "runs", "flat-run"), os.DirFS(filepath.Join(moduleRoot, "testdata", "runs", "ok", "contract_flat", "flat-run"))); err != nil {
		t.Fatal(err)
	}
	target := commitAll(t, repo, "two runs")
	git(t, repo, "checkout", "-q", "-b", "change")
	if err := os.MkdirAll(filepath.Join(repo, "archive"), 0o755); err != nil {
		t.Fatal(err)
	}
	git(t, repo, "mv", "runs/"+runID, "archive/"+runID)
	commitAll(t, repo, "archive the run")

	code, out := check(t, repo, eventEnv(t, "pull_request", target), "runs", "archive")
	if code != 3 {
		t.Fatalf("exit %d, want 3 (needs-human; never a pass)\n%s", code, out)
	}
	a := auditOf(t, out, "archive/"+runID)
	if a.Gate != "needs-human" || !slices.Contains(a.rules(), "h3a.append_only.run_moved") {
		t.Errorf("archived run: gate %s, rules %v; want needs-human with run_moved", a.Gate, a.rules())
	}
}

type e2eAudit struct {
	Run, Layout, Gate string
	Findings          []struct{ Rule string }
}

func (a e2eAudit) rules() []string {
	var out []string
	for _, f := range a.Findings {
		out = append(out, f.Rule)
	}
	return out
}

// check runs the binary in repo with the JSON report; it returns the
// exit code and the report.
func check(t *testing.T, repo string, env []string, args ...string) (int, string) {
	t.Helper()
	code, stdout, stderr := runBinary(t, repo, env, args)
	return code, stdout + stderr
}

// auditOf finds the audit of run in a JSON report.
func auditOf(t *testing.T, report, run string) e2eAudit {
	t.Helper()
	var doc struct {
		Audits []e2eAudit `json:"audits"`
	}
	if err := json.NewDecoder(bytes.NewBufferString(report)).Decode(&doc); err != nil {
		t.Fatalf("the report is not JSON: %v\n%s", err, report)
	}
	for _, a := range doc.Audits {
		if filepath.ToSlash(filepath.Clean(a.Run)) == run {
			return a
		}
	}
	t.Fatalf("no audit of %s\n%s", run, report)
	return e2eAudit{}
}
