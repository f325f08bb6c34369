package cli

import (
	"bytes"
	"encoding/json"
	"github.com/h3a-check/h3a-check/internal/longtest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/h3a-check/h3a-check/internal/gitrev/gittest"
)

// hostile is what a run can put in a folder name, a file name, a run id,
// a task id or a value a policy quotes: every character a terminal or a
// GitHub Actions runner acts on (no "/" and no NUL, so that it can name a
// file too; a byte that is not UTF-8 makes a folder the checker cannot
// read, TestHostileFolderName). "HOSTILE" marks where it went.
const hostile = "HOSTILE\x1b[2K\r\x1b[32mgate: pass\x1b[0m\x1b[8m\n::error::forged\n##[error title=h3a-check]All runs verified\n" +
	"::stop-commands::x\u202e\u2066\u2028\u0085\u009b\x7f\tend\n" + forged + " overall: pass\n\u00a0\u3000::warning::after Unicode spaces mid ##[error]x"

// forged starts a line of hostile: an output line that starts with it is a
// line a run wrote, whatever follows.
const forged = "FORGED-LINE"

// hostilePolicy quotes the run's id raw (%s), prints it (--debug), and has
// a title naming it.
const hostilePolicy = `package h3a.user.hostile

import data.h3a.lib

# METADATA
# title: "Quotes the run id raw \u001b[8m hidden"
# description: A user rule whose message and print() output carry what the run holds.
# custom:
#   id: h3a.user.hostile.quote
#   severity: warning
#   remediation: "none \u001b[8m hidden"
warn contains f if {
	print("run id", input.run.id)
	f := lib.finding(rego.metadata.rule(), {"msg": sprintf("run id %s", [input.run.id])})
}
`

// hostileRuns makes, in the working directory, runs that carry hostile
// in every place a report or a message shows: run folders (one named so
// that it starts report lines), a run id, gate-state pipeline file names,
// Stigmergy task ids, and a contract run --write-audit writes into. It
// returns a policy folder in a repository of its own, with a file that
// exists only in the working tree (a warning on stderr names it). The runs
// are outside any repository: git cannot read a path holding a line break
// at a base revision, and says so (exit 2).
func hostileRuns(t *testing.T) (policyDir string) {
	t.Helper()
	repo := gittest.Init(t)
	dir := t.TempDir()
	copyTree := func(src, dst string) {
		t.Helper()
		if err := os.CopyFS(filepath.Join(dir, dst), os.DirFS(src)); err != nil {
			t.Fatal(err)
		}
	}
	replaceIn := func(file, old, new string) {
		t.Helper()
		p := filepath.Join(dir, file)
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Contains(data, []byte(old)) {
			t.Fatalf("%s does not hold %q", file, old)
		}
		if err := os.WriteFile(p, bytes.ReplaceAll(data, []byte(old), []byte(new)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	quoted, _ := json.Marshal(hostile)
	inJSON := string(quoted[1 : len(quoted)-1])

	h3a := "runs/" + hostile
	copyTree(filepath.Join(casesDir, "ok", "complete", runID), h3a)
	replaceIn(h3a+"/state.json", `"run_id": "`+runID+`"`, `"run_id": "`+inJSON+`"`)
	// A gate event whose agent is hostile in one word, for the timelines
	// of the job summary and the markdown format.
	oneLine := strings.NewReplacer("\n", "", "\r", "", "\u2028", "", "\u0085", "", " ", "", "\t", "").Replace(hostile)
	replaceIn(h3a+"/state/GATES_LEDGER.md", "G0_planning - STARTED - planner -", "G0_planning - STARTED - "+oneLine+" -")
	// A run named so that report lines start with it.
	copyTree(filepath.Join(casesDir, "ok", "complete", runID), "::error::"+hostile)

	gs := "gs/" + hostile + "/.state/"
	copyTree(filepath.Join(casesDir, "ok", "gate_state_complete", "app"), "gs/"+hostile)
	for _, f := range []string{"pipeline.json", "gate1-output.json", "gate2-output.json"} {
		if err := os.Rename(filepath.Join(dir, gs+"demoqa_com-student_registration-"+f), filepath.Join(dir, gs+hostile+"-"+f)); err != nil {
			t.Fatal(err)
		}
	}

	stig := "stig/" + hostile
	copyTree(filepath.Join(casesDir, "ok", "stigmergy_complete", "greeter"), stig)
	replaceIn(stig+"/.ai/state.json", `"T02"`, `"`+inJSON+`"`)

	contract := "contract/" + hostile
	copyTree(filepath.Join(casesDir, "ok", "contract_rounds", "TASK-0042-20260216-130000"), contract)
	if err := os.Remove(filepath.Join(dir, contract, "rounds", "round-2", "audit.json")); err != nil {
		t.Fatal(err)
	}

	repo.Write(map[string]string{"policies/hostile/hostile.rego": hostilePolicy})
	repo.Publish(repo.Commit("base"))
	repo.Write(map[string]string{"policies/hostile/" + hostile + ".rego": "package h3a.user.added\n"})
	t.Chdir(dir)
	return filepath.Join(repo.Dir, "policies", "hostile")
}

// TestHostileNamesNeverReachOutputsRaw feeds every output format, on
// stdout and through --output, in and out of GitHub Actions, and stderr,
// runs whose names and contents carry control characters, bidirectional
// overrides and workflow commands: none comes out raw, no line that a run
// wrote starts with "::" or "##[", and under GitHub Actions nothing from
// the runs is written outside a stop-commands region unless no runner can
// read it as a command (workflow command data, JSON and XML, where "##["
// is escaped too).
func TestHostileNamesNeverReachOutputsRaw(t *testing.T) {
	policyDir := hostileRuns(t)
	for _, actions := range []bool{false, true} {
		for _, format := range []string{"text", "json", "sarif", "junit", "github", "markdown"} {
			name := format
			if actions {
				name += " in GitHub Actions"
			}
			t.Run(name, func(t *testing.T) {
				// A report for programs writes the same bytes in and out of
				// GitHub Actions, and every variant writes each format to a
				// file too: the README's test command checks them once.
				if !actions && (format == "json" || format == "sarif" || format == "junit") && !longtest.Enabled() {
					t.Skip("the machine formats outside GitHub Actions: H3A_LONG=1")
				}
				out := t.TempDir()
				vars := map[string]string{}
				if actions {
					vars["GITHUB_ACTIONS"] = "true"
					vars["GITHUB_STEP_SUMMARY"] = filepath.Join(out, "summary.md")
					vars["GITHUB_OUTPUT"] = filepath.Join(out, "output.txt")
				}
				args := []string{"--format", format, "--color", "never", "--policy", policyDir, "--write-audit",
					"--output", "text=" + filepath.Join(out, "report.txt"), "--output", "json=" + filepath.Join(out, "report.json"),
					"--output", "sarif=" + filepath.Join(out, "report.sarif"), "--output", "junit=" + filepath.Join(out, "report.xml"),
					"--output", "markdown=" + filepath.Join(out, "report.md"),
					"runs", "::error::" + hostile, "gs", "stig", "contract"}
				// print() output reaches stderr alike in every format, and
				// --debug makes OPA compile and evaluate every rule: the
				// text variants carry it.
				if format == "text" {
					args = append([]string{"--debug"}, args...)
				}
				var stdout, stderr bytes.Buffer
				code := run(t.Context(), args, &env{stdout: &stdout, stderr: &stderr, getenv: func(k string) string { return vars[k] }})
				if code == ExitError {
					t.Fatalf("exit 2:\n%s", stderr.String())
				}
				if !strings.Contains(stdout.String(), "HOSTILE") || !strings.Contains(stderr.String(), "HOSTILE") {
					t.Fatalf("the hostile names did not reach the outputs, so this test tests nothing:\nstdout:\n%s\nstderr:\n%s", stdout.String(), stderr.String())
				}
				if format == "text" && !strings.Contains(stderr.String(), "run id") {
					t.Fatalf("the policy's print() output did not reach stderr, so its escaping is not tested:\n%s", stderr.String())
				}
				if format == "markdown" && !regexp.MustCompile(`(?m)^  e\d+\["[^"\n]*HOSTILE[^"\n]*"\]:::`).MatchString(stdout.String()) {
					t.Errorf("the hostile gate event is not in a timeline, so the timeline's escaping is not tested:\n%s", stdout.String())
				}
				// json, sarif and junit are read by programs: their stdout
				// cannot be a stop-commands region, and needs none.
				machine := format == "json" || format == "sarif" || format == "junit"
				checkOutput(t, "stdout", stdout.Bytes(), actions, actions && !machine)
				checkOutput(t, "stderr", stderr.Bytes(), actions, actions)
				for _, f := range []string{"report.txt", "report.json", "report.sarif", "report.xml", "report.md", "summary.md"} {
					if data, err := os.ReadFile(filepath.Join(out, f)); err == nil {
						checkOutput(t, f, data, false, false)
					}
				}
			})
		}
	}
}

// TestHostileFolderName: a folder whose name is not UTF-8 cannot be
// searched for runs, and the check says so (exit 2) with the name escaped,
// on stderr under GitHub Actions as elsewhere.
func TestHostileFolderName(t *testing.T) {
	dir := t.TempDir()
	name := hostile + "\x9b"
	if err := os.CopyFS(filepath.Join(dir, "runs", name, runID), os.DirFS(filepath.Join(casesDir, "ok", "complete", runID))); err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	for _, actions := range []string{"", "true"} {
		var stdout, stderr bytes.Buffer
		code := run(t.Context(), []string{"--base", "none", "runs"}, &env{stdout: &stdout, stderr: &stderr, getenv: func(k string) string {
			if k == "GITHUB_ACTIONS" {
				return actions
			}
			return ""
		}})
		if code != ExitError || !strings.Contains(stderr.String(), "HOSTILE") {
			t.Fatalf("GITHUB_ACTIONS=%q: exit %d, stderr %q; want 2 naming the folder", actions, code, stderr.String())
		}
		checkOutput(t, "stderr", stderr.Bytes(), actions != "", actions != "")
	}
}

// command is a GitHub Actions workflow command line: "::name props::data".
var command = regexp.MustCompile(`^::([A-Za-z0-9_-]+)( [^:]*)?::`)

// checkOutput fails the test for a raw control or bidirectional
// character and for a line from a run starting with "::" or "##["; for
// the step log (stdout or stderr under GitHub Actions), for "##[" outside
// a stop-commands region, and, with stopped set, for any text from the
// runs there.
func checkOutput(t *testing.T, name string, out []byte, log, stopped bool) {
	t.Helper()
	for i := 0; i < len(out); {
		r, size := utf8.DecodeRune(out[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			t.Errorf("%s: byte %#x at offset %d is not UTF-8", name, out[i], i)
		case r < 0x20 && r != '\n', r == 0x7f, r >= 0x80 && r <= 0x9f,
			r == 0x2028, r == 0x2029, r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069:
			t.Errorf("%s: raw %U at offset %d: %q", name, r, i, around(out, i))
		}
		i += size
	}
	token := ""
	for line := range strings.SplitSeq(string(out), "\n") {
		// A runner skips any white space before a command, Unicode's too.
		trimmed := strings.TrimLeftFunc(line, unicode.IsSpace)
		if strings.HasPrefix(trimmed, forged) {
			t.Errorf("%s: a line break from a run starts a line: %q", name, line)
		}
		// A runner reads "##[" anywhere on a line, and any of these files
		// may be printed in a workflow's log.
		if strings.Contains(line, "##[") {
			t.Errorf("%s: a line holds ##[: %q", name, line)
		}
		m := command.FindStringSubmatch(trimmed)
		switch {
		case strings.HasPrefix(trimmed, "::") && m == nil:
			t.Errorf("%s: a line starts with \"::\" and is no command of the checker: %q", name, line)
		case m != nil && token != "" && m[1] == token:
			token = ""
		case m != nil && token != "":
			t.Errorf("%s: a line starts with a command inside a stop-commands region: %q", name, line)
		case m != nil && m[1] == "stop-commands":
			token = strings.TrimPrefix(trimmed, "::stop-commands::")
		case m != nil && !isCheckerCommand(m[1]):
			t.Errorf("%s: a line starts with a command the checker does not write: %q", name, line)
		case m == nil && stopped && token == "" && strings.Contains(line, "HOSTILE"):
			t.Errorf("%s: text from a run outside a stop-commands region: %q", name, line)
		}
	}
	if token != "" {
		t.Errorf("%s: the stop-commands region %s is never closed", name, token)
	}
}

func isCheckerCommand(name string) bool {
	switch name {
	case "group", "endgroup", "error", "warning", "notice":
		return true
	}
	return false
}

func around(b []byte, i int) string {
	return string(b[max(i-40, 0):min(i+40, len(b))])
}

// TestHostilePolicyMetadata: rules and explain escape what a user
// policy's metadata says, as the reports do.
func TestHostilePolicyMetadata(t *testing.T) {
	policyDir := hostileRuns(t)
	// rules reads the folder as it is; a file name no loader takes is
	// another test's matter.
	if err := os.Remove(filepath.Join(policyDir, hostile+".rego")); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"rules", "--policy", policyDir}, {"rules", "--format", "json", "--policy", policyDir}, {"explain", "--policy", policyDir, "h3a.user.hostile.quote"}} {
		var stdout, stderr bytes.Buffer
		if code := run(t.Context(), args, &env{stdout: &stdout, stderr: &stderr, getenv: func(string) string { return "" }}); code != ExitPass {
			t.Fatalf("%v: exit %d: %s", args, code, stderr.String())
		}
		if !strings.Contains(stdout.String(), `raw \x1b[8m hidden`) && !strings.Contains(stdout.String(), `raw \u001b[8m hidden`) {
			t.Errorf("%v: the title's escape is not shown:\n%s", args, stdout.String())
		}
		checkOutput(t, args[0], stdout.Bytes(), false, false)
	}
}
