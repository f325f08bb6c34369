package runwrite

import (
	"encoding/json"
	"fmt"
	"strings"
)

// Layouts are the layouts Init can make a run of; h3a is the default.
var Layouts = []string{"h3a", "contract", "gate-state", "hybrid-os", "stigmergy"}

// InitLayout creates a fresh run of layout (one of Layouts) in
// opts.RunsDir, named by a new run id, and returns its directory: the
// least each layout's documentation defines a run by, in the state a run
// has before its first step, which the checker passes. h3a is Init.
func InitLayout(opts InitOptions, layout string) (string, error) {
	if layout == "" || layout == "h3a" {
		return Init(opts)
	}
	id, err := NewRunID(opts.Now, opts.Random)
	if err != nil {
		return "", err
	}
	brief := strings.TrimSpace(opts.Brief)
	if brief == "" {
		brief = DefaultBrief
	}
	files, err := layoutFiles(layout, brief)
	if err != nil {
		return "", err
	}
	return writeRun(opts.RunsDir, id, nil, files)
}

// layoutFiles are a fresh run's files, the one that makes the folder a
// run last.
func layoutFiles(layout, brief string) ([]File, error) {
	doc := func(path string, v any) File {
		b, _ := json.MarshalIndent(v, "", "  ")
		return File{path, append(b, '\n')}
	}
	switch layout {
	case "contract":
		// A loop before its first round: the round folder the doer writes
		// into (.gitkeep, since git keeps no empty folder).
		return []File{{"rounds/round-1/.gitkeep", nil}}, nil
	case "gate-state":
		return []File{doc(".state/project-task-pipeline.json", map[string]any{
			"status": "IN_PROGRESS", "currentGate": 1, "completedGates": []int{},
			"metadata": map[string]any{"domain": "project", "feature": "task", "userStory": brief, "acceptanceCriteria": []string{}},
		})}, nil
	case "hybrid-os":
		return []File{
			doc("known_issues.json", map[string]any{"v": 1, "issues": map[string]any{}}),
			doc("state.json", map[string]any{"v": 1, "g": 0, "ln": 0, "max": 5, "ph": "A", "st": "READY", "rt": map[string]any{}, "iss": map[string]any{}, "err": nil}),
		}, nil
	case "stigmergy":
		return []File{doc(".ai/state.json", map[string]any{
			"schema_version": "3.0", "project_name": "project", "goal": brief, "project_status": "NEEDS_BRIEFING",
			"project_manifest": map[string]any{"tasks": []any{}}, "history": []any{}, "issue_log": []any{},
		})}, nil
	}
	return nil, fmt.Errorf("layout %q: expected one of %s", layout, strings.Join(Layouts, ", "))
}
