// Package audit holds the per-run verdict in the artifact-contract audit.json
// shape (task_id, gate, risk, findings, policy, traceability,
// required_actions, notes) with this tool's additions, and decides the gate.
package audit

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/h3a-check/h3a-check/internal/finding"
)

// Gate values of the artifact contract.
const (
	Pass       = "pass"
	Fail       = "fail"
	NeedsHuman = "needs-human"
)

// Check-area results in Audit.Policy and Traceability.
const (
	AreaPass         = "pass"
	AreaFail         = "fail"
	AreaWarn         = "warn"
	AreaNotEvaluated = "not-evaluated"
	AreaUnknown      = "unknown"
)

type Tool struct {
	Name    string `json:"name"`
	Version string `json:"version"`
}

// Source records where a configuration file or policy directory was read
// from: the working tree, or the base revision when the working tree is the
// change under review.
type Source struct {
	Path    string   `json:"path"`
	Origin  string   `json:"origin"` // "embedded", "base" or "working-tree"
	Commit  string   `json:"commit,omitempty"`
	Ignored []string `json:"ignored,omitempty"`
	Reason  string   `json:"reason"`
}

type Risk struct {
	Level   string   `json:"level"` // low | medium | high
	Reasons []string `json:"reasons"`
}

type Traceability struct {
	TaskIDMatch          string   `json:"task_id_match"`
	RequirementsCoverage string   `json:"requirements_coverage"`
	Issues               []string `json:"issues"`
}

// Audit is one run's verdict. Field order is the output order.
type Audit struct {
	TaskID          *string           `json:"task_id"`
	Gate            string            `json:"gate"`
	Risk            Risk              `json:"risk"`
	Findings        []finding.Finding `json:"findings"`
	Policy          map[string]string `json:"policy"`
	Traceability    Traceability      `json:"traceability"`
	RequiredActions []string          `json:"required_actions"`
	Notes           string            `json:"notes"`

	Run    string  `json:"run"`
	RunID  string  `json:"run_id"`
	Layout string  `json:"layout"`
	Base   *string `json:"base"`
	// BaseFrom names the revision Base is and says why it was chosen
	// ("the merge base 1a2b3c4d5e6f of HEAD and the pull_request event's
	// target …"); empty when no history was compared.
	BaseFrom string `json:"base_from,omitempty"`
	Tool     Tool   `json:"tool"`
	// TrustWorkingTree records --trust-working-tree: repository-local
	// policies and configuration were read from the working tree although a
	// base revision was in use.
	TrustWorkingTree bool `json:"trust_working_tree"`
	// Sources lists where the configuration and policies were read from.
	Sources   []Source       `json:"sources"`
	Inputs    Inputs         `json:"inputs"`
	Counts    finding.Counts `json:"counts"`
	Timestamp string         `json:"timestamp,omitempty"`

	// Stages, Events and Evidence are what the run's documents say of its
	// progress, read by the checker for reports (the job summary's gate
	// matrix and timelines); they take no part in the gate. Absent when
	// the run's documents could not be read; Events only for a run that
	// does not pass.
	Stages   []Stage        `json:"stages,omitempty"`
	Events   []Event        `json:"events,omitempty"`
	Evidence *EvidenceCount `json:"evidence,omitempty"`

	// failLevel is the lowest severity that fails the gate, as Finish
	// decided it (Warning or Error); zero before Finish.
	failLevel finding.Severity
}

// gateLevel is the lowest severity that fails a gate checked at failLevel:
// Info never fails one.
func gateLevel(failLevel finding.Severity) finding.Severity {
	return max(failLevel, finding.Warning)
}

// DecideGate: fail on any finding at or above failLevel (Error unless the
// user asked for Warning); else needs-human if a finding asks for a human;
// else pass. Info never fails a gate, and neither does a waived finding.
func DecideGate(fs []finding.Finding, failLevel finding.Severity) string {
	failLevel = gateLevel(failLevel)
	gate := Pass
	for _, f := range fs {
		if f.IsWaived() {
			continue
		}
		if f.Severity >= failLevel {
			return Fail
		}
		if f.NeedsHuman {
			gate = NeedsHuman
		}
	}
	return gate
}

// Fails reports whether a finding of severity s fails the gate unless a
// waiver sets it aside: whether s is at or above the fail level Finish
// decided the gate with. Before Finish, the default level, Error, holds.
func (a *Audit) Fails(s finding.Severity) bool {
	if a.failLevel == finding.Info {
		return s >= finding.Error
	}
	return s >= a.failLevel
}

// Overall combines gates: any fail, else any needs-human, else pass.
func Overall(audits []*Audit) string {
	gate := Pass
	for _, a := range audits {
		switch a.Gate {
		case Fail:
			return Fail
		case NeedsHuman:
			gate = NeedsHuman
		}
	}
	return gate
}

// highRisk categories mean evidence or history cannot be trusted.
var highRisk = map[finding.Category]bool{
	finding.CategoryIntegrity: true, finding.CategoryAppendOnly: true, finding.CategorySecurity: true,
}

// Finish fills everything derived from the findings: sorted findings,
// counts, gate, risk, per-area results, traceability issues and required
// actions. notEvaluated names areas that did not run (e.g. "append_only"
// without a base); they are recorded as such, never as "pass". Waived
// findings stay in Findings but take no part in anything derived.
func (a *Audit) Finish(failLevel finding.Severity, notEvaluated map[string]string) {
	for i := range a.Findings {
		a.Findings[i].Cause = nil // an index into the list as it was
	}
	a.Findings = finding.SortDedupe(a.Findings)
	linkCauses(a.Findings)
	if a.Findings == nil {
		a.Findings = []finding.Finding{}
	}
	a.Counts = finding.Count(a.Findings)
	a.Gate = DecideGate(a.Findings, failLevel)
	a.failLevel = gateLevel(failLevel)
	active := slices.DeleteFunc(slices.Clone(a.Findings), finding.Finding.IsWaived)

	errorsBy := map[finding.Category]int{}
	warnsBy := map[finding.Category]int{}
	for _, f := range active {
		switch f.Severity {
		case finding.Error:
			errorsBy[f.Category]++
		case finding.Warning:
			warnsBy[f.Category]++
		}
	}
	a.Policy = map[string]string{}
	for _, c := range finding.Categories {
		switch {
		case errorsBy[c] > 0:
			a.Policy[string(c)] = AreaFail
		case notEvaluated[string(c)] != "":
			a.Policy[string(c)] = AreaNotEvaluated
		case warnsBy[c] > 0:
			a.Policy[string(c)] = AreaWarn
		default:
			a.Policy[string(c)] = AreaPass
		}
	}

	a.Risk = Risk{Level: "low", Reasons: []string{}}
	cats := make([]finding.Category, 0, len(errorsBy))
	for c := range errorsBy {
		cats = append(cats, c)
	}
	slices.SortFunc(cats, func(x, y finding.Category) int {
		return cmp.Or(cmp.Compare(errorsBy[y], errorsBy[x]), strings.Compare(string(x), string(y)))
	})
	for _, c := range cats {
		n := errorsBy[c]
		a.Risk.Reasons = append(a.Risk.Reasons, fmt.Sprintf("%d %s error%s", n, c, plural(n)))
		if highRisk[c] {
			a.Risk.Level = "high"
		} else if a.Risk.Level == "low" {
			a.Risk.Level = "medium"
		}
	}
	if a.Gate == NeedsHuman && a.Risk.Level == "low" {
		a.Risk.Level = "medium"
		a.Risk.Reasons = append(a.Risk.Reasons, "a human decision is required")
	}

	a.Traceability.Issues = []string{}
	for _, f := range active {
		if f.Category == finding.CategoryTraceability && f.Severity == finding.Error {
			a.Traceability.Issues = append(a.Traceability.Issues, f.Details)
		}
	}
	if a.Traceability.TaskIDMatch == "" {
		a.Traceability.TaskIDMatch = AreaPass
		if len(a.Traceability.Issues) > 0 {
			a.Traceability.TaskIDMatch = AreaFail
		}
	}
	if a.Traceability.RequirementsCoverage == "" {
		a.Traceability.RequirementsCoverage = AreaUnknown
	}

	a.RequiredActions = requiredActions(active)
}

// requiredActions lists, once per rule, what blocks landing: the remediation
// of every rule that produced an error or asks for a human.
func requiredActions(fs []finding.Finding) []string {
	type action struct {
		rule, text string
		n          int
	}
	var order []string
	byRule := map[string]*action{}
	for _, f := range fs {
		if f.Severity != finding.Error && !f.NeedsHuman {
			continue
		}
		a := byRule[f.Rule]
		if a == nil {
			a = &action{rule: f.Rule, text: f.Remediation}
			if a.text == "" {
				a.text = "resolve the finding"
			}
			byRule[f.Rule] = a
			order = append(order, f.Rule)
		}
		a.n++
	}
	slices.Sort(order)
	out := make([]string, 0, len(order))
	for _, r := range order {
		a := byRule[r]
		out = append(out, fmt.Sprintf("%s (%d finding%s): %s", a.rule, a.n, plural(a.n), a.text))
	}
	return out
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}
