package cli

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/h3a-check/h3a-check/internal/audit"
	"github.com/h3a-check/h3a-check/internal/audit/audittest"
)

// checkExpectation holds an err case's result to its expect file, written
// by hand from its CASE.md (format: internal/audit/audittest). It runs with
// and without -update: a regression must not become the expected answer.
func checkExpectation(t *testing.T, dir string, code int, audits []*audit.Audit) {
	t.Helper()
	path := filepath.Join(dir, "expect")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Errorf("%v: every err case needs an expect file written by hand from its CASE.md (gate and rule; format in internal/audit/audittest)", err)
		return
	}
	exp, err := audittest.Parse(data)
	if err != nil {
		t.Errorf("%s: %v", path, err)
		return
	}
	if len(exp.Fires) == 0 {
		t.Errorf("%s: no \"fires: …\" line: an err case names the rule that must catch it", path)
	}
	for _, msg := range exp.Mismatches(audits) {
		t.Errorf("%s: %s\ngot:\n%s", path, msg, wantText(code, audits))
	}
}
