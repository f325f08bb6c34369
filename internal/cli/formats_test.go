package cli

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// TestSARIFOfEveryCase: the SARIF of every ok and err case (a sample of
// the err cases in the README's test command: sampledCases) validates
// against the official SARIF 2.1.0 schema, and every file location is
// relative to the repository (no absolute path, no ".."). Not parallel: it
// runs in the folder the cases are written out into, and names them from
// there as a check in the repository would.
func TestSARIFOfEveryCase(t *testing.T) {
	all := sampledCases(t)
	f, err := os.Open("../report/testdata/sarif-schema-2.1.0.json")
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
	if err := c.AddResource("https://h3a.invalid/sarif.json", doc); err != nil {
		t.Fatal(err)
	}
	schema, err := c.Compile("https://h3a.invalid/sarif.json")
	if err != nil {
		t.Fatal(err)
	}
	t.Chdir(filepath.Dir(filepath.Dir(all)))
	code, stdout, stderr := runMain("--format", "sarif", "--base", "none", filepath.Join("testdata", "runs"))
	if code != ExitFail {
		t.Fatalf("exit %d, want 1: %s", code, stderr)
	}
	v, err := jsonschema.UnmarshalJSON(strings.NewReader(stdout))
	if err != nil {
		t.Fatal(err)
	}
	if err := schema.Validate(v); err != nil {
		t.Errorf("SARIF of the test cases does not validate: %v", err)
	}
	var log struct {
		Runs []struct {
			Results []struct {
				Locations []struct {
					PhysicalLocation struct {
						ArtifactLocation struct{ URI string }
					}
				}
			}
		}
	}
	if err := json.Unmarshal([]byte(stdout), &log); err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, r := range log.Runs[0].Results {
		uri := r.Locations[0].PhysicalLocation.ArtifactLocation.URI
		n++
		if !strings.HasPrefix(uri, "testdata/runs/") {
			t.Errorf("location %q is not relative to the repository root", uri)
		}
	}
	if n == 0 {
		t.Error("no results")
	}
}

// TestJUnitOfEveryCase: one suite per run, failing exactly when the
// run's gate does not pass (every case under H3A_LONG=1, a sample
// otherwise: sampledCases).
func TestJUnitOfEveryCase(t *testing.T) {
	t.Parallel()
	out := filepath.Join(t.TempDir(), "junit.xml")
	code, audits, stderr := checkJSON(t, "--output", "junit="+out, sampledCases(t))
	if code != ExitFail {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Suites []struct {
			Name     string `xml:"name,attr"`
			Failures int    `xml:"failures,attr"`
		} `xml:"testsuite"`
	}
	if err := xml.NewDecoder(bytes.NewReader(b)).Decode(&doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Suites) != len(audits) {
		t.Fatalf("%d suites for %d runs", len(doc.Suites), len(audits))
	}
	failing := 0
	for i, s := range doc.Suites {
		a := audits[i]
		if s.Name != a.Run || (s.Failures > 0) != (a.Gate != "pass") {
			t.Errorf("suite %s: %d failures, run %s gate %s", s.Name, s.Failures, a.Run, a.Gate)
		}
		if s.Failures > 0 {
			failing++
		}
	}
	if failing == 0 {
		t.Error("no failing suite")
	}
}

// TestSARIFLevelFollowsTheGate: the fail level and the severity overrides
// reach the SARIF from the flag and the configuration file alike: a result
// is an error exactly when its finding fails the gate, which the exit code
// says, and properties.severity keeps the finding's severity. Not
// parallel: each case runs in a folder of its own.
func TestSARIFLevelFollowsTheGate(t *testing.T) {
	const infos = "severity:\n  h3a.integrity.hash_mismatch: info\n  h3a.evidence.required_artifact: info\n"
	tests := []struct {
		name           string
		yaml           string
		args           []string
		wantCode       int
		wantLevel      string // of the hash mismatch
		wantSeverity   string
		wantSuppressed bool
	}{
		{"an error", "", nil, ExitFail, "error", "error", false},
		{"made a warning", bothWarnings, nil, ExitPass, "warning", "warning", false},
		{"made a warning, fail-level warning in the file", bothWarnings + "fail-level: warning\n", nil, ExitFail, "error", "warning", false},
		{"made a warning, --fail-level warning", bothWarnings, []string{"--fail-level", "warning"}, ExitFail, "error", "warning", false},
		{"made a warning, the flag over the file", bothWarnings + "fail-level: warning\n", []string{"--fail-level", "error"}, ExitPass, "warning", "warning", false},
		{"made info, fail-level warning", infos + "fail-level: warning\n", nil, ExitPass, "note", "info", false},
		{"made a warning and waived, fail-level warning", bothWarnings + "fail-level: warning\n" + fmt.Sprintf(hashWaiver, "2999-12-31"), nil, ExitPass, "error", "warning", true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			configRepo(t, "hash_mismatch", tc.yaml)
			code, stdout, stderr := runMain(append([]string{"--format", "sarif"}, append(tc.args, "runs")...)...)
			if code != tc.wantCode {
				t.Fatalf("exit %d, want %d: %s", code, tc.wantCode, stderr)
			}
			var log struct {
				Runs []struct {
					Results []struct {
						RuleID       string
						Level        string
						Suppressions []json.RawMessage
						Properties   struct{ Severity string }
					}
				}
			}
			if err := json.Unmarshal([]byte(stdout), &log); err != nil {
				t.Fatal(err)
			}
			found, blocking := false, false
			for _, r := range log.Runs[0].Results {
				blocking = blocking || r.Level == "error" && len(r.Suppressions) == 0
				if r.RuleID != "h3a.integrity.hash_mismatch" {
					continue
				}
				found = true
				if r.Level != tc.wantLevel || r.Properties.Severity != tc.wantSeverity || (len(r.Suppressions) > 0) != tc.wantSuppressed {
					t.Errorf("hash mismatch: level %q, severity %q, %d suppressions; want %q, %q, suppressed %v",
						r.Level, r.Properties.Severity, len(r.Suppressions), tc.wantLevel, tc.wantSeverity, tc.wantSuppressed)
				}
			}
			if !found {
				t.Fatalf("no hash mismatch among the results:\n%s", stdout)
			}
			if blocking != (code == ExitFail) {
				t.Errorf("exit %d, but an unsuppressed error among the results is %v", code, blocking)
			}
		})
	}
}
