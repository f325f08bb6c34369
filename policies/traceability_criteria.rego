# The roadmap's success criteria against its claim of completion.
# (The package and its metadata: traceability.rego.)
package h3a.rules.traceability

import data.h3a.lib

# METADATA
# title: Roadmap complete with an open success criterion
# description: >-
#   A ROADMAP.md whose Status says the run is complete leaves a box of its Success Criteria
#   open ("- [ ] Coverage ≥ 90%"). The roadmap's success criteria are the plan's measure of
#   success, and the run's own record says one was not met while its status claims the work
#   is done. The specification does not state in words that Complete waits for every
#   criterion, and a criterion may have been met but left unticked or may not apply, so
#   the checker cannot tell which: a person decides. h3a-state-specification.md, ROADMAP.md:
#   "Purpose: Strategic plan, task decomposition, success criteria", Schema: "**Status:**
#   <Planning Phase | Execution Phase | Validation Phase | Complete>", "## Success
#   Criteria", "- [ ] All tests passing (100% pass rate)".
# custom:
#   id: h3a.traceability.roadmap_complete_with_open_criterion
#   category: traceability
#   severity: warning
#   remediation: >-
#     tick each criterion the validator's evidence shows met (write "not applicable" and
#     why after one that does not apply, then tick it), or set the roadmap Status back to
#     the phase the run is in until every criterion is met
warn contains f if {
	roadmap != null
	roadmap_says_complete
	some c in lib.items(roadmap.criteria)
	not c.done
	f := lib.finding(rego.metadata.rule(), {
		"msg": sprintf("ROADMAP.md Status is %q but its success criterion %q is still open (\"- [ ]\"); a person must say whether it was met", [roadmap.status, c.text]),
		"file": lib.doc_file.roadmap,
		"line": c.line,
		"needs_human": true,
	})
}
