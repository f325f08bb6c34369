package layout

import (
	"fmt"
	"io/fs"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/h3a-check/h3a-check/internal/finding"
	"github.com/h3a-check/h3a-check/internal/schema"
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

	// stigmergyFailureLimit is the spec's retry limit: at two consecutive
	// failures a task goes to a Responder.
	stigmergyFailureLimit = 2
)

var stigmergyFiles = []File{
	{Path: stigmergyState, Kind: JSON, DocKey: "state"},
	{Path: stigmergyEngineState, Kind: JSON, DocKey: "engine_state"},
	{Path: stigmergyBlueprint, Kind: YAML, DocKey: "blueprint"},
}

// stigmergyStages are the project statuses in order; a NEEDS_X stage's
// document must exist once the status is past it.
var stigmergyStages = []struct{ status, document string }{
	{"NEEDS_BRIEFING", "docs/brief.md"},
	{"NEEDS_PRD", "docs/prd.md"},
	{"NEEDS_ARCHITECTURE", "docs/architecture.md"},
	{"NEEDS_BLUEPRINT", stigmergyBlueprint},
	{"READY_FOR_EXECUTION", ""},
	{"EXECUTION_IN_PROGRESS", ""},
	{"EXECUTION_HALTED", ""},
	{"PROJECT_COMPLETE", ""},
}

var (
	stigmergyTaskStatuses = []string{"PENDING", "IN_PROGRESS", "COMPLETED", "FAILED"}
	stigmergyRootKeys     = []string{"schema_version", "project_name", "goal", "project_status", "project_manifest", "history", "issue_log"}
	stigmergyTaskKeys     = []string{"id", "summary", "agent", "status", "dependencies", "failure_count"}
	stigmergyHistoryKeys  = []string{"timestamp", "agent_id", "signal", "summary"}
	iso8601               = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})$`)
)

// stigmergyAppendOnly: history[] is the spec's immutable ledger, and an
// issue resolved stays resolved unless the ledger says why.
var stigmergyAppendOnly = []AppendOnly{
	{stigmergyState, ArrayPrefix{Pointer: "/history"}},
	{stigmergyState, ResolvedIssuesStay{}},
	{stigmergyEngineState, ArrayPrefix{Pointer: "/history"}},
}

func (Stigmergy) ID() string               { return "stigmergy" }
func (Stigmergy) Files() []File            { return stigmergyFiles }
func (Stigmergy) AppendOnly() []AppendOnly { return stigmergyAppendOnly }

// Detect: .ai/state.json or the engine's .stigmergy/state/current.json.
func (Stigmergy) Detect(fsys fs.FS, dir string) bool {
	// The folder is asked about first: a search lists it already, so a
	// folder without .ai/ or .stigmergy/ costs no further look.
	return isDir(fsys, dir, ".ai") && isFile(fsys, dir, stigmergyState) ||
		isDir(fsys, dir, ".stigmergy") && isFile(fsys, dir, stigmergyEngineState)
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

func (l Stigmergy) strict(r *Run) bool {
	return l.stateFile(r) == stigmergyState && l.version(r) == `schema_version "3.0"`
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

func (l Stigmergy) Docs(r *Run) map[string]any {
	docs := map[string]any{"version": l.version(r), "strict": l.strict(r)}
	for _, f := range stigmergyFiles {
		docs[f.DocKey] = r.Docs[f.Path].Value()
	}
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

// stigCheck carries what every check needs: where the state is, how
// strictly it is judged, and how its findings are phrased.
type stigCheck struct {
	r      *Run
	file   string
	state  map[string]any
	strict bool
	label  string
	out    []finding.Finding
}

func (c *stigCheck) add(rule finding.Rule, ptr, format string, args ...any) {
	f := rule.New(c.file, format, args...)
	if !c.strict {
		f.Severity = finding.Warning
		f.Details = c.label + ": " + f.Details
	}
	f.Pointer = ptr
	c.out = append(c.out, f)
}

func (l Stigmergy) Check(r *Run) []finding.Finding {
	file := l.stateFile(r)
	state, ok := r.Docs[file].Value().(map[string]any)
	if !ok {
		return nil // missing, unparseable or not an object: reported by the loader
	}
	c := &stigCheck{r: r, file: file, state: state, strict: l.strict(r), label: l.version(r)}
	if c.strict {
		c.schema()
	} else {
		c.drift()
	}
	tasks := l.tasks(r)
	c.taskRules(tasks)
	c.stages()
	c.blueprint(tasks)
	c.issues(tasks)
	c.timestamps()
	return c.out
}

// schema validates a 3.0 file; the loader does not, since only 3.0 files
// are held to it.
func (c *stigCheck) schema() {
	set, err := schema.Default()
	if err != nil {
		return
	}
	for _, v := range set.Validate("stigmergy_state", c.state) {
		f := finding.SchemaViolation.New(c.file, "%s", v.Message)
		f.Pointer = v.Pointer
		c.out = append(c.out, f)
	}
}

// drift lists, once per kind, how a file of another version differs from 3.0.
func (c *stigCheck) drift() {
	warn := func(ptr, format string, args ...any) {
		f := finding.StigmergyDrift.New(c.file, c.label+": "+format, args...)
		f.Pointer = ptr
		c.out = append(c.out, f)
	}
	var missing, extra []string
	for _, k := range stigmergyRootKeys {
		if _, ok := c.state[k]; !ok {
			missing = append(missing, k)
		}
	}
	for _, k := range sortedKeys(c.state) {
		if !slices.Contains(stigmergyRootKeys, k) {
			extra = append(extra, k)
		}
	}
	if len(missing) > 0 {
		warn("", "lacks %s of schema 3.0", strings.Join(missing, ", "))
	}
	if len(extra) > 0 {
		warn("", "has keys schema 3.0 does not define: %s", strings.Join(extra, ", "))
	}
	if g, ok := c.state["goal"]; ok {
		if _, isString := g.(string); !isString {
			warn("/goal", "goal is %s, expected the user's goal as a string", describeValue(g))
		}
	}
	if st, ok := c.state["project_status"]; ok && !slices.ContainsFunc(stigmergyStages, func(s struct{ status, document string }) bool { return s.status == str(st) }) {
		warn("/project_status", "project_status %s is not a 3.0 status", describeValue(st))
	}
	state, _ := c.state["project_manifest"].(map[string]any)
	tasks, _ := state["tasks"].([]any)
	var lacking, badStatus []string
	for _, t := range tasks {
		m, _ := t.(map[string]any)
		for _, k := range stigmergyTaskKeys {
			if _, ok := m[k]; !ok && !slices.Contains(lacking, k) {
				lacking = append(lacking, k)
			}
		}
		if st, ok := m["status"]; ok && !slices.Contains(stigmergyTaskStatuses, str(st)) {
			badStatus = append(badStatus, fmt.Sprintf("%s (%s)", str(m["id"]), describeValue(st)))
		}
	}
	if len(lacking) > 0 {
		warn("/project_manifest/tasks", "tasks lack %s", strings.Join(lacking, ", "))
	}
	if len(badStatus) > 0 {
		warn("/project_manifest/tasks", "task statuses outside PENDING, IN_PROGRESS, COMPLETED, FAILED: %s", strings.Join(badStatus, ", "))
	}
	history, _ := c.state["history"].([]any)
	lacking = nil
	for _, h := range history {
		m, _ := h.(map[string]any)
		for _, k := range stigmergyHistoryKeys {
			if _, ok := m[k]; !ok && !slices.Contains(lacking, k) {
				lacking = append(lacking, k)
			}
		}
	}
	if len(lacking) > 0 {
		warn("/history", "history entries lack %s", strings.Join(lacking, ", "))
	}
}

func taskPtr(t stigTask, rest string) string {
	return fmt.Sprintf("/project_manifest/tasks/%d%s", t.i, rest)
}

func (c *stigCheck) taskRules(tasks []stigTask) {
	byID := map[string]stigTask{}
	for _, t := range tasks {
		if t.id == "" {
			continue
		}
		if first, dup := byID[t.id]; dup {
			c.add(finding.StigmergyDuplicateTask, taskPtr(t, "/id"), "task id %q is used twice (tasks[%d] and tasks[%d])", t.id, first.i, t.i)
			continue
		}
		byID[t.id] = t
	}
	deps := func(t stigTask) []string { return stringList(t.doc["dependencies"]) }
	for _, t := range tasks {
		status := str(t.doc["status"])
		for j, d := range deps(t) {
			dep, known := byID[d]
			switch {
			case !known:
				c.add(finding.StigmergyUnknownTask, taskPtr(t, fmt.Sprintf("/dependencies/%d", j)), "task %q depends on %q, which is not a task of the manifest", t.id, d)
			case (status == "IN_PROGRESS" || status == "COMPLETED") && str(dep.doc["status"]) != "COMPLETED":
				c.add(finding.StigmergyDependencyIncomplete, taskPtr(t, "/status"), "task %q is %s but its dependency %q is %s; expected COMPLETED", t.id, status, d, describeValue(dep.doc["status"]))
			}
		}
		if n, ok := number(t.doc["failure_count"]); ok && n >= stigmergyFailureLimit {
			if status != "FAILED" {
				c.add(finding.StigmergyFailureLimit, taskPtr(t, "/status"), "task %q has failure_count %d (limit %d) but is %s; expected FAILED", t.id, n, stigmergyFailureLimit, describeValue(t.doc["status"]))
			}
			if !c.openIssueFor(t.id) {
				c.add(finding.StigmergyFailureLimit, taskPtr(t, "/failure_count"), "task %q has failure_count %d (limit %d) but no open issue_log entry references it", t.id, n, stigmergyFailureLimit)
			}
		}
	}
	for _, cycle := range dependencyCycles(tasks, byID) {
		first := byID[cycle[0]]
		c.add(finding.StigmergyDependencyCycle, taskPtr(first, "/dependencies"), "dependency cycle: %s", strings.Join(append(cycle, cycle[0]), " → "))
	}
	if status := str(c.state["project_status"]); len(tasks) > 0 {
		var open []string
		for _, t := range tasks {
			if str(t.doc["status"]) != "COMPLETED" {
				open = append(open, t.id)
			}
		}
		switch {
		case status == "PROJECT_COMPLETE" && len(open) > 0:
			c.add(finding.StigmergyProjectComplete, "/project_status", "project_status is PROJECT_COMPLETE but %d task(s) are not COMPLETED: %s", len(open), strings.Join(open, ", "))
		case status != "PROJECT_COMPLETE" && len(open) == 0 && slices.Contains([]string{"READY_FOR_EXECUTION", "EXECUTION_IN_PROGRESS", "EXECUTION_HALTED"}, status):
			c.add(finding.StigmergyProjectComplete, "/project_status", "every task is COMPLETED but project_status is %q; expected \"PROJECT_COMPLETE\"", status)
		}
	}
}

func (c *stigCheck) openIssueFor(task string) bool {
	issues, _ := c.state["issue_log"].([]any)
	for _, x := range issues {
		m, _ := x.(map[string]any)
		if str(m["task_id_ref"]) == task && (str(m["status"]) == "OPEN" || str(m["status"]) == "IN_PROGRESS") {
			return true
		}
	}
	return false
}

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

func (c *stigCheck) stages() {
	status := str(c.state["project_status"])
	at := slices.IndexFunc(stigmergyStages, func(s struct{ status, document string }) bool { return s.status == status })
	for i := 0; i < at; i++ {
		doc := stigmergyStages[i].document
		if doc == "" {
			continue
		}
		if !fileInRun(c.r.Dir, doc) {
			c.add(finding.StigmergyMissingDocument, "/project_status", "project_status %q is past %s but %s does not exist", status, stigmergyStages[i].status, doc)
		}
	}
}

// blueprintTasks reads the task ids of execution-blueprint.yml: a "tasks"
// list at the top, or a list at the top.
func blueprintTasks(v any) (ids []string, ptrs []string, ok bool) {
	list, isList := v.([]any)
	prefix := ""
	if m, isMap := v.(map[string]any); isMap {
		list, isList = m["tasks"].([]any)
		prefix = "/tasks"
	}
	if !isList {
		return nil, nil, false
	}
	for i, t := range list {
		if m, isMap := t.(map[string]any); isMap && str(m["id"]) != "" {
			ids = append(ids, str(m["id"]))
			ptrs = append(ptrs, fmt.Sprintf("%s/%d/id", prefix, i))
		}
	}
	return ids, ptrs, true
}

func (c *stigCheck) blueprint(tasks []stigTask) {
	doc := c.r.Docs[stigmergyBlueprint]
	ids, ptrs, ok := blueprintTasks(doc.Value())
	if !ok {
		return
	}
	inManifest := map[string]bool{}
	for _, t := range tasks {
		inManifest[t.id] = true
	}
	for i, id := range ids {
		if !inManifest[id] {
			f := finding.StigmergyBlueprintMismatch.New(stigmergyBlueprint, "blueprint task %q is not in the manifest of %s", id, c.file)
			if !c.strict {
				f.Severity, f.Details = finding.Warning, c.label+": "+f.Details
			}
			f.Pointer = ptrs[i]
			c.out = append(c.out, f)
		}
	}
	for _, t := range tasks {
		if t.id != "" && !slices.Contains(ids, t.id) {
			c.add(finding.StigmergyBlueprintMismatch, taskPtr(t, "/id"), "manifest task %q is not in %s", t.id, stigmergyBlueprint)
		}
	}
}

func (c *stigCheck) issues(tasks []stigTask) {
	known := map[string]bool{}
	for _, t := range tasks {
		known[t.id] = true
	}
	issues, _ := c.state["issue_log"].([]any)
	for i, x := range issues {
		m, _ := x.(map[string]any)
		if ref, ok := m["task_id_ref"].(string); ok && !known[ref] {
			c.add(finding.StigmergyUnknownTask, fmt.Sprintf("/issue_log/%d/task_id_ref", i), "issue %q references task %q, which is not a task of the manifest", str(m["issue_id"]), ref)
		}
	}
}

func (c *stigCheck) timestamps() {
	for _, list := range []string{"history", "issue_log"} {
		arr, _ := c.state[list].([]any)
		var last time.Time
		lastAt := -1
		for i, x := range arr {
			m, _ := x.(map[string]any)
			raw, present := m["timestamp"]
			if !present {
				continue // a 3.0 schema finding, or drift
			}
			ptr := fmt.Sprintf("/%s/%d/timestamp", list, i)
			s, _ := raw.(string)
			if !iso8601.MatchString(s) {
				c.add(finding.StigmergyTimestamp, ptr, "%s[%d].timestamp %s is not an ISO 8601 date and time", list, i, describeValue(raw))
				continue
			}
			t, err := time.Parse(time.RFC3339Nano, normaliseOffset(s))
			if err != nil {
				c.add(finding.StigmergyTimestamp, ptr, "%s[%d].timestamp %q is not a real date and time", list, i, s)
				continue
			}
			if list == "history" && lastAt >= 0 && t.Before(last) {
				f := finding.StigmergyTimeOrder.New(c.file, "history[%d] (%s) is older than history[%d] (%s)", i, s, lastAt, last.Format(time.RFC3339Nano))
				if !c.strict {
					f.Details = c.label + ": " + f.Details
				}
				f.Pointer = ptr
				c.out = append(c.out, f)
			}
			last, lastAt = t, i
		}
	}
}

// normaliseOffset turns +0700 into +07:00 and adds missing seconds, which
// ISO 8601 allows and RFC 3339 does not.
func normaliseOffset(s string) string {
	if n := len(s); n > 5 && (s[n-5] == '+' || s[n-5] == '-') && !strings.Contains(s[n-5:], ":") {
		s = s[:n-2] + ":" + s[n-2:]
	}
	if len(s) >= 16 && (len(s) == 16 || s[16] != ':') {
		s = s[:16] + ":00" + s[16:]
	}
	return s
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
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
