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

// lastRoundDir is where the auditor of a contract run writes: the
// highest-numbered rounds/round-<n>/ folder, or the run itself when it has
// no rounds. A symbolic link is never followed out of the run.
func lastRoundDir(run string) (string, error) {
	ents, err := os.ReadDir(filepath.Join(run, "rounds"))
	if errors.Is(err, fs.ErrNotExist) {
		return run, nil
	}
	if err != nil {
		return "", err
	}
	best, bestN := "", -1
	for _, e := range ents {
		n, err := strconv.Atoi(strings.TrimPrefix(e.Name(), "round-"))
		if !e.IsDir() || !strings.HasPrefix(e.Name(), "round-") || err != nil || n <= bestN {
			continue
		}
		best, bestN = e.Name(), n
	}
	if best == "" {
		return run, nil
	}
	return filepath.Join(run, "rounds", best), nil
}

// writeContractAudits writes the checker's audit.json into the last round
// of every contract run (other layouts have no auditor file). An existing
// audit.json written by an auditor is replaced only with force; one the
// checker wrote is always replaced.
func writeContractAudits(audits []*audit.Audit, force bool, stderr io.Writer) error {
	for _, a := range audits {
		if a.Layout != "contract" {
			continue
		}
		dir, err := lastRoundDir(a.Run)
		if err != nil {
			return fmt.Errorf("--write-audit: %w", err)
		}
		target := filepath.Join(dir, "audit.json")
		if info, err := os.Lstat(target); err == nil {
			if !info.Mode().IsRegular() {
				return fmt.Errorf("--write-audit: %s is not a regular file; it is left alone", target)
			}
			if !force && !writtenByChecker(target) {
				return fmt.Errorf("--write-audit: %s was written by an auditor; refusing to overwrite it (pass --force to replace it)", target)
			}
		}
		data, err := json.MarshalIndent(newContractAudit(a), "", "  ")
		if err != nil {
			return err
		}
		err = report.WriteFileAtomic(target, func(w io.Writer) error {
			_, err := w.Write(append(data, '\n'))
			return err
		})
		if err != nil {
			return fmt.Errorf("--write-audit: writing %s: %w", target, err)
		}
		fmt.Fprintf(stderr, "%s: wrote %s (gate %s)\n", Name, target, a.Gate)
	}
	return nil
}

// writtenByChecker reports whether the audit.json at p carries the
// checker's generator key.
func writtenByChecker(p string) bool {
	data, err := os.ReadFile(p)
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
