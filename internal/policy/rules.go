package policy

import (
	"github.com/h3a-check/h3a-check/internal/finding"
)

// Rules of the policy stage itself: what happens when a policy cannot give
// a trustworthy result. All are errors, so a gate fails closed.
var (
	EvalError = finding.Rule{ID: "h3a.policy.eval_error", Category: finding.CategoryPolicy, Severity: finding.Error,
		Title: "Policy evaluation failed",
		Description: "The policies could not be evaluated for this run (for example two bodies of a rule gave conflicting values), " +
			"so no policy result is known and none is reported.",
		Remediation: "fix the rule named in the details; `h3a-check test` runs the policies' unit tests"}
	Timeout = finding.Rule{ID: "h3a.policy.timeout", Category: finding.CategoryPolicy, Severity: finding.Error,
		Title:       "Policy evaluation timed out",
		Description: "The policies did not finish within --policy-timeout for this run, so no policy result is known.",
		Remediation: "find the slow rule (--debug prints print() output), make it cheaper, or raise --policy-timeout"}
	BuiltinError = finding.Rule{ID: "h3a.policy.builtin_error", Category: finding.CategoryPolicy, Severity: finding.Error,
		Title: "Builtin failed inside a policy",
		Description: "A builtin function failed while a rule was evaluated (for example to_number on text, or an unparseable time). " +
			"The expression is undefined, so the rule may have missed a finding; the failure is reported instead of passing silently.",
		Remediation: "guard the call in the rule (is_string, regex.match) or fix the value in the run that the rule could not read"}
	BadResult = finding.Rule{ID: "h3a.policy.bad_result", Category: finding.CategoryPolicy, Severity: finding.Error,
		Title: "Policy result breaks the rule contract",
		Description: "A deny or warn element is not an object with a non-empty \"msg\", names no rule or a rule of another package, " +
			"or has a field of the wrong type or an unknown field. The element is not turned into a finding.",
		Remediation: "build elements with lib.finding(rego.metadata.rule(), {\"msg\": ...}) and only the fields msg, file, pointer, line, column, gate, task_id, needs_human, remediation, severity"}
)

// EngineRules lists the policy stage's own rules.
var EngineRules = []finding.Rule{EvalError, Timeout, BuiltinError, BadResult}

// Audit traceability areas a policy rule can feed (custom.traceability).
const (
	AreaTaskIDMatch          = "task_id_match"
	AreaRequirementsCoverage = "requirements_coverage"
)

// goRuleAreas places the traceability rules implemented in Go.
var goRuleAreas = map[string]string{
	finding.RunIDMismatch.ID:  AreaTaskIDMatch,
	finding.DuplicateRunID.ID: AreaTaskIDMatch,
}

// Traceability derives the audit's traceability results from the findings:
// "fail" when a rule feeding the area reported an error, "warn" for a
// warning, "pass" otherwise; "not-evaluated" when the policies gave no
// result (evaluated false) or, for requirements coverage, when the run has
// no readable roadmap to cover (roadmapKnown false).
func (e *Engine) Traceability(fs []finding.Finding, evaluated, roadmapKnown bool) (taskIDMatch, requirementsCoverage string) {
	worst := map[string]finding.Severity{}
	seen := map[string]bool{}
	for _, f := range fs {
		area := goRuleAreas[f.Rule]
		if r, ok := e.rules[f.Rule]; ok {
			area = r.Traceability
		}
		if area == "" || f.Severity == finding.Info {
			continue
		}
		if !seen[area] || f.Severity > worst[area] {
			worst[area], seen[area] = f.Severity, true
		}
	}
	result := func(area string, known bool) string {
		switch {
		case seen[area] && worst[area] == finding.Error:
			return "fail"
		case !known:
			return "not-evaluated"
		case seen[area]:
			return "warn"
		}
		return "pass"
	}
	return result(AreaTaskIDMatch, evaluated), result(AreaRequirementsCoverage, evaluated && roadmapKnown)
}
