package history

import (
	"fmt"

	"github.com/h3a-check/h3a-check/internal/finding"
)

// needsHumanStays: a flat contract run's verdict.json verdict, or
// audit.json gate, that is needs-human at the base is needs-human in head
// too, or a person confirms the change (needs-human). A flat run is one
// round in the run's own folder, so the next attempt rewrites the file that
// asked for a person, where a run of rounds adds a round (which
// h3a.security.contract_human_claimed judges); either way the change that
// goes on cannot show that a person settled the question. The value is
// read in any case or spacing ("Needs Human"), as a reader of the base
// reads it, whatever the schema says of the spelling.
func needsHumanStays(member string) func(*pair) []finding.Finding {
	return func(p *pair) []finding.Finding {
		return statusLeft(p, finding.ContractNeedsHumanLifted, member, "NEEDS_HUMAN", spelledStatus, func(now string) string {
			return fmt.Sprintf("%s %s was \"needs-human\" at base %s and is %s in head: a person must settle what the round asked, and confirm the change",
				p.path, member, p.commit, now)
		})
	}
}
