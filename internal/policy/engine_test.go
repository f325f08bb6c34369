package policy

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/h3a-check/h3a-check/internal/finding"
	"github.com/h3a-check/h3a-check/policies"
	"github.com/open-policy-agent/opa/v1/ast"
)

// userDir writes files into a fresh --policy folder.
func userDir(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, src := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// rule renders a user rule with metadata; body builds f.
func rule(kind, custom, body string) string {
	return fmt.Sprintf(`
# METADATA
# title: A user rule
# description: Used by the tests.
# custom:
%s
%s contains f if {
%s
}
`, custom, kind, body)
}

const header = "package h3a.user.team\n\nimport data.h3a.lib\n"

func load(t *testing.T, opts Options) *Engine {
	t.Helper()
	e, err := Load(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// TestShippedRulesHaveMetadata fails the build when a shipped rule lacks any
// piece of its documentation, or an id is malformed or taken twice.
func TestShippedRulesHaveMetadata(t *testing.T) {
	e := load(t, Options{Strict: true})
	rules := e.Rules()
	if len(rules) < 25 {
		t.Fatalf("%d shipped rules, expected the gate, evidence, retry, traceability and secret rules", len(rules))
	}
	idPattern := regexp.MustCompile(`^h3a\.[a-z_]+\.[a-z0-9_]+$`)
	for _, r := range rules {
		what := fmt.Sprintf("%s (%s)", r.ID, r.Location)
		if r.User || !strings.HasPrefix(r.Location, "policies/") {
			t.Errorf("%s: not a shipped rule", what)
		}
		if !idPattern.MatchString(r.ID) || !strings.HasPrefix(r.ID, "h3a."+string(r.Category)+".") {
			t.Errorf("%s: id should be h3a.<category>.<name> with its category %q", what, r.Category)
		}
		if r.Title == r.ID || r.Title == "" || r.Description == "" || r.Remediation == "" {
			t.Errorf("%s: title %q, description %q, remediation %q: all three are required", what, r.Title, r.Description, r.Remediation)
		}
	}
	// Severity and category must be written, not defaulted: read the raw metadata.
	mods, problems := parseAll(nil, nil, false, false, Capabilities())
	if len(problems) > 0 {
		t.Fatal(problems)
	}
	ids := map[string]string{}
	for _, m := range mods {
		for _, a := range m.parsed.Annotations {
			if a.Scope != "rule" {
				continue
			}
			id, _ := a.Custom["id"].(string)
			for _, key := range []string{"id", "category", "severity", "remediation"} {
				if s, _ := a.Custom[key].(string); strings.TrimSpace(s) == "" {
					t.Errorf("%s: rule metadata lacks custom.%s", at(a.Location), key)
				}
			}
			if prev, dup := ids[id]; dup {
				t.Errorf("%s: id %q also used at %s", at(a.Location), id, prev)
			}
			ids[id] = at(a.Location)
		}
	}
	if len(ids) != len(rules) {
		t.Errorf("%d metadata blocks with an id, %d rules: every block must sit right above its rule", len(ids), len(rules))
	}
}

// h3aPackages hold the rules of the h3a layout (the contract layout's and
// the credential scan of every layout live in other packages).
var h3aPackages = []string{
	"h3a.rules.gates", "h3a.rules.ledger", "h3a.rules.evidence",
	"h3a.rules.references", "h3a.rules.retries", "h3a.rules.traceability",
}

// h3aDocuments are the documents an h3a rule may cite as its basis.
var h3aDocuments = []string{"h3a-state-specification.md", "gate_framework.md", "handoff_contracts.md"}

// TestH3ARulesCiteTheirBasis: every rule of the h3a layout says in its
// description which document (and section) it enforces, and each of the
// h3a packages has rules, so a renamed package cannot slip past the test.
func TestH3ARulesCiteTheirBasis(t *testing.T) {
	e := load(t, Options{})
	perPackage := map[string]int{}
	for _, r := range e.Rules() {
		if !slices.Contains(h3aPackages, r.Package) {
			continue
		}
		perPackage[r.Package]++
		if !slices.ContainsFunc(h3aDocuments, func(doc string) bool { return strings.Contains(r.Description, doc+", ") }) {
			t.Errorf("%s (%s): the description names none of %q followed by its section", r.ID, r.Location, h3aDocuments)
		}
	}
	for _, pkg := range h3aPackages {
		if perPackage[pkg] == 0 {
			t.Errorf("package %s has no rule", pkg)
		}
	}
}

func TestCapabilities(t *testing.T) {
	caps := Capabilities()
	if caps.AllowNet == nil || len(caps.AllowNet) != 0 {
		t.Errorf("AllowNet = %#v, want empty and not nil", caps.AllowNet)
	}
	have := map[string]bool{}
	for _, b := range caps.Builtins {
		have[b.Name] = true
		if b.Nondeterministic {
			t.Errorf("nondeterministic builtin %s allowed", b.Name)
		}
	}
	for _, name := range []string{"http.send", "net.lookup_ip_addr", "opa.runtime", "time.now_ns", "rand.intn", "uuid.rfc4122",
		"io.jwt.encode_sign", "io.jwt.decode_verify", "io.jwt.verify_hs256", "json.match_schema", "json.verify_schema",
		"crypto.x509.parse_and_verify_certificates"} {
		if have[name] {
			t.Errorf("%s allowed", name)
		}
	}
	for _, name := range []string{"print", "sprintf", "regex.match", "time.parse_rfc3339_ns", "json.patch"} {
		if !have[name] {
			t.Errorf("%s removed, the policies need it", name)
		}
	}
}

// TestLoadRefuses: each broken user folder is refused with exit-code-2
// problems that name the file and line.
func TestLoadRefuses(t *testing.T) {
	t.Parallel() // each case compiles the shipped rules with its own
	good := rule("deny", "#   id: h3a.user.team.x", `	f := lib.finding(rego.metadata.rule(), {"msg": "x"})`)
	tests := []struct {
		name  string
		files map[string]string
		want  string
	}{
		{"shipped package", map[string]string{"a.rego": "package h3a.rules.gates\n" + good}, "a.rego:1: package h3a.rules.gates is not allowed in a policy folder"},
		{"bare user package", map[string]string{"a.rego": "package h3a.user\nimport data.h3a.lib\n" + good}, "package h3a.user is not allowed"},
		{"lib package", map[string]string{"a.rego": "package h3a.lib\n\nx := 1\n"}, "package h3a.lib is not allowed"},
		{"model package", map[string]string{"a.rego": "package h3a.model\n\nlimit := 99\n"}, "package h3a.model is not allowed"},
		{"test file elsewhere", map[string]string{"a.rego": header + good, "a_test.rego": "package h3a.rules.gates\n\ntest_x if true\n"}, ""},
		{"empty folder", map[string]string{"README.md": "no rules"}, "no .rego file in this policy folder"},
		{"no rule", map[string]string{"helpers.rego": "package h3a.user.team\n\nx := 1\n"}, "no deny or warn rule in this policy folder"},
		{"only tests", map[string]string{"a_test.rego": "package h3a.user.team_test\n\ntest_x if true\n"}, "no deny or warn rule in this policy folder"},
		{"no metadata", map[string]string{"a.rego": header + "deny contains f if {\n\tf := lib.finding(rego.metadata.rule(), {\"msg\": \"x\"})\n}\n"}, "a.rego:4: deny rule has no # METADATA block"},
		{"no id", map[string]string{"a.rego": header + rule("deny", "#   category: gates", `	f := {"msg": "x"}`)}, "deny rule has no custom.id"},
		{"bad category", map[string]string{"a.rego": header + rule("warn", "#   id: h3a.user.team.x\n#   category: style", `	f := lib.finding(rego.metadata.rule(), {"msg": "x"})`)}, `custom.category "style" is not one of`},
		{"bad severity", map[string]string{"a.rego": header + rule("warn", "#   id: h3a.user.team.x\n#   severity: fatal", `	f := lib.finding(rego.metadata.rule(), {"msg": "x"})`)}, `custom.severity "fatal"`},
		{"bad traceability", map[string]string{"a.rego": header + rule("warn", "#   id: h3a.user.team.x\n#   traceability: yes", `	f := lib.finding(rego.metadata.rule(), {"msg": "x"})`)}, `custom.traceability "yes"`},
		{"remediation not text", map[string]string{"a.rego": header + rule("warn", "#   id: h3a.user.team.x\n#   remediation: [a]", `	f := lib.finding(rego.metadata.rule(), {"msg": "x"})`)}, "custom.remediation must be text"},
		{"complete rule", map[string]string{"a.rego": header + "\n# METADATA\n# custom:\n#   id: h3a.user.team.x\ndeny := {\"msg\": \"x\"}\n"}, `deny must be a set of findings: write "deny contains f if { ... }"`},
		{"no metadata call", map[string]string{"a.rego": header + rule("deny", "#   id: h3a.user.team.x", `	f := {"msg": "x", "rule": "h3a.user.team.x"}`)}, "does not build its findings from rego.metadata.rule()"},
		{"id of a shipped rule", map[string]string{"a.rego": header + rule("deny", "#   id: h3a.gates.order", `	f := lib.finding(rego.metadata.rule(), {"msg": "x"})`)}, `rule id "h3a.gates.order" is already used by policies/gates.rego:`},
		{"id of a Go rule", map[string]string{"a.rego": header + rule("deny", "#   id: h3a.schema.violation", `	f := lib.finding(rego.metadata.rule(), {"msg": "x"})`)}, "already used by a rule built into the checker"},
		{"duplicate id", map[string]string{"a.rego": header + good + good}, `rule id "h3a.user.team.x" is already used by`},
		{"network", map[string]string{"a.rego": header + rule("deny", "#   id: h3a.user.team.x", `	r := http.send({"method": "get", "url": "https://example.com"})
	f := lib.finding(rego.metadata.rule(), {"msg": r.body})`)}, "a.rego:11: rego_type_error: undefined function http.send"},
		{"clock", map[string]string{"a.rego": header + rule("deny", "#   id: h3a.user.team.x", `	time.now_ns() > 0
	f := lib.finding(rego.metadata.rule(), {"msg": "x"})`)}, "undefined function time.now_ns"},
		{"environment", map[string]string{"a.rego": header + rule("deny", "#   id: h3a.user.team.x", `	opa.runtime().env.HOME
	f := lib.finding(rego.metadata.rule(), {"msg": "x"})`)}, "undefined function opa.runtime"},
		{"rego v0", map[string]string{"a.rego": "package h3a.user.team\n\ndeny[x] { x := 1 }\n"}, "a.rego:3: rego_parse_error"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := userDir(t, tc.files)
			_, err := Load(context.Background(), Options{Dirs: []string{dir}})
			if tc.want == "" {
				if err != nil {
					t.Fatalf("unexpected error: %v", err)
				}
				return
			}
			var ce *CompileError
			if !errors.As(err, &ce) {
				t.Fatalf("err = %v, want a *CompileError", err)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error does not mention %q:\n%v", tc.want, err)
			}
			if !strings.Contains(err.Error(), dir) {
				t.Errorf("error does not name the folder %s:\n%v", dir, err)
			}
		})
	}
}

func TestLoadRefusesBadFolders(t *testing.T) {
	file := filepath.Join(t.TempDir(), "x.rego")
	if err := os.WriteFile(file, []byte("package h3a.user.x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ dir, want string }{
		{filepath.Join(t.TempDir(), "missing"), "cannot read the policy folder"},
		{file, "expects a folder of .rego files"},
	} {
		_, err := Load(context.Background(), Options{Dirs: []string{tc.dir}})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err = %v, want %q", tc.dir, err, tc.want)
		}
	}
}

// TestLoadRefusesWhatAFolderMustNotHold: a policy folder read from the disk
// is held to what a folder read at a base is: a link in it (to a folder of
// rules, to a file), a .rego file that is not a regular file (a FIFO would
// block the read), one over the size limit, or too many files are each an
// error naming the folder, never a folder loaded in part, a hang or a
// file read without end.
func TestLoadRefusesWhatAFolderMustNotHold(t *testing.T) {
	good := header + rule("deny", "#   id: h3a.user.team.always", `	f := lib.finding(rego.metadata.rule(), {"msg": "always"})`)
	elsewhere := userDir(t, map[string]string{"always.rego": good})
	for _, tc := range []struct {
		name string
		make func(t *testing.T, dir string) error
		want string
	}{
		{"a linked folder of rules", func(t *testing.T, dir string) error { return os.Symlink(elsewhere, filepath.Join(dir, "sub")) }, "sub is a symbolic link"},
		{"a linked rule file", func(t *testing.T, dir string) error {
			return os.Symlink(filepath.Join(elsewhere, "always.rego"), filepath.Join(dir, "z.rego"))
		}, "z.rego is a symbolic link"},
		{"a FIFO named .rego", func(t *testing.T, dir string) error { return mkfifo(filepath.Join(dir, "z.rego")) }, "z.rego is not a regular file"},
		{"a file over the limit", func(t *testing.T, dir string) error {
			return os.WriteFile(filepath.Join(dir, "big.rego"), []byte("package h3a.user.big\n"+strings.Repeat("# padding\n", maxPolicyFileSize/10+1)), 0o644)
		}, "larger than 1048576 bytes"},
		{"too many files", func(t *testing.T, dir string) error {
			for i := range maxPolicyFiles {
				if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("note%05d.txt", i)), nil, 0o644); err != nil {
					return err
				}
			}
			return nil
		}, "holds more than 10000 files"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := userDir(t, map[string]string{"team.rego": good})
			if err := tc.make(t, dir); err != nil {
				t.Skipf("cannot make the folder here: %v", err)
			}
			done := make(chan error, 1)
			go func() { _, err := Load(context.Background(), Options{Dirs: []string{dir}}); done <- err }()
			select {
			case err := <-done:
				if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), dir) {
					t.Errorf("err = %v, want %q naming %s", err, tc.want, dir)
				}
			case <-time.After(time.Minute):
				t.Fatal("Load did not return within a minute")
			}
		})
	}
}

// TestEvaluationLeftBehindPastTheLimit: an evaluation that does not stop
// at its deadline (a built-in that never looks at it) is left running a
// second past the limit, and the run gets the timeout finding.
func TestEvaluationLeftBehindPastTheLimit(t *testing.T) {
	release := make(chan struct{})
	defer close(release)
	evaluate = func(*Engine, context.Context, ast.Value) Outcome {
		<-release
		return Outcome{Evaluated: true}
	}
	defer func() { evaluate = (*Engine).evalBounded }()
	start := time.Now()
	out := load(t, Options{Timeout: 50 * time.Millisecond}).Eval(context.Background(), "run", minimal())
	if elapsed := time.Since(start); elapsed > abandonAfter+10*time.Second {
		t.Errorf("Eval returned after %s", elapsed)
	}
	if out.Evaluated || len(out.Findings) != 1 || out.Findings[0].Rule != Timeout.ID || !strings.Contains(out.Findings[0].Details, "left running") {
		t.Fatalf("outcome %+v, want one %s saying the evaluation was left running", out, Timeout.ID)
	}
}

// minimal is an input on which no shipped rule fires.
func minimal() map[string]any {
	return map[string]any{
		"run":  map[string]any{"id": "r", "layout": "h3a", "dir": "r", "dir_is_run_id": false},
		"docs": map[string]any{}, "files": map[string]any{}, "evidence": map[string]any{}, "tree": []any{},
		"params": map[string]any{"max_iterations": 2},
	}
}

func evalUser(t *testing.T, src string, opts Options) Outcome {
	t.Helper()
	opts.Dirs = []string{userDir(t, map[string]string{"team.rego": header + src})}
	return load(t, opts).Eval(context.Background(), "run-1", minimal())
}

func TestUserRuleFindings(t *testing.T) {
	src := rule("deny", "#   id: h3a.user.team.always", `	f := lib.finding(rego.metadata.rule(), {"msg": "always", "file": "state.json", "pointer": "/run_id", "gate": "G1", "task_id": "T001"})`) +
		rule("warn", "#   id: h3a.user.team.soft\n#   category: evidence\n#   remediation: do it", `	f := lib.finding(rego.metadata.rule(), {"msg": "soft", "file": "state/GATES_LEDGER.md", "line": 4, "column": 2, "needs_human": true})`) +
		rule("warn", "#   id: h3a.user.team.loud\n#   severity: error", `	f := lib.finding(rego.metadata.rule(), {"msg": "loud"})`) +
		rule("warn", "#   id: h3a.user.team.own_fix\n#   remediation: the general advice", `	f := lib.finding(rego.metadata.rule(), {"msg": "fixable", "remediation": " add T002 to ROADMAP.md "})`) +
		rule("deny", "#   id: h3a.user.team.lenient", `	f := lib.finding(rego.metadata.rule(), {"msg": "drifted", "severity": "warning"})`)
	out := evalUser(t, src, Options{})
	if !out.Evaluated {
		t.Fatalf("not evaluated: %+v", out.Findings)
	}
	want := map[string]finding.Finding{
		"h3a.user.team.always": {Rule: "h3a.user.team.always", Category: finding.CategoryPolicy, Severity: finding.Error,
			File: "state.json", Pointer: "/run_id", Details: "always", Gate: "G1", TaskID: "T001"},
		"h3a.user.team.soft": {Rule: "h3a.user.team.soft", Category: finding.CategoryEvidence, Severity: finding.Warning,
			File: "state/GATES_LEDGER.md", Line: 4, Column: 2, Details: "soft", Remediation: "do it", NeedsHuman: true},
		"h3a.user.team.loud": {Rule: "h3a.user.team.loud", Category: finding.CategoryPolicy, Severity: finding.Error, Details: "loud"},
		"h3a.user.team.own_fix": {Rule: "h3a.user.team.own_fix", Category: finding.CategoryPolicy, Severity: finding.Warning,
			Details: "fixable", Remediation: "add T002 to ROADMAP.md"},
		"h3a.user.team.lenient": {Rule: "h3a.user.team.lenient", Category: finding.CategoryPolicy, Severity: finding.Warning, Details: "drifted"},
	}
	if len(out.Findings) != len(want) {
		t.Fatalf("%d findings, want %d: %+v", len(out.Findings), len(want), out.Findings)
	}
	for _, f := range out.Findings {
		if f != want[f.Rule] {
			t.Errorf("got  %+v\nwant %+v", f, want[f.Rule])
		}
	}
}

// TestBadResults: elements that break the contract become findings, never
// silently dropped and never half-trusted.
func TestBadResults(t *testing.T) {
	t.Parallel() // each case compiles the shipped rules with its own
	tests := []struct{ name, body, want string }{
		{"no rule id", `	_ := rego.metadata.rule()
	f := {"msg": "x"}`, `names no rule (no "rule" field)`},
		{"no msg", `	f := lib.finding(rego.metadata.rule(), {"file": "state.json"})`, `has no "msg" text`},
		{"not an object", `	_ := rego.metadata.rule()
	f := "just text"`, `is the string "just text", expected an object`},
		{"unknown field", `	f := lib.finding(rego.metadata.rule(), {"msg": "x", "pointr": "/a"})`, `unknown field "pointr"`},
		{"line as text", `	f := lib.finding(rego.metadata.rule(), {"msg": "x", "line": "4"})`, `"line" is the string "4", expected a whole number`},
		{"negative column", `	f := lib.finding(rego.metadata.rule(), {"msg": "x", "column": -1})`, `"column" is the number -1`},
		{"file outside the run", `	f := lib.finding(rego.metadata.rule(), {"msg": "x", "file": "../etc/passwd"})`, `"file" "../etc/passwd" is not a path inside the run`},
		{"file that is the run", `	f := lib.finding(rego.metadata.rule(), {"msg": "x", "file": "."})`, `"file" "." is not a path inside the run`},
		{"file through a dot", `	f := lib.finding(rego.metadata.rule(), {"msg": "x", "file": "./state.json"})`, `"file" "./state.json" is not a path inside the run`},
		{"file with a trailing slash", `	f := lib.finding(rego.metadata.rule(), {"msg": "x", "file": "state/"})`, `"file" "state/" is not a path inside the run`},
		{"file with an empty segment", `	f := lib.finding(rego.metadata.rule(), {"msg": "x", "file": "state//GATES_LEDGER.md"})`, `"file" "state//GATES_LEDGER.md" is not a path inside the run`},
		{"file not text", `	f := lib.finding(rego.metadata.rule(), {"msg": "x", "file": 3})`, `"file" is the number 3, expected a string`},
		{"pointer without slash", `	f := lib.finding(rego.metadata.rule(), {"msg": "x", "pointer": "run_id"})`, `"pointer" "run_id" is not a JSON pointer`},
		{"needs_human not bool", `	f := lib.finding(rego.metadata.rule(), {"msg": "x", "needs_human": "yes"})`, `"needs_human" is the string "yes"`},
		{"remediation not text", `	f := lib.finding(rego.metadata.rule(), {"msg": "x", "remediation": ["a"]})`, `"remediation" is an array, expected a string`},
		{"empty remediation", `	f := lib.finding(rego.metadata.rule(), {"msg": "x", "remediation": " "})`, `"remediation" is empty`},
		{"unknown severity", `	f := lib.finding(rego.metadata.rule(), {"msg": "x", "severity": "fatal"})`, `"severity" is the string "fatal", expected "error", "warning" or "info"`},
		{"severity not text", `	f := lib.finding(rego.metadata.rule(), {"msg": "x", "severity": 2})`, `"severity" is the number 2, expected`},
		{"another rule's id", `	_ := rego.metadata.rule()
	f := {"msg": "x", "rule": "h3a.gates.order"}`, `names rule "h3a.gates.order", which is a deny rule of package h3a.rules.gates`},
		{"unknown id", `	_ := rego.metadata.rule()
	f := {"msg": "x", "rule": "h3a.user.team.nope"}`, `names rule "h3a.user.team.nope", which no # METADATA block`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			out := evalUser(t, rule("deny", "#   id: h3a.user.team.x", tc.body), Options{})
			if len(out.Findings) != 1 || out.Findings[0].Rule != BadResult.ID {
				t.Fatalf("findings %+v, want one %s", out.Findings, BadResult.ID)
			}
			if got := out.Findings[0].Details; !strings.Contains(got, tc.want) {
				t.Errorf("details %q do not mention %q", got, tc.want)
			}
		})
	}
}

// TestBuiltinErrorIsAFinding: a failing builtin must not look like a rule
// that did not fire; the other rules still report.
func TestBuiltinErrorIsAFinding(t *testing.T) {
	src := rule("deny", "#   id: h3a.user.team.number", `	n := to_number(input.run.dir)
	f := lib.finding(rego.metadata.rule(), {"msg": sprintf("%v", [n])})`) +
		rule("deny", "#   id: h3a.user.team.fine", `	f := lib.finding(rego.metadata.rule(), {"msg": "fine"})`)
	out := evalUser(t, src, Options{})
	var rules []string
	for _, f := range out.Findings {
		rules = append(rules, f.Rule)
		if f.Rule == BuiltinError.ID && !strings.Contains(f.Details, "team.rego:11") {
			t.Errorf("builtin error does not name the policy line: %q", f.Details)
		}
	}
	if got := strings.Join(rules, " "); got != BuiltinError.ID+" h3a.user.team.fine" {
		t.Errorf("rules %q, want the builtin error and the other rule's finding", got)
	}
}

func TestEvalConflictIsAFinding(t *testing.T) {
	src := "\nx := 1 if input.run\n\nx := 2 if input.run\n" + rule("deny", "#   id: h3a.user.team.x", `	x == 1
	f := lib.finding(rego.metadata.rule(), {"msg": "x"})`)
	out := evalUser(t, src, Options{})
	if out.Evaluated || len(out.Findings) != 1 || out.Findings[0].Rule != EvalError.ID {
		t.Fatalf("outcome %+v, want one %s and not evaluated", out, EvalError.ID)
	}
	if !strings.Contains(out.Findings[0].Details, "eval_conflict_error") {
		t.Errorf("details %q do not say what failed", out.Findings[0].Details)
	}
}

// TestTimeout: a rule that would run for minutes ends as a finding in about
// the time limit.
func TestTimeout(t *testing.T) {
	src := rule("deny", "#   id: h3a.user.team.slow", `	n := count([x | some x in numbers.range(1, 1000000000); x % 7 == 0])
	f := lib.finding(rego.metadata.rule(), {"msg": sprintf("%d", [n])})`)
	start := time.Now()
	out := evalUser(t, src, Options{Timeout: 100 * time.Millisecond})
	if elapsed := time.Since(start); elapsed > 10*time.Second {
		t.Errorf("evaluation took %s with a 100ms limit", elapsed)
	}
	if out.Evaluated || len(out.Findings) != 1 || out.Findings[0].Rule != Timeout.ID {
		t.Fatalf("outcome %+v, want one %s", out, Timeout.ID)
	}
	if !strings.Contains(out.Findings[0].Details, "within 100ms") {
		t.Errorf("details %q do not name the limit", out.Findings[0].Details)
	}
}

func TestCancelled(t *testing.T) {
	e := load(t, Options{})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	out := e.Eval(ctx, "run", minimal())
	if out.Evaluated || len(out.Findings) != 1 || out.Findings[0].Rule != EvalError.ID {
		t.Fatalf("outcome %+v, want one %s", out, EvalError.ID)
	}
}

func TestInputThatCannotConvert(t *testing.T) {
	in := minimal()
	in["bad"] = make(chan int)
	out := load(t, Options{}).Eval(context.Background(), "run", in)
	if out.Evaluated || len(out.Findings) != 1 || out.Findings[0].Rule != EvalError.ID {
		t.Fatalf("outcome %+v, want one %s", out, EvalError.ID)
	}
}

// TestDebugPrint: print() reaches the debug writer with the run and the
// policy line, and only when debugging.
func TestDebugPrint(t *testing.T) {
	src := rule("deny", "#   id: h3a.user.team.x", `	print("looking at", input.run.id)
	f := lib.finding(rego.metadata.rule(), {"msg": "x"})`)
	var debug bytes.Buffer
	evalUser(t, src, Options{Debug: &debug})
	if got := debug.String(); !strings.HasPrefix(got, "run-1: ") || !strings.Contains(got, "team.rego:11: looking at r\n") {
		t.Errorf("debug output %q, want run-1: <file>:11: looking at r", got)
	}
	out := evalUser(t, src, Options{})
	if len(out.Findings) != 1 {
		t.Errorf("without debug the rule still works: %+v", out.Findings)
	}
}

// TestConcurrentEval: one engine serves many runs at once (run with -race).
func TestConcurrentEval(t *testing.T) {
	e := load(t, Options{})
	in := minimal()
	in["docs"] = map[string]any{"current_task": map[string]any{"iteration_count": 5, "max_iterations": 2}}
	in["files"] = map[string]any{"state/CURRENT_TASK.json": map[string]any{"doc": "current_task"}}
	var wg sync.WaitGroup
	results := make([]Outcome, 16)
	for i := range results {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i] = e.Eval(context.Background(), fmt.Sprint(i), in)
		}()
	}
	wg.Wait()
	for i, out := range results {
		if !out.Evaluated || len(out.Findings) != 1 || out.Findings[0].Rule != "h3a.retries.over_limit" {
			t.Errorf("run %d: %+v", i, out)
		}
	}
}

func TestDefaultEngineIsShared(t *testing.T) {
	a, b := load(t, Options{}), load(t, Options{Timeout: time.Second})
	if a.compiled != b.compiled {
		t.Error("the shipped policies were compiled twice")
	}
	if a.timeout != DefaultTimeout || b.timeout != time.Second {
		t.Errorf("timeouts %s and %s", a.timeout, b.timeout)
	}
}

func TestTraceability(t *testing.T) {
	e := load(t, Options{})
	f := func(rule string, sev finding.Severity) finding.Finding {
		return finding.Finding{Rule: rule, Severity: sev}
	}
	tests := []struct {
		name                string
		fs                  []finding.Finding
		evaluated, roadmap  bool
		wantTask, wantReqts string
	}{
		{"clean", nil, true, true, "pass", "pass"},
		{"task id error", []finding.Finding{f("h3a.traceability.task_id_mismatch", finding.Error)}, true, true, "fail", "pass"},
		{"go rule", []finding.Finding{f(finding.RunIDMismatch.ID, finding.Error)}, true, true, "fail", "pass"},
		{"coverage error", []finding.Finding{f("h3a.traceability.unknown_task", finding.Error)}, true, true, "pass", "fail"},
		{"not evaluated", nil, false, true, "not-evaluated", "not-evaluated"},
		{"no roadmap", nil, true, false, "pass", "not-evaluated"},
		{"error wins over not evaluated", []finding.Finding{f(finding.RunIDMismatch.ID, finding.Error)}, false, true, "fail", "not-evaluated"},
		{"other rules do not count", []finding.Finding{f("h3a.gates.order", finding.Error)}, true, true, "pass", "pass"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			task, reqts := e.Traceability(tc.fs, tc.evaluated, tc.roadmap)
			if task != tc.wantTask || reqts != tc.wantReqts {
				t.Errorf("got %s, %s; want %s, %s", task, reqts, tc.wantTask, tc.wantReqts)
			}
		})
	}
}

// TestEmbeddedFilesAreRego: the embedded FS holds only what the engine reads.
func TestEmbeddedFilesAreRego(t *testing.T) {
	n := 0
	err := fs.WalkDir(policies.FS, ".", func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			n++
			if !strings.HasSuffix(p, ".rego") {
				t.Errorf("%s embedded", p)
			}
		}
		return err
	})
	if err != nil || n < 10 {
		t.Fatalf("walk: %v, %d files", err, n)
	}
}

// TestLibraryFiles: libraryFiles are exactly the shipped files of packages
// h3a.lib and h3a.model, what user rules compile with beside the plan.
func TestLibraryFiles(t *testing.T) {
	mods, problems := parseAll(nil, nil, false, false, Capabilities())
	if len(problems) > 0 {
		t.Fatal(problems)
	}
	var lib []string
	for _, m := range mods {
		if p := m.parsed.Package.Path; p.Equal(libPackage) || p.Equal(modelPackage) {
			lib = append(lib, path.Base(m.file))
		}
	}
	slices.Sort(lib)
	if want := slices.Sorted(slices.Values(libraryFiles)); !slices.Equal(lib, want) {
		t.Errorf("files of packages h3a.lib and h3a.model: %v; libraryFiles: %v", lib, want)
	}
}

// TestEngineRulesResultUnknown: the policy stage's own rules are the ones
// no waiver or severity may touch (finding.ResultUnknown), and only they.
func TestEngineRulesResultUnknown(t *testing.T) {
	ids := map[string]bool{}
	for _, r := range EngineRules {
		ids[r.ID] = true
	}
	if !maps.Equal(ids, finding.ResultUnknown) {
		t.Errorf("finding.ResultUnknown = %v, want the engine rules %v", finding.ResultUnknown, ids)
	}
}
