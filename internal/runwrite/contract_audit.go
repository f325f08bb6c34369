package runwrite

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/h3a-check/h3a-check/internal/atomicfile"
	"github.com/h3a-check/h3a-check/internal/audit"
	"github.com/h3a-check/h3a-check/internal/finding"
	"github.com/h3a-check/h3a-check/internal/layout"
	"github.com/h3a-check/h3a-check/internal/report"
)

// generatorKey marks an audit.json the checker wrote, so that a later
// write may replace it without being forced; an auditor's file has no
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

func newContractAudit(a *audit.Audit, tool audit.Tool) contractAudit {
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
		Generator: fmt.Sprintf("%s %s", tool.Name, tool.Version),
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

// AuditorsAuditError is an audit.json an auditor wrote, where the
// checker's would go: it is replaced only when the caller forces it.
type AuditorsAuditError struct {
	Path string // the audit.json, as the caller named the run
}

func (e *AuditorsAuditError) Error() string {
	return fmt.Sprintf("%s was written by an auditor; refusing to overwrite it", e.Path)
}

// WriteContractAudit writes the checker's audit of a contract run, as
// tool, into the run's last round (layout.ContractLastRound) and returns
// the file written. An existing audit.json written by an auditor is
// replaced only with force (else *AuditorsAuditError); one the checker
// wrote is always replaced. Nothing is written through a symbolic link,
// and a leftover of an interrupted earlier write is removed.
func WriteContractAudit(a *audit.Audit, tool audit.Tool, force bool) (string, error) {
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
		if !force && !writtenBy(round, tool.Name) {
			return "", &AuditorsAuditError{Path: target}
		}
	}
	data, err := json.MarshalIndent(newContractAudit(a, tool), "", "  ")
	if err != nil {
		return "", err
	}
	if err := atomicfile.WriteIn(round, "audit.json", append(report.SafeJSON(data), '\n')); err != nil {
		return "", fmt.Errorf("writing %s: %w", target, err)
	}
	return target, nil
}

// maxAuditRead bounds the audit.json that writtenBy reads: a larger one
// is not one the checker wrote.
const maxAuditRead = 64 << 20

// writtenBy reports whether the audit.json in dir carries the generator
// key of the tool named name. It reads at most maxAuditRead bytes of a
// regular file, opened without waiting: the run chose the file, and may
// have made it huge (a sparse file costs nothing on disk) or a FIFO.
func writtenBy(dir *os.Root, name string) bool {
	f, err := dir.OpenFile("audit.json", os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return false
	}
	defer f.Close()
	if info, err := f.Stat(); err != nil || !info.Mode().IsRegular() || info.Size() > maxAuditRead {
		return false
	}
	data, err := io.ReadAll(io.LimitReader(f, maxAuditRead+1))
	if err != nil || len(data) > maxAuditRead {
		return false
	}
	var doc map[string]any
	if json.Unmarshal(data, &doc) != nil {
		return false
	}
	g, _ := doc[generatorKey].(string)
	return strings.HasPrefix(g, name+" ")
}

// lastRound reads the run's rounds/ folder for layout.ContractLastRound.
func lastRound(run *os.Root) (string, error) {
	info, err := run.Lstat("rounds")
	if errors.Is(err, fs.ErrNotExist) {
		return ".", nil
	}
	if err != nil {
		return "", err
	}
	if info.Mode()&fs.ModeSymlink != 0 {
		return "", errors.New("rounds is a symbolic link; the checker writes into a run only through real folders")
	}
	if !info.IsDir() {
		return ".", nil
	}
	ents, err := fs.ReadDir(run.FS(), "rounds")
	if err != nil {
		return "", err
	}
	var folders []layout.ContractRoundFolder
	for _, e := range ents {
		switch {
		case e.Type()&fs.ModeSymlink != 0:
			folders = append(folders, layout.ContractRoundFolder{Name: e.Name(), Symlink: true})
		case e.IsDir():
			files, err := fs.ReadDir(run.FS(), "rounds/"+e.Name())
			if err != nil {
				return "", err
			}
			f := layout.ContractRoundFolder{Name: e.Name()}
			for _, file := range files {
				if !file.IsDir() {
					f.Files = append(f.Files, file.Name())
				}
			}
			folders = append(folders, f)
		}
	}
	return layout.ContractLastRound(folders)
}
