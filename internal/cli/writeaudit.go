package cli

import (
	"errors"
	"fmt"
	"io"

	"github.com/h3a-check/h3a-check/internal/audit"
	"github.com/h3a-check/h3a-check/internal/runwrite"
)

// writeContractAudits is --write-audit: the checker's audit.json into the
// last round of every contract run (other layouts have no auditor file),
// replacing an auditor's with --force.
func writeContractAudits(audits []*audit.Audit, force bool, stderr io.Writer) error {
	tool := audit.Tool{Name: Name, Version: Version()}
	for _, a := range audits {
		if a.Layout != "contract" {
			continue
		}
		target, err := runwrite.WriteContractAudit(a, tool, force)
		if auditors := (*runwrite.AuditorsAuditError)(nil); errors.As(err, &auditors) {
			err = fmt.Errorf("%w (pass --force to replace it)", err)
		}
		if err != nil {
			return fmt.Errorf("--write-audit: %w", err)
		}
		fmt.Fprintf(stderr, "%s: wrote %s (gate %s)\n", Name, oneLine(target), a.Gate)
	}
	return nil
}
