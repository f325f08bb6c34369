package ledger

import (
	"fmt"
	"testing"
)

const taskExpect = `expected "- [ ] T001: <description>"`

func TestParseRoadmapFixtures(t *testing.T) {
	tests := []struct {
		file     string
		want     *Roadmap
		problems []Problem
	}{
		{
			file: "roadmap_spec.md",
			want: &Roadmap{
				Status:      "<Planning Phase | Execution Phase | Validation Phase | Complete>",
				StatusLine:  3,
				Initialized: "<ISO-8601-timestamp>",
				Brief:       "<User-provided or Planner-generated description>",
				BriefLine:   7,
				Sections: []Section{
					{"H3A System Roadmap", 1, 1}, {"Task Brief", 2, 7}, {"Overall Strategy", 2, 12},
					{"Task Decomposition", 2, 18}, {"Task Queue", 3, 20}, {"Success Criteria", 2, 27}, {"Notes", 2, 37},
				},
				Tasks: []Task{
					{ID: "T001", Text: "<Task description>", Line: 21},
					{ID: "T002", Text: "<Task description>", Line: 22},
					{ID: "T003", Text: "<Task description>", Done: true, CompletedAt: "<timestamp>", Line: 23},
				},
				Criteria: []Criterion{
					{"All tests passing (100% pass rate)", false, 28}, {"Coverage ≥ 90%", false, 29},
					{"Mutation score ≥ 85%", false, 30}, {"Security scan clean (OWASP)", false, 31},
					{"Lint/type checks passing", false, 32}, {"A11y compliance (if UI changes)", false, 33},
				},
			},
		},
		{
			file: "roadmap_run.md",
			want: &Roadmap{
				Status:      "Execution Phase",
				StatusLine:  3,
				Initialized: "2025-09-29T13:42:15Z",
				Brief:       "Add user authentication with JWT tokens.",
				BriefLine:   7,
				Sections: []Section{
					{"H3A System Roadmap", 1, 1}, {"Task Brief", 2, 7}, {"Task Decomposition", 2, 14},
					{"Task Queue", 3, 18}, {"Risks", 3, 32}, {"Success Criteria", 2, 35},
				},
				Tasks: []Task{
					{ID: "T001", Text: "Generate JWT tokens", Done: true, CompletedAt: "2025-09-29T14:45:00Z", Line: 19},
					{ID: "T002", Text: "Validate token expiry", Done: true, CompletedAt: "2025-09-29T15:10:00+07:00", Line: 20},
					{ID: "T003", Text: "Document key rotation - see ADR-7", Line: 21},
					{ID: "T004", Text: "Rotate signing keys", Line: 22},
				},
				Criteria: []Criterion{{"All tests passing (100% pass rate)", false, 36}},
			},
			problems: []Problem{
				{23, 3, `malformed task: checkbox "[-]" is neither "[ ]" nor "[x]"`},
				{24, 7, `malformed task: ` + taskExpect + `, missing the task id (found "Write the changelog")`},
				{25, 11, `malformed task: ` + taskExpect + `, missing the colon after "T006"`},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			data := readFixture(t, tt.file)
			// The same document with CRLF endings and a BOM must read the same.
			for name, variant := range map[string][]byte{
				"lf": data, "crlf": crlf(data), "bom+crlf": append(append([]byte{}, bom...), crlf(data)...),
			} {
				got, problems := ParseRoadmap(variant)
				assertEqual(t, name+" roadmap", got, tt.want)
				assertProblems(t, problems, tt.problems)
			}
		})
	}
}

func TestParseRoadmapTasks(t *testing.T) {
	tests := []struct {
		name     string
		doc      []byte
		want     []Task
		problems []Problem
	}{
		{
			name: "task decomposition is used when there is no task queue",
			doc: md("## Task Decomposition", "- [ ] T001: first", "### Phase 2", "- [x] T002: second",
				"## Success Criteria", "- [ ] all green"),
			want: []Task{{ID: "T001", Text: "first", Line: 2}, {ID: "T002", Text: "second", Done: true, Line: 4}},
		},
		{
			name: "only the task queue is read when it exists",
			doc:  md("## Task Decomposition", "- [ ] free text", "### Task Queue", "- [ ] T001: queued", "### Later", "- [ ] T009 later"),
			want: []Task{{ID: "T001", Text: "queued", Line: 4}},
		},
		{
			name: "a level-2 task queue ends at the next level-2 heading, not at a level-3 one",
			doc:  md("## Task Queue", "### Sprint 1", "- [ ] T001: a", "## Notes", "- [ ] T002: not a task"),
			want: []Task{{ID: "T001", Text: "a", Line: 3}},
		},
		{
			name: "an underlined heading ends the task queue for a reader, as a # heading does",
			doc:  md("### Task Queue", "- [ ] T001: a", "", "Later", "=====", "- [x] T002: not a task of the queue"),
			want: []Task{{ID: "T001", Text: "a", Line: 2}},
		},
		{
			name: "no task sections: checkbox lines are neither tasks nor problems",
			doc:  md("# Roadmap", "- [ ] T001: a", "- [?] broken"),
		},
		{
			name: "heading variants still name the section",
			doc:  md("### **Task Queue** ###", "- [ ] T001: a", "## 📋 task queue (updated)", "- [ ] T002: b"),
			want: []Task{{ID: "T001", Text: "a", Line: 2}, {ID: "T002", Text: "b", Line: 4}},
		},
		{
			name: "a task in a block quote is a problem, a quote of prose is not",
			doc:  md("### Task Queue", "- [x] T001: a", "> - [ ] T002: quoted", "> > 1. [x] T003: deeper", ">- T004: no box", "> T005: prose, not a task"),
			want: []Task{{ID: "T001", Text: "a", Done: true, Line: 2}},
			problems: []Problem{
				{3, 1, "malformed task: " + taskGrammar + `, a task is a list item of the queue, not of a block quote (">"), where no rule reads it`},
				{4, 1, "malformed task: " + taskGrammar + `, a task is a list item of the queue, not of a block quote (">"), where no rule reads it`},
				{5, 1, "malformed task: " + taskGrammar + `, missing the checkbox "[ ]" or "[x]" before the task id, and a list item of the queue, not of a block quote (">")`},
			},
		},
		{
			name: "a task written as a heading in the queue, or as the heading that ends it, is a problem; a heading naming a task is not",
			doc: md("### Task Queue", "- [x] T001: a", "#### T001: details", "#### - [ ] T002: open", "### [ ] T003: open too", "- [ ] T004: under it",
				"## Notes", "### [ ] T005: not the queue's"),
			want: []Task{{ID: "T001", Text: "a", Done: true, Line: 2}},
			problems: []Problem{
				{4, 6, "malformed task written as a heading (\"- [ ] T002: open\"): Markdown shows it as one, and a heading is read as a section, never as a task; write it as a list item of the Task Queue, without the #'s"},
				{5, 5, "malformed task written as a heading (\"[ ] T003: open too\"): Markdown shows it as one, and a heading is read as a section, never as a task; write it as a list item of the Task Queue, without the #'s"},
			},
		},
		{
			name: "a task whose description holds another task is a problem",
			doc:  md("### Task Queue", "- [x] T001: a<br>- [ ] T002: open", "- [x] T003: see [x] in T004 and [ ] T5 later", "- [ ] T006: [X]T7: b"),
			want: []Task{{ID: "T003", Text: "see [x] in T004 and [ ] T5 later", Done: true, Line: 3}},
			problems: []Problem{
				{2, 20, `malformed task: the description holds another task ("[ ] T002: open"); write each task on a line of its own`},
				{4, 13, `malformed task: the description holds another task ("[X]T7: b"); write each task on a line of its own`},
			},
		},
		{
			name: "other headings that merely start with the words do not",
			doc:  md("### Task Queues archive", "- [ ] T001: a"),
		},
		{
			name: "completion marker variants",
			doc: md("### Task Queue",
				"- [x] T001: a \u2705\ufe0f (completed: 2025-09-29T14:45:00Z)",
				"- [x] T002: b (Completed:)",
				"- [x] T003: c ✅",
				"- [ ] T004: uses (parentheses) (Completed: t)",
				"- [x] T005-correction: id with a suffix",
				"-\t[ ]\tT6:tabs",
				"2. [ ] T7: ordered"),
			want: []Task{
				{ID: "T001", Text: "a", Done: true, CompletedAt: "2025-09-29T14:45:00Z", Line: 2},
				{ID: "T002", Text: "b", Done: true, Line: 3},
				{ID: "T003", Text: "c", Done: true, Line: 4},
				{ID: "T005-correction", Text: "id with a suffix", Done: true, Line: 6},
				{ID: "T6", Text: "tabs", Line: 7},
				{ID: "T7", Text: "ordered", Line: 8},
			},
			// An open box with a completion time claims both open and done.
			problems: []Problem{
				{5, 3, `malformed task: the open checkbox "[ ]" of "T004" contradicts its completion marker "(Completed: t)"; a done task is written "- [x] T004: <description> ✅ (Completed: <time>)", an open one without the marker`},
			},
		},
		{
			name: "malformed checkbox lines in the queue",
			doc: md("### Task Queue",
				"- [] T001: empty box",
				"- [ x] T002: space before x",
				"- [ ] t003: lower-case id",
				"- [ ] T004:",
				"- [ ] T005: ✅ (Completed: t)",
				"- [ ]",
				"- [ ] T00é: x"),
			problems: []Problem{
				{2, 3, `malformed task: checkbox "[]" is neither "[ ]" nor "[x]"`},
				{3, 3, `malformed task: checkbox "[ x]" is neither "[ ]" nor "[x]"`},
				{4, 7, `malformed task: ` + taskExpect + `, missing the task id (found "t003: lower-case id")`},
				{5, 11, `malformed task: ` + taskExpect + `, missing the description after "T004:"`},
				{6, 11, `malformed task: ` + taskExpect + `, missing the description after "T005:"`},
				{7, 6, `malformed task: ` + taskExpect + `, missing the task id (found "")`},
				{8, 10, `malformed task: ` + taskExpect + `, missing the colon after "T00"`},
			},
		},
		{
			name: "links, plain bullets and prose in the queue are not checkbox lines",
			doc:  md("### Task Queue", "- [docs](x.md)", "- [long label] T001: x", "- plain", "- Tasks are listed below: one per line", "---"),
		},
		{
			name: "a task that lost its bullet or its checkbox is a problem, never silently no task",
			doc:  md("### Task Queue", "[ ] T002: not a list item", "-[x] T003: no space after the bullet", "- T004: no checkbox", "  * [X]T005: no space after the box"),
			problems: []Problem{
				{2, 1, `malformed task: ` + taskExpect + `, a task is a list item: "- " and a space before the checkbox`},
				{3, 2, `malformed task: ` + taskExpect + `, a task is a list item: "- " and a space before the checkbox`},
				{4, 3, `malformed task: ` + taskExpect + `, missing the checkbox "[ ]" or "[x]" before the task id`},
			},
			want: []Task{{ID: "T005", Text: "no space after the box", Done: true, Line: 5}},
		},
		{
			name: "a status mark in place of the checkbox is a problem, never silently no task",
			doc:  md("### Task Queue", "- ✅ T002: done by emoji", "* ⏳T003: waiting", "1. ✔️ T004: done", "- → see T005 below", "- **T006**: bold, no colon after the id", "- [docs](x.md) T007: a link first"),
			problems: []Problem{
				{2, 3, `malformed task: ` + taskExpect + `, missing the checkbox "[ ]" or "[x]" before the task id (found "✅" in its place)`},
				{3, 3, `malformed task: ` + taskExpect + `, missing the checkbox "[ ]" or "[x]" before the task id (found "⏳" in its place)`},
				{4, 4, `malformed task: ` + taskExpect + `, missing the checkbox "[ ]" or "[x]" before the task id (found "✔️" in its place)`},
			},
		},
		{
			name: "a task whose markup is a character reference, an escape or another space shows as text: a problem",
			doc: md("### Task Queue", "- &#91; ] T002: by reference", `- \[ ] T003: escaped`, "-\u00a0[ ] T004: no-break space", "  \f- [ ] T005: form feed",
				"- [&#32;] T006: a space by reference", "- [x] T001: done &amp; dusted"),
			want: []Task{{ID: "T001", Text: "done &amp; dusted", Done: true, Line: 7}},
			problems: []Problem{
				{2, 1, `malformed task: ` + taskExpect + `, found a line that shows as "- [ ] T002: by reference", but its markup is written with a character reference, a backslash escape or a space other than a blank, so Markdown shows it as text, not as a task, and it is not read`},
				{3, 1, `malformed task: ` + taskExpect + `, found a line that shows as "- [ ] T003: escaped", but its markup is written with a character reference, a backslash escape or a space other than a blank, so Markdown shows it as text, not as a task, and it is not read`},
				{4, 1, `malformed task: ` + taskExpect + `, found a line that shows as "- [ ] T004: no-break space", but its markup is written with a character reference, a backslash escape or a space other than a blank, so Markdown shows it as text, not as a task, and it is not read`},
				{5, 1, `malformed task: ` + taskExpect + `, found a line that shows as "- [ ] T005: form feed", but its markup is written with a character reference, a backslash escape or a space other than a blank, so Markdown shows it as text, not as a task, and it is not read`},
				{6, 1, `malformed task: ` + taskExpect + `, found a line that shows as "- [ ] T006: a space by reference", but its markup is written with a character reference, a backslash escape or a space other than a blank, so Markdown shows it as text, not as a task, and it is not read`},
			},
		},
		{
			name: "a task in a table cell of the queue is a problem; a table of task ids is not",
			doc:  md("### Task Queue", "| Task | Owner |", "|---|---|", "| [ ] T002: in a cell | executor |", "| T003: no checkbox | done |"),
			problems: []Problem{
				{4, 1, `malformed task: ` + taskExpect + `, found a table cell that shows the task "[ ] T002: in a cell", which is not read: a task is a list item of the queue, not a table cell`},
			},
		},
		{
			name: "a long description is quoted in short",
			doc:  md("### Task Queue", "- [ ] "+longText),
			problems: []Problem{
				{2, 7, `malformed task: ` + taskExpect + `, missing the task id (found "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa…")`},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, problems := ParseRoadmap(tt.doc)
			want := tt.want
			if want == nil {
				want = []Task{}
			}
			assertEqual(t, "tasks", got.Tasks, want)
			assertProblems(t, problems, tt.problems)
		})
	}
}

const longText = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"

func TestParseRoadmapHeaderFields(t *testing.T) {
	tests := []struct {
		name                string
		doc                 []byte
		status, initialized string
		statusLine          int
	}{
		{"absent", md("# Roadmap"), "", "", 0},
		{"colon outside the bold", md("# R", "**Run Initialized**: 2025-09-29T13:42:15Z", "**Status**:  Complete  "), "Complete", "2025-09-29T13:42:15Z", 3},
		{"first one wins", md("**Status:** Planning Phase", "**Status:** Complete"), "Planning Phase", "", 1},
		{"case of the label is ignored", md("**STATUS:** Complete"), "Complete", "", 1},
		{"not inside code or comments", md("```", "**Status:** fenced", "```", "<!-- **Status:** hidden -->", "**Status:** real"), "real", "", 5},
		{"empty value", md("**Status:**"), "", "", 1},
		{"without emphasis", md("# R", "Run Initialized: t0", "status:  Complete"), "Complete", "t0", 3},
		{"as a list item", md("# R", "- **Status:** Complete", "* Run Initialized: t0"), "Complete", "t0", 2},
		{"set off otherwise", md("# R", "__Status:__ Complete", "<b>Run Initialized</b>: t0"), "Complete", "t0", 2},
		{"emphasised whole", md("# R", "_Status: Complete_"), "Complete", "", 2},
		{"in a block quote", md("# R", "> **Status:** Complete", "> > - Run Initialized: t0"), "Complete", "t0", 2},
		{"the bold form wins", md("Status: Planning Phase", "**Status:** Complete"), "Complete", "", 2},
		{"as a heading", md("# R", "## Status: Complete", "```", "Status: fenced", "```"), "Complete", "", 2},
		{"a field wins over a heading", md("## Status: Complete", "**Status:** Planning"), "Planning", "", 2},
		{"a heading's title only", md("## Status", "Complete"), "", "", 0},
		{"not in indented code", md("# R", "", "    **Status:** In Progress", "    Status: In Progress", "", "**Status:** Complete"), "Complete", "", 6},
		{"indented in a paragraph goes on", md("# R", "Run Initialized: t0", "    **Status:** Planning"), "Planning", "t0", 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, _ := ParseRoadmap(tt.doc)
			if got.Status != tt.status || got.StatusLine != tt.statusLine || got.Initialized != tt.initialized {
				t.Errorf("got status %q at line %d, initialized %q; want %q at line %d, %q",
					got.Status, got.StatusLine, got.Initialized, tt.status, tt.statusLine, tt.initialized)
			}
		})
	}
}

// TestParseRoadmapStatusTwice: a roadmap that gives its Status twice with
// two values shows a reader both, and the rules read one ("Execution
// Phase" at the top, "Complete" further down, would let a run with open
// tasks pass as one in progress): a problem at the other. The same value
// twice says one thing.
func TestParseRoadmapStatusTwice(t *testing.T) {
	msg := func(here, read string, at int) string {
		return fmt.Sprintf("the roadmap gives its Status twice, and they disagree: %q here, %q at line %d, the one the rules read; a reader cannot tell which holds; expected one \"**Status:** <Planning Phase | Execution Phase | Validation Phase | Complete>\" line", here, read, at)
	}
	tests := []struct {
		name     string
		doc      []byte
		problems []Problem
	}{
		{"one", md("# R", "**Status:** Complete"), nil},
		{"the same twice", md("# R", "**Status:** Complete", "## Notes", "**Status:** _complete_"), nil},
		{"in progress, then complete", md("# R", "**Status:** Execution Phase", "## Task Queue", "- [ ] T001: a", "", "**Status:** Complete"),
			[]Problem{{6, 1, msg("Complete", "Execution Phase", 2)}}},
		{"complete, then in progress", md("# R", "**Status:** Complete", "", "**Status:** Execution Phase", "Status: Planning Phase"),
			[]Problem{{4, 1, msg("Execution Phase", "Complete", 2)}}},
		{"written otherwise", md("# R", "Status: Execution Phase", "**Status:** Complete"), []Problem{{2, 1, msg("Execution Phase", "Complete", 3)}}},
		{"as a heading", md("## Status: Complete", "**Status:** Planning"), []Problem{{1, 1, msg("Complete", "Planning", 2)}}},
		{"code shows no field", md("# R", "**Status:** Complete", "```", "**Status:** Planning", "```"), nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, problems := ParseRoadmap(tt.doc)
			assertProblems(t, problems, tt.problems)
		})
	}
}

// TestParseRoadmapBrief: the Task Brief section's text, as the policy
// input carries it.
func TestParseRoadmapBrief(t *testing.T) {
	tests := []struct {
		name  string
		doc   []byte
		brief string
		line  int
	}{
		{"absent", md("# Roadmap", "## Notes", "text"), "", 0},
		{"the spec's form", md("# R", "---", "", "## Task Brief", "Add JWT auth.", "", "---", "", "## Overall Strategy", "x"), "Add JWT auth.", 4},
		{"several lines and sub-headings, up to the next heading of its level", md("## Task Brief", "line one", "", "line two", "### Detail", "more", "## Next"), "line one\n\nline two\n### Detail\nmore", 1},
		{"empty", md("## Task Brief", "---", "## Next"), "", 1},
		{"the first one", md("## Task Brief", "first", "## Task Brief", "second"), "first", 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, _ := ParseRoadmap(tt.doc)
			if got.Brief != tt.brief || got.BriefLine != tt.line {
				t.Errorf("brief %q at line %d; want %q at line %d", got.Brief, got.BriefLine, tt.brief, tt.line)
			}
		})
	}
}

func TestParseRoadmapCriteria(t *testing.T) {
	tests := []struct {
		name string
		doc  []byte
		want []Criterion
	}{
		{"none", md("# Roadmap", "## Task Queue", "- [ ] T001: a"), []Criterion{}},
		{"open and ticked boxes, any bullet", md("## Success Criteria", "- [ ] Coverage ≥ 90%", "* [x] Tests pass", "+ [X] Lint", "1. [ ] Numbered"),
			[]Criterion{{"Coverage ≥ 90%", false, 2}, {"Tests pass", true, 3}, {"Lint", true, 4}, {"Numbered", false, 5}}},
		{"nested items, and a qualified heading", md("## ✅ Success Criteria (v2)", "- [x] Tests", "  - [ ] Unit", "", "## Notes", "- [ ] not a criterion"),
			[]Criterion{{"Tests", true, 2}, {"Unit", false, 3}}},
		{"no box, a link, code and comments are no criteria", md("## Success Criteria", "- Tests pass", "- [x](url) link", "```", "- [ ] code", "```", "<!-- - [ ] hidden -->", "-[ ] no space"),
			[]Criterion{}},
		{"a box in a block quote shows as one", md("## Success Criteria", "> - [ ] Coverage", ">> * [x] Lint"), []Criterion{{"Coverage", false, 2}, {"Lint", true, 3}}},
		{"a sub-heading ends nothing of a higher level", md("## Success Criteria", "### Quality", "- [ ] Coverage"), []Criterion{{"Coverage", false, 3}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, _ := ParseRoadmap(tt.doc)
			assertEqual(t, "criteria", got.Criteria, tt.want)
		})
	}
}
