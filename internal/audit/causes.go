package audit

import (
	"slices"

	"github.com/h3a-check/h3a-check/internal/finding"
)

// Scope says where a cause and its effect must both be for the effect to
// follow from it.
type Scope int

const (
	// SameFile: both name the same file of the run.
	SameFile Scope = iota
	// SameGate: both name the same gate (finding.Gate, e.g. "G3").
	SameGate
	// SameRun: both are findings of the same run, whatever their files.
	SameRun
)

// Follow says that a finding of rule Effect follows from a finding of
// one of the rules Causes in the same Scope: it is what the cause makes
// fail downstream, and goes away when the cause is fixed.
type Follow struct {
	Effect string
	Causes []string
	Scope  Scope
	Why    string
}

// unusable are the rules after which a file cannot be read as a document.
var unusable = []string{
	finding.MissingFile.ID, finding.NotRegular.ID, finding.SymlinkLoop.ID, finding.TooLarge.ID,
	finding.Unreadable.ID, finding.InvalidUTF8.ID, finding.JSONSyntax.ID, finding.YAMLSyntax.ID,
	finding.MalformedRecord.ID,
}

// outOfOrder is a later gate claimed passed before an earlier one.
var outOfOrder = []string{"h3a.gates.order"}

const claimedEarly = "a gate claimed passed out of order is held to exit criteria and artifacts its step never reached"

// Follows is the whole table of what follows from what; a finding whose
// rule is not an Effect here stands on its own.
var Follows = []Follow{
	{Effect: finding.NotEvaluated.ID, Causes: unusable, Scope: SameFile,
		Why: "a check of a file that cannot be read or parsed is not evaluated"},
	{Effect: finding.SchemaViolation.ID, Causes: []string{finding.JSONSyntax.ID, finding.YAMLSyntax.ID, finding.InvalidUTF8.ID}, Scope: SameFile,
		Why: "what a parser recovered from a broken file does not match its schema"},
	{Effect: "h3a.evidence.g0_exit_criteria", Causes: outOfOrder, Scope: SameGate, Why: claimedEarly},
	{Effect: "h3a.evidence.g1_exit_criteria", Causes: outOfOrder, Scope: SameGate, Why: claimedEarly},
	{Effect: "h3a.evidence.g2_exit_criteria", Causes: outOfOrder, Scope: SameGate, Why: claimedEarly},
	{Effect: "h3a.evidence.g3_exit_criteria", Causes: outOfOrder, Scope: SameGate, Why: claimedEarly},
	{Effect: "h3a.evidence.required_artifact", Causes: outOfOrder, Scope: SameGate, Why: claimedEarly},
	{Effect: "h3a.gates.sources_disagree", Causes: outOfOrder, Scope: SameRun,
		Why: "a gate claimed out of order makes a last passed gate the other records do not share"},
}

// linkCauses sets each finding's Cause to the first finding, in order,
// that it follows from by Follows. A cause never has a cause itself in
// the table's current rules; should one, the effect still points at its
// direct cause. Waived findings neither cause nor follow.
func linkCauses(fs []finding.Finding) {
	for i := range fs {
		fs[i].Cause = nil
	}
	for i := range fs {
		if fs[i].IsWaived() {
			continue
		}
		for _, rule := range Follows {
			if rule.Effect != fs[i].Rule {
				continue
			}
			for j := range fs {
				c := fs[j]
				if j == i || c.IsWaived() || !slices.Contains(rule.Causes, c.Rule) {
					continue
				}
				if rule.Scope == SameFile && (c.File == "" || c.File != fs[i].File) ||
					rule.Scope == SameGate && (c.Gate == "" || c.Gate != fs[i].Gate) {
					continue
				}
				cause := j
				fs[i].Cause = &cause
				break
			}
			if fs[i].Cause != nil {
				break
			}
		}
	}
}
