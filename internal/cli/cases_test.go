package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/h3a-check/h3a-check/internal/audit"
	"github.com/h3a-check/h3a-check/internal/audit/audittest"
	"github.com/h3a-check/h3a-check/internal/finding"
	"github.com/h3a-check/h3a-check/internal/gitrev"
	"github.com/h3a-check/h3a-check/internal/longtest"
)

var update = flag.Bool("update", false, "rewrite golden files and expected findings")

const casesDir = "../../testdata/runs"

// checkJSON runs the CLI in process and decodes its JSON report. The runs
// under testdata/ sit in this repository's checkout (or in no repository at
// all), so their history is not compared: what they yield must not depend
// on the repository's commits.
func checkJSON(t *testing.T, args ...string) (int, []*audit.Audit, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(context.Background(), append([]string{"--format", "json", "--base", "none"}, args...),
		&env{stdout: &out, stderr: &errb, getenv: notInCI})
	if code == ExitError {
		return code, nil, errb.String()
	}
	var doc struct {
		Gate   string         `json:"gate"`
		Audits []*audit.Audit `json:"audits"`
	}
	if err := json.Unmarshal(out.Bytes(), &doc); err != nil {
		t.Fatalf("exit %d; stdout is not JSON: %v\n%s\nstderr: %s", code, err, out.String(), errb.String())
	}
	return code, doc.Audits, errb.String()
}

// notInCI is the environment without the variables that say CI: the cases are
// checked as on a person's own machine wherever the tests run, so a human
// decision in them counts (docs/trust-model.md) in CI too.
func notInCI(k string) string {
	if k == "BUILD_TAG" || slices.Contains(gitrev.CIVariables, k) {
		return ""
	}
	return os.Getenv(k)
}

// wantText renders what a case expects: the exit code, then one line per
// finding, relative to the run, as the text report prints it.
func wantText(code int, audits []*audit.Audit) string {
	var b strings.Builder
	fmt.Fprintf(&b, "exit %d\n", code)
	for _, a := range audits {
		fmt.Fprintf(&b, "run %s gate %s\n", filepath.Base(a.Run), a.Gate)
		for _, f := range a.Findings {
			loc := f.Location()
			if loc == "" {
				loc = "."
			}
			fmt.Fprintf(&b, "%s: %s: %s [%s]\n", loc, f.Severity, f.Details, f.Rule)
		}
	}
	return b.String()
}

func compareGolden(t *testing.T, path, got string) {
	t.Helper()
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	// The command rewrites this test's snapshot only, not every golden file.
	rerun := fmt.Sprintf("go test ./internal/cli -run '^%s$' -update", regexp.QuoteMeta(t.Name()))
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (%s creates it; read it)", err, rerun)
	}
	if string(want) != got {
		t.Errorf("%s differs (%s rewrites it; review the diff)\n--- want\n%s--- got\n%s", path, rerun, want, got)
	}
}

func caseDirs(t *testing.T, kind string) []string {
	t.Helper()
	ents, err := os.ReadDir(filepath.Join(casesDir, kind))
	if err != nil {
		t.Fatal(err)
	}
	var dirs []string
	for _, e := range ents {
		if e.IsDir() {
			dirs = append(dirs, filepath.Join(casesDir, kind, e.Name()))
		}
	}
	if len(dirs) == 0 {
		t.Fatalf("no cases under %s", kind)
	}
	return dirs
}

// TestOKRuns: every ok case passes with zero errors and zero warnings, or
// is a run whose own record says it stopped: it needs a human (exit 3), and
// every warning it gets is one asking for a human.
func TestOKRuns(t *testing.T) {
	t.Parallel()
	for _, dir := range caseDirs(t, "ok") {
		t.Run(filepath.Base(dir), func(t *testing.T) {
			t.Parallel()
			code, audits, stderr := checkJSON(t, dir)
			if code != ExitPass && code != ExitNeedsHuman {
				t.Fatalf("exit %d, want 0 or 3; stderr %s\n%s", code, stderr, wantText(code, audits))
			}
			for _, a := range audits {
				if a.Counts.Error != 0 {
					t.Errorf("%s: %d errors, want none\n%s", a.Run, a.Counts.Error, wantText(code, audits))
				}
				for _, f := range a.Findings {
					if f.Severity == finding.Warning && !f.NeedsHuman {
						t.Errorf("%s: warning %s (%s), want none but the ones asking for a human", a.Run, f.Rule, f.Details)
					}
				}
			}
			compareGolden(t, dir+".want", wantText(code, audits))
		})
	}
}

// TestErrRuns: every err case gives exactly its expected findings (the
// .want snapshot, rewritten by -update), and what its hand-written expect
// file says (never rewritten; see expect_test.go). An err case is a patch
// over an ok case (internal/audit/audittest): it is written out into a temp
// folder of the same name and checked there.
func TestErrRuns(t *testing.T) {
	t.Parallel()
	for _, dir := range caseDirs(t, "err") {
		t.Run(filepath.Base(dir), func(t *testing.T) {
			t.Parallel()
			checkCaseFolder(t, dir)
			code, audits, stderr := checkJSON(t, materialise(t, dir))
			if code == ExitError {
				t.Fatalf("exit 2: %s", stderr)
			}
			got := wantText(code, audits)
			compareGolden(t, dir+".want", got)
			checkExpectation(t, dir, code, audits)
			if !*update && !strings.Contains(got, "[h3a.") {
				t.Errorf("case %s produced no finding", dir)
			}
		})
	}
}

// checkCaseFolder: an err case folder holds its prose, its expectation and
// its patch, and nothing else (a run copied in beside them would be checked
// in place of the patch's, and would drift from its base unseen).
func checkCaseFolder(t *testing.T, dir string) {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	have := map[string]bool{}
	for _, e := range ents {
		switch e.Name() {
		case "CASE.md", "expect", audittest.PatchFile:
			have[e.Name()] = true
		default:
			t.Errorf("%s: %s: an err case folder holds CASE.md, expect and %s only; write the change into the patch (format in testdata/runs/README.md)", dir, e.Name(), audittest.PatchFile)
		}
	}
	for _, name := range []string{"CASE.md", audittest.PatchFile} {
		if !have[name] {
			t.Errorf("%s: no %s", dir, name)
		}
	}
}

// materialise writes the err case folder dir out as the full case it
// stands for, into a temp folder err/<case> (the names of the case and its
// runs are kept: some cases are about names), and returns that folder.
func materialise(t *testing.T, dir string) string {
	t.Helper()
	dst := filepath.Join(t.TempDir(), "err", filepath.Base(dir))
	if err := audittest.MaterialiseCase(casesDir, dir, dst); err != nil {
		t.Fatal(err)
	}
	return dst
}

// errCaseDir is the err case name written out in full (see materialise).
func errCaseDir(t *testing.T, name string) string {
	t.Helper()
	return materialise(t, filepath.Join(casesDir, "err", name))
}

// caseDir is the case "ok/NAME" as it is, or "err/NAME" written out.
func caseDir(t *testing.T, kindCase string) string {
	t.Helper()
	if name, ok := strings.CutPrefix(kindCase, "err/"); ok {
		return errCaseDir(t, name)
	}
	return filepath.Join(casesDir, filepath.FromSlash(kindCase))
}

// allCases is every case, ok and err, written out into a temp folder
// testdata/runs/ (as kept in the repository), for tests that check them all
// at once.
func allCases(t *testing.T) string {
	t.Helper()
	return writeCases(t, nil)
}

// writeCases writes the ok cases and the err cases keepErr keeps (nil:
// all) into a temporary folder, and returns its runs folder.
func writeCases(t *testing.T, keepErr func(i int, name string) bool) string {
	t.Helper()
	dst := filepath.Join(t.TempDir(), "testdata", "runs")
	if err := audittest.WriteSomeCases(casesDir, dst, keepErr); err != nil {
		t.Fatal(err)
	}
	return dst
}

// someCases are the cases a test over many runs checks: every ok and err
// case in the long tests (.ci/run), the ok cases alone (two dozen runs of
// every layout) in the README's test command.
func someCases(t *testing.T) string {
	t.Helper()
	if longtest.Enabled() {
		return allCases(t)
	}
	return filepath.Join(writeCases(t, func(int, string) bool { return false }), "ok")
}

// sampledCases are the cases a test of a whole report checks: every ok and
// err case in the long tests (.ci/run), the ok cases and every sixth err
// case (each kind of finding a report must carry, not each finding) in
// the README's test command.
func sampledCases(t *testing.T) string {
	t.Helper()
	if longtest.Enabled() {
		return allCases(t)
	}
	return writeCases(t, func(i int, _ string) bool { return i%6 == 0 })
}

// TestJSONDeterministic: two checks of the same runs give the same bytes.
func TestJSONDeterministic(t *testing.T) {
	t.Parallel()
	var a, b bytes.Buffer
	all := someCases(t)
	Main([]string{"--format", "json", "--base", "none", all}, nil, &a, &bytes.Buffer{})
	Main([]string{"--format", "json", "--base", "none", "--workers", "1", all}, nil, &b, &bytes.Buffer{})
	if a.Len() == 0 || !bytes.Equal(a.Bytes(), b.Bytes()) {
		t.Fatalf("json output differs between runs (%d vs %d bytes)", a.Len(), b.Len())
	}
}

// copyRun copies the complete ok run into a temp dir and returns the run path.
func copyRun(t *testing.T) string {
	t.Helper()
	src, err := filepath.Glob(filepath.Join(casesDir, "ok", "complete", "*-*"))
	if err != nil || len(src) != 1 {
		t.Fatalf("complete run not found: %v %v", src, err)
	}
	dst := filepath.Join(t.TempDir(), filepath.Base(src[0]))
	if err := os.CopyFS(dst, os.DirFS(src[0])); err != nil {
		t.Fatal(err)
	}
	return dst
}

// TestSpecialFiles covers what git cannot store: a FIFO must be reported,
// never opened (opening one would block for ever).
func TestSpecialFiles(t *testing.T) {
	run := copyRun(t)
	target := filepath.Join(run, "artifacts", "executor", "test_output_green.txt")
	if err := os.Remove(target); err != nil {
		t.Fatal(err)
	}
	if err := mkfifo(target); err != nil {
		t.Skipf("cannot make a FIFO here: %v", err)
	}
	done := make(chan struct{})
	var code int
	var audits []*audit.Audit
	go func() {
		defer close(done)
		code, audits, _ = checkJSON(t, run)
	}()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("the check hung on a FIFO")
	}
	if code != ExitFail {
		t.Fatalf("exit %d, want 1", code)
	}
	if !hasRule(audits, "h3a.structure.not_regular_file", "named pipe") {
		t.Errorf("no not_regular_file finding for the FIFO:\n%s", wantText(code, audits))
	}
}

// TestTooLarge: a document over --max-json-size is reported, not parsed.
func TestTooLarge(t *testing.T) {
	code, audits, stderr := checkJSON(t, "--max-json-size", "512B", filepath.Join(casesDir, "ok", "complete"))
	if code != ExitFail {
		t.Fatalf("exit %d, want 1 (%s)", code, stderr)
	}
	if !hasRule(audits, "h3a.structure.too_large", "over the limit of 512 bytes") {
		t.Errorf("no too_large finding:\n%s", wantText(code, audits))
	}
}

func hasRule(audits []*audit.Audit, rule, detail string) bool {
	for _, a := range audits {
		for _, f := range a.Findings {
			if f.Rule == rule && strings.Contains(f.Details, detail) {
				return true
			}
		}
	}
	return false
}
