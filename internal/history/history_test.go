package history

import (
	"bytes"
	"errors"
	"io"
	"strconv"
	"strings"
	"testing"

	"github.com/h3a-check/h3a-check/internal/finding"
	"github.com/h3a-check/h3a-check/internal/gitrev"
	"github.com/h3a-check/h3a-check/internal/jsonpos"
	"github.com/h3a-check/h3a-check/internal/layout"
	"github.com/h3a-check/h3a-check/internal/rundir"
)

const commit = "0123456789abcdef0123456789abcdef01234567"

// headRun parses files the way the checker's load stage does.
func headRun(t testing.TB, files map[string]string) *layout.Run {
	t.Helper()
	run := &layout.Run{Dir: "/run", Docs: map[string]*rundir.Document{}}
	for _, f := range (layout.H3A{}).Files() {
		data, ok := files[f.Path]
		if !ok {
			continue
		}
		doc := &rundir.Document{Path: f.Path, Present: true, Data: []byte(data)}
		switch f.Kind {
		case layout.JSON:
			doc.JSON, _ = jsonpos.Parse(doc.Data)
			doc.Parsed = doc.JSON != nil
		case layout.Markdown:
			doc.Ledger, _ = f.ParseLedger(doc.Data)
			doc.Parsed = doc.Ledger != nil
		}
		run.Docs[f.Path] = doc
	}
	return run
}

// memHead is a Head whose artifacts live in a map.
func memHead(t testing.TB, docs map[string]string, artifacts map[string]string) Head {
	return Head{
		Layout: "h3a",
		Run:    headRun(t, docs),
		Open: func(p string) (io.ReadCloser, bool, error) {
			data, ok := artifacts[p]
			if !ok {
				return nil, false, nil
			}
			return io.NopCloser(strings.NewReader(data)), true, nil
		},
	}
}

// fakeBase holds the base files of one run at commit.
func fakeBase(files map[string]string) (*gitrev.Fake, Base) {
	m := map[string][]byte{}
	for p, d := range files {
		m["runs/r/"+p] = []byte(d)
	}
	f := &gitrev.Fake{Files: map[string]map[string][]byte{commit: m}}
	return f, At(f, commit, "runs/r")
}

func rules(fs []finding.Finding) []string {
	var out []string
	for _, f := range fs {
		out = append(out, f.Rule)
	}
	return out
}

func TestJSONArrays(t *testing.T) {
	const base = `{"steps": [{"task_id": "T001", "n": 1.0}, {"task_id": "T002", "n": 2}]}`
	tests := []struct {
		name, head string
		rule       string // "" = no finding
		pointer    string
		details    string
	}{
		{"unchanged", base, "", "", ""},
		{"reformatted, numbers by value", `{"steps":[{"n":1,"task_id":"T001"},{"task_id":"T002","n":2.00e0}]}`, "", "", ""},
		{"appended", `{"steps": [{"task_id": "T001", "n": 1}, {"task_id": "T002", "n": 2}, {"task_id": "T003"}]}`, "", "", ""},
		{"value changed", `{"steps": [{"task_id": "T001", "n": 1}, {"task_id": "T002", "n": 3}]}`,
			"h3a.append_only.entry_rewritten", "/steps/1/n", `steps[1] was rewritten since base 0123456789ab: /n base 2, head 3`},
		{"member removed", `{"steps": [{"task_id": "T001"}, {"task_id": "T002", "n": 2}]}`,
			"h3a.append_only.entry_rewritten", "/steps/0/n", `/n base 1.0, head (absent)`},
		{"member added", `{"steps": [{"task_id": "T001", "n": 1, "x": true}, {"task_id": "T002", "n": 2}]}`,
			"h3a.append_only.entry_rewritten", "/steps/0/x", `/x base (absent), head true`},
		{"first removed", `{"steps": [{"task_id": "T002", "n": 2}]}`,
			"h3a.append_only.entry_rewritten", "/steps/0", `steps[0] of base 0123456789ab was removed (base {"task_id":"T001","n":1.0}); the entries after it moved up`},
		{"last removed", `{"steps": [{"task_id": "T001", "n": 1}]}`,
			"h3a.append_only.entry_rewritten", "/steps", `steps[1] of base 0123456789ab was removed (base {"task_id":"T002","n":2}): steps has 1 entry, base has 2`},
		{"reordered", `{"steps": [{"task_id": "T002", "n": 2}, {"task_id": "T001", "n": 1}]}`,
			"h3a.append_only.entry_rewritten", "/steps/0", `steps[0] of base 0123456789ab moved to steps[1]`},
		{"array gone", `{"other": []}`, "h3a.append_only.entry_rewritten", "", `state.json steps is gone; base 0123456789ab has 2 entries`},
		{"not an array", `{"steps": {"0": {}}}`, "h3a.append_only.entry_rewritten", "", `is no longer an array (it is an object)`},
		{"correction of an earlier entry", `{"steps": [{"task_id": "T001", "n": 1}, {"task_id": "T002", "n": 2}, {"corrects": "T002", "reason": "r"}]}`, "", "", ""},
		{"correction of nothing", `{"steps": [{"task_id": "T001", "n": 1}, {"task_id": "T002", "n": 2}, {"corrects": "T404", "reason": "r"}]}`,
			"h3a.append_only.bad_correction", "/steps/2/corrects", `steps[2] corrects "T404", which names no earlier entry; expected the task_id of an earlier entry: "T001", "T002"`},
		{"correction that is not a string", `{"steps": [{"task_id": "T001", "n": 1}, {"task_id": "T002", "n": 2}, {"corrects": 7}]}`,
			"h3a.append_only.bad_correction", "/steps/2/corrects", `corrects 7, which names no earlier entry`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, b := fakeBase(map[string]string{"state.json": base})
			res, err := Compare(memHead(t, map[string]string{"state.json": tc.head}, nil), b, commit)
			if err != nil {
				t.Fatal(err)
			}
			f, ok := soleFinding(t, res.Findings, tc.rule)
			if !ok {
				return
			}
			if f.Rule != tc.rule || f.Pointer != tc.pointer || f.File != "state.json" || !strings.Contains(f.Details, tc.details) {
				t.Errorf("got %s %q %q\n%s\nwant %s %q, details containing\n%s", f.Rule, f.File, f.Pointer, f.Details, tc.rule, tc.pointer, tc.details)
			}
		})
	}
}

// TestJSONArrayEntriesCompareDeeply: an entry of an append-only array is
// compared value by value at every depth, each kind of JSON value on its
// own: a comparison that lets one kind or one level through lets its
// rewrite through.
func TestJSONArrayEntriesCompareDeeply(t *testing.T) {
	const base = `{"steps": [{"task_id": "T001", "n": 1, "ok": true, "note": null, "artifacts": ["a.txt", "b.txt"], "meta": {"by": "x"}}]}`
	entry := func(members string) string {
		return `{"steps": [{"task_id": "T001", ` + members + `}]}`
	}
	const rest = `"artifacts": ["a.txt", "b.txt"], "meta": {"by": "x"}`
	tests := []struct {
		name, head, pointer, details string
	}{
		{"number became a string", entry(`"n": "1", "ok": true, "note": null, ` + rest), "/steps/0/n", `/n base 1, head "1"`},
		{"number changed", entry(`"n": 2, "ok": true, "note": null, ` + rest), "/steps/0/n", `/n base 1, head 2`},
		{"boolean flipped", entry(`"n": 1, "ok": false, "note": null, ` + rest), "/steps/0/ok", `/ok base true, head false`},
		{"null became a string", entry(`"n": 1, "ok": true, "note": "x", ` + rest), "/steps/0/note", `/note base null, head "x"`},
		{"null became absent", entry(`"n": 1, "ok": true, ` + rest), "/steps/0/note", `/note base null, head (absent)`},
		{"string in a nested array changed", entry(`"n": 1, "ok": true, "note": null, "artifacts": ["a.txt", "c.txt"], "meta": {"by": "x"}`),
			"/steps/0/artifacts/1", `/artifacts/1 base "b.txt", head "c.txt"`},
		{"nested array grew", entry(`"n": 1, "ok": true, "note": null, "artifacts": ["a.txt", "b.txt", "c.txt"], "meta": {"by": "x"}`),
			"/steps/0/artifacts/2", `/artifacts/2 base (absent), head "c.txt"`},
		{"nested array shrank", entry(`"n": 1, "ok": true, "note": null, "artifacts": ["a.txt"], "meta": {"by": "x"}`),
			"/steps/0/artifacts/1", `/artifacts/1 base "b.txt", head (absent)`},
		{"member of a nested object changed", entry(`"n": 1, "ok": true, "note": null, "artifacts": ["a.txt", "b.txt"], "meta": {"by": "y"}`),
			"/steps/0/meta/by", `/meta/by base "x", head "y"`},
		{"nested object became an array", entry(`"n": 1, "ok": true, "note": null, "artifacts": ["a.txt", "b.txt"], "meta": ["x"]`),
			"/steps/0/meta", `/meta base {"by":"x"}, head ["x"]`},
		{"nested array became an object", entry(`"n": 1, "ok": true, "note": null, "artifacts": {"0": "a.txt"}, "meta": {"by": "x"}`),
			"/steps/0/artifacts", `/artifacts base ["a.txt","b.txt"], head {"0":"a.txt"}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, b := fakeBase(map[string]string{"state.json": base})
			res, err := Compare(memHead(t, map[string]string{"state.json": tc.head}, nil), b, commit)
			if err != nil {
				t.Fatal(err)
			}
			f, _ := soleFinding(t, res.Findings, finding.EntryRewritten.ID)
			if f.Rule != finding.EntryRewritten.ID || f.Pointer != tc.pointer || !strings.Contains(f.Details, tc.details) {
				t.Errorf("got %s %q\n%s\nwant %s %q, details containing\n%s", f.Rule, f.Pointer, f.Details, finding.EntryRewritten.ID, tc.pointer, tc.details)
			}
		})
	}
	t.Run("unchanged, reformatted", func(t *testing.T) {
		_, b := fakeBase(map[string]string{"state.json": base})
		head := `{"steps":[{"meta":{"by":"x"},"artifacts":["a.txt","b.txt"],"note":null,"ok":true,"n":1.0,"task_id":"T001"}]}`
		res, err := Compare(memHead(t, map[string]string{"state.json": head}, nil), b, commit)
		if err != nil {
			t.Fatal(err)
		}
		soleFinding(t, res.Findings, "")
	})
}

func TestCanonicalNumber(t *testing.T) {
	tests := []struct {
		a, b  string
		equal bool
	}{
		{"1", "1.0", true},
		{"1", "10e-1", true},
		{"-0", "0.000", true},
		{"150", "1.5e2", true},
		{"1.5E+2", "150.0", true},
		{"9007199254740993", "9007199254740992", false}, // equal as float64
		{"1e999999999", "1e999999999", true},
		{"1e999999999", "2e999999999", false},
		{"1e99999999999999999999", "1e99999999999999999998", false}, // exponent too large to compare: unequal unless identical
		{"-1", "1", false},
		{"0.1", "0.10", true},
	}
	for _, tc := range tests {
		if got := numbersEqual(tc.a, tc.b); got != tc.equal {
			t.Errorf("numbersEqual(%s, %s) = %v, want %v", tc.a, tc.b, got, tc.equal)
		}
	}
}

func TestNumberLess(t *testing.T) {
	tests := []struct {
		a, b     string
		less, ok bool
	}{
		{"8", "9", true, true},
		{"8.0", "9", true, true},
		{"8e0", "9", true, true},
		{"0.9e1", "9", false, true},
		{"9.0", "9", false, true},
		{"10", "9", false, true},
		{"1e1", "9", false, true},
		{"9007199254740992", "9007199254740993", true, true}, // equal as float64
		{"-1", "0", true, true},
		{"-2", "-1", true, true},
		{"-1", "-2", false, true},
		{"0", "-0.0", false, true},
		{"0.5", "1", true, true},
		{"1e99999999999999999999", "1", false, false},
	}
	for _, tc := range tests {
		less, ok := numberLess(tc.a, tc.b)
		if less != tc.less || ok != tc.ok {
			t.Errorf("numberLess(%s, %s) = %v, %v, want %v, %v", tc.a, tc.b, less, ok, tc.less, tc.ok)
		}
	}
}

const (
	gatesBase = "## Gate Events Log\n" +
		"[2025-09-29T13:45:00Z] G0 - STARTED - planner - begin\n" +
		"[2025-09-29T14:05:30Z] G0 - PASSED - planner - done\n"
	evidenceBase = "# Evidence\n" +
		"- `a.txt` - [hash:1111111111111111] - 2025-09-29T14:00:00Z - first\n" +
		"- `b.txt` - [hash:2222222222222222] - 2025-09-29T14:01:00Z - second\n"
	roadmapBase = "## Task Queue\n" +
		"- [x] T001: first ✅ (Completed: 2025-09-29T15:00:00Z)\n" +
		"- [ ] T002: second\n"
)

func TestLedgers(t *testing.T) {
	tests := []struct {
		name, file, base, head string
		want                   []string // rule, line, details fragment triples flattened as "rule@line: fragment"
	}{
		{"events appended", "state/GATES_LEDGER.md", gatesBase, gatesBase + "[2025-09-29T14:10:00Z] G1 - STARTED - executor - go\n", nil},
		{"events respaced", "state/GATES_LEDGER.md", gatesBase, strings.ReplaceAll(gatesBase, " - ", "  -  "), nil},
		{"event rewritten", "state/GATES_LEDGER.md", gatesBase, strings.Replace(gatesBase, "PASSED", "FAILED", 1),
			[]string{`h3a.append_only.gate_event_rewritten@3: gate event 2 was rewritten since base 0123456789ab: status base "PASSED", head "FAILED"`}},
		{"event removed", "state/GATES_LEDGER.md", gatesBase, "## Gate Events Log\n[2025-09-29T14:05:30Z] G0 - PASSED - planner - done\n",
			[]string{`h3a.append_only.gate_event_rewritten@2: gate event 1 of base 0123456789ab ("[2025-09-29T13:45:00Z] G0 - STARTED - planner - begin") was removed`}},
		// Each field of an event on its own: a comparison that drops one lets its rewrite through.
		{"event time rewritten", "state/GATES_LEDGER.md", gatesBase, strings.Replace(gatesBase, "14:05:30Z] G0 - PASSED", "14:05:31Z] G0 - PASSED", 1),
			[]string{`h3a.append_only.gate_event_rewritten@3: gate event 2 was rewritten since base 0123456789ab: time base "2025-09-29T14:05:30Z", head "2025-09-29T14:05:31Z"`}},
		{"event gate rewritten", "state/GATES_LEDGER.md", gatesBase, strings.Replace(gatesBase, "G0 - PASSED", "G1 - PASSED", 1),
			[]string{`h3a.append_only.gate_event_rewritten@3: gate event 2 was rewritten since base 0123456789ab: gate base "G0", head "G1"`}},
		{"event agent rewritten", "state/GATES_LEDGER.md", gatesBase, strings.Replace(gatesBase, "PASSED - planner", "PASSED - human", 1),
			[]string{`h3a.append_only.gate_event_rewritten@3: gate event 2 was rewritten since base 0123456789ab: agent base "planner", head "human"`}},
		{"event note rewritten", "state/GATES_LEDGER.md", gatesBase, strings.Replace(gatesBase, "planner - done", "planner - done, all green", 1),
			[]string{`h3a.append_only.gate_event_rewritten@3: gate event 2 was rewritten since base 0123456789ab: note base "done", head "done, all green"`}},
		{"events truncated", "state/GATES_LEDGER.md", gatesBase, "## Gate Events Log\n",
			[]string{`h3a.append_only.gate_event_rewritten@1: the log has 0 events, base had 2`}},
		// A line written as a record that the base did not read as one is
		// compared by its text: kept as it was, or a person compares.
		{"malformed event kept", "state/GATES_LEDGER.md", gatesBase + "[2025-09-29T14:10:00Z] G1 FAILED executor - red\n",
			gatesBase + "[2025-09-29T14:10:00Z] G1 FAILED executor - red\n[2025-09-29T14:20:00Z] G1 - STARTED - executor - again\n", nil},
		{"malformed event rewritten", "state/GATES_LEDGER.md", gatesBase + "[2025-09-29T14:10:00Z] G1 FAILED executor - red\n",
			gatesBase + "[2025-09-29T14:10:00Z] G1 - PASSED - executor - green\n",
			[]string{`h3a.append_only.base_unreadable@0: line 4 of the base version at 0123456789ab, "[2025-09-29T14:10:00Z] G1 FAILED executor - red", is written as a record but was not read as one`}},

		{"entry added in between", "state/EVIDENCE_LOG.md", evidenceBase,
			strings.Replace(evidenceBase, "- `b.txt`", "- `c.txt` - [hash:3333333333333333] - 2025-09-29T14:00:30Z - new\n- `b.txt`", 1), nil},
		{"entry hash rewritten", "state/EVIDENCE_LOG.md", evidenceBase, strings.Replace(evidenceBase, "2222222222222222", "2222222222222223", 1),
			[]string{`h3a.append_only.evidence_entry_rewritten@3: evidence entry for "b.txt" was rewritten since base 0123456789ab: hash base "2222222222222222", head "2222222222222223"`}},
		// Each field of an entry on its own.
		{"entry time rewritten", "state/EVIDENCE_LOG.md", evidenceBase, strings.Replace(evidenceBase, "14:01:00Z", "14:01:30Z", 1),
			[]string{`h3a.append_only.evidence_entry_rewritten@3: evidence entry for "b.txt" was rewritten since base 0123456789ab: time base "2025-09-29T14:01:00Z", head "2025-09-29T14:01:30Z"`}},
		{"entry description rewritten", "state/EVIDENCE_LOG.md", evidenceBase, strings.Replace(evidenceBase, "- second", "- second, green", 1),
			[]string{`h3a.append_only.evidence_entry_rewritten@3: evidence entry for "b.txt" was rewritten since base 0123456789ab: description base "second", head "second, green"`}},
		{"entry path rewritten", "state/EVIDENCE_LOG.md", evidenceBase, strings.Replace(evidenceBase, "`b.txt`", "`a.txt`", 1),
			[]string{`h3a.append_only.evidence_entry_rewritten@3: evidence entry for "b.txt" logged at base 0123456789ab ([hash:2222222222222222] 2025-09-29T14:01:00Z "second") was removed`}},
		{"entry removed", "state/EVIDENCE_LOG.md", evidenceBase, "# Evidence\n- `b.txt` - [hash:2222222222222222] - 2025-09-29T14:01:00Z - second\n",
			[]string{`h3a.append_only.evidence_entry_rewritten@2: evidence entry for "a.txt" logged at base 0123456789ab ([hash:1111111111111111] 2025-09-29T14:00:00Z "first") was removed`}},
		{"entries swapped", "state/EVIDENCE_LOG.md", evidenceBase,
			"# Evidence\n- `b.txt` - [hash:2222222222222222] - 2025-09-29T14:01:00Z - second\n- `a.txt` - [hash:1111111111111111] - 2025-09-29T14:00:00Z - first\n",
			[]string{`h3a.append_only.evidence_entry_rewritten@2: evidence entry for "b.txt" moved since base 0123456789ab: at base it follows the entry for "a.txt"`}},
		{"malformed entry rewritten", "state/EVIDENCE_LOG.md", evidenceBase + "- `c.txt` - 2025-09-29T14:02:00Z - 3 tests red\n",
			evidenceBase + "- `c.txt` - [hash:3333333333333333] - 2025-09-29T14:02:00Z - all green\n",
			[]string{`h3a.append_only.base_unreadable@0: line 4 of the base version at 0123456789ab, "- ` + "`c.txt`" + ` - 2025-09-29T14:02:00Z - 3 tests red"`}},

		{"task ticked", "state/ROADMAP.md", roadmapBase, strings.Replace(roadmapBase, "- [ ] T002: second", "- [x] T002: second ✅ (Completed: 2025-09-30T10:00:00Z)", 1), nil},
		{"malformed task rewritten", "state/ROADMAP.md", roadmapBase + "- [ ] T003 third\n",
			roadmapBase + "- [x] T003: third ✅ (Completed: 2025-09-30T10:00:00Z)\n",
			[]string{`h3a.append_only.base_unreadable@0: line 4 of the base version at 0123456789ab, "- [ ] T003 third"`}},
		{"criterion ticked with a note", "state/ROADMAP.md", roadmapBase + "## Success Criteria\n- [ ] Coverage ≥ 90%\n- [x] Lint clean\n",
			roadmapBase + "## Success Criteria\n- [x] Lint clean\n- [x] Coverage ≥ 90%: 94.2%\n- [ ] Docs updated\n", nil},
		{"criterion removed", "state/ROADMAP.md", roadmapBase + "## Success Criteria\n- [ ] Coverage ≥ 90%\n- [x] Lint clean\n",
			roadmapBase + "## Success Criteria\n- [x] Lint clean\n",
			[]string{`h3a.append_only.criterion_changed@4: success criterion "Coverage ≥ 90%" of base 0123456789ab is no longer in head as it was`}},
		{"criterion weakened", "state/ROADMAP.md", roadmapBase + "## Success Criteria\n- [ ] Coverage ≥ 90\n",
			roadmapBase + "## Success Criteria\n- [x] Coverage ≥ 900\n- [x] Coverage ≥ 60%\n",
			[]string{`h3a.append_only.criterion_changed@4: success criterion "Coverage ≥ 90" of base 0123456789ab is no longer in head as it was`}},
		{"criterion unticked", "state/ROADMAP.md", roadmapBase + "## Success Criteria\n- [x] Coverage ≥ 90%\n",
			roadmapBase + "## Success Criteria\n- [ ] Coverage ≥ 90%\n",
			[]string{`h3a.append_only.criterion_changed@5: success criterion "Coverage ≥ 90%" is [x] at base 0123456789ab and [ ] in head`}},
		{"task moved", "state/ROADMAP.md", roadmapBase, "## Task Queue\n- [ ] T002: second\n- [x] T001: first ✅ (Completed: 2025-09-29T15:00:00Z)\n", nil},
		{"task removed", "state/ROADMAP.md", roadmapBase, "## Intro\n\n## Task Queue\n- [x] T001: first ✅ (Completed: 2025-09-29T15:00:00Z)\n",
			[]string{`h3a.append_only.task_removed@3: task T002 "second" of base 0123456789ab is no longer in the task queue`}},
		{"task reworded, unticked, time dropped", "state/ROADMAP.md", roadmapBase, "## Task Queue\n- [ ] T001: first, roughly\n- [ ] T002: second\n",
			[]string{
				`h3a.append_only.task_reworded@2: task T001 was reworded: base 0123456789ab "first", head "first, roughly"`,
				`h3a.append_only.task_unticked@2: task T001 is [x] at base 0123456789ab and [ ] in head`,
				`h3a.append_only.completion_changed@2: task T001 completion time changed: base 0123456789ab "2025-09-29T15:00:00Z", head none`,
			}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, b := fakeBase(map[string]string{tc.file: tc.base})
			res, err := Compare(memHead(t, map[string]string{tc.file: tc.head}, map[string]string{"a.txt": "", "b.txt": ""}), b, commit)
			if err != nil {
				t.Fatal(err)
			}
			var got []finding.Finding
			for _, f := range res.Findings {
				if f.Rule != finding.ArtifactChanged.ID { // the artifacts of these logs are not real
					got = append(got, f)
				}
			}
			if len(got) != len(tc.want) {
				t.Fatalf("got %d findings, want %d: %+v", len(got), len(tc.want), got)
			}
			for i, w := range tc.want {
				ruleLine, frag, _ := strings.Cut(w, ": ")
				f := got[i]
				if gotRuleLine := f.Rule + "@" + strconv.Itoa(f.Line); gotRuleLine != ruleLine || f.File != tc.file || !strings.Contains(f.Details, frag) {
					t.Errorf("got %s@%d %s: %s\nwant %s: %s", f.Rule, f.Line, f.File, f.Details, ruleLine, frag)
				}
			}
		})
	}
}

func TestArtifacts(t *testing.T) {
	const log = "- `artifacts/out.txt` - [hash:1111111111111111] - 2025-09-29T14:00:00Z - output\n" +
		"- `state.json` - [hash:2222222222222222] - 2025-09-29T14:00:00Z - state is logged too\n" +
		"- `../escape.txt` - [hash:3333333333333333] - 2025-09-29T14:00:00Z - refused elsewhere\n" +
		"- `never-committed.txt` - [hash:4444444444444444] - 2025-09-29T14:00:00Z - not at base\n"
	const lfsPointer = "version https://git-lfs.github.com/spec/v1\n" +
		"oid sha256:4f2d8bb0a7c0c8f4b7b8d7b8e5a3d5d9b36f2a3d0c0c5a3b2e1f0a9b8c7d6e5f\nsize 12\n"
	tests := []struct {
		name       string
		base, head string // artifacts/out.txt; head "-" = deleted
		rule       string
	}{
		{"unchanged", "line 1\nline 2\n", "line 1\nline 2\n", ""},
		{"line endings only (autocrlf)", "line 1\nline 2\n", "line 1\r\nline 2\r\n", ""},
		{"changed", "line 1\nline 2\n", "line 1\nline 3\n", "h3a.append_only.artifact_changed"},
		{"deleted", "line 1\n", "-", "h3a.append_only.artifact_deleted"},
		{"lone CR is content", "a\rb", "ab", "h3a.append_only.artifact_changed"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, b := fakeBase(map[string]string{"state/EVIDENCE_LOG.md": log, "artifacts/out.txt": tc.base, "state.json": "{}"})
			arts := map[string]string{"artifacts/out.txt": tc.head}
			if tc.head == "-" {
				arts = nil
			}
			h := memHead(t, map[string]string{"state/EVIDENCE_LOG.md": log, "state.json": `{"changed": true}`}, arts)
			res, err := Compare(h, b, commit)
			if err != nil {
				t.Fatal(err)
			}
			if got := strings.Join(rules(res.Findings), ","); got != tc.rule {
				t.Fatalf("rules %q, want %q: %+v", got, tc.rule, res.Findings)
			}
			if tc.rule != "" && (res.Findings[0].Line != 1 || !strings.Contains(res.Findings[0].Details, `"artifacts/out.txt"`)) {
				t.Errorf("finding not at the log line of the artifact: %+v", res.Findings[0])
			}
		})
	}
	t.Run("lfs pointer at base", func(t *testing.T) {
		content := "hello world\n"
		d, _ := digestOf(strings.NewReader(content))
		pointer := strings.Replace(lfsPointer, "4f2d8bb0a7c0c8f4b7b8d7b8e5a3d5d9b36f2a3d0c0c5a3b2e1f0a9b8c7d6e5f", d.raw, 1)
		_, b := fakeBase(map[string]string{"state/EVIDENCE_LOG.md": log, "artifacts/out.txt": pointer})
		res, err := Compare(memHead(t, map[string]string{"state/EVIDENCE_LOG.md": log}, map[string]string{"artifacts/out.txt": content}), b, commit)
		if err != nil || len(res.Findings) != 0 {
			t.Fatalf("an LFS pointer for the same content: %v %+v", err, res.Findings)
		}
	})
	t.Run("known sum skips the head read", func(t *testing.T) {
		_, b := fakeBase(map[string]string{"state/EVIDENCE_LOG.md": log, "artifacts/out.txt": "x"})
		d, _ := digestOf(strings.NewReader("x"))
		h := memHead(t, map[string]string{"state/EVIDENCE_LOG.md": log}, nil) // opening would say "deleted"
		h.Sums = map[string]string{"artifacts/out.txt": d.raw}
		if res, err := Compare(h, b, commit); err != nil || len(res.Findings) != 0 {
			t.Fatalf("%v %+v", err, res.Findings)
		}
	})
}

func TestCRLFWriterAcrossWrites(t *testing.T) {
	for _, chunks := range [][]string{{"a\r", "\nb"}, {"a\r", "b"}, {"a", "\r"}, {"\r\n\r", "\r\n"}} {
		want := strings.ReplaceAll(strings.Join(chunks, ""), "\r\n", "\n")
		h := &captureHash{}
		w := &crlfWriter{w: h}
		for _, c := range chunks {
			w.Write([]byte(c))
		}
		w.flush()
		if h.buf.String() != want {
			t.Errorf("%q: got %q, want %q", chunks, h.buf.String(), want)
		}
	}
}

// captureHash is a hash.Hash that keeps what it is given.
type captureHash struct{ buf bytes.Buffer }

func (c *captureHash) Write(p []byte) (int, error) { return c.buf.Write(p) }
func (c *captureHash) Sum(b []byte) []byte         { return append(b, c.buf.Bytes()...) }
func (c *captureHash) Reset()                      { c.buf.Reset() }
func (c *captureHash) Size() int                   { return 0 }
func (c *captureHash) BlockSize() int              { return 1 }

func TestCompareEdges(t *testing.T) {
	head := map[string]string{"state.json": `{"steps": []}`, "state/ROADMAP.md": roadmapBase}
	t.Run("new run", func(t *testing.T) {
		_, b := fakeBase(nil)
		res, err := Compare(memHead(t, head, nil), b, commit)
		if err != nil || !res.New || len(res.Findings) != 1 || res.Findings[0].Rule != finding.NewRun.ID || res.Findings[0].Severity != finding.Info {
			t.Fatalf("%v %+v", err, res)
		}
	})
	t.Run("base not valid JSON", func(t *testing.T) {
		_, b := fakeBase(map[string]string{"state.json": `{"steps": [`})
		res, err := Compare(memHead(t, head, nil), b, commit)
		if err != nil || res.New || len(res.Findings) != 1 || !strings.Contains(res.Findings[0].Details, "the base version at 0123456789ab is not valid JSON") ||
			res.Findings[0].Rule != finding.BaseUnreadable.ID || !res.Findings[0].NeedsHuman {
			t.Fatalf("%v %+v", err, res)
		}
	})
	t.Run("head not parsed: its own error says so", func(t *testing.T) {
		_, b := fakeBase(map[string]string{"state.json": `{"steps": [1]}`})
		res, err := Compare(memHead(t, map[string]string{"state.json": `{"steps": [`}, nil), b, commit)
		if err != nil || res.New || len(res.Findings) != 0 {
			t.Fatalf("%v %+v", err, res)
		}
	})
	t.Run("base file is a folder", func(t *testing.T) {
		_, b := fakeBase(map[string]string{"state.json/x": "{}"})
		res, err := Compare(memHead(t, head, nil), b, commit)
		if err != nil || len(res.Findings) != 1 || res.Findings[0].Rule != finding.BaseUnreadable.ID || !res.Findings[0].NeedsHuman || !strings.Contains(res.Findings[0].Details, "not a file") {
			t.Fatalf("%v %+v", err, res)
		}
	})
	t.Run("broken reader", func(t *testing.T) {
		f, b := fakeBase(nil)
		f.Err = errors.New("git cat-file died")
		if _, err := Compare(memHead(t, head, nil), b, commit); err == nil || !strings.Contains(err.Error(), "died") {
			t.Fatalf("err %v, want the reader's error", err)
		}
	})
	t.Run("unknown layout", func(t *testing.T) {
		h := memHead(t, head, nil)
		h.Layout = "nope"
		_, b := fakeBase(nil)
		if _, err := Compare(h, b, commit); err == nil {
			t.Fatal("no error for an unknown layout")
		}
	})
}

// TestDuplicateKeysAtBase: a member the base writes twice is compared by its
// later value only, so a head that differs from such a base asks a person;
// one that is the base's bytes does not.
func TestDuplicateKeysAtBase(t *testing.T) {
	const base = `{"steps": [{"task_id": "T001", "status": "failed", "status": "passed"}]}`
	tests := []struct {
		name, head, want string
	}{
		{"earlier value dropped", `{"steps": [{"task_id": "T001", "status": "passed"}]}`,
			`the base version at 0123456789ab writes member "/steps/0/status" twice (the second time at line 1)`},
		{"earlier value rewritten, still twice", `{"steps": [{"task_id": "T001", "status": "passed", "status": "passed"}]}`,
			`writes member "/steps/0/status" twice`},
		{"unchanged", base, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, b := fakeBase(map[string]string{"state.json": base})
			res, err := Compare(memHead(t, map[string]string{"state.json": tc.head}, nil), b, commit)
			if err != nil {
				t.Fatal(err)
			}
			got := ofRule(res.Findings, finding.BaseUnreadable.ID)
			switch {
			case tc.want == "" && len(got) != 0:
				t.Fatalf("got %+v, want no finding", got)
			case tc.want != "" && (len(got) != 1 || !got[0].NeedsHuman || !strings.Contains(got[0].Details, tc.want)):
				t.Fatalf("got %+v, want one needs-human finding with %q", got, tc.want)
			}
		})
	}
}

// TestEveryLayoutGrowsKnownWays: every layout's append-only files are its
// own files, and the history stage implements every way they grow.
func TestEveryLayoutGrowsKnownWays(t *testing.T) {
	for _, lay := range layout.All() {
		if _, err := rulesOf(lay); err != nil {
			t.Error(err)
		}
	}
	if _, err := rulesOf(misdeclared{layout.H3A{}}); err == nil || !strings.Contains(err.Error(), `declares "state/NOPE.md" append-only, which is not one of its files`) {
		t.Errorf("a file the layout does not hold: err = %v", err)
	}
}

// misdeclared is the h3a layout declaring a file it does not hold.
type misdeclared struct{ layout.H3A }

func (misdeclared) AppendOnly() []layout.AppendOnly {
	return []layout.AppendOnly{{Path: "state/NOPE.md", Grows: layout.GateEvents{}}}
}

func TestRunsAt(t *testing.T) {
	files := []string{
		"runs/a/state.json", "runs/a/state/ROADMAP.md",
		"runs/a/artifacts/copy/state/ROADMAP.md",          // inside a run: found too
		"runs/b c/state/EVIDENCE_LOG.md",                  // one state file is enough
		"runs/b c/x/state/GATES_LEDGER.md",                // nested in "b c": found too
		"runs/b/state/SESSION_HANDOFF.json",               // sorts after "b c"
		"runs/only-state-json/state.json",                 // no state/ folder
		"runs/node_modules/pkg/state/ROADMAP.md",          // any folder name: found too
		".git/r/state.json",                               // git carries nothing here
		"runs/ünï/state.json", "runs/ünï/state/notes.txt", // state/ beside state.json
	}
	var dirs []string
	for _, r := range runsAtFiles(t, files...) {
		if r.Layout != "h3a" {
			t.Errorf("%s: layout %q", r.Dir, r.Layout)
		}
		dirs = append(dirs, r.Dir)
	}
	if got, want := strings.Join(dirs, "|"), "runs/a|runs/a/artifacts/copy|runs/b|runs/b c|runs/b c/x|runs/node_modules/pkg|runs/ünï"; got != want {
		t.Errorf("RunsAt = %q, want %q", got, want)
	}
	if got := runsAtFiles(t, "state.json", "state/ROADMAP.md", "sub/state/ROADMAP.md"); len(got) != 2 || got[0].Dir != "" || got[1].Dir != "sub" {
		t.Errorf("a run at the top level, and one inside it: %+v", got)
	}
}

// runsAtFiles finds the runs among a revision's files, as the history
// stage does on a base's listing.
func runsAtFiles(t *testing.T, files ...string) []RunAt {
	t.Helper()
	runs, err := RunsAt(gitrev.NewFilesFS(files, nil), "")
	if err != nil {
		t.Fatal(err)
	}
	return runs
}

// ofRule is the findings of rule among fs.
func ofRule(fs []finding.Finding, rule string) []finding.Finding {
	var out []finding.Finding
	for _, f := range fs {
		if f.Rule == rule {
			out = append(out, f)
		}
	}
	return out
}

// soleFinding fails the test unless findings is empty (rule "") or holds
// exactly one finding, of rule; ok says whether there is one to look at.
func soleFinding(t *testing.T, findings []finding.Finding, rule string) (f finding.Finding, ok bool) {
	t.Helper()
	if rule == "" {
		if len(findings) != 0 {
			t.Fatalf("unexpected findings: %+v", findings)
		}
		return finding.Finding{}, false
	}
	if len(findings) != 1 {
		t.Fatalf("want one %s finding, got %+v", rule, findings)
	}
	return findings[0], true
}

func TestIterationCount(t *testing.T) {
	task := func(id string, n string) string {
		return `{"task_id": ` + id + `, "status": "in_progress", "iteration_count": ` + n + `}`
	}
	const ledgerBase = "## Gate Events Log\n" +
		"[2025-09-29T15:00:00Z] G2_validation - FAILED - validator - first\n" +
		"[2025-09-29T16:00:00Z] G2_validation - FAILED - validator - second\n"
	human := ledgerBase + "[2025-09-29T16:30:00Z] G2_validation - DECIDED - Human - retry with the clarified goal\n"
	tests := []struct {
		name                   string
		baseTask, headTask     string
		baseLedger, headLedger string // "" = no ledger on that side
		want                   string // "" = no finding
	}{
		{"count grows", task(`"T001"`, "1"), task(`"T001"`, "2"), ledgerBase, ledgerBase, ""},
		{"count unchanged", task(`"T001"`, "2"), task(`"T001"`, "2.0"), ledgerBase, ledgerBase, ""},
		{"lowered without a decision", task(`"T001"`, "2"), task(`"T001"`, "0"), ledgerBase, ledgerBase,
			`iteration_count of task "T001" went down from 2 at base 0123456789ab to 0 in head with no human decision recorded in between`},
		{"lowered by one", task(`"T001"`, "2"), task(`"T001"`, "1"), ledgerBase, ledgerBase, "went down from 2 at base 0123456789ab to 1 in head"},
		{"lowered after a human decision", task(`"T001"`, "2"), task(`"T001"`, "0"), ledgerBase, human, ""},
		{"an attempt failed after the decision, counted", task(`"T001"`, "2"), task(`"T001"`, "1"), ledgerBase,
			human + "[2025-09-29T17:00:00Z] G2_validation - FAILED - validator - third\n", ""},
		{"an attempt failed after the decision, not counted", task(`"T001"`, "2"), task(`"T001"`, "0"), ledgerBase,
			human + "[2025-09-29T17:00:00Z] G2_validation - FAILED - validator - third\n",
			`went down from 2 at base 0123456789ab to 0 in head, but GATES_LEDGER.md logs 1 failed attempt after the last human decision`},
		{"a later decision resets the count again", task(`"T001"`, "2"), task(`"T001"`, "0"), ledgerBase,
			human + "[2025-09-29T17:00:00Z] G2_validation - FAILED - validator - third\n" +
				"[2025-09-29T17:30:00Z] G2_validation - DECIDED - human - retry once more\n", ""},
		{"the decision was already there at the base", task(`"T001"`, "2"), task(`"T001"`, "0"), human, human, "went down from 2"},
		{"the same decision appended again counts as appended", task(`"T001"`, "2"), task(`"T001"`, "0"), human,
			human + "[2025-09-29T16:30:00Z] G2_validation - DECIDED - Human - retry with the clarified goal\n", ""},
		{"a human event moved up is no decision", task(`"T001"`, "2"), task(`"T001"`, "0"),
			ledgerBase + "[2025-09-29T16:30:00Z] G2_validation - DECIDED - human - go on\n",
			"## Gate Events Log\n[2025-09-29T16:30:00Z] G2_validation - DECIDED - human - go on\n" +
				"[2025-09-29T15:00:00Z] G2_validation - FAILED - validator - first\n" +
				"[2025-09-29T16:00:00Z] G2_validation - FAILED - validator - second\n", "went down from 2"},
		{"decision by another agent", task(`"T001"`, "2"), task(`"T001"`, "0"), ledgerBase,
			ledgerBase + "[2025-09-29T16:30:00Z] G2_validation - DECIDED - validator - retry\n", "went down from 2"},
		{"ledger new since the base, with the decision", task(`"T001"`, "2"), task(`"T001"`, "0"), "", human, ""},
		{"no ledger in head", task(`"T001"`, "2"), task(`"T001"`, "0"), ledgerBase, "", "went down from 2"},
		{"a new task starts its own count", task(`"T001"`, "2"), task(`"T002"`, "0"), ledgerBase, ledgerBase, ""},
		{"no task yet on either side", task("null", "1"), task("null", "0"), ledgerBase, ledgerBase, `iteration_count of the task went down from 1`},
		{"malformed task ids are compared safely", task(`{"id": 1}`, "2"), task(`{"id": 1}`, "0"), ledgerBase, ledgerBase, "went down from 2"},
		{"count not a number", task(`"T001"`, `"two"`), task(`"T001"`, "0"), ledgerBase, ledgerBase, ""},
		// A count the base wrote as a string shows a reader the same count.
		{"count written as a string at the base", task(`"T001"`, `"2"`), task(`"T001"`, "0"), ledgerBase, ledgerBase, "went down from \"2\" at base"},
		{"count written as a string in head", task(`"T001"`, "2"), task(`"T001"`, `" 1 "`), ledgerBase, ledgerBase, "went down from 2"},
		{"a huge exponent is read cheaply", task(`"T001"`, "9e29999"), task(`"T001"`, "0"), ledgerBase, ledgerBase, "went down from 9e29999"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			baseFiles := map[string]string{"state/CURRENT_TASK.json": tc.baseTask}
			headFiles := map[string]string{"state/CURRENT_TASK.json": tc.headTask}
			if tc.baseLedger != "" {
				baseFiles["state/GATES_LEDGER.md"] = tc.baseLedger
			}
			if tc.headLedger != "" {
				headFiles["state/GATES_LEDGER.md"] = tc.headLedger
			}
			_, b := fakeBase(baseFiles)
			res, err := Compare(memHead(t, headFiles, nil), b, commit)
			if err != nil {
				t.Fatal(err)
			}
			got := ofRule(res.Findings, finding.IterationCountLowered.ID)
			switch {
			case tc.want == "" && len(got) != 0:
				t.Errorf("unexpected finding: %+v", got)
			case tc.want != "" && (len(got) != 1 || !strings.Contains(got[0].Details, tc.want) || got[0].Pointer != "/iteration_count" || got[0].File != "state/CURRENT_TASK.json"):
				t.Errorf("got %+v, want one finding at state/CURRENT_TASK.json /iteration_count saying %q", got, tc.want)
			}
		})
	}
}

func TestNamesIssue(t *testing.T) {
	tests := []struct {
		text string
		want bool
	}{
		{"I-1 came back", true},
		{"reopened I-1.", true},
		{"(I-1)", true},
		{`"I-1"`, true},
		{"I-10 found", false},
		{"XI-1 found", false},
		{"I-1.2 found", false},
		{"I-1_b", false},
		{"I-10 and I-1", true},
		{"nothing", false},
	}
	for _, tc := range tests {
		if got := namesIssue([]string{tc.text}, "I-1"); got != tc.want {
			t.Errorf("namesIssue(%q, I-1) = %v, want %v", tc.text, got, tc.want)
		}
	}
}
