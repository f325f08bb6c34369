package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/h3a-check/h3a-check/internal/atomicfile"
	"github.com/h3a-check/h3a-check/internal/audit"
	"github.com/h3a-check/h3a-check/internal/finding"
	"github.com/h3a-check/h3a-check/internal/report"
)

// generatorKey marks an audit.json the checker wrote, so that a later
// --write-audit may replace it without --force; an auditor's file has no
// such key.
const generatorKey = "generator"

// contractAudit is audit.json as the artifact contract defines it, filled
// from the checker's own audit of the run, so the upstream orchestrator can
// read audit_gate from it as from any auditor.
type contractAudit struct {
	TaskID          string               `json:"task_id"`
	Gate            string               `json:"gate"`
	Risk            audit.Risk           `json:"risk"`
	Findings        []contractFinding    `json:"findings"`
	Policy          map[string]string    `json:"policy"`
	Traceability    contractTraceability `json:"traceability"`
	RequiredActions []string             `json:"required_actions"`
	Notes           string               `json:"notes"`
	Generator       string               `json:"generator"`
}

type contractFinding struct {
	Category string `json:"category"`
	Details  string `json:"details"`
	Rule     string `json:"rule"`
	Severity string `json:"severity"`
	Location string `json:"location,omitempty"`
}

type contractTraceability struct {
	TaskIDMatch          string   `json:"task_id_match"`
	RequirementsCoverage string   `json:"requirements_coverage"`
	Issues               []string `json:"issues"`
}

// contractArea maps an audit area result onto the contract's pass|fail|unknown.
func contractArea(v string) string {
	switch v {
	case audit.AreaPass, audit.AreaWarn:
		return "pass"
	case audit.AreaFail:
		return "fail"
	}
	return "unknown"
}

func newContractAudit(a *audit.Audit) contractAudit {
	out := contractAudit{
		Gate:            a.Gate,
		Risk:            a.Risk,
		Findings:        []contractFinding{},
		RequiredActions: append([]string{}, a.RequiredActions...),
		Traceability: contractTraceability{
			TaskIDMatch:          contractArea(a.Traceability.TaskIDMatch),
			RequirementsCoverage: contractArea(a.Traceability.RequirementsCoverage),
			Issues:               append([]string{}, a.Traceability.Issues...),
		},
		Notes:     fmt.Sprintf("%d errors, %d warnings, %d info", a.Counts.Error, a.Counts.Warning, a.Counts.Info),
		Generator: fmt.Sprintf("%s %s", Name, Version()),
	}
	if a.TaskID != nil {
		out.TaskID = *a.TaskID
	}
	integrity := "pass"
	for _, f := range a.Findings {
		if f.IsWaived() || f.Severity == finding.Info {
			continue
		}
		out.Findings = append(out.Findings, contractFinding{
			Category: string(f.Category), Details: f.Details, Rule: f.Rule,
			Severity: f.Severity.String(), Location: f.Location(),
		})
		switch f.Category {
		case finding.CategoryStructure, finding.CategorySchema, finding.CategoryIntegrity, finding.CategoryAppendOnly:
			if f.Severity == finding.Error {
				integrity = "fail"
			}
		}
	}
	// The checker runs no evaluation commands of its own.
	out.Policy = map[string]string{"artifact_integrity": integrity, "eval_commands": "unknown"}
	if out.Gate == audit.Fail && len(out.RequiredActions) == 0 {
		// The gate failed on warnings (--fail-level warning): they block landing too.
		out.RequiredActions = []string{"resolve the warnings listed in findings: the gate fails at warnings"}
	}
	return out
}

// roundDocs are the documents that make a rounds/round-<n>/ folder a
// round: an empty or unrelated folder is not one.
var roundDocs = []string{"handoff.json", "verdict.json", "audit.json"}

// lastRound is where the auditor of a contract run writes, relative to
// the run: the highest-numbered rounds/round-<n>/ folder holding a round's
// documents, or "." when the run has no such folder. Two folders of that
// number (round-2 and round-02) are an error, and so is a symbolic link
// where the round would be: the checker writes into a run only through
// real folders.
func lastRound(run *os.Root) (string, error) {
	info, err := run.Lstat("rounds")
	if errors.Is(err, fs.ErrNotExist) {
		return ".", nil
	}
	if err != nil {
		return "", err
	}
	if !info.IsDir() {
		if info.Mode()&fs.ModeSymlink != 0 {
			return "", fmt.Errorf("rounds is a symbolic link; the checker writes into a run only through real folders")
		}
		return ".", nil
	}
	d, err := run.Open("rounds")
	if err != nil {
		return "", err
	}
	ents, err := d.ReadDir(-1)
	d.Close()
	if err != nil {
		return "", err
	}
	var best []string
	bestN := -1
	for _, e := range ents {
		digits, ok := strings.CutPrefix(e.Name(), "round-")
		n, err := strconv.Atoi(digits)
		if !ok || err != nil || n < 0 || strings.Trim(digits, "0123456789") != "" {
			continue
		}
		if e.Type()&fs.ModeSymlink != 0 {
			return "", fmt.Errorf("rounds/%s is a symbolic link; the checker writes into a run only through real folders", e.Name())
		}
		if !e.IsDir() || !holdsRound(run, "rounds/"+e.Name()) {
			continue
		}
		switch {
		case n > bestN:
			best, bestN = []string{e.Name()}, n
		case n == bestN:
			best = append(best, e.Name())
		}
	}
	switch {
	case len(best) == 0:
		return ".", nil
	case len(best) > 1:
		return "", fmt.Errorf("rounds/%s are the same round %d: rename one so that the last round is clear", strings.Join(best, " and rounds/"), bestN)
	}
	return "rounds/" + best[0], nil
}

// holdsRound reports whether dir holds one of a round's documents.
func holdsRound(run *os.Root, dir string) bool {
	for _, name := range roundDocs {
		if info, err := run.Lstat(dir + "/" + name); err == nil && !info.IsDir() {
			return true
		}
	}
	return false
}

// writeContractAudits writes the checker's audit.json into the last round
// of every contract run (other layouts have no auditor file). An existing
// audit.json written by an auditor is replaced only with force; one the
// checker wrote is always replaced. Nothing is written through a symbolic
// link, and a leftover of an interrupted earlier write is removed.
func writeContractAudits(audits []*audit.Audit, force bool, stderr io.Writer) error {
	for _, a := range audits {
		if a.Layout != "contract" {
			continue
		}
		target, err := writeContractAudit(a, force)
		if err != nil {
			return fmt.Errorf("--write-audit: %w", err)
		}
		fmt.Fprintf(stderr, "%s: wrote %s (gate %s)\n", Name, target, a.Gate)
	}
	return nil
}

func writeContractAudit(a *audit.Audit, force bool) (string, error) {
	run, err := os.OpenRoot(a.Run)
	if err != nil {
		return "", err
	}
	defer run.Close()
	dir, err := lastRound(run)
	if err != nil {
		return "", fmt.Errorf("%s: %w", a.Run, err)
	}
	target := filepath.Join(a.Run, filepath.FromSlash(dir), "audit.json")
	round, err := run.OpenRoot(dir)
	if err != nil {
		return "", err
	}
	defer round.Close()
	if info, err := round.Lstat("audit.json"); err == nil {
		if !info.Mode().IsRegular() {
			return "", fmt.Errorf("%s is not a regular file; it is left alone", target)
		}
		if !force && !writtenByChecker(round) {
			return "", fmt.Errorf("%s was written by an auditor; refusing to overwrite it (pass --force to replace it)", target)
		}
	}
	data, err := json.MarshalIndent(newContractAudit(a), "", "  ")
	if err != nil {
		return "", err
	}
	if err := atomicfile.WriteIn(round, "audit.json", append(report.SafeJSON(data), '\n')); err != nil {
		return "", fmt.Errorf("writing %s: %w", target, err)
	}
	return target, nil
}

// writtenByChecker reports whether the audit.json in dir carries the
// checker's generator key.
func writtenByChecker(dir *os.Root) bool {
	data, err := dir.ReadFile("audit.json")
	if err != nil {
		return false
	}
	var doc map[string]any
	if json.Unmarshal(data, &doc) != nil {
		return false
	}
	g, _ := doc[generatorKey].(string)
	return strings.HasPrefix(g, Name+" ")
}
