package layout

import (
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"

	"github.com/h3a-check/h3a-check/internal/finding"
)

// Stigmergy is the layout of stigmergy-state-schema.md: a project root
// whose .ai/state.json is the swarm's ledger, with the stage documents
// under docs/ and execution-blueprint.yml beside it. The engine's later
// .stigmergy/state/current.json is recognised too. Only a file declaring
// schema_version "3.0" is held to the schema; any other shape is checked
// for what it shares with 3.0, and every departure is a warning naming
// the version.
type Stigmergy struct{}

const (
	stigmergyState       = ".ai/state.json"
	stigmergyEngineState = ".stigmergy/state/current.json"
	stigmergyBlueprint   = "execution-blueprint.yml"
)

// stigmergyFiles: only a ledger that declares schema 3.0 is held to the
// schema (stigmergy-state-schema.md: "All agents MUST read from and write
// to this file in accordance with this schema"); the engine's later file
// is checked for what it shares with it, by the policy.
var stigmergyFiles = []File{
	{Path: stigmergyState, Kind: JSON, DocKey: "state", Versioned: &Versioned{Member: "schema_version", Schemas: map[string]string{"3.0": "stigmergy_state"}}},
	{Path: stigmergyEngineState, Kind: JSON, DocKey: "engine_state"},
	{Path: stigmergyBlueprint, Kind: YAML, DocKey: "blueprint"},
}

// stigmergyStageDocuments are the documents the NEEDS_X stages produce;
// whether each exists is a fact of the input, and which status needs
// which is the policy's (policies/stigmergy.rego).
var stigmergyStageDocuments = []string{"docs/brief.md", "docs/prd.md", "docs/architecture.md", stigmergyBlueprint}

// stigmergyAppendOnly: history[] is the spec's immutable ledger; an issue
// resolved stays resolved, and one open stays logged and is resolved only,
// unless the ledger says why; a ledger held to schema 3.0 at the base stays
// held to it; a manifest task is not dropped, nor a halted project resumed,
// unless a person confirms it.
var stigmergyAppendOnly = []AppendOnly{
	{stigmergyState, SchemaKept{}},
	{stigmergyState, ArrayPrefix{Pointer: "/history"}},
	{stigmergyState, ResolvedIssuesStay{}},
	{stigmergyState, OpenIssuesStay{}},
	{stigmergyState, ManifestTasksStay{}},
	{stigmergyState, HaltStays{}},
	{stigmergyEngineState, ArrayPrefix{Pointer: "/history"}},
	{stigmergyEngineState, OpenIssuesStay{}},
	{stigmergyEngineState, ManifestTasksStay{}},
	{stigmergyEngineState, HaltStays{}},
}

func (Stigmergy) ID() string               { return "stigmergy" }
func (Stigmergy) Files() []File            { return stigmergyFiles }
func (Stigmergy) AppendOnly() []AppendOnly { return stigmergyAppendOnly }

// Detect: .ai/state.json or the engine's .stigmergy/state/current.json.
func (Stigmergy) Detect(fsys fs.FS, dir string) bool {
	// The folder is asked about first: a search lists it already, so a
	// folder without .ai/ or .stigmergy/ costs no further look.
	return isDirOrLink(fsys, dir, ".ai") && isFile(fsys, dir, stigmergyState) ||
		isDirOrLink(fsys, dir, ".stigmergy") && isFile(fsys, dir, stigmergyEngineState)
}

func (l Stigmergy) Forced(fsys fs.FS, dir string) bool { return l.Detect(fsys, dir) }

func (Stigmergy) Defined() string {
	return "a stigmergy root holds .ai/state.json or .stigmergy/state/current.json"
}

// stateFile is the ledger a run keeps: .ai/state.json when present.
func (Stigmergy) stateFile(r *Run) string {
	if docPresent(r, stigmergyState) || !docPresent(r, stigmergyEngineState) {
		return stigmergyState
	}
	return stigmergyEngineState
}

// version names the shape of the state file for messages and notes.
func (l Stigmergy) version(r *Run) string {
	file := l.stateFile(r)
	if file == stigmergyEngineState {
		return "engine current.json"
	}
	state, _ := r.Docs[file].Value().(map[string]any)
	switch v := state["schema_version"].(type) {
	case string:
		return fmt.Sprintf("schema_version %q", v)
	case nil:
		return "no schema_version"
	default:
		return fmt.Sprintf("schema_version %s", describeValue(v))
	}
}

// strict: the ledger is held to a schema (see stigmergyFiles).
func (l Stigmergy) strict(r *Run) bool {
	return l.stateFile(r) == stigmergyState && stigmergyFiles[0].SchemaFor(r.Docs[stigmergyState].Value()) != ""
}

func (l Stigmergy) Notes(r *Run) string {
	if l.strict(r) {
		return "Stigmergy state schema 3.0 recognised"
	}
	return fmt.Sprintf("Stigmergy %s in %s recognised; checked for what it shares with schema 3.0, differences are warnings", l.version(r), l.stateFile(r))
}

func (Stigmergy) Evidence(*Run) []EvidenceRef { return nil }

func (l Stigmergy) RunID(r *Run) string {
	if name, ok := jsonString(r, l.stateFile(r), "project_name"); ok {
		return name
	}
	return filepath.Base(r.Dir)
}

func (l Stigmergy) TaskID(r *Run) string {
	for _, t := range l.tasks(r) {
		if str(t.doc["status"]) == "IN_PROGRESS" {
			return t.id
		}
	}
	return ""
}

// Needs: whether each stage document is a regular file of the run.
func (Stigmergy) Needs(*Run) []Need {
	needs := make([]Need, len(stigmergyStageDocuments))
	for i, doc := range stigmergyStageDocuments {
		needs[i] = Need{Path: doc, Want: RegularFile}
	}
	return needs
}

// Docs gives the documents as written, the shape recognised (version,
// strict), and what the rules cannot work out from the documents: which
// stage documents exist (documents), the cycles of the task
// dependencies as a depth-first search meets them (dependency_cycles), and
// what the ledger's timestamps say (timestamps).
func (l Stigmergy) Docs(r *Run) map[string]any {
	docs := map[string]any{"version": l.version(r), "strict": l.strict(r)}
	for _, f := range stigmergyFiles {
		docs[f.DocKey] = r.Docs[f.Path].Value()
	}
	documents := map[string]any{}
	for _, doc := range stigmergyStageDocuments {
		documents[doc] = r.IsFile(doc)
	}
	docs["documents"] = documents
	tasks := l.tasks(r)
	byID := map[string]stigTask{}
	for _, t := range tasks {
		if _, dup := byID[t.id]; t.id != "" && !dup {
			byID[t.id] = t
		}
	}
	cycles := []any{}
	for _, c := range dependencyCycles(tasks, byID) {
		ids := make([]any, len(c))
		for i, id := range c {
			ids[i] = id
		}
		cycles = append(cycles, ids)
	}
	docs["dependency_cycles"] = cycles
	ledger, _ := r.Docs[l.stateFile(r)].Value().(map[string]any)
	docs["timestamps"] = stigmergyTimestamps(ledger)
	return docs
}

type stigTask struct {
	id  string
	i   int
	doc map[string]any
}

func (l Stigmergy) tasks(r *Run) []stigTask {
	state, _ := r.Docs[l.stateFile(r)].Value().(map[string]any)
	manifest, _ := state["project_manifest"].(map[string]any)
	arr, _ := manifest["tasks"].([]any)
	var out []stigTask
	for i, t := range arr {
		if m, ok := t.(map[string]any); ok {
			out = append(out, stigTask{id: str(m["id"]), i: i, doc: m})
		}
	}
	return out
}

// Check: the schema stage validates a 3.0 ledger (File.Versioned); every
// other rule of the layout judges documents and facts of the input, so it
// is Rego (policies/stigmergy.rego).
func (Stigmergy) Check(*Run) []finding.Finding { return nil }

// dependencyCycles finds each cycle once, as the ids along it starting at
// its smallest id, in a stable order.
func dependencyCycles(tasks []stigTask, byID map[string]stigTask) [][]string {
	const (
		unseen = iota
		onPath
		done
	)
	color := map[string]int{}
	var path []string
	var cycles [][]string
	seen := map[string]bool{}
	var visit func(id string)
	visit = func(id string) {
		color[id] = onPath
		path = append(path, id)
		for _, d := range stringList(byID[id].doc["dependencies"]) {
			if _, known := byID[d]; !known {
				continue
			}
			switch color[d] {
			case unseen:
				visit(d)
			case onPath:
				start := slices.Index(path, d)
				cycle := slices.Clone(path[start:])
				m := slices.Index(cycle, slices.Min(cycle))
				cycle = append(cycle[m:], cycle[:m]...)
				if key := strings.Join(cycle, "\x00"); !seen[key] {
					seen[key] = true
					cycles = append(cycles, cycle)
				}
			}
		}
		path = path[:len(path)-1]
		color[id] = done
	}
	for _, t := range tasks {
		if t.id != "" && color[t.id] == unseen {
			visit(t.id)
		}
	}
	return cycles
}

// describeValue names a value for the notes.
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
