package report

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/h3a-check/h3a-check/internal/audit"
	"github.com/h3a-check/h3a-check/internal/finding"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/golden")

const failRun = "runs/20250929-134215-8b6f8b9a-7c9f-4c5e-8c6a-2f0f0d2e9c1a"

// fixture is two runs: one failing with every kind of finding (error,
// warning, info, waived, run-level, a user-policy rule outside the
// catalogue, text that needs escaping in every format, a message with
// mentions and addresses that only Markdown breaks), one passing with
// a name that needs escaping in a URI.
func fixture() *Input {
	hash := finding.HashMismatch.New("state/EVIDENCE_LOG.md", "%q: logged hash 1338bf06d8ca805a, file hashes to 8e5b985dd22afd86", "artifacts/executor/test_output_green.txt")
	hash.Line, hash.Column, hash.TaskID, hash.Gate = 19, 54, "T001", "G1"
	schemaErr := finding.SchemaViolation.New("state.json", "value must be one of \"pending\", \"done\": got \"<b>x</b> | 100%% :: a,b\"\n::error::injected")
	schemaErr.Line, schemaErr.Column, schemaErr.Pointer = 3, 15, "/status"
	bom := finding.BOM.New("state.json", "document starts with a UTF-8 byte order mark")
	bom.Line, bom.Column = 1, 1
	info := finding.NotEvaluated.New("validator_report.json", "schema check not evaluated: validator_report.json is not valid JSON")
	syntax := finding.JSONSyntax.New("validator_report.json", "unexpected end of input")
	syntax.Line, syntax.Column = 12, 1
	violation := finding.SchemaViolation.New("validator_report.json", "missing property \"verdicts\"")
	loose := finding.RunDirNameLoose.New("", "run directory name %q is not a run id", "x")
	waived := finding.MissingArtifact.New("state/EVIDENCE_LOG.md", "%q is logged but does not exist", "artifacts/validator/mutation_report.txt")
	waived.Line, waived.Column = 22, 3
	waived.Waived = finding.Waiver{Reason: "report regenerated in PR 42", Expires: "2099-12-31", Source: ".h3a-check.yaml:7"}
	user := finding.Finding{Rule: "h3a.user.team.owner", Category: finding.CategoryPolicy, Severity: finding.Warning,
		File: "state.json", Line: 2, Column: 3, Details: "task T001 has no owner: ask @octocat or @org/team (https://evil.example, www.evil.example, owner@evil.example, #12)", Remediation: "set metadata.owner", NeedsHuman: true}

	taskID := "T001"
	a := &audit.Audit{Run: failRun, RunID: "20250929-134215-8b6f8b9a-7c9f-4c5e-8c6a-2f0f0d2e9c1a", Layout: "h3a", TaskID: &taskID,
		Notes:    "3 of 4 logged artifacts verified",
		Findings: []finding.Finding{hash, schemaErr, bom, info, loose, waived, user, syntax, violation}}
	a.Stages = []audit.Stage{{Name: "G0", Status: audit.StagePassed}, {Name: "G1", Status: audit.StageFailed},
		{Name: "G2", Status: audit.StageNeedsHuman}, {Name: "G3", Status: audit.StagePending}}
	a.Events = []audit.Event{
		{Time: "2025-09-29T13:45:00Z", Stage: "G0_planning", Status: "PASSED", Agent: "planner"},
		{Time: "2025-09-29T14:10:00Z", Stage: "G1_implementation", Status: "FAILED", Agent: "exec\"]:::x\n```\n%%{init}%% <b>|"},
		{Time: "2025-09-29T14:50:00Z", Stage: "G2_validation", Status: "ESCALATED", Agent: "validator"},
	}
	a.Evidence = &audit.EvidenceCount{Verified: 3, Logged: 4}
	a.Finish(finding.Error, nil)
	b := &audit.Audit{Run: "runs/ünï code#1", RunID: "ünï code#1", Layout: "h3a", Notes: "0 of 0 logged artifacts verified",
		Stages: []audit.Stage{{Name: "G0", Status: audit.StagePassed}, {Name: "G1", Status: audit.StagePassed}, {Name: "G2", Status: audit.StagePassed}, {Name: "G3", Status: audit.StagePending}}}
	b.Finish(finding.Error, nil)
	audits := []*audit.Audit{a, b}
	return &Input{Tool: audit.Tool{Name: "h3a-check", Version: "v1.2.3"}, Gate: audit.Overall(audits), Audits: audits, Rules: finding.GoRules}
}

func fixtureOptions(t *testing.T) (Options, string, string) {
	dir := t.TempDir()
	outputs := filepath.Join(dir, "output")
	summaryFile := filepath.Join(dir, "summary")
	env := map[string]string{"GITHUB_OUTPUT": outputs, "GITHUB_STEP_SUMMARY": summaryFile}
	return Options{
		Root:      filepath.FromSlash("/repo"),
		WorkDir:   filepath.FromSlash("/repo/sub"),
		Getenv:    func(k string) string { return env[k] },
		Files:     map[string]string{"json": "out/audit.json", "sarif": "out/h3a.sarif"},
		StopToken: "STOP-TOKEN",
	}, outputs, summaryFile
}

// TestGolden renders the fixture in every format and compares with
// testdata/golden/<format>.golden (regenerate with -update and review).
func TestGolden(t *testing.T) {
	for _, name := range Formats() {
		t.Run(name, func(t *testing.T) {
			opts, outputs, summaryFile := fixtureOptions(t)
			f, err := Lookup(name)
			if err != nil {
				t.Fatal(err)
			}
			var buf bytes.Buffer
			if err := f.Write(&buf, fixture(), opts); err != nil {
				t.Fatal(err)
			}
			got := buf.String()
			if name == "github" {
				got += "--- GITHUB_STEP_SUMMARY\n" + readFile(t, summaryFile) + "--- GITHUB_OUTPUT\n" + readFile(t, outputs)
			}
			golden(t, filepath.Join("testdata", "golden", name+".golden"), got)
		})
	}
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func golden(t *testing.T, path, got string) {
	t.Helper()
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./internal/report -update to create it)", err)
	}
	if string(want) != got {
		t.Errorf("%s differs (rerun with -update and review the diff)\n--- want\n%s\n--- got\n%s", path, want, got)
	}
}

// sarifSchemas compiles the SARIF 2.1.0 schemas kept in testdata (see
// testdata/README.md for where each comes from).
func sarifSchemas(t *testing.T) map[string]*jsonschema.Schema {
	t.Helper()
	out := map[string]*jsonschema.Schema{}
	for _, file := range []string{"sarif-schema-2.1.0.json", "sarif-2.1.0-multitool.json"} {
		f, err := os.Open(filepath.Join("testdata", file))
		if err != nil {
			t.Fatal(err)
		}
		doc, err := jsonschema.UnmarshalJSON(f)
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		c := jsonschema.NewCompiler()
		c.AssertFormat()
		url := "https://h3a.invalid/" + file
		if err := c.AddResource(url, doc); err != nil {
			t.Fatal(err)
		}
		s, err := c.Compile(url)
		if err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		out[file] = s
	}
	return out
}

func validateSARIF(t *testing.T, schemas map[string]*jsonschema.Schema, data []byte) {
	t.Helper()
	for name, s := range schemas {
		v, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
		if err != nil {
			t.Fatalf("SARIF output is not JSON: %v", err)
		}
		if err := s.Validate(v); err != nil {
			t.Errorf("SARIF output does not validate against %s: %v", name, err)
		}
	}
}

// TestSARIFSchema: the output validates against the official schema, and
// a document known to be invalid does not (so the check can fail).
func TestSARIFSchema(t *testing.T) {
	schemas := sarifSchemas(t)
	var buf bytes.Buffer
	if err := SARIF(&buf, fixture(), Options{}); err != nil {
		t.Fatal(err)
	}
	validateSARIF(t, schemas, buf.Bytes())

	empty := &Input{Tool: audit.Tool{Name: "h3a-check", Version: "devel"}, Gate: audit.Pass}
	buf.Reset()
	if err := SARIF(&buf, empty, Options{}); err != nil {
		t.Fatal(err)
	}
	validateSARIF(t, schemas, buf.Bytes())
	if !strings.Contains(buf.String(), `"results": []`) || !strings.Contains(buf.String(), `"version": "0.0.0-devel"`) {
		t.Errorf("an empty check must still list results, and a development build has version 0.0.0-devel:\n%s", buf.String())
	}

	bad := strings.Replace(buf.String(), `"columnKind": "unicodeCodePoints"`, `"columnKind": "bytes"`, 1)
	for name, s := range schemas {
		v, _ := jsonschema.UnmarshalJSON(strings.NewReader(bad))
		if s.Validate(v) == nil {
			t.Errorf("%s accepted columnKind \"bytes\": the schema check cannot fail", name)
		}
	}
}

// TestSARIFContent checks what code scanning relies on, beyond the schema.
func TestSARIFContent(t *testing.T) {
	opts, _, _ := fixtureOptions(t)
	var buf bytes.Buffer
	if err := SARIF(&buf, fixture(), opts); err != nil {
		t.Fatal(err)
	}
	var log sarifLog
	if err := json.Unmarshal(buf.Bytes(), &log); err != nil {
		t.Fatal(err)
	}
	run := log.Runs[0]
	ids := map[string]int{}
	for i, r := range run.Tool.Driver.Rules {
		if _, dup := ids[r.ID]; dup {
			t.Errorf("rule %s listed twice", r.ID)
		}
		ids[r.ID] = i
	}
	if len(ids) != len(finding.GoRules)+1 {
		t.Errorf("%d rules, want the %d of the catalogue plus the user rule", len(ids), len(finding.GoRules))
	}
	for _, res := range run.Results {
		if i, ok := ids[res.RuleID]; !ok || i != res.RuleIndex {
			t.Errorf("result %s: ruleIndex %d, rule at %d (%v)", res.RuleID, res.RuleIndex, i, ok)
		}
	}
	var hash sarifResult
	for _, res := range run.Results {
		if res.RuleID == "h3a.integrity.hash_mismatch" {
			hash = res
		}
	}
	loc := hash.Locations[0].PhysicalLocation
	// The run was named relative to /repo/sub; code scanning needs the path from the repository root.
	if loc.ArtifactLocation.URI != "sub/"+failRun+"/state/EVIDENCE_LOG.md" || loc.ArtifactLocation.URIBaseID != "%SRCROOT%" ||
		loc.Region == nil || loc.Region.StartLine != 19 || loc.Region.StartColumn != 54 {
		t.Errorf("location %+v %+v", loc.ArtifactLocation, loc.Region)
	}
	if run.ColumnKind != "unicodeCodePoints" {
		t.Errorf("columnKind %q", run.ColumnKind)
	}
	var suppressed int
	for _, res := range run.Results {
		if len(res.Suppressions) > 0 {
			suppressed++
			if res.RuleID != "h3a.integrity.missing_artifact" || res.Suppressions[0].Status != "accepted" {
				t.Errorf("suppression on %s: %+v", res.RuleID, res.Suppressions)
			}
		}
	}
	if suppressed != 1 {
		t.Errorf("%d suppressed results, want the 1 waived finding", suppressed)
	}
}

func TestRuleNameAndURI(t *testing.T) {
	for in, want := range map[string]string{
		"h3a.integrity.hash_mismatch": "IntegrityHashMismatch",
		"h3a.user.team.owner":         "UserTeamOwner",
		"acme.é-rule":                 "AcmeÉRule",
		"h3a":                         "H3a",
	} {
		if got := ruleName(in); got != want {
			t.Errorf("ruleName(%q) = %q, want %q", in, got, want)
		}
	}
	for in, want := range map[string]string{
		"runs/a b/state.json": "runs/a%20b/state.json",
		"runs/ü#1/x:y?z":      "runs/%C3%BC%231/x%3Ay%3Fz",
		"runs/100%/a":         "runs/100%25/a",
	} {
		if got := escapeURI(in); got != want {
			t.Errorf("escapeURI(%q) = %q, want %q", in, got, want)
		}
	}
	for in, want := range map[string]string{"v1.2.3": "1.2.3", "1.0.0-rc.1": "1.0.0-rc.1", "devel": "", "v1.2": ""} {
		if got := semanticVersion(in); got != want {
			t.Errorf("semanticVersion(%q) = %q, want %q", in, got, want)
		}
	}
	for in, want := range map[string]string{"v1.2.3": "1.2.3", "devel": "0.0.0-devel", "": "0.0.0-devel", "2.0": "2.0", "my build_x": "0.0.0-my-build-x", "vx": "0.0.0-vx"} {
		if got := sarifToolVersion(in); got != want {
			t.Errorf("sarifToolVersion(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestJUnit: one suite per run, one case per catalogue rule plus the user
// rule and the gate, a failure per error finding, none for waived ones.
func TestJUnit(t *testing.T) {
	var buf bytes.Buffer
	if err := JUnit(&buf, fixture(), Options{}); err != nil {
		t.Fatal(err)
	}
	var doc junitSuites
	if err := xml.Unmarshal(buf.Bytes(), &doc); err != nil {
		t.Fatalf("not XML: %v\n%s", err, buf.String())
	}
	if len(doc.Suites) != 2 {
		t.Fatalf("%d suites", len(doc.Suites))
	}
	fail, pass := doc.Suites[0], doc.Suites[1]
	wantCases := len(finding.GoRules) + 2 // + user rule + gate
	if fail.Tests != wantCases || len(fail.Cases) != wantCases {
		t.Errorf("fail suite: %d tests, %d cases, want %d", fail.Tests, len(fail.Cases), wantCases)
	}
	failures := map[string]int{}
	for _, c := range fail.Cases {
		failures[c.Name] = len(c.Failures)
	}
	want := map[string]int{"h3a.integrity.hash_mismatch": 1, "h3a.schema.violation": 2, "h3a.schema.json_syntax": 1, "gate": 1,
		"h3a.integrity.missing_artifact": 0, "h3a.schema.bom": 0, "h3a.user.team.owner": 0}
	for name, n := range want {
		if failures[name] != n {
			t.Errorf("case %s: %d failures, want %d", name, failures[name], n)
		}
	}
	if fail.Failures != 4 || doc.Failures != 4 || pass.Failures != 0 || doc.Tests != 2*wantCases {
		t.Errorf("failures %d/%d/%d tests %d", fail.Failures, pass.Failures, doc.Failures, doc.Tests)
	}
}

// TestGitHubAnnotationBudget: errors first, then warnings, ten of each,
// then a notice counting the rest. Under --fail-level warning a warning
// is annotated as an error, in what the errors leave of their ten.
func TestGitHubAnnotationBudget(t *testing.T) {
	tests := []struct {
		name      string
		errors    int // findings of each severity
		warnings  int
		failLevel finding.Severity
		want      string // the annotations' levels
		notice    string
	}{
		{"default level", 13, 13, finding.Error,
			strings.Repeat("error,", 10) + strings.Repeat("warning,", 10) + "notice",
			"::notice title=h3a-check::3 more errors and 3 more warnings are not annotated: GitHub shows 10 of each per step. The log above lists every finding."},
		{"fail-level warning, warnings among the errors", 4, 13, finding.Warning,
			strings.Repeat("error,", 10) + "notice",
			"::notice title=h3a-check::0 more errors and 7 more warnings are not annotated: GitHub shows 10 of each per step, and a warning that fails the gate is annotated as an error. The log above lists every finding."},
		{"fail-level warning, errors alone past the budget", 13, 0, finding.Warning,
			strings.Repeat("error,", 10) + "notice",
			"::notice title=h3a-check::3 more errors and 0 more warnings are not annotated: GitHub shows 10 of each per step. The log above lists every finding."},
		{"fail-level warning, all fit", 4, 6, finding.Warning, strings.TrimSuffix(strings.Repeat("error,", 10), ","), ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			a := &audit.Audit{Run: "runs/r"}
			for i := 1; i <= max(tc.errors, tc.warnings); i++ {
				if i <= tc.warnings {
					w := finding.BOM.New("state.json", "warning %d", i)
					w.Line = i
					a.Findings = append(a.Findings, w)
				}
				if i <= tc.errors {
					e := finding.SchemaViolation.New("state.json", "error %d", i)
					e.Line = 100 + i
					a.Findings = append(a.Findings, e)
				}
			}
			a.Findings = append(a.Findings, finding.HashMismatch.New("x", "waived error"))
			a.Findings[len(a.Findings)-1].Waived = finding.Waiver{Reason: "r", Expires: "2099-01-01", Source: "c:1"}
			a.Finish(tc.failLevel, nil)
			in := &Input{Tool: audit.Tool{Name: "h3a-check"}, Gate: a.Gate, Audits: []*audit.Audit{a}}
			var buf bytes.Buffer
			if err := GitHub(&buf, in, Options{StopToken: "T"}); err != nil {
				t.Fatal(err)
			}
			var levels []string
			notice := ""
			for _, line := range strings.Split(buf.String(), "\n") {
				for _, l := range []string{"::error ", "::warning ", "::notice "} {
					if strings.HasPrefix(line, l) {
						levels = append(levels, strings.Trim(l, ": "))
					}
				}
				if strings.HasPrefix(line, "::notice ") {
					notice = line
				}
			}
			if strings.Join(levels, ",") != tc.want {
				t.Errorf("annotations %v, want %s", levels, tc.want)
			}
			if notice != tc.notice {
				t.Errorf("notice:\n%s\nwant:\n%s", notice, tc.notice)
			}
			if strings.Contains(buf.String(), "::error file=x") {
				t.Error("a waived finding was annotated")
			}
		})
	}
}

// TestGitHubOutsideActions: without GITHUB_OUTPUT and GITHUB_STEP_SUMMARY
// nothing is written to files and nothing panics.
func TestGitHubOutsideActions(t *testing.T) {
	t.Chdir(t.TempDir())
	var buf bytes.Buffer
	if err := GitHub(&buf, fixture(), Options{}); err != nil {
		t.Fatal(err)
	}
	ents, _ := os.ReadDir(".")
	if len(ents) != 0 {
		t.Errorf("files written outside Actions: %v", ents)
	}
	if !strings.Contains(buf.String(), "::stop-commands::h3a-check-") {
		t.Errorf("no random stop token:\n%s", buf.String())
	}
}

// TestGitHubStopsCommands: text quoted from the checked files is printed
// only while workflow commands are stopped.
func TestGitHubStopsCommands(t *testing.T) {
	var buf bytes.Buffer
	if err := GitHub(&buf, fixture(), Options{StopToken: "TOKEN"}); err != nil {
		t.Fatal(err)
	}
	stopped := false
	for _, line := range strings.Split(buf.String(), "\n") {
		switch line {
		case "::stop-commands::TOKEN":
			stopped = true
			continue
		case "::TOKEN::":
			stopped = false
			continue
		}
		if strings.HasPrefix(line, "::error::injected") && !stopped {
			t.Errorf("untrusted text printed while commands run: %q", line)
		}
	}
	if stopped {
		t.Error("commands never resumed")
	}
}

type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, os.ErrClosed }

// TestGitHubWriteErrors: a closed stdout or an unwritable output file is
// an error, not a panic from the actions library.
func TestGitHubWriteErrors(t *testing.T) {
	if err := GitHub(failingWriter{}, fixture(), Options{StopToken: "T"}); err == nil {
		t.Error("no error writing to a closed stream")
	}
	missing := filepath.Join(t.TempDir(), "no", "such", "dir", "out")
	opts := Options{StopToken: "T", Getenv: func(k string) string {
		if k == "GITHUB_OUTPUT" {
			return missing
		}
		return ""
	}}
	if err := GitHub(&bytes.Buffer{}, fixture(), opts); err == nil || !strings.Contains(err.Error(), "github actions") {
		t.Errorf("unwritable GITHUB_OUTPUT: %v", err)
	}
}

// TestSummaryLimit: thousands of runs with long names still give a
// summary under GitHub's 1 MiB, with a note of what was left out; the
// limit counts what the step already wrote.
func TestSummaryLimit(t *testing.T) {
	var audits []*audit.Audit
	for i := range 6000 {
		a := &audit.Audit{Run: "runs/" + strings.Repeat("r", 200) + "-" + strings.Repeat("x", i%7), Gate: audit.Pass, Notes: "ok"}
		audits = append(audits, a)
	}
	in := &Input{Tool: audit.Tool{Name: "h3a-check"}, Gate: audit.Pass, Audits: audits}
	s := summary(in, Options{}, pictureLimit)
	if len(s) > pictureLimit || len(s) < pictureLimit-1000 {
		t.Errorf("summary is %d bytes: want just under %d", len(s), pictureLimit)
	}
	if !strings.Contains(s, "| 6000 passing runs | ✅ pass |") || !regexp.MustCompile(`\(\d+ named\)`).MatchString(s) ||
		!regexp.MustCompile(`[1-9]\d* of 6000 passing runs by name`).MatchString(s) {
		t.Errorf("the passing runs are not folded into one count with a truthful note: ...%s", s[len(s)-300:])
	}

	file := filepath.Join(t.TempDir(), "summary")
	if err := os.WriteFile(file, bytes.Repeat([]byte("x"), 1<<19), 0o644); err != nil {
		t.Fatal(err)
	}
	env := func(k string) string {
		if k == "GITHUB_STEP_SUMMARY" {
			return file
		}
		return ""
	}
	if err := GitHub(&bytes.Buffer{}, in, Options{Getenv: env, StopToken: "T"}); err != nil {
		t.Fatal(err)
	}
	if info, _ := os.Stat(file); info.Size() >= 1<<20 {
		t.Errorf("step summary grew to %d bytes", info.Size())
	}
	if s := summary(in, Options{}, 10); s != "" {
		t.Errorf("no room: got %q, want nothing", s)
	}
	full := filepath.Join(t.TempDir(), "full")
	if err := os.WriteFile(full, bytes.Repeat([]byte("x"), summaryLimit), 0o644); err != nil {
		t.Fatal(err)
	}
	fullEnv := func(k string) string {
		if k == "GITHUB_STEP_SUMMARY" {
			return full
		}
		return ""
	}
	if err := GitHub(&bytes.Buffer{}, in, Options{Getenv: fullEnv, StopToken: "T"}); err != nil {
		t.Fatal(err)
	}
	if info, _ := os.Stat(full); info.Size() != summaryLimit {
		t.Errorf("a full summary grew from %d to %d bytes", summaryLimit, info.Size())
	}
}

func TestMDCell(t *testing.T) {
	for in, want := range map[string]string{
		"a|b":                    `a\|b`,
		"<script>x</script> & y": "&lt;script&gt;x&lt;/script&gt; &amp; y",
		"line\nbreak\r\n":        `line\\nbreak\\r\\n`,
		"*bold* _em_ [l](u) `c`": `\*bold\* \_em\_ \[l\](u) \` + "`c\\`",
	} {
		if got := mdCell(in); got != want {
			t.Errorf("mdCell(%q) = %q, want %q", in, got, want)
		}
	}
	long := strings.Repeat("é", summaryCell+5)
	if got := mdCell(long); len([]rune(got)) != summaryCell+1 {
		t.Errorf("long cell kept %d characters", len([]rune(got)))
	}
}

func TestRepoPath(t *testing.T) {
	o := Options{Root: filepath.FromSlash("/repo"), WorkDir: filepath.FromSlash("/repo/sub")}
	tests := []struct {
		o               Options
		run, file, want string
	}{
		{o, "runs/r", "state.json", "sub/runs/r/state.json"},
		{o, "../runs/r", "state.json", "runs/r/state.json"},
		{o, "/repo/runs/r", "", "runs/r"},
		{o, "/elsewhere/r", "a.json", "/elsewhere/r/a.json"},
		{o, "../../outside", "a", "../../outside/a"},
		{Options{}, "runs/r", "a", "runs/r/a"},
	}
	for _, tc := range tests {
		if got := tc.o.repoPath(tc.run, tc.file); got != tc.want {
			t.Errorf("repoPath(%q, %q) = %q, want %q", tc.run, tc.file, got, tc.want)
		}
	}
}

// TestRepoPathsIsTrue: a format says it names files relative to the
// repository root exactly when its output changes with the root, so the
// caller finds the root for the formats that use it, and only for them.
func TestRepoPathsIsTrue(t *testing.T) {
	for _, name := range Formats() {
		f, err := Lookup(name)
		if err != nil {
			t.Fatal(err)
		}
		render := func(root string) string {
			opts, _, _ := fixtureOptions(t)
			opts.Root = filepath.FromSlash(root)
			var buf bytes.Buffer
			if err := f.Write(&buf, fixture(), opts); err != nil {
				t.Fatal(err)
			}
			return buf.String()
		}
		if uses := render("/repo") != render("/repo/sub"); uses != f.RepoPaths {
			t.Errorf("%s: output depends on the repository root: %v, but RepoPaths is %v", name, uses, f.RepoPaths)
		}
	}
}

// TestSARIFHelpMarkdown: a rule's help in Markdown shows its remediation
// as text, mentioning and linking no one, and names the rule in a code
// span that its id cannot end.
func TestSARIFHelpMarkdown(t *testing.T) {
	r := finding.Rule{ID: "h3a.user.x` @octocat `y", Category: finding.CategoryPolicy, Severity: finding.Warning,
		Remediation: "ask @org/team, see https://evil.example or <b>www.evil.example</b>; fixes #1"}
	help := sarifRuleOf(r).Help
	want := `ask @<!-- -->org/team, see https:<!-- -->//evil.example or &lt;b&gt;www<!-- -->.evil.example&lt;/b&gt;; fixes \#<!-- -->1` +
		"\n\nRun ``h3a-check explain h3a.user.x` @octocat `y`` for the full documentation."
	if help == nil || help.Markdown != want {
		t.Errorf("help = %+v, want markdown %q", help, want)
	}
	if help != nil && help.Text != r.Remediation {
		t.Errorf("help text %q, want the remediation as it is", help.Text)
	}
}

// TestSARIFLevel: a result's level says what the gate did with its
// finding: error when the finding's severity (after overrides) fails the
// gate at the check's fail level, else the severity's level; the severity
// itself stays in properties.severity and the rule keeps its own level as
// its default. A waived finding has the level it would have without its
// waiver, and an accepted suppression.
func TestSARIFLevel(t *testing.T) {
	tests := []struct {
		name      string
		rule      finding.Rule
		severity  finding.Severity // the finding's, after overrides
		failLevel finding.Severity
		waived    bool
		wantLevel string
		wantGate  string
	}{
		{"error at the default level", finding.HashMismatch, finding.Error, finding.Error, false, "error", audit.Fail},
		{"warning at the default level", finding.BOM, finding.Warning, finding.Error, false, "warning", audit.Pass},
		{"info at the default level", finding.NotEvaluated, finding.Info, finding.Error, false, "note", audit.Pass},
		{"warning at fail-level warning", finding.BOM, finding.Warning, finding.Warning, false, "error", audit.Fail},
		{"error at fail-level warning", finding.HashMismatch, finding.Error, finding.Warning, false, "error", audit.Fail},
		{"info at fail-level warning", finding.NotEvaluated, finding.Info, finding.Warning, false, "note", audit.Pass},
		{"info never fails, even at level info", finding.NotEvaluated, finding.Info, finding.Info, false, "note", audit.Pass},
		{"an error made a warning", finding.HashMismatch, finding.Warning, finding.Error, false, "warning", audit.Pass},
		{"an error made a warning, at fail-level warning", finding.HashMismatch, finding.Warning, finding.Warning, false, "error", audit.Fail},
		{"an error made info, at fail-level warning", finding.HashMismatch, finding.Info, finding.Warning, false, "note", audit.Pass},
		{"a warning made an error", finding.BOM, finding.Error, finding.Error, false, "error", audit.Fail},
		{"waived error", finding.HashMismatch, finding.Error, finding.Error, true, "error", audit.Pass},
		{"waived warning at the default level", finding.BOM, finding.Warning, finding.Error, true, "warning", audit.Pass},
		{"waived warning at fail-level warning", finding.BOM, finding.Warning, finding.Warning, true, "error", audit.Pass},
	}
	schemas := sarifSchemas(t)
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := tc.rule.New("state.json", "something about the run")
			f.Severity = tc.severity
			if tc.waived {
				f.Waived = finding.Waiver{Reason: "accepted", Expires: "2099-12-31", Source: ".h3a-check.yaml:3"}
			}
			a := &audit.Audit{Run: failRun, Findings: []finding.Finding{f}}
			a.Finish(tc.failLevel, nil)
			if a.Gate != tc.wantGate {
				t.Fatalf("gate %s, want %s", a.Gate, tc.wantGate)
			}
			in := &Input{Tool: audit.Tool{Name: "h3a-check", Version: "v1.2.3"}, Gate: a.Gate, Audits: []*audit.Audit{a}, Rules: finding.GoRules}
			var buf bytes.Buffer
			if err := SARIF(&buf, in, Options{}); err != nil {
				t.Fatal(err)
			}
			validateSARIF(t, schemas, buf.Bytes())
			var log sarifLog
			if err := json.Unmarshal(buf.Bytes(), &log); err != nil {
				t.Fatal(err)
			}
			run := log.Runs[0]
			if len(run.Results) != 1 {
				t.Fatalf("%d results, want 1", len(run.Results))
			}
			res := run.Results[0]
			if res.Level != tc.wantLevel {
				t.Errorf("level %q, want %q", res.Level, tc.wantLevel)
			}
			if got := res.Properties["severity"]; got != tc.severity.String() {
				t.Errorf("properties.severity %v, want %q", got, tc.severity)
			}
			if got, want := run.Tool.Driver.Rules[res.RuleIndex].DefaultConfiguration.Level, sarifLevel(tc.rule.Severity); got != want {
				t.Errorf("rule %s: default level %q, want the rule's own %q", tc.rule.ID, got, want)
			}
			if suppressed := len(res.Suppressions) > 0; suppressed != tc.waived {
				t.Errorf("suppressions %+v, waived %v", res.Suppressions, tc.waived)
			}
			// An unsuppressed error is what fails a gate, and nothing else does.
			if blocks := res.Level == "error" && len(res.Suppressions) == 0; blocks != (a.Gate == audit.Fail) {
				t.Errorf("level %q, %d suppressions, but the gate is %s", res.Level, len(res.Suppressions), a.Gate)
			}
		})
	}
}
