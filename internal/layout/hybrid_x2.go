package layout

import (
	"fmt"
	"slices"
	"strings"

	"github.com/h3a-check/h3a-check/internal/finding"
)

// The vX.2 generation has no specification in hand, only its files: the
// checks below hold it to what v1.4 and its own files agree on and report
// every departure as drift (a warning). Parse errors stay errors: an
// unreadable control file is unreadable for the agent too. Paths are not
// followed: vX.2 registries name repository files, not run files, and a
// committed snapshot holds only the control files that changed.

var (
	hybridPhases   = []string{"A", "B", "C", "V", "I", "ANALYZE", "BLUEPRINT", "CONSTRUCT", "VALIDATE", "IDLE"}
	hybridStatuses = []string{"READY", "BUSY", "BLK_CON", "BLK_SUM", "BLK_PSUM", "BLK_MAX", "ERROR"}
)

func checkHybridX2(r *Run) []finding.Finding {
	state, ok := r.Docs[hybridX2State].Value().(map[string]any)
	if !ok {
		return nil // a parse error or a non-object is reported by the loader
	}
	drift := func(ptr, format string, args ...any) finding.Finding {
		return at(finding.HybridDrift.New(hybridX2State, "vX.2: "+format, args...), ptr)
	}
	var out []finding.Finding
	for _, k := range []string{"v", "g"} {
		if _, ok := number(state[k]); !ok {
			out = append(out, drift("/"+k, "%s is %s, expected an integer", k, describeValue(state[k])))
		}
	}
	switch ph, present := state["ph"]; {
	case !present:
		out = append(out, drift("", "state.txt has no ph; expected one of %s", strings.Join(hybridPhases, ", ")))
	case !slices.Contains(hybridPhases, str(ph)):
		out = append(out, drift("/ph", "ph is %s, not a phase (%s)", describeValue(ph), strings.Join(hybridPhases, ", ")))
	}
	if st, present := state["st"]; present && !slices.Contains(hybridStatuses, str(st)) {
		out = append(out, drift("/st", "st is %s, not a status (%s)", describeValue(st), strings.Join(hybridStatuses, ", ")))
	}
	switch rt, present := state["rt"]; {
	case !present:
		out = append(out, drift("", "state.txt has no rt; expected an object of retry counts ({} when none)"))
	default:
		if _, isObj := rt.(map[string]any); !isObj {
			out = append(out, drift("/rt", "rt is %s, expected an object of retry counts", describeValue(rt)))
		}
	}
	out = append(out, checkX2Issues(r, state)...)
	return out
}

// checkX2Issues: the active issues state.txt caches are open issues of
// issues_summary.txt.
func checkX2Issues(r *Run, state map[string]any) []finding.Finding {
	summary, ok := r.Docs[hybridX2Issues].Value().(map[string]any)
	if !ok {
		return nil
	}
	issues, _ := summary["issues_map"].(map[string]any)
	var out []finding.Finding
	for i, id := range stringList(state["active_issue_ids"]) {
		ptr := fmt.Sprintf("/active_issue_ids/%d", i)
		issue, known := issues[id].(map[string]any)
		switch {
		case !known:
			out = append(out, at(finding.HybridDrift.New(hybridX2State, "vX.2: active issue %q is not in issues_summary.txt", id), ptr))
		case strings.HasPrefix(strings.ToUpper(str(issue["status"])), "RES"):
			out = append(out, at(finding.HybridDrift.New(hybridX2State, "vX.2: active issue %q is %q in issues_summary.txt", id, str(issue["status"])), ptr))
		}
	}
	return out
}

func describeValue(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case string:
		return fmt.Sprintf("%q", x)
	case map[string]any:
		return "an object"
	case []any:
		return "an array"
	case bool:
		return fmt.Sprintf("%t", x)
	}
	return fmt.Sprintf("%v", v)
}
