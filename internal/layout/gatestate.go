package layout

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"math"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/h3a-check/h3a-check/internal/finding"
)

// GateState is the layout of the gate-state management guide: a folder
// whose .state/ holds, per pipeline, {domain}-{feature}-pipeline.json and
// one {domain}-{feature}-gate{N}-output.json per gate run (the older
// naming puts a request id where domain-feature stands). Every pipeline of
// the folder is checked together, as one run.
type GateState struct{}

const (
	gateStateDir = ".state"
	// gateStateFinal is the orchestrator's completion mark: the guide pushes
	// it onto completedGates without writing an output for it.
	gateStateFinal = 5
	// gateStatePassScore is the score at which a gate counts as SUCCESS.
	gateStatePassScore = 70
)

const (
	gateStateOutputFiles   = gateStateDir + "/*-gate*-output.json"
	gateStatePipelineFiles = gateStateDir + "/*-pipeline.json"
)

var gateStateFiles = []File{
	{Path: gateStateOutputFiles, Kind: JSON, Schema: "gate_state_gate_output", DocKey: "gates"},
	{Path: gateStatePipelineFiles, Kind: JSON, Schema: "gate_state_pipeline", DocKey: "pipelines"},
}

// gateStateAppendOnly: a pipeline records each gate as it completes; a
// completed gate's output is what the next gate read, so it never changes
// (a FAILED gate's output may be rewritten by a re-run).
var gateStateAppendOnly = []AppendOnly{
	{gateStatePipelineFiles, ArrayPrefix{Pointer: "/completedGates"}},
	{gateStateOutputFiles, Frozen{Why: "a completed gate's output is what the next gate read; re-run the gate into a new pipeline instead", WhenStatus: []string{"SUCCESS", "PARTIAL"}}},
}

var (
	gateOutputName = regexp.MustCompile(`^(.+)-gate(\d+)-output\.json$`)
	pipelineName   = regexp.MustCompile(`^(.+)-pipeline\.json$`)
	// gateSynonyms are the sibling documents' names for the guide's fields.
	gateSynonyms = []struct{ variant, field string }{
		{"agentName", "agent"}, {"outputData", "output"}, {"validationResult", "validation"},
	}
)

func (GateState) ID() string               { return "gate-state" }
func (GateState) Files() []File            { return gateStateFiles }
func (GateState) AppendOnly() []AppendOnly { return gateStateAppendOnly }

// Detect: a .state/ folder holding a gate output or a pipeline file.
func (GateState) Detect(fsys fs.FS, dir string) bool {
	if !isDir(fsys, dir, gateStateDir) {
		return false
	}
	entries, err := fs.ReadDir(fsys, path.Join(dir, gateStateDir))
	if err != nil {
		return false
	}
	for _, e := range entries {
		if e.IsDir() {
			continue
		}
		if gateOutputName.MatchString(e.Name()) || pipelineName.MatchString(e.Name()) {
			return true
		}
	}
	return false
}

func (l GateState) Forced(fsys fs.FS, dir string) bool { return l.Detect(fsys, dir) }

func (GateState) Defined() string {
	return "a gate-state run holds .state/ with <domain>-<feature>-gate<N>-output.json or <domain>-<feature>-pipeline.json files"
}

func (GateState) Evidence(*Run) []EvidenceRef { return nil }
func (GateState) RunID(r *Run) string         { return filepath.Base(r.Dir) }
func (GateState) TaskID(*Run) string          { return "" }

func (GateState) Notes(r *Run) string {
	p := gateStatePipelines(r)
	names := make([]string, 0, len(p))
	for _, pl := range p {
		names = append(names, pl.prefix)
	}
	return fmt.Sprintf("gate-state pipelines recognised: %s", strings.Join(names, ", "))
}

// Docs: input.docs.pipelines lists each pipeline by its file prefix, with
// its pipeline document and its gate outputs by gate number, the
// synonyms read under the guide's names.
func (GateState) Docs(r *Run) map[string]any {
	pipelines := []any{}
	for _, p := range gateStatePipelines(r) {
		gates := map[string]any{}
		for n, g := range p.gates {
			variants := []any{}
			for _, v := range g.variants {
				variants = append(variants, v)
			}
			var doc any
			if g.doc != nil {
				doc = g.doc
			}
			gates[strconv.Itoa(n)] = map[string]any{"path": g.path, "doc": doc, "variants": variants}
		}
		var pipeline any
		if p.doc != nil {
			pipeline = p.doc
		}
		pipelines = append(pipelines, map[string]any{
			"prefix": p.prefix, "path": p.path, "pipeline": pipeline, "gates": gates,
		})
	}
	return map[string]any{"pipelines": pipelines}
}

// gateDoc is one gate output as read, with the synonyms it used.
type gateDoc struct {
	path     string
	number   int // from the file name
	raw      map[string]any
	doc      map[string]any // synonyms renamed, a 0–1 score scaled to 0–100
	variants []string
}

// gatePipeline is the files sharing one name prefix.
type gatePipeline struct {
	prefix string
	path   string // "" when the pipeline file is missing
	doc    map[string]any
	gates  map[int]gateDoc
}

func gateStatePipelines(r *Run) []*gatePipeline {
	byPrefix := map[string]*gatePipeline{}
	get := func(prefix string) *gatePipeline {
		if p, ok := byPrefix[prefix]; ok {
			return p
		}
		p := &gatePipeline{prefix: prefix, gates: map[int]gateDoc{}}
		byPrefix[prefix] = p
		return p
	}
	for _, m := range r.Files {
		name := path.Base(m.Path)
		doc, _ := r.Docs[m.Path].Value().(map[string]any)
		if g := gateOutputName.FindStringSubmatch(name); g != nil && m.Spec.DocKey == "gates" {
			n, err := strconv.Atoi(g[2])
			if err != nil {
				continue
			}
			p := get(g[1])
			gd := normaliseGate(doc)
			gd.path, gd.number = m.Path, n
			p.gates[n] = gd
			continue
		}
		if g := pipelineName.FindStringSubmatch(name); g != nil && m.Spec.DocKey == "pipelines" {
			p := get(g[1])
			p.path, p.doc = m.Path, doc
		}
	}
	out := make([]*gatePipeline, 0, len(byPrefix))
	for _, k := range sortedKeysOf(byPrefix) {
		out = append(out, byPrefix[k])
	}
	return out
}

func sortedKeysOf[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// normaliseGate reads a sibling document's field names as the guide's,
// and its 0–1 validationResult score on the guide's 0–100 scale.
func normaliseGate(raw map[string]any) gateDoc {
	gd := gateDoc{raw: raw}
	if raw == nil {
		return gd
	}
	doc := make(map[string]any, len(raw))
	for k, v := range raw {
		doc[k] = v
	}
	for _, s := range gateSynonyms {
		v, ok := raw[s.variant]
		if !ok {
			continue
		}
		gd.variants = append(gd.variants, s.variant)
		if _, has := raw[s.field]; !has {
			doc[s.field] = v
		}
		delete(doc, s.variant)
	}
	if _, ok := raw["executionTrace"]; ok {
		gd.variants = append(gd.variants, "executionTrace")
	}
	if _, ok := raw["validationResult"]; ok {
		if val, ok := doc["validation"].(map[string]any); ok {
			if score, ok := jsonFloat(val["score"]); ok && score >= 0 && score <= 1 {
				scaled := make(map[string]any, len(val))
				for k, v := range val {
					scaled[k] = v
				}
				// rounded so 0.7 reads as 70, not 70.00000000000001
				scaled["score"] = json.Number(strconv.FormatFloat(math.Round(score*100*1e6)/1e6, 'g', -1, 64))
				doc["validation"] = scaled
			}
		}
	}
	gd.doc = doc
	return gd
}

// gateField is where a field of the guide's naming sits in the raw file.
func (g gateDoc) pointer(field string) string {
	if _, ok := g.raw[field]; !ok {
		for _, s := range gateSynonyms {
			if s.field == field {
				if _, ok := g.raw[s.variant]; ok {
					return "/" + s.variant
				}
			}
		}
	}
	return "/" + field
}

type gateCheck struct{ out []finding.Finding }

func (c *gateCheck) add(rule finding.Rule, file, ptr, format string, args ...any) {
	f := rule.New(file, format, args...)
	f.Pointer = ptr
	c.out = append(c.out, f)
}

func (l GateState) Check(r *Run) []finding.Finding {
	c := &gateCheck{}
	for _, p := range gateStatePipelines(r) {
		for _, n := range sortedInts(p.gates) {
			g := p.gates[n]
			if g.doc == nil {
				continue // missing, unparseable or not an object: reported by the loader
			}
			c.gateVariant(g)
			c.gateName(p.prefix, g)
			c.gateScore(g)
			c.gateHandoff(g)
		}
		c.gateOrder(p)
		if p.doc == nil {
			continue
		}
		c.pipelineFileName(p)
		c.pipelineGates(p)
	}
	return c.out
}

func sortedInts[V any](m map[int]V) []int {
	keys := make([]int, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// jsonFloat reads a JSON number, as the parser keeps it (json.Number) or
// as a float.
func jsonFloat(v any) (float64, bool) {
	switch x := v.(type) {
	case json.Number:
		f, err := x.Float64()
		return f, err == nil && !math.IsInf(f, 0)
	case float64:
		return x, true
	}
	return 0, false
}

// gateNumber reads a JSON number that must be a whole number.
func gateNumber(v any) (int, bool) {
	f, ok := jsonFloat(v)
	if !ok || f != math.Trunc(f) || f < 0 || f > 1e6 {
		return 0, false
	}
	return int(f), true
}

// gateVariant names the sibling documents' fields a gate output uses; the
// shape of every field, under either name, is the schema's to check.
func (c *gateCheck) gateVariant(g gateDoc) {
	if len(g.variants) > 0 {
		c.add(finding.GateStateVariant, g.path, "", "uses %s of the guide's sibling documents, read as the guide's fields", strings.Join(g.variants, ", "))
	}
}

func describeField(m map[string]any, k string) string {
	v, ok := m[k]
	if !ok {
		return "missing"
	}
	return describeValue(v)
}

// namedFor reports whether a file prefix names the document: the guide's
// {domain}-{feature}, or the older naming's request id.
func namedFor(prefix string, doc map[string]any) (string, bool) {
	md, _ := doc["metadata"].(map[string]any)
	domain, dok := md["domain"].(string)
	feature, fok := md["feature"].(string)
	if !dok || !fok {
		return "", true // the schema reports it
	}
	want := domain + "-" + feature
	if prefix == want {
		return want, true
	}
	for _, id := range []any{doc["requestId"], md["requestId"]} {
		if s, ok := id.(string); ok && s == prefix {
			return want, true
		}
	}
	// The older naming puts a request id, which the document need not
	// repeat, where domain-feature stands: a prefix that does not start
	// with the document's domain is taken for one.
	return want, !strings.HasPrefix(prefix, domain+"-")
}

func (c *gateCheck) gateName(prefix string, g gateDoc) {
	if n, ok := gateNumber(g.doc["gate"]); ok && n != g.number {
		c.add(finding.GateStateFileName, g.path, g.pointer("gate"), "file is named for gate %d but gate is %d", g.number, n)
	}
	if want, ok := namedFor(prefix, g.doc); !ok {
		c.add(finding.GateStateFileName, g.path, "/metadata", "file is named %q but metadata says domain-feature %q", prefix, want)
	}
}

func (c *gateCheck) gateScore(g gateDoc) {
	val, _ := g.doc["validation"].(map[string]any)
	score, sok := jsonFloat(val["score"])
	passed, pok := val["passed"].(bool)
	ptr := g.pointer("validation")
	switch str(g.doc["status"]) {
	case "SUCCESS":
		if sok && score < gateStatePassScore {
			c.add(finding.GateStateScore, g.path, ptr+"/score", "status is SUCCESS but validation score is %g, expected at least %d", score, gateStatePassScore)
		}
		if pok && !passed {
			c.add(finding.GateStateScore, g.path, ptr+"/passed", "status is SUCCESS but validation passed is false")
		}
	case "PARTIAL":
		if sok && score >= gateStatePassScore {
			c.add(finding.GateStateScore, g.path, ptr+"/score", "status is PARTIAL but validation score is %g, expected below %d (or status SUCCESS)", score, gateStatePassScore)
		}
	case "FAILED":
		if pok && passed {
			c.add(finding.GateStateScore, g.path, ptr+"/passed", "status is FAILED but validation passed is true")
		}
	}
}

// gateOrder: gate N's output needs gate N−1's; gate 1 may follow no gate 0.
func (c *gateCheck) gateOrder(p *gatePipeline) {
	for _, n := range sortedInts(p.gates) {
		if n <= 1 {
			continue
		}
		if _, ok := p.gates[n-1]; !ok {
			c.add(finding.GateStateGateOrder, p.gates[n].path, "", "gate %d's output exists but gate %d's does not (expected %s-gate%d-output.json)", n, n-1, p.prefix, n-1)
		}
	}
}

func (c *gateCheck) pipelineFileName(p *gatePipeline) {
	if want, ok := namedFor(p.prefix, p.doc); !ok {
		c.add(finding.GateStateFileName, p.path, "/metadata", "file is named %q but metadata says domain-feature %q", p.prefix, want)
	}
}

func (c *gateCheck) pipelineGates(p *gatePipeline) {
	arr, _ := p.doc["completedGates"].([]any)
	last := -1
	for i, v := range arr {
		n, ok := gateNumber(v)
		if !ok {
			continue
		}
		if n <= last {
			c.add(finding.GateStateCurrentGate, p.path, fmt.Sprintf("/completedGates/%d", i), "completed gate %d follows gate %d, expected ascending gates without repeats", n, last)
		}
		last = max(last, n)
		if n == gateStateFinal {
			continue
		}
		g, ok := p.gates[n]
		if !ok {
			c.add(finding.GateStateCompletedOutput, p.path, fmt.Sprintf("/completedGates/%d", i), "gate %d is completed but %s/%s-gate%d-output.json does not exist", n, gateStateDir, p.prefix, n)
			continue
		}
		if st := str(g.doc["status"]); g.doc != nil && st != "SUCCESS" && st != "PARTIAL" {
			c.add(finding.GateStateCompletedOutput, p.path, fmt.Sprintf("/completedGates/%d", i), "gate %d is completed but its output's status is %s, expected SUCCESS or PARTIAL", n, describeField(g.doc, "status"))
		}
	}
	if cur, ok := gateNumber(p.doc["currentGate"]); ok {
		lo, hi := last, last+1
		if last < 0 {
			lo, hi = 0, 1
		}
		if cur < lo || cur > hi {
			lastText := strconv.Itoa(last)
			if last < 0 {
				lastText = "none"
			}
			c.add(finding.GateStateCurrentGate, p.path, "/currentGate", "currentGate is %d but the last completed gate is %s, expected %d or %d", cur, lastText, lo, hi)
		}
	}
	if cur, ok := gateNumber(p.doc["currentGate"]); ok && str(p.doc["status"]) == "FAILED" && cur != gateStateFinal {
		if _, has := p.gates[cur]; !has {
			c.add(finding.GateStateFailedOutput, p.path, "/currentGate", "pipeline FAILED at gate %d but %s/%s-gate%d-output.json does not exist", cur, gateStateDir, p.prefix, cur)
		}
	}
	if str(p.doc["status"]) == "SUCCESS" {
		for _, n := range sortedInts(p.gates) {
			g := p.gates[n]
			if st := str(g.doc["status"]); g.doc != nil && st != "SUCCESS" {
				c.add(finding.GateStatePipelineStatus, p.path, "/status", "pipeline status is SUCCESS but gate %d (%s) has status %s", n, g.path, describeField(g.doc, "status"))
			}
		}
	}
}

// gateHandoff checks what the guide's next agent reads from a finished gate
// of the guide's own agents; other agents' outputs are their own business.
func (c *gateCheck) gateHandoff(g gateDoc) {
	if st := str(g.doc["status"]); st != "SUCCESS" && st != "PARTIAL" {
		return
	}
	out, ok := g.doc["output"].(map[string]any)
	if !ok {
		return // the schema reports it
	}
	ptr := g.pointer("output")
	bad := func(at, format string, args ...any) {
		c.add(finding.GateStateHandoff, g.path, ptr+at, format, args...)
	}
	switch {
	case g.number == 1 && g.doc["agent"] == "TestCaseDesigner":
		cases, ok := out["testCases"].([]any)
		if !ok || len(cases) == 0 {
			bad("", "gate 1 output has testCases %s, expected a non-empty array for gate 2 to map", describeField(out, "testCases"))
			return
		}
		for i, tc := range cases {
			m, _ := tc.(map[string]any)
			if id, _ := m["testId"].(string); strings.TrimSpace(id) == "" {
				bad(fmt.Sprintf("/testCases/%d", i), "test case %d has testId %s, expected a non-empty string", i, describeField(m, "testId"))
			}
			if steps, ok := m["testSteps"].([]any); !ok || len(steps) == 0 {
				bad(fmt.Sprintf("/testCases/%d", i), "test case %d has testSteps %s, expected a non-empty array", i, describeField(m, "testSteps"))
			}
		}
	case g.number == 2 && g.doc["agent"] == "DOMAgent":
		maps, ok := out["elementMappings"].([]any)
		if !ok {
			bad("", "gate 2 output has elementMappings %s, expected an array for gate 3 to use", describeField(out, "elementMappings"))
			return
		}
		for i, em := range maps {
			m, _ := em.(map[string]any)
			loc, _ := m["locators"].(map[string]any)
			if _, ok := loc["primary"].(map[string]any); !ok {
				bad(fmt.Sprintf("/elementMappings/%d", i), "element mapping %d has no locators.primary object", i)
			}
		}
	}
}
