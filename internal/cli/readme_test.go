package cli

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/h3a-check/h3a-check/internal/policy"
	"github.com/h3a-check/h3a-check/internal/status"
)

const (
	// rulesPage and statusPage hold the generated tables; usagePage
	// holds the usage block.
	rulesPage  = "../../docs/rules.md"
	statusPage = "../../docs/status-meanings.md"
	usagePage  = "../../docs/usage.md"
	rulesStart = "<!-- rules:start -->\n"
	rulesEnd   = "<!-- rules:end -->"
)

// ruleTable renders every rule the checker ships as a Markdown table: id,
// category, severity, one-line meaning, and where it is checked (Go, or
// the policy file that holds it).
func ruleTable(t *testing.T) string {
	t.Helper()
	entries, err := catalog(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	b.WriteString("| rule | category | severity | meaning | checked in |\n|---|---|---|---|---|\n")
	for _, e := range entries {
		where := "Go"
		if e.file != "" {
			if !strings.HasPrefix(e.file, "policies/") {
				t.Fatalf("rule %s: defined in %s, outside the shipped policies", e.ID, e.file)
			}
			where = "`" + e.file + "`"
		}
		fmt.Fprintf(&b, "| `%s` | %s | %s | %s | %s |\n", e.ID, e.Category, e.Severity, e.Title, where)
	}
	return b.String()
}

// TestReadmeRules: the table of rules in docs/rules.md is every rule the
// checker ships, Go and Rego, as their definitions give them.
func TestReadmeRules(t *testing.T) {
	generatedSection(t, rulesPage, rulesStart, rulesEnd, ruleTable(t), "TestReadmeRules")
}

// TestReadmeStatusMeanings: docs/status-meanings.md lists the status
// mapping the checker uses, spelling by spelling.
func TestReadmeStatusMeanings(t *testing.T) {
	generatedSection(t, statusPage, "<!-- status-meanings:start -->\n", "<!-- status-meanings:end -->", statusMeaningTable(), "TestReadmeStatusMeanings")
}

// statusMeaningTable renders internal/status as a Markdown table.
func statusMeaningTable() string {
	var b strings.Builder
	b.WriteString("| field | value | means | defined by |\n|---|---|---|---|\n")
	for _, f := range status.Fields {
		for _, v := range f.Values {
			fmt.Fprintf(&b, "| %s | `%s` | %s | %s |\n", strings.Join(f.Where, ", "), v.Spelling, describeMeaning(v.Meaning), v.Source)
		}
	}
	return b.String()
}

func describeMeaning(m status.Meaning) string {
	words := "`" + string(m.Outcome) + "`"
	switch {
	case m.Notes:
		words += " with notes"
	case m.RemediationDue:
		words += ", remediation plan due"
	}
	if m.Started {
		words += ", started"
	}
	return words
}

// generatedSection compares the text of the page between the start and
// end markers with want, and rewrites it with -update.
func generatedSection(t *testing.T, page, start, end, want, test string) {
	t.Helper()
	name := strings.TrimPrefix(page, "../../")
	b, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	text := string(b)
	i, j := strings.Index(text, start), strings.Index(text, end)
	if i < 0 || j < i {
		t.Fatalf("%s lacks the %q ... %q markers", name, strings.TrimSpace(start), end)
	}
	got := text[i+len(start) : j]
	if got == want {
		return
	}
	if *update {
		if err := os.WriteFile(page, []byte(text[:i+len(start)]+want+text[j:]), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Errorf("%s is stale: go test ./internal/cli -run %s -update\n--- want\n%s--- got\n%s", name, test, want, got)
}

// TestEveryPolicyRuleHasAnErrCase: each shipped rule has an err case whose
// expected findings include it, or a history case (testdata/history) for a
// rule whose facts need a git history (who added a line, and signed it).
func TestEveryPolicyRuleHasAnErrCase(t *testing.T) {
	e, err := policy.Load(context.Background(), policy.Options{})
	if err != nil {
		t.Fatal(err)
	}
	wants, err := filepath.Glob(filepath.Join(casesDir, "err", "*.want"))
	if err != nil {
		t.Fatal(err)
	}
	histories, err := filepath.Glob(filepath.Join(casesDir, "..", "history", "*.txtar"))
	if err != nil || len(histories) == 0 {
		t.Fatalf("no history cases (%v)", err)
	}
	wants = append(wants, histories...)
	var all strings.Builder
	for _, w := range wants {
		b, err := os.ReadFile(w)
		if err != nil {
			t.Fatal(err)
		}
		all.Write(b)
	}
	for _, r := range e.Rules() {
		if !strings.Contains(all.String(), "["+r.ID+"]") {
			t.Errorf("no err case under %s expects %s", filepath.Join(casesDir, "err"), r.ID)
		}
	}
}
