package policy_test

import (
	"context"
	"path/filepath"
	"slices"
	"testing"

	"github.com/h3a-check/h3a-check/internal/runner"
)

// layoutCases are the ok runs whose document rules FuzzLayoutPolicies
// exercises: the layouts whose checks are Rego besides h3a and contract,
// which have fuzz targets of their own.
var layoutCases = []string{"gate_state_complete", "hybrid_complete", "hybrid_x2", "stigmergy_complete"}

// place is one value of a run's input.docs: the run, and the path to it.
type place struct {
	run  int
	path []any
}

// docPlaces lists every value of docs down to depth levels, in a stable
// order, so that the fuzzer's index names the same value on every run.
func docPlaces(run int, v any, path []any, depth int, out *[]place) {
	if len(path) > 0 {
		*out = append(*out, place{run, slices.Clone(path)})
	}
	if depth == 0 {
		return
	}
	switch x := v.(type) {
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			docPlaces(run, x[k], append(path, k), depth-1, out)
		}
	case []any:
		for i := range x {
			docPlaces(run, x[i], append(path, i), depth-1, out)
		}
	}
}

// fromAFile reports whether the value at path of input.docs was read from
// a file of the run, so a file could hold anything there; the facts the
// checker works out itself (docs.paths, docs.units, docs.documents, …)
// always have their documented shape. A gate-state run
// keeps each pipeline's and each gate output's content under "pipeline"
// and "doc".
func fromAFile(in map[string]any, path []any) bool {
	if key, _ := path[0].(string); key == "pipelines" && in["run"].(map[string]any)["layout"] == "gate-state" {
		return len(path) >= 3 && path[2] == "pipeline" || len(path) >= 5 && path[2] == "gates" && path[4] == "doc"
	}
	var files []string
	for name, f := range in["files"].(map[string]any) {
		if f.(map[string]any)["doc"] == path[0] {
			files = append(files, name)
		}
	}
	if len(files) == 0 {
		return false
	}
	// A family of files (plans/*.json) is a map from each file's path to
	// its content, even when one file matches.
	byPath, _ := in["docs"].(map[string]any)[path[0].(string)].(map[string]any)
	if _, family := byPath[files[0]]; !family {
		return true
	}
	if len(path) < 2 {
		return false
	}
	name, ok := path[1].(string)
	return ok && slices.Contains(files, name)
}

// FuzzLayoutPolicies puts an arbitrary JSON value in place of any value
// (down to five levels) read from a file of the documents of a gate-state, hybrid-os or
// stigmergy run: the shipped rules must evaluate cleanly, and their plan
// must give what OPA's evaluator gives.
func FuzzLayoutPolicies(f *testing.F) {
	var bases []map[string]any
	var places []place
	for i, name := range layoutCases {
		res, err := runner.Check(context.Background(), runner.Options{Scope: runner.Scope{Paths: []string{filepath.Join("../../testdata/runs/ok", name)}, Base: "none"}, Output: runner.Output{KeepInputs: true}})
		if err != nil || len(res.Inputs) != 1 {
			f.Fatalf("%s: %v", name, err)
		}
		in := res.Inputs[0]
		bases = append(bases, in)
		var all []place
		docPlaces(i, in["docs"], nil, 5, &all)
		for _, p := range all {
			if fromAFile(in, p.path) {
				places = append(places, p)
			}
		}
	}
	seeds := []string{`null`, `[]`, `"x"`, `5`, `-1`, `1e400`, `2.5`, `true`, `{}`, `[null, 1, "a", {}]`, `{"id": 7, "status": ["x"]}`, `"2025-02-30T10:00:00Z"`}
	add := seedSample(f, 7)
	for i := range places {
		add(uint16(i), []byte(seeds[i%len(seeds)]))
	}
	e, reference := planAndCompiled(f)
	f.Fuzz(func(t *testing.T, which uint16, doc []byte) {
		v := decodeOrSkip(t, doc)
		p := places[int(which)%len(places)]
		in := clone(t, bases[p.run])
		var parent any = in["docs"]
		for _, step := range p.path[:len(p.path)-1] {
			switch k := step.(type) {
			case string:
				parent = parent.(map[string]any)[k]
			case int:
				parent = parent.([]any)[k]
			}
		}
		switch last := p.path[len(p.path)-1].(type) {
		case string:
			parent.(map[string]any)[last] = v
		case int:
			parent.([]any)[last] = v
		}
		evaluatesCleanly(t, e, reference, in)
	})
}
