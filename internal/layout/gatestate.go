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
	"github.com/h3a-check/h3a-check/internal/rundir"
)

// GateState is the layout of the gate-state management guide: a folder
// whose .state/ holds, per pipeline, {domain}-{feature}-pipeline.json and
// one {domain}-{feature}-gate{N}-output.json per gate run (the older
// naming puts a request id where domain-feature stands; the guide's own
// short names, pipeline.json and gate{N}-output.json, have no prefix).
// Every pipeline of the folder is checked together, as one run.
type GateState struct{}

const gateStateDir = ".state"

const (
	gateStateOutputFiles   = gateStateDir + "/*-gate*-output.json"
	gateStatePipelineFiles = gateStateDir + "/*-pipeline.json"
	// The guide's short names, with no prefix (gate-state-management.md,
	// Core Concepts: "Write .state/gate1-output.json"; Pattern 2: "GATE 1
	// output file missing: .state/gate1-output.json").
	gateStateShortOutputFiles = gateStateDir + "/gate*-output.json"
	gateStateShortPipeline    = gateStateDir + "/pipeline.json"
)

// GateStatus is the status of a gate output, spelt as the file spells it
// (gate-state-management.md: status: "SUCCESS" | "PARTIAL" | "FAILED").
type GateStatus string

const (
	GateSuccess GateStatus = "SUCCESS"
	GatePartial GateStatus = "PARTIAL"
	GateFailed  GateStatus = "FAILED"
)

var gateStateFiles = []File{
	{Path: gateStateOutputFiles, Kind: JSON, Schema: "gate_state_gate_output", DocKey: "gates"},
	{Path: gateStateShortOutputFiles, Kind: JSON, Schema: "gate_state_gate_output", DocKey: "gates"},
	{Path: gateStatePipelineFiles, Kind: JSON, Schema: "gate_state_pipeline", DocKey: "pipelines"},
	{Path: gateStateShortPipeline, Kind: JSON, Schema: "gate_state_pipeline", DocKey: "pipelines"},
}

// gateStateAppendOnly: a pipeline records each gate as it completes; a
// completed gate's output is what the next gate read, so it never changes.
// A FAILED gate's output may be rewritten by a re-run, and a FAILED
// pipeline reopened, but only a person decides either.
var gateStateAppendOnly = []AppendOnly{
	{gateStatePipelineFiles, ArrayPrefix{Pointer: "/completedGates"}},
	{gateStateShortPipeline, ArrayPrefix{Pointer: "/completedGates"}},
	{gateStatePipelineFiles, FailedStays{What: "the pipeline"}},
	{gateStateShortPipeline, FailedStays{What: "the pipeline"}},
	{gateStateOutputFiles, gateOutputFrozen},
	{gateStateShortOutputFiles, gateOutputFrozen},
	{gateStateOutputFiles, FailedStays{What: "the gate output"}},
	{gateStateShortOutputFiles, FailedStays{What: "the gate output"}},
}

var gateOutputFrozen = Frozen{Why: "a completed gate's output is what the next gate read; re-run the gate into a new pipeline instead", WhenStatus: []string{string(GateSuccess), string(GatePartial)}}

var (
	// The prefix is "" for the guide's short names (gate1-output.json,
	// pipeline.json). (?s): a name may hold a line break, which the glob
	// matches too.
	gateOutputName = regexp.MustCompile(`(?s)^(?:(.*)-)?gate(\d+)-output\.json$`)
	pipelineName   = regexp.MustCompile(`(?s)^(?:(.*)-)?pipeline\.json$`)
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
	if !isDirOrLink(fsys, dir, gateStateDir) {
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
		// Names in another case count, as rundir's foldFS makes them count
		// for the folder's own name: a run must not vanish for one rename.
		if name := rundir.FoldName(e.Name()); gateOutputName.MatchString(name) || pipelineName.MatchString(name) {
			return true
		}
	}
	return false
}

func (l GateState) Forced(fsys fs.FS, dir string) bool { return l.Detect(fsys, dir) }

func (GateState) Defined() string {
	return "a gate-state run holds .state/ with <domain>-<feature>-gate<N>-output.json or <domain>-<feature>-pipeline.json files (or the short gate<N>-output.json, pipeline.json)"
}

func (GateState) Evidence(*Run) []EvidenceRef { return nil }
func (GateState) RunID(r *Run) string         { return filepath.Base(r.Dir) }
func (GateState) TaskID(*Run) string          { return "" }

func (GateState) Notes(r *Run) string {
	p, _ := gateStatePipelines(r)
	names := make([]string, 0, len(p))
	for _, pl := range p {
		names = append(names, prefixText(pl.prefix))
	}
	return fmt.Sprintf("gate-state pipelines recognised: %s", strings.Join(names, ", "))
}

// Docs: input.docs.pipelines lists each pipeline by its file prefix, with
// its pipeline document and its gate outputs by gate number, the
// synonyms read under the guide's names.
func (GateState) Docs(r *Run) map[string]any {
	pipelines := []any{}
	all, _ := gateStatePipelines(r)
	for _, p := range all {
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
			readFrom := map[string]any{}
			for _, s := range gateSynonyms {
				if g.pointer(s.field) == "/"+s.variant {
					readFrom[s.field] = s.variant
				}
			}
			conflicts := []any{}
			for _, field := range g.conflicts {
				for _, s := range gateSynonyms {
					if s.field == field {
						conflicts = append(conflicts, map[string]any{"field": field, "variant": s.variant})
					}
				}
			}
			gates[strconv.Itoa(n)] = map[string]any{"path": g.path, "doc": doc, "variants": variants, "read_from": readFrom, "conflicts": conflicts}
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
	// conflicts lists the guide's fields the file also writes under a
	// sibling document's name with another value: that value goes unread.
	conflicts []string
}

// gatePipeline is the files sharing one name prefix.
type gatePipeline struct {
	prefix string
	path   string // "" when the pipeline file is missing
	doc    map[string]any
	gates  map[int]gateDoc
}

// gateStatePipelines groups the run's files by name prefix. Every file the
// gate output pattern matches is either read as its gate's output or
// reported (h3a.structure.gate_state_output_unread): a name without a
// readable gate number, or a second file for a gate that already has one.
// None is dropped in silence, since a dropped FAILED output would let the
// run pass.
func gateStatePipelines(r *Run) ([]*gatePipeline, []finding.Finding) {
	byPrefix := map[string]*gatePipeline{}
	get := func(prefix string) *gatePipeline {
		if p, ok := byPrefix[prefix]; ok {
			return p
		}
		p := &gatePipeline{prefix: prefix, gates: map[int]gateDoc{}}
		byPrefix[prefix] = p
		return p
	}
	var problems []finding.Finding
	// outputs holds each gate's output files, in the order found, by
	// prefix and gate number.
	type gateKey struct {
		prefix string
		number int
	}
	outputs := map[gateKey][]gateDoc{}
	var order []gateKey
	for _, m := range r.Files {
		if d := r.Docs[m.Path]; !m.Spec.IsPattern() && (d == nil || !d.Present) {
			// .state/pipeline.json is listed whether or not it is there;
			// one the load stage could not read is a finding of its own.
			continue
		}
		name := path.Base(m.Path)
		doc, _ := r.Docs[m.Path].Value().(map[string]any)
		switch m.Spec.DocKey {
		case "gates":
			g := gateOutputName.FindStringSubmatch(name)
			if g == nil {
				problems = append(problems, finding.GateStateOutputUnread.New(m.Path,
					"file name has no gate number after \"gate\", so the file is not read as any gate's output; expected {domain}-{feature}-gate{N}-output.json"))
				continue
			}
			n, err := strconv.Atoi(g[2])
			if err != nil {
				problems = append(problems, finding.GateStateOutputUnread.New(m.Path,
					"gate number %s in the file name is too large to read, so the file is not read as any gate's output; expected a gate number such as 1",
					shortDigits(g[2])))
				continue
			}
			gd := normaliseGate(doc)
			gd.path, gd.number = m.Path, n
			k := gateKey{g[1], n}
			if _, seen := outputs[k]; !seen {
				order = append(order, k)
			}
			outputs[k] = append(outputs[k], gd)
		case "pipelines":
			if g := pipelineName.FindStringSubmatch(name); g != nil {
				p := get(g[1])
				p.path, p.doc = m.Path, doc
			}
		}
	}
	for _, k := range order {
		files := outputs[k]
		keep := canonicalGateFile(k.prefix, k.number, files)
		get(k.prefix).gates[k.number] = files[keep]
		for i, gd := range files {
			if i == keep {
				continue
			}
			problems = append(problems, finding.GateStateOutputUnread.New(gd.path,
				"second output file for gate %d of pipeline %s: %s is read as gate %d's output and this file is not checked; keep one output file per gate",
				k.number, prefixText(k.prefix), files[keep].path, k.number))
		}
	}
	out := make([]*gatePipeline, 0, len(byPrefix))
	for _, k := range sortedKeysOf(byPrefix) {
		out = append(out, byPrefix[k])
	}
	return out, problems
}

// canonicalGateFile picks, of several output files for one gate, the one
// read as its output: the one named as the guide names it
// ({prefix}-gate{N}-output.json, the number without leading zeros), else
// the first in path order.
func canonicalGateFile(prefix string, n int, files []gateDoc) int {
	want := fmt.Sprintf("%s-gate%d-output.json", prefix, n)
	if prefix == "" {
		want = fmt.Sprintf("gate%d-output.json", n)
	}
	for i, gd := range files {
		if path.Base(gd.path) == want {
			return i
		}
	}
	return 0
}

// prefixText names a pipeline by its prefix in a message.
func prefixText(prefix string) string {
	if prefix == "" {
		return "(no name prefix)"
	}
	return prefix
}

// shortDigits quotes a run of digits, shortened past 24 of them.
func shortDigits(s string) string {
	if len(s) > 24 {
		return fmt.Sprintf("%q (%d digits)", s[:20]+"…", len(s))
	}
	return strconv.Quote(s)
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
		v = synonymValue(s.variant, v)
		if own, has := raw[s.field]; !has {
			doc[s.field] = v
		} else if !sameValue(own, v) {
			gd.conflicts = append(gd.conflicts, s.field)
		}
		delete(doc, s.variant)
	}
	if _, ok := raw["executionTrace"]; ok {
		gd.variants = append(gd.variants, "executionTrace")
	}
	gd.doc = doc
	return gd
}

// synonymValue is a sibling document's field as the guide would write it:
// a validationResult's 0–1 score on the 0–100 scale.
func synonymValue(variant string, v any) any {
	val, ok := v.(map[string]any)
	if variant != "validationResult" || !ok {
		return v
	}
	score, ok := jsonFloat(val["score"])
	if !ok || score < 0 || score > 1 {
		return v
	}
	scaled := make(map[string]any, len(val))
	for k, x := range val {
		scaled[k] = x
	}
	// Scaled exactly, as a decimal: 0.7 reads as 70 (not 70.00000000000001)
	// and 0.6999999999 as 69.99999999, never rounded up to the threshold.
	if n, ok := val["score"].(json.Number); ok {
		if s, ok := decimalTimes100(string(n)); ok {
			scaled["score"] = json.Number(s)
			return scaled
		}
	}
	scaled["score"] = json.Number(strconv.FormatFloat(score*100, 'g', -1, 64))
	return scaled
}

// decimalTimes100 multiplies a JSON number by 100 exactly, by moving its
// decimal point: "0.6999999999" gives "69.99999999", "7e-1" gives "70".
// An exponent beyond ±1000 is not handled (ok false).
func decimalTimes100(s string) (string, bool) {
	mant, exp := s, 0
	if i := strings.IndexAny(s, "eE"); i >= 0 {
		e, err := strconv.Atoi(s[i+1:])
		if err != nil || e < -1000 || e > 1000 {
			return "", false
		}
		mant, exp = s[:i], e
	}
	neg := strings.HasPrefix(mant, "-")
	mant = strings.TrimPrefix(mant, "-")
	whole, frac, _ := strings.Cut(mant, ".")
	digits := whole + frac
	if digits == "" || strings.Trim(digits, "0123456789") != "" {
		return "", false
	}
	point := len(whole) + exp + 2 // digits before the decimal point
	if point < 1 {
		digits = strings.Repeat("0", 1-point) + digits
		point = 1
	}
	if point > len(digits) {
		digits += strings.Repeat("0", point-len(digits))
	}
	out := strings.TrimLeft(digits[:point], "0")
	if out == "" {
		out = "0"
	}
	if f := strings.TrimRight(digits[point:], "0"); f != "" {
		out += "." + f
	}
	if neg && out != "0" {
		out = "-" + out
	}
	return out, true
}

// sameValue compares two JSON values, numbers by value (87 and 87.0 are
// the same score).
func sameValue(a, b any) bool {
	if x, ok := jsonFloat(a); ok {
		y, ok := jsonFloat(b)
		return ok && x == y
	}
	switch x := a.(type) {
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for k, v := range x {
			w, ok := y[k]
			if !ok || !sameValue(v, w) {
				return false
			}
		}
		return true
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !sameValue(x[i], y[i]) {
				return false
			}
		}
		return true
	default:
		return a == b
	}
}

// pointer is where a field of the guide's naming sits in the raw file: the
// JSON pointer of the field, or of the synonym the file spells it with.
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

// Check reports the gate output files that are not read as their gate's
// output (gateStatePipelines); the rules over the documents are Rego
// (policies/gate_state*.rego).
func (GateState) Check(r *Run) []finding.Finding {
	_, problems := gateStatePipelines(r)
	return problems
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
