package history

import (
	"fmt"

	"github.com/h3a-check/h3a-check/internal/finding"
)

// failedStays: a gate-state file whose status is FAILED at the base is
// FAILED in head too, or a person confirms the change (needs-human). A
// FAILED gate stops its pipeline (gate-state-management.md, Pattern 3:
// "Cannot execute GATE N: Previous gate failed"), and a FAILED pipeline is
// closed (Pattern 5, FINAL); whether to run the gate again or reopen the
// pipeline is a person's call, which a change that rewrites the file as
// passed cannot show was made. what names the file in the message. The
// status is read in any case or spacing ("Failed"): the schema holds a
// file to the guide's spelling, but a base that wrote it otherwise still
// showed a failed gate, whose lifting a person confirms all the same.
func failedStays(what string) func(*pair) []finding.Finding {
	return func(p *pair) []finding.Finding {
		return statusLeft(p, finding.GateStateFailureLifted, "status", "FAILED", spelledStatus, func(now string) string {
			return fmt.Sprintf("%s was FAILED at base %s and is %s in head: a failed gate stops its pipeline, and a person must confirm it was run again or the pipeline reopened",
				what, p.commit, now)
		})
	}
}
