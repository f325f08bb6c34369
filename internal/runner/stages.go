// The stages of a run's process and its gate events, for the reports.

package runner

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unique"

	"github.com/h3a-check/h3a-check/internal/audit"
	"github.com/h3a-check/h3a-check/internal/layout"
)

// progress reads, from the policy input documents of a run (docs, built
// once per run), the stages of its process and the gate events of its
// ledger, for the reports. Nothing is read from disk again; a document
// that did not parse gives nothing.
func progress(layoutID string, docs map[string]any) ([]audit.Stage, []audit.Event) {
	switch layoutID {
	case "h3a":
		return h3aStages(docs), h3aEvents(docs)
	case "contract":
		return contractStages(docs), nil
	case "gate-state":
		return gateStateStages(docs), nil
	case "hybrid-os":
		return hybridStages(docs), nil
	case "stigmergy":
		return stigmergyStages(docs), nil
	}
	return nil, nil
}

// h3aStages: state.json gates, G0_planning … G3_production_ready, by
// their prefix; a gate the ledger last marked ESCALATED or BLOCKED (and
// the state does not call passed or failed) waits for a human.
func h3aStages(docs map[string]any) []audit.Stage {
	state, _ := docs["state"].(map[string]any)
	gates, _ := state["gates"].(map[string]any)
	keys := make([]string, 0, len(gates))
	for k := range gates {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	last := map[string]string{}
	for _, e := range h3aEvents(docs) {
		last[gateName(e.Stage)] = e.Status
	}
	var out []audit.Stage
	for _, k := range keys {
		name := gateName(k)
		v, _ := gates[k].(string)
		st := audit.StagePending
		switch v {
		case "passed":
			st = audit.StagePassed
		case "failed":
			st = audit.StageFailed
		default:
			if l := last[name]; strings.Contains(l, "ESCALAT") || l == "BLOCKED" {
				st = audit.StageNeedsHuman
			}
		}
		out = append(out, audit.Stage{Name: intern(name), Status: st})
	}
	return out
}

// intern gives one copy of a name many runs share, which the audit may
// keep without keeping the document it came from.
func intern(s string) string { return unique.Make(s).Value() }

// gateName shortens G1_implementation to G1.
func gateName(k string) string {
	if i := strings.IndexByte(k, '_'); i > 0 {
		return k[:i]
	}
	return k
}

func h3aEvents(docs map[string]any) []audit.Event {
	ledger, _ := docs["gates_ledger"].(map[string]any)
	events, _ := ledger["events"].([]any)
	var out []audit.Event
	for _, e := range events {
		m, _ := e.(map[string]any)
		str := func(k string) string { s, _ := m[k].(string); return s }
		// Copies: the audit outlives the ledger's bytes.
		out = append(out, audit.Event{Time: strings.Clone(str("time")), Stage: intern(str("gate")), Status: intern(str("status")), Agent: intern(str("agent"))})
	}
	return out
}

// contractStages: one stage per round, from its verdict.json verdict.
func contractStages(docs map[string]any) []audit.Stage {
	rounds, _ := docs["rounds"].([]any)
	var out []audit.Stage
	for i, r := range rounds {
		m, _ := r.(map[string]any)
		name := fmt.Sprintf("round %d", i+1)
		if n, ok := m["n"].(int); ok {
			name = "round " + strconv.Itoa(n)
		}
		v, _ := m["verdict"].(map[string]any)
		verdict, _ := v["verdict"].(string)
		st := audit.StagePending
		switch verdict {
		case "pass":
			st = audit.StagePassed
		case "reject":
			st = audit.StageFailed
		case "needs-human":
			st = audit.StageNeedsHuman
		}
		out = append(out, audit.Stage{Name: name, Status: st})
	}
	return out
}

// gateStateStages: each gate output of each pipeline, by gate number,
// from its status (SUCCESS, PARTIAL, FAILED).
func gateStateStages(docs map[string]any) []audit.Stage {
	pipelines, _ := docs["pipelines"].([]any)
	var out []audit.Stage
	for _, p := range pipelines {
		m, _ := p.(map[string]any)
		gates, _ := m["gates"].(map[string]any)
		nums := make([]int, 0, len(gates))
		for k := range gates {
			if n, err := strconv.Atoi(k); err == nil {
				nums = append(nums, n)
			}
		}
		slices.Sort(nums)
		prefix := ""
		if len(pipelines) > 1 {
			prefix, _ = m["prefix"].(string)
			prefix += " "
		}
		for _, n := range nums {
			g, _ := gates[strconv.Itoa(n)].(map[string]any)
			doc, _ := g["doc"].(map[string]any)
			status, _ := doc["status"].(string)
			st := audit.StagePending
			switch layout.GateStatus(status) {
			case layout.GateSuccess:
				st = audit.StagePassed
			case layout.GateFailed:
				st = audit.StageFailed
			}
			out = append(out, audit.Stage{Name: fmt.Sprintf("%sG%d", prefix, n), Status: st})
		}
	}
	return out
}

// hybridPhases are the phases of a hybrid-os run in order: analyze,
// blueprint, construct, validate.
var hybridPhases = []string{"A", "B", "C", "V"}

// hybridStages: the phases before the current one (state.json ph) have
// passed; the current one stands as st says (BLK_* needs a human, ERROR
// failed); an idle run (I) shows as one stage.
func hybridStages(docs map[string]any) []audit.Stage {
	state, _ := docs["state"].(map[string]any)
	ph, _ := state["ph"].(string)
	st, _ := state["st"].(string)
	current := audit.StagePending
	switch {
	case strings.HasPrefix(st, "BLK_"):
		current = audit.StageNeedsHuman
	case st == "ERROR":
		current = audit.StageFailed
	}
	at := slices.Index(hybridPhases, ph)
	if at < 0 {
		if ph == "" {
			return nil
		}
		return []audit.Stage{{Name: ph, Status: current}}
	}
	out := make([]audit.Stage, len(hybridPhases))
	for i, p := range hybridPhases {
		out[i] = audit.Stage{Name: p, Status: audit.StagePending}
		switch {
		case i < at:
			out[i].Status = audit.StagePassed
		case i == at:
			out[i].Status = current
		}
	}
	return out
}

// stigmergyStages: the stages a project_status walks through, in order.
var stigmergyOrder = []struct{ name, status string }{
	{"briefing", "NEEDS_BRIEFING"}, {"prd", "NEEDS_PRD"}, {"architecture", "NEEDS_ARCHITECTURE"},
	{"blueprint", "NEEDS_BLUEPRINT"}, {"execution", "READY_FOR_EXECUTION"},
}

func stigmergyStages(docs map[string]any) []audit.Stage {
	state, _ := docs["state"].(map[string]any)
	status, _ := state["project_status"].(string)
	at := -1
	current := audit.StagePending
	switch status {
	case "", "PROJECT_COMPLETE":
		if status == "" {
			return nil
		}
		at = len(stigmergyOrder)
	case "EXECUTION_IN_PROGRESS":
		at = len(stigmergyOrder) - 1
	case "EXECUTION_HALTED":
		at, current = len(stigmergyOrder)-1, audit.StageNeedsHuman
	default:
		for i, s := range stigmergyOrder {
			if s.status == status {
				at = i
			}
		}
	}
	if at < 0 {
		return []audit.Stage{{Name: strings.ToLower(status), Status: audit.StagePending}}
	}
	out := make([]audit.Stage, len(stigmergyOrder))
	for i, s := range stigmergyOrder {
		out[i] = audit.Stage{Name: s.name, Status: audit.StagePending}
		switch {
		case i < at:
			out[i].Status = audit.StagePassed
		case i == at:
			out[i].Status = current
		}
	}
	return out
}
