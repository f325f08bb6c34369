package layout

import (
	"encoding/json"
	"io/fs"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/h3a-check/h3a-check/internal/finding"
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
// v and the global counter g only grows; log units only grow; a task's
// retry count only grows, since it is what stops the task. The vX.2
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
	{hybridState, RetriesKept{}},
	{hybridPlans, RetriesKept{}},
	{hybridX2State, VersionsRise{finding.Warning, []string{"v", "g"}}},
	{hybridX2RegistryMap, VersionsRise{finding.Warning, []string{"v"}}},
	{hybridX2Issues, VersionsRise{finding.Warning, []string{"v"}}},
}

func (Hybrid) ID() string               { return "hybrid-os" }
func (Hybrid) Files() []File            { return hybridFiles }
func (Hybrid) AppendOnly() []AppendOnly { return hybridAppendOnly }

// Detect: state.json beside a file only this layout names
// (plan_summary.json, registry_summary.json, known_issues.json), whatever
// the state holds; or state.json holding the keys v, g, st beside logs/,
// plans/ or registry/; or a state.txt beside registry_map.txt or
// issues_summary.txt, or holding v, g and st (vX.2). What the state holds
// is the check's to judge: a truncated state.json, or one that lost ph
// (as the vX.2 generation did), must not make the root no run, which a
// search of the folder above would pass over in silence. A folder the
// H3A layout claims (a state/ folder, see ownedByH3A) is an H3A run,
// never this; anything else named state (a file, an empty folder beside a
// state.txt) is a stray entry and hides nothing.
func (Hybrid) Detect(fsys fs.FS, dir string) bool {
	if ownedByH3A(fsys, dir) {
		return false
	}
	if isFile(fsys, dir, hybridState) {
		for _, p := range []string{hybridPlanSummary, hybridRegSummary, hybridKnownIssues} {
			if exists(fsys, dir, p) {
				return true
			}
		}
		if hasKeys(fsys, dir, hybridState, "v", "g", "st") {
			for _, p := range []string{"logs", "plans", "registry"} {
				if exists(fsys, dir, p) {
					return true
				}
			}
		}
	}
	if isFile(fsys, dir, hybridX2State) && (exists(fsys, dir, hybridX2RegistryMap) || exists(fsys, dir, hybridX2Issues)) {
		return true
	}
	// A vX.2 snapshot may hold state.txt alone; its keys say what it is.
	return hasKeys(fsys, dir, hybridX2State, "v", "g", "st")
}

// Forced: with the layout forced, a state.json or state.txt is enough,
// whatever it holds (the check reports what is wrong with it), unless a
// state/ folder makes the folder an H3A run.
func (Hybrid) Forced(fsys fs.FS, dir string) bool {
	return !ownedByH3A(fsys, dir) && (exists(fsys, dir, hybridState) || exists(fsys, dir, hybridX2State))
}

// ownedByH3A reports whether dir is an H3A run by that layout's defining
// structure: a state/ folder (or a link there) with its state files, or
// beside a state.json. Only that gives an H3A run precedence over a
// hybrid-os root. The test was once "anything named state", so an empty
// file called state beside a root's files made the folder no run of
// either layout, and a search passed over the root in silence
// (docs/usage.md: "No file can hide a run").
func ownedByH3A(fsys fs.FS, dir string) bool {
	return H3A{}.Detect(fsys, dir)
}

func (Hybrid) Defined() string {
	return "a hybrid-os root holds state.json beside plan_summary.json, registry_summary.json or known_issues.json, or state.json with v, g, st beside logs/, plans/ or registry/ (or a vX.2 state.txt)"
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

// Check: a v1.4 run keeps its state in state.json, whose absence is a
// missing file, as for the other layouts' files (hybrid-ai-os-v1.4.md,
// Directory Layout: "state.json # Single authoritative state"; Startup
// Sequence: "Load state.json; if absent, create defaults", so a run past
// its startup has one). Every other rule of the
// layout judges documents and facts of the input, so it is Rego
// (policies/hybrid_os.rego).
func (l Hybrid) Check(r *Run) []finding.Finding {
	if l.Generation(r) == "v1.4" && !docPresent(r, hybridState) {
		return []finding.Finding{finding.MissingFile.New(hybridState, "state.json is missing; a Hybrid_AI_OS v1.4 run keeps its state there")}
	}
	return nil
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
	h := newHybridRun(r)
	docs["units"] = h.unitsInput()
	docs["paths"] = h.pathsInput()
	docs["annotations"] = h.annotationsInput()
	return docs
}

// unitsInput lists the log units in unit order (log_unit_10 after
// log_unit_9), each with the line of each of its records.
func (h *hybridRun) unitsInput() []any {
	units := make([]any, 0, len(h.units))
	for _, u := range h.units {
		lines := make([]any, len(u.records))
		for i := range u.records {
			lines[i] = h.r.Docs[u.path].Lines.Line(i)
		}
		units = append(units, map[string]any{"path": u.path, "number": u.n, "lines": lines})
	}
	return units
}

// pathsInput says, for every path a summary entry names, what it is once
// cleaned and whether it is a regular file inside the run, resolved as
// the loader resolves paths (absolute paths, ".." and links leading out
// never are).
func (h *hybridRun) pathsInput() map[string]any {
	paths := map[string]any{}
	for _, summary := range []string{hybridPlanSummary, hybridRegSummary} {
		entries, _ := summaryEntries(h.r, summary)
		for _, e := range entries {
			if _, done := paths[e.path]; !done {
				paths[e.path] = map[string]any{"clean": path.Clean(e.path), "file": h.exists(e.path)}
			}
		}
	}
	return paths
}

// annotationsInput gives, for each artifact of a type whose files carry
// annotations and whose loc lies inside the run, what its file says: a
// purpose statement, the ids of its "Depends on: [ids]" list (null when
// it has none) and its "Issue: <id>" tags; or that the file is missing.
// A file the load stage refused (a link leaving the run, not a regular
// file, too large) is left out: the load stage reported it.
func (h *hybridRun) annotationsInput() map[string]any {
	out := map[string]any{}
	for _, a := range h.annotated() {
		loc := str(a.doc["loc"])
		t := h.r.Text(loc)
		if !t.OK {
			if t.Missing {
				out[a.path] = map[string]any{"loc": loc, "missing": true, "purpose": false, "depends_on": nil, "issues": []any{}}
			}
			continue
		}
		text := string(t.Data)
		var depends any
		if m := dependsOn().FindStringSubmatch(text); m != nil {
			ids := []any{}
			for _, dep := range strings.Split(m[1], ",") {
				if dep = strings.Trim(strings.TrimSpace(dep), `"'`); dep != "" {
					ids = append(ids, dep)
				}
			}
			depends = ids
		}
		issues := []any{}
		for _, m := range issueTag().FindAllStringSubmatch(text, -1) {
			issues = append(issues, m[1])
		}
		out[a.path] = map[string]any{"loc": loc, "missing": false, "purpose": purposeLine().MatchString(text), "depends_on": depends, "issues": issues}
	}
	return out
}

// annotated lists the artifacts of a type whose files carry annotations
// and whose loc lies inside the run.
func (h *hybridRun) annotated() []hybridFile {
	var out []hybridFile
	for _, a := range h.artifacts {
		if annotatedType(str(a.doc["type"])) && insideRun(str(a.doc["loc"])) {
			out = append(out, a)
		}
	}
	return out
}

// Needs: whether each path a summary names is a regular file of the run,
// and the text of each annotated artifact's file.
func (Hybrid) Needs(r *Run) []Need {
	h := newHybridRun(r)
	var needs []Need
	for _, summary := range []string{hybridPlanSummary, hybridRegSummary} {
		entries, _ := summaryEntries(r, summary)
		for _, e := range entries {
			if insideRun(e.path) {
				needs = append(needs, Need{Path: e.path, Want: RegularFile})
			}
		}
	}
	for _, a := range h.annotated() {
		needs = append(needs, Need{Path: str(a.doc["loc"]), Want: Text, Limit: maxAnnotatedSize, NamedBy: a.path, Pointer: "/loc"})
	}
	return needs
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

var logUnitNumber = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^logs/log_unit_(\d+)\.jsonl$`) })

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
				if sm := logUnitNumber().FindStringSubmatch(m.Path); sm != nil {
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
			issue, _ := v.(map[string]any)
			st, _ := issue["st"].(string)
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

// exists reports whether a run-relative path names a regular file inside
// the run, as the load stage found it: absolute paths, ".." and links
// leading out never do.
func (h *hybridRun) exists(p string) bool {
	return insideRun(p) && h.r.IsFile(p)
}

func insideRun(p string) bool {
	c := path.Clean(filepath.ToSlash(p))
	return p != "" && !path.IsAbs(c) && !filepath.IsAbs(p) && c != ".." && !strings.HasPrefix(c, "../") && !strings.Contains(p, ":")
}

var (
	purposeLine = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?i)\bpurpose\s*:`) })
	dependsOn   = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?i)\bdepends on\s*:\s*\[([^\]]*)\]`) })
	issueTag    = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\bIssue:\s*([A-Za-z0-9_.\-]+)`) })
	typeWord    = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`[A-Z]+[a-z0-9]*|[a-z0-9]+`) })
)

// annotatedWords are the words of an artifact type that make it a code,
// config or doc artifact, whose files carry annotations. The spec leaves the
// type free ("<artifact type>"), and writers name the kind in words of their
// own ("documentation", "environment_config", "source_code"): a type read
// only when spelt exactly as the spec's words would let any other spelling
// skip the Validator's check.
var annotatedWords = []string{
	"code", "source", "src", "script", "scripts", "module", "function",
	"config", "configs", "configuration", "conf", "cfg", "settings",
	"doc", "docs", "document", "documents", "documentation", "readme",
}

// annotatedType reports whether an artifact type names a code, config or
// doc artifact: any of its words, split at whatever is not a letter or a
// digit and before an upper-case letter that follows a lower-case one, is
// one of annotatedWords.
func annotatedType(t string) bool {
	for _, w := range typeWord().FindAllString(t, -1) {
		if slices.Contains(annotatedWords, strings.ToLower(w)) {
			return true
		}
	}
	return false
}

// maxAnnotatedSize bounds how much of an artifact is read for annotations;
// a larger one is a finding.
const maxAnnotatedSize = 4 << 20

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
