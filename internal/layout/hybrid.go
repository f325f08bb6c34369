package layout

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/h3a-check/h3a-check/internal/finding"
	"github.com/h3a-check/h3a-check/internal/rundir"
)

// Hybrid is the layout of Hybrid_AI_OS v1.4 (hybrid-ai-os-v1.4.md): a
// state.json with short keys, sharded plan and artifact registries with
// their summaries, an issue ledger and rollover JSON Lines logs. The later
// vX.2 generation (state.txt, registry_map.txt, issues_summary.txt, plans
// and issues as JSON inside .txt) is the same layout, checked leniently:
// its vocabulary drifted, so departures are warnings.
type Hybrid struct{}

const (
	hybridState         = "state.json"
	hybridPlanSummary   = "plan_summary.json"
	hybridRegSummary    = "registry_summary.json"
	hybridKnownIssues   = "known_issues.json"
	hybridLogs          = "logs/log_unit_*.jsonl"
	hybridPlans         = "plans/*/*.json"
	hybridArtifacts     = "registry/*/*.json"
	hybridX2State       = "state.txt"
	hybridX2RegistryMap = "registry_map.txt"
	hybridX2Issues      = "issues_summary.txt"
	hybridX2Plans       = "plans/*.txt"
	hybridX2IssueFiles  = "issues/*.txt"

	// hybridRetryLimit applies when the current plan names no max_rt; the
	// spec says only "MAX".
	hybridRetryLimit = 3
)

var hybridFiles = []File{
	{Path: hybridState, Kind: JSON, Schema: "hybrid_state", DocKey: "state"},
	{Path: hybridPlanSummary, Kind: JSON, Schema: "hybrid_summary", DocKey: "plan_summary"},
	{Path: hybridRegSummary, Kind: JSON, Schema: "hybrid_summary", DocKey: "registry_summary"},
	{Path: hybridKnownIssues, Kind: JSON, Schema: "hybrid_known_issues", DocKey: "known_issues"},
	{Path: hybridLogs, Kind: JSONLines, Schema: "hybrid_log", DocKey: "logs"},
	{Path: hybridPlans, Kind: JSON, Schema: "hybrid_plan", DocKey: "plans"},
	{Path: hybridArtifacts, Kind: JSON, Schema: "hybrid_artifact", DocKey: "artifacts"},
	{Path: hybridX2State, Kind: JSON, DocKey: "x2_state"},
	{Path: hybridX2RegistryMap, Kind: JSON, DocKey: "x2_registry_map"},
	{Path: hybridX2Issues, Kind: JSON, DocKey: "x2_issues_summary"},
	{Path: hybridX2Plans, Kind: JSON, DocKey: "x2_plans"},
	{Path: hybridX2IssueFiles, Kind: JSON, DocKey: "x2_issues"},
}

// hybridAppendOnly: under the optimistic lock every write raises a file's
// v and the global counter g only grows; log units only grow. The vX.2
// generation's v was seen restarting on purpose, so a lower one is a
// warning there.
var hybridAppendOnly = []AppendOnly{
	{hybridState, VersionsRise{finding.Error, []string{"v", "g"}}},
	{hybridPlanSummary, VersionsRise{finding.Error, []string{"v"}}},
	{hybridRegSummary, VersionsRise{finding.Error, []string{"v"}}},
	{hybridKnownIssues, VersionsRise{finding.Error, []string{"v"}}},
	{hybridPlans, VersionsRise{finding.Error, []string{"v"}}},
	{hybridArtifacts, VersionsRise{finding.Error, []string{"v"}}},
	{hybridLogs, RecordsPrefix{}},
	{hybridX2State, VersionsRise{finding.Warning, []string{"v", "g"}}},
	{hybridX2RegistryMap, VersionsRise{finding.Warning, []string{"v"}}},
	{hybridX2Issues, VersionsRise{finding.Warning, []string{"v"}}},
}

func (Hybrid) ID() string               { return "hybrid-os" }
func (Hybrid) Files() []File            { return hybridFiles }
func (Hybrid) AppendOnly() []AppendOnly { return hybridAppendOnly }

// Detect: state.json holding the short keys v, g, ph, st beside any of the
// other v1.4 files; or a state.txt holding v, g and st (vX.2). A state/
// folder makes it an H3A run, never this.
func (Hybrid) Detect(fsys fs.FS, dir string) bool {
	if exists(fsys, dir, "state") {
		return false
	}
	if hasKeys(fsys, dir, hybridState, "v", "g", "ph", "st") {
		for _, p := range []string{hybridPlanSummary, hybridRegSummary, hybridKnownIssues, "logs", "plans", "registry"} {
			if exists(fsys, dir, p) {
				return true
			}
		}
	}
	// A vX.2 snapshot may hold state.txt alone; its keys say what it is.
	return hasKeys(fsys, dir, hybridX2State, "v", "g", "st")
}

// Forced: with the layout forced, a state.json or state.txt is enough,
// whatever it holds (the check reports what is wrong with it), unless a
// state/ folder makes the folder an H3A run.
func (Hybrid) Forced(fsys fs.FS, dir string) bool {
	return !exists(fsys, dir, "state") && (exists(fsys, dir, hybridState) || exists(fsys, dir, hybridX2State))
}

func (Hybrid) Defined() string {
	return "a hybrid-os root holds state.json with v, g, ph, st beside plan_summary.json, registry_summary.json, known_issues.json, logs/, plans/ or registry/ (or a vX.2 state.txt)"
}

// Generation names which generation of the layout a run follows.
func (Hybrid) Generation(r *Run) string {
	if doc := r.Docs[hybridState]; doc != nil && doc.Present {
		return "v1.4"
	}
	if doc := r.Docs[hybridX2State]; doc != nil && doc.Present {
		return "vX.2"
	}
	return "v1.4"
}

// Notes says which generation was recognised, so a reader knows whether the
// strict v1.4 checks or the lenient vX.2 ones ran.
func (l Hybrid) Notes(r *Run) string {
	if l.Generation(r) == "vX.2" {
		return "Hybrid_AI_OS vX.2 generation recognised (state.txt); checked leniently, vocabulary drift is a warning"
	}
	return "Hybrid_AI_OS v1.4 generation recognised (state.json)"
}

func (Hybrid) Evidence(*Run) []EvidenceRef { return nil }

func (l Hybrid) Check(r *Run) []finding.Finding {
	if l.Generation(r) == "vX.2" {
		return checkHybridX2(r)
	}
	h := newHybridRun(r)
	var out []finding.Finding
	if h.state == nil && !docPresent(r, hybridState) {
		out = append(out, finding.MissingFile.New(hybridState, "state.json is missing; a Hybrid_AI_OS v1.4 run keeps its state there"))
	}
	out = append(out, h.checkSummaries()...)
	out = append(out, h.checkLogs()...)
	out = append(out, h.checkProcess()...)
	out = append(out, h.checkAnnotations()...)
	return out
}

func (l Hybrid) RunID(r *Run) string { return filepath.Base(r.Dir) }

func (l Hybrid) TaskID(r *Run) string {
	if id, ok := jsonString(r, hybridState, "ct"); ok {
		return id
	}
	id, _ := jsonString(r, hybridX2State, "ct_id")
	return id
}

// Docs: single files under their key; each family of files (plans,
// artifacts, logs) as an object keyed by path. logs holds every record of
// every unit in unit order, each with its unit and line.
func (l Hybrid) Docs(r *Run) map[string]any {
	docs := map[string]any{"generation": l.Generation(r)}
	for _, f := range hybridFiles {
		if !f.IsPattern() {
			docs[f.DocKey] = r.Docs[f.Path].Value()
			continue
		}
		family := map[string]any{}
		for _, m := range r.Files {
			if m.Spec.Path == f.Path {
				if v := r.Docs[m.Path].Value(); v != nil {
					family[m.Path] = v
				}
			}
		}
		docs[f.DocKey] = family
	}
	return docs
}

func docPresent(r *Run, p string) bool {
	d := r.Docs[p]
	return d != nil && d.Present
}

// hybridRun is a v1.4 run's documents, decoded once for the checks.
type hybridRun struct {
	r         *Run
	state     map[string]any
	plans     []hybridFile // plans/<dom>/<id>.json
	artifacts []hybridFile // registry/<dom>/<id>.json
	units     []logUnit    // in unit order
	issues    map[string]string
	hasIssues bool
}

type hybridFile struct {
	path string
	doc  map[string]any
}

type logUnit struct {
	path    string
	n       int
	records []any
}

var logUnitNumber = regexp.MustCompile(`^logs/log_unit_(\d+)\.jsonl$`)

func newHybridRun(r *Run) *hybridRun {
	h := &hybridRun{r: r, issues: map[string]string{}}
	h.state, _ = r.Docs[hybridState].Value().(map[string]any)
	for _, m := range r.Files {
		v, _ := r.Docs[m.Path].Value().(map[string]any)
		switch m.Spec.Path {
		case hybridPlans:
			if v != nil {
				h.plans = append(h.plans, hybridFile{m.Path, v})
			}
		case hybridArtifacts:
			if v != nil {
				h.artifacts = append(h.artifacts, hybridFile{m.Path, v})
			}
		case hybridLogs:
			recs, _ := r.Docs[m.Path].Value().([]any)
			if d := r.Docs[m.Path]; d != nil && d.Present {
				n := -1
				if sm := logUnitNumber.FindStringSubmatch(m.Path); sm != nil {
					n, _ = strconv.Atoi(sm[1])
				}
				h.units = append(h.units, logUnit{m.Path, n, recs})
			}
		}
	}
	// log_unit_10 comes after log_unit_9.
	slices.SortStableFunc(h.units, func(a, b logUnit) int { return a.n - b.n })
	if ki, ok := r.Docs[hybridKnownIssues].Value().(map[string]any); ok {
		h.hasIssues = true
		issues, _ := ki["issues"].(map[string]any)
		for id, v := range issues {
			st, _ := v.(map[string]any)["st"].(string)
			h.issues[id] = st
		}
	}
	return h
}

// number reads an integer-valued JSON number.
func number(v any) (int64, bool) {
	n, ok := v.(json.Number)
	if !ok {
		return 0, false
	}
	i, err := n.Int64()
	return i, err == nil
}

func str(v any) string {
	s, _ := v.(string)
	return s
}

func at(f finding.Finding, pointer string) finding.Finding {
	f.Pointer = pointer
	return f
}

// summaryEntry is one id of a summary: the file it maps to and the version
// it recorded, when it did.
type summaryEntry struct {
	id, path string
	v        int64
	hasV     bool
}

func summaryEntries(r *Run, p string) ([]summaryEntry, bool) {
	doc, ok := r.Docs[p].Value().(map[string]any)
	if !ok {
		return nil, false
	}
	m, _ := doc["map"].(map[string]any)
	var out []summaryEntry
	for id, v := range m {
		e := summaryEntry{id: id}
		switch x := v.(type) {
		case string:
			e.path = x
		case map[string]any:
			e.path = str(x["path"])
			e.v, e.hasV = number(x["v"])
		}
		if e.path != "" {
			out = append(out, e)
		}
	}
	slices.SortFunc(out, func(a, b summaryEntry) int { return strings.Compare(a.id, b.id) })
	return out, true
}

func (h *hybridRun) checkSummaries() []finding.Finding {
	var out []finding.Finding
	for _, s := range []struct {
		summary, what string
		files         []hybridFile
	}{
		{hybridPlanSummary, "plan", h.plans},
		{hybridRegSummary, "artifact", h.artifacts},
	} {
		byID := map[string]string{}
		for _, f := range s.files {
			id := str(f.doc["id"])
			if id == "" {
				continue
			}
			if first, dup := byID[id]; dup {
				out = append(out, at(finding.HybridDuplicateID.New(f.path, "%s id %q is also the id of %s; ids must be unique", s.what, id, first), "/id"))
				continue
			}
			byID[id] = f.path
		}
		entries, ok := summaryEntries(h.r, s.summary)
		if !ok {
			if len(s.files) > 0 && !docPresent(h.r, s.summary) {
				out = append(out, finding.HybridOrphan.New(s.summary, "%s is missing but %d %s file(s) exist; every %s file must be in its summary", s.summary, len(s.files), s.what, s.what))
			}
			continue
		}
		listed := map[string]bool{}
		for _, e := range entries {
			listed[e.path] = true
			ptr := "/map/" + escapePointer(e.id)
			f, found := fileAt(s.files, e.path)
			if !found {
				if !h.exists(e.path) {
					out = append(out, at(finding.HybridOrphan.New(s.summary, "%s %q points at %q, which does not exist", s.what, e.id, e.path), ptr))
				}
				continue
			}
			if id := str(f.doc["id"]); id != "" && id != e.id {
				out = append(out, at(finding.HybridOrphan.New(s.summary, "%s %q points at %q, whose id is %q", s.what, e.id, e.path, id), ptr))
			}
			if v, ok := number(f.doc["v"]); ok && e.hasV && v != e.v {
				out = append(out, at(finding.HybridVersionDrift.New(f.path, "%s %q has v %d but %s last recorded v %d", s.what, e.id, v, s.summary, e.v), "/v"))
			}
		}
		for _, f := range s.files {
			if !listed[f.path] {
				out = append(out, finding.HybridOrphan.New(f.path, "%s file %q is not in %s (an orphan); expected an entry mapping %q to it", s.what, f.path, s.summary, str(f.doc["id"])))
			}
		}
	}
	return out
}

func fileAt(files []hybridFile, p string) (hybridFile, bool) {
	for _, f := range files {
		if f.path == path.Clean(p) {
			return f, true
		}
	}
	return hybridFile{}, false
}

// exists reports whether a run-relative path names a regular file inside
// the run, resolved as the loader resolves paths: absolute paths, ".." and
// links leading out never do.
func (h *hybridRun) exists(p string) bool {
	return fileInRun(h.r.Dir, p)
}

func fileInRun(dir, p string) bool {
	if !insideRun(p) {
		return false
	}
	root, err := rundir.OpenRoot(dir)
	if err != nil {
		return false
	}
	defer root.Close()
	_, _, prob := root.Stat(p)
	return prob == nil
}

func insideRun(p string) bool {
	c := path.Clean(filepath.ToSlash(p))
	return p != "" && !path.IsAbs(c) && !filepath.IsAbs(p) && c != ".." && !strings.HasPrefix(c, "../") && !strings.Contains(p, ":")
}

func escapePointer(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1")
}

func (h *hybridRun) checkLogs() []finding.Finding {
	var out []finding.Finding
	var lastID int64
	lastAt := ""
	for _, u := range h.units {
		for i, rec := range u.records {
			m, _ := rec.(map[string]any)
			id, ok := number(m["id"])
			if !ok {
				continue // the schema reports it
			}
			ptr := fmt.Sprintf("/%d/id", i)
			if lastAt != "" && id <= lastID {
				out = append(out, at(finding.HybridLogCounter.New(u.path, "log id %d does not increase: the entry before it (%s) has id %d", id, lastAt, lastID), ptr))
			}
			lastID, lastAt = id, fmt.Sprintf("%s line %d", u.path, h.r.Docs[u.path].Lines.Line(i))
		}
	}
	if h.state == nil || len(h.units) == 0 {
		return out
	}
	if g, ok := number(h.state["g"]); ok && lastAt != "" && g != lastID {
		out = append(out, at(finding.HybridLogCounter.New(hybridState, "g is %d but the last log entry (%s) has id %d; g must equal it", g, lastAt, lastID), "/g"))
	}
	maxN, hasMax := number(h.state["max"])
	newest := h.units[len(h.units)-1]
	if ln, ok := number(h.state["ln"]); ok {
		if int64(len(newest.records)) != ln {
			out = append(out, at(finding.HybridLogRollover.New(hybridState, "ln is %d but the newest log unit %s has %d entries", ln, newest.path, len(newest.records)), "/ln"))
		}
		if hasMax && ln >= maxN {
			out = append(out, at(finding.HybridLogRollover.New(hybridState, "ln %d is not below max %d; the log should have rolled over to a new unit", ln, maxN), "/ln"))
		}
	}
	if hasMax {
		for _, u := range h.units[:len(h.units)-1] {
			if int64(len(u.records)) != maxN {
				out = append(out, finding.HybridLogRollover.New(u.path, "full log unit %s has %d entries; a unit rolls over at exactly max %d", u.path, len(u.records), maxN))
			}
		}
	}
	return out
}

// nextPhase lists the legal successors of each phase besides itself.
var nextPhase = map[string][]string{"A": {"B"}, "B": {"C"}, "C": {"V"}, "V": {"C", "I"}, "I": {"A"}}

func (h *hybridRun) checkProcess() []finding.Finding {
	var out []finding.Finding
	prev, prevAt := "", ""
	sawError := false
	for _, u := range h.units {
		for i, rec := range u.records {
			m, _ := rec.(map[string]any)
			if str(m["L"]) == "E" {
				sawError = true
			}
			ph := str(m["ph"])
			if _, known := nextPhase[ph]; !known {
				continue
			}
			if prev != "" && ph != prev && !slices.Contains(nextPhase[prev], ph) {
				out = append(out, at(finding.HybridPhaseTransition.New(u.path, "phase changes from %q (%s) to %q; after %q comes %s", prev, prevAt, ph, prev, quoteAll(nextPhase[prev])), fmt.Sprintf("/%d/ph", i)))
			}
			prev, prevAt = ph, fmt.Sprintf("%s line %d", u.path, h.r.Docs[u.path].Lines.Line(i))
		}
	}
	if h.state == nil {
		return out
	}
	st := str(h.state["st"])
	if st == "ERROR" && !sawError {
		out = append(out, at(finding.HybridErrorUnlogged.New(hybridState, "st is \"ERROR\" but no log unit holds an entry with L \"E\""), "/st"))
	}
	cp, _ := h.state["cp"].(string)
	ct, _ := h.state["ct"].(string)
	var plan map[string]any
	if cp != "" {
		entries, _ := summaryEntries(h.r, hybridPlanSummary)
		planPath := ""
		for _, e := range entries {
			if e.id == cp {
				planPath = e.path
			}
		}
		if f, ok := fileAt(h.plans, planPath); ok {
			plan = f.doc
		}
		if planPath == "" {
			out = append(out, at(finding.HybridUnknownPlan.New(hybridState, "cp %q is not a plan in plan_summary.json", cp), "/cp"))
		}
	}
	if ct != "" && plan != nil && !slices.Contains(planTasks(plan), ct) {
		out = append(out, at(finding.HybridUnknownPlan.New(hybridState, "ct %q is not a task of plan %q (tasks: %s)", ct, cp, quoteAll(planTasks(plan))), "/ct"))
	}
	limit := int64(hybridRetryLimit)
	if n, ok := number(plan["max_rt"]); ok {
		limit = n
	}
	rt, _ := h.state["rt"].(map[string]any)
	for _, task := range sortedKeys(rt) {
		if n, ok := number(rt[task]); ok && n > limit && st != "BLK_MAX" {
			out = append(out, at(finding.HybridRetryLimit.New(hybridState, "task %q has %d retries, over the limit %d, but st is %q; expected \"BLK_MAX\"", task, n, limit, st), "/rt/"+escapePointer(task)))
		}
	}
	return out
}

func planTasks(plan map[string]any) []string {
	tasks, _ := plan["tasks"].([]any)
	var ids []string
	for _, t := range tasks {
		if m, ok := t.(map[string]any); ok && str(m["id"]) != "" {
			ids = append(ids, str(m["id"]))
		}
	}
	return ids
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

func quoteAll(ss []string) string {
	if len(ss) == 0 {
		return "none"
	}
	q := make([]string, len(ss))
	for i, s := range ss {
		q[i] = strconv.Quote(s)
	}
	return strings.Join(q, " or ")
}

var (
	purposeLine = regexp.MustCompile(`(?i)\bpurpose\s*:`)
	dependsOn   = regexp.MustCompile(`(?i)\bdepends on\s*:\s*\[([^\]]*)\]`)
	issueTag    = regexp.MustCompile(`\bIssue:\s*([A-Za-z0-9_.\-]+)`)
)

// annotated are the artifact types whose files carry annotations.
var annotated = []string{"code", "config", "doc", "docs"}

// maxAnnotatedSize bounds how much of an artifact is read for annotations.
const maxAnnotatedSize = 4 << 20

func (h *hybridRun) checkAnnotations() []finding.Finding {
	var out []finding.Finding
	known := map[string]bool{}
	for _, a := range h.artifacts {
		known[str(a.doc["id"])] = true
	}
	var root *rundir.Root
	for _, a := range h.artifacts {
		id := str(a.doc["id"])
		for i, dep := range stringList(a.doc["dep"]) {
			if !known[dep] {
				out = append(out, at(finding.HybridUnknownReference.New(a.path, "artifact %q depends on %q, which is not a registered artifact", id, dep), fmt.Sprintf("/dep/%d", i)))
			}
		}
		for i, issue := range stringList(a.doc["ki"]) {
			st, ok := h.issues[issue]
			switch {
			case h.hasIssues && !ok:
				out = append(out, at(finding.HybridUnknownReference.New(a.path, "artifact %q links issue %q, which known_issues.json does not hold", id, issue), fmt.Sprintf("/ki/%d", i)))
			case st == "RES":
				out = append(out, at(finding.HybridResolvedIssueLinked.New(a.path, "artifact %q still links issue %q, which is resolved (RES); resolving unlinks it", id, issue), fmt.Sprintf("/ki/%d", i)))
			}
		}
		loc := str(a.doc["loc"])
		if !slices.Contains(annotated, strings.ToLower(str(a.doc["type"]))) || !insideRun(loc) {
			continue
		}
		if root == nil {
			var err error
			if root, err = rundir.OpenRoot(h.r.Dir); err != nil {
				return out
			}
			defer root.Close()
		}
		data, p := root.ReadFile(loc, maxAnnotatedSize)
		if p != nil {
			if p.Kind == rundir.Missing {
				out = append(out, at(finding.HybridOrphan.New(a.path, "artifact %q has loc %q, which does not exist", id, loc), "/loc"))
			}
			continue
		}
		text := string(data)
		var lacks []string
		if !purposeLine.MatchString(text) {
			lacks = append(lacks, "a purpose statement (\"Purpose: …\")")
		}
		deps := dependsOn.FindStringSubmatch(text)
		if deps == nil {
			lacks = append(lacks, "a \"Depends on: [ids]\" list")
		}
		if len(lacks) > 0 {
			out = append(out, at(finding.HybridAnnotationMissing.New(a.path, "%s artifact %q at %q lacks %s", str(a.doc["type"]), id, loc, strings.Join(lacks, " and ")), "/loc"))
		}
		if deps != nil {
			for _, dep := range strings.Split(deps[1], ",") {
				dep = strings.Trim(strings.TrimSpace(dep), `"'`)
				if dep != "" && !known[dep] {
					out = append(out, at(finding.HybridUnknownReference.New(a.path, "%s says it depends on %q, which is not a registered artifact", loc, dep), "/loc"))
				}
			}
		}
		if h.hasIssues {
			for _, m := range issueTag.FindAllStringSubmatch(text, -1) {
				if _, ok := h.issues[m[1]]; !ok {
					out = append(out, at(finding.HybridUnknownReference.New(a.path, "%s tags issue %q, which known_issues.json does not hold", loc, m[1]), "/loc"))
				}
			}
		}
	}
	return out
}

func stringList(v any) []string {
	arr, _ := v.([]any)
	var out []string
	for _, x := range arr {
		if s, ok := x.(string); ok {
			out = append(out, s)
		}
	}
	return out
}
