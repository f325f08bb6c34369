package ledger

import (
	"fmt"
	"testing"
)

const eventExpect = `expected "[<time>] <GATE_ID> - <STATUS> - <agent> - <note>"`

func TestParseGatesLedgerFixtures(t *testing.T) {
	tests := []struct {
		file     string
		want     *GatesLedger
		problems []Problem
	}{
		{
			file: "gates_ledger_spec.md",
			want: &GatesLedger{
				Initialized: "<timestamp>",
				Sections: []Section{
					{"H3A Gates Ledger", 1, 1}, {"Gate Framework", 2, 6}, {"Gate History", 2, 23},
					{"Gate Events Log", 3, 25}, {"Current Gate: <Gate ID>", 2, 33}, {"Escalation Protocol", 2, 55},
				},
				EventsLine: 25,
				Events: []Event{
					{"2025-09-29T13:42:15Z", "G0_planning", "STARTED", "planner", "Task decomposition initiated", 26},
					{"2025-09-29T14:05:30Z", "G0_planning", "PASSED", "planner", "ROADMAP complete, CURRENT_TASK created", 27},
					{"2025-09-29T14:10:00Z", "G1_implementation", "STARTED", "executor", "TDD cycle T001 begins", 28},
					{"2025-09-29T14:45:00Z", "G1_implementation", "PASSED", "executor", "All tests green, coverage +5.2%", 29},
				},
				Table: []GateRow{
					{"G0", "Planning", "Planner", GatePassed, "🟢 Passed", 10},
					{"G1", "Implementation", "Executor", GateInProgress, "🟡 In Progress", 11},
					{"G2", "Validation", "Validator", GateNotStarted, "⚪ Not Started", 12},
					{"G3", "Production-Ready", "System", GateNotStarted, "⚪ Not Started", 13},
				},
				Current: []CurrentGate{{
					Gate: "<Gate ID>", Line: 33, RawStatus: "<In Progress | Passed | Failed>", StatusLine: 36,
					Blockers: []Blocker{{"<None | Description of blocker>", 51}},
					Evidence: []RequiredEvidence{{"<artifact path>", 47}, {"<artifact path>", 48}},
				}},
			},
		},
		{
			file: "gates_ledger_run.md",
			want: &GatesLedger{
				Initialized: "2025-09-29T13:42:15Z",
				Sections: []Section{
					{"H3A Gates Ledger", 1, 1}, {"Gate Framework", 2, 4}, {"Gate History", 2, 12},
					{"Gate Events Log", 3, 14}, {"Current Gate: G1_implementation", 2, 30},
				},
				EventsLine: 14,
				Events: []Event{
					{"2025-09-29T13:42:15Z", "G0_planning", "STARTED", "planner", "Task decomposition initiated", 19},
					{"2025-09-29T14:05:30Z", "G0_planning", "PASSED", "planner", "", 20},
					{"2025-09-29T14:10:00Z", "G1_implementation", "STARTED", "executor", "", 22},
					{"2025-09-29T14:40:00.123+07:00", "G1_implementation", "FAILED", "executor", "RED phase - 2 tests failing", 23},
					{"2025-09-29T14:50:00Z", "G1_implementation", "ESCALATED", "executor", "Gate failure after 2 iterations", 26},
				},
				Table: []GateRow{
					{"G0", "Planning", "Planner", GatePassed, "🟢 Passed", 8},
					{"G1", "Implementation", "Executor", GateFailed, "🔴 Failed (remediation needed)", 9},
					{"G2", "", "Validator", "", "Blocked", 10},
				},
				Current: []CurrentGate{{
					Gate: "G1_implementation", Line: 30, Status: GateFailed, RawStatus: "Failed", StatusLine: 31,
					Blockers: []Blocker{},
				}},
			},
			problems: []Problem{
				{24, 29, `malformed gate event: status "passed" is not an upper-case word like "PASSED"`},
				{25, 57, `malformed gate event: ` + eventExpect + `, missing the status field`},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			data := readFixture(t, tt.file)
			for name, variant := range map[string][]byte{
				"lf": data, "crlf": crlf(data), "bom+crlf": append(append([]byte{}, bom...), crlf(data)...),
			} {
				got, problems := ParseGatesLedger(variant)
				assertEqual(t, name+" gates ledger", got, tt.want)
				assertProblems(t, problems, tt.problems)
			}
		})
	}
}

func TestParseGatesLedgerEvents(t *testing.T) {
	tests := []struct {
		name       string
		doc        []byte
		eventsLine int
		want       []Event
		problems   []Problem
	}{
		{
			name: "an underlined heading ends the events log for a reader, as a # heading does",
			doc: md("## Gate History", "### Gate Events Log", "[t] G0 - PASSED - planner - ok", "", "Later", "=====",
				"[t] G1 - PASSED - executor - ok", "## Gate Events Log", "[t] G1 - STARTED - executor - x", "", "Notes", "---", "[t] G2 - PASSED - validator - ok"),
			eventsLine: 2,
			want:       []Event{{"t", "G0", "PASSED", "planner", "ok", 3}, {"t", "G1", "STARTED", "executor", "x", 9}},
			problems: []Problem{
				{7, 1, `gate event outside the Gate Events Log section (it stands under "Later (underlined as a heading)"): events are read only there, so this one is not; append it to that section`},
				{13, 1, `gate event outside the Gate Events Log section (it stands under "Notes (underlined as a heading)"): events are read only there, so this one is not; append it to that section`},
			},
		},
		{
			name:       "an underline under a level-3 log's last event ends it, and a deeper heading does not",
			doc:        md("### Gate Events Log", "[t] G0 - PASSED - planner - ok", "", "End", "---", "#### More", "[t] G1 - PASSED - executor - ok", "", "Sub", "==="),
			eventsLine: 1,
			want:       []Event{{"t", "G0", "PASSED", "planner", "ok", 2}},
			problems: []Problem{
				{7, 1, `gate event outside the Gate Events Log section (it stands under "#### More"): events are read only there, so this one is not; append it to that section`},
			},
		},
		{
			// "[t] G0 - PASSED ..." right above "---" is the text of a
			// heading to Markdown (with every line of its paragraph): a
			// reader sees a heading, so it is no event, as with "## [t] ...".
			name: "events underlined as a heading are malformed; under a list item, or after a blank line, the underline is a rule",
			doc: md("## Gate Events Log", "[t] G0 - STARTED - planner - n", "[t] G0 - PASSED - planner - ok", "---",
				"## Gate Events Log", "- [t] G1 - STARTED - executor - n", "---", "[t] G1 - PASSED - executor - ok", "", "===", "Notes", "[t] G2 - PASSED - validator - ok", "==="),
			eventsLine: 1,
			want:       []Event{{"t", "G1", "STARTED", "executor", "n", 6}, {"t", "G1", "PASSED", "executor", "ok", 8}},
			problems: []Problem{
				{2, 1, `malformed gate event written as a heading ("[t] G0 - STARTED - planner - n" is underlined by the line after its paragraph, setext): Markdown shows it as one, and a heading is read as a section, never as an event; leave a blank line between the events and a "---" rule`},
				{3, 1, `malformed gate event written as a heading ("[t] G0 - PASSED - planner - ok" is underlined by the line after its paragraph, setext): Markdown shows it as one, and a heading is read as a section, never as an event; leave a blank line between the events and a "---" rule`},
				{12, 1, `malformed gate event written as a heading ("[t] G2 - PASSED - validator - ok" is underlined by the line after its paragraph, setext): Markdown shows it as one, and a heading is read as a section, never as an event; leave a blank line between the events and a "---" rule`},
			},
		},
		{
			name: "gate history is used when there is no events log",
			doc:  md("## Gate History", "[t] G0 - PASSED - planner - ok", "## Current Gate", "[t] G1 - not read"),
			want: []Event{{"t", "G0", "PASSED", "planner", "ok", 2}},
		},
		{
			name:       "the events log wins over the rest of gate history",
			doc:        md("## Gate History", "[not an event", "### Gate Events Log", "[t] G0 - STARTED - planner - n", "### Notes", "[also not read"),
			eventsLine: 3,
			want:       []Event{{"t", "G0", "STARTED", "planner", "n", 4}},
		},
		{
			name:       "no events section: an event is a problem, since it is read nowhere; other bracketed lines are not",
			doc:        md("# Ledger", "[t] G0 - PASSED - planner - n", "[broken"),
			eventsLine: 0,
			problems: []Problem{
				{2, 1, `gate event outside the Gate Events Log section (the ledger has no "Gate Events Log" heading): events are read only there, so this one is not; append it to that section`},
			},
		},
		{
			name: "an event appended below the last section, or before the first, is a problem; one in a fence or comment there is not",
			doc: md("[t] G0 - STARTED - planner - n", "## Gate Events Log", "[t] G0 - PASSED - planner - n", "## Current Gate: G1",
				"  - [t] G1 - FAILED - executor - n", "G1 - REJECTED - executor - n", "```", "[t] G1 - FAILED - executor - n", "```", "<!-- [t] G1 - FAILED - executor - n -->",
				"See [the framework](x): G1 - PASSED comes after G0."),
			eventsLine: 2,
			want:       []Event{{"t", "G0", "PASSED", "planner", "n", 3}},
			problems: []Problem{
				{1, 1, `gate event outside the Gate Events Log section (it stands before the first heading): events are read only there, so this one is not; append it to that section`},
				{5, 3, `gate event outside the Gate Events Log section (it stands under "## Current Gate: G1"): events are read only there, so this one is not; append it to that section`},
				{6, 1, `gate event outside the Gate Events Log section (it stands under "## Current Gate: G1"): events are read only there, so this one is not; append it to that section`},
			},
		},
		{
			name: "an event that lost its bracketed time is a problem, never silently no event",
			doc: md("### Gate Events Log", "2025-09-29T14:05:30Z G0_planning - PASSED - planner - ok", "- G1 - STARTED - executor - go",
				"The G0 gate - see the table above - was quick", "Gates pass - in order - as the framework says"),
			eventsLine: 1,
			problems: []Problem{
				{2, 1, "malformed gate event: " + eventExpect + `, missing the "[<time>]" the line must start with`},
				{3, 1, "malformed gate event: " + eventExpect + `, missing the "[<time>]" the line must start with`},
			},
		},
		{
			name:       "the note keeps its own separators; the note may be missing",
			doc:        md("### Gate Events Log", "[t] G0 - PASSED - planner - a - b - c", "[t] G0 - PASSED - planner", "1. [t] G0 - PASSED - planner -   "),
			eventsLine: 1,
			want: []Event{
				{"t", "G0", "PASSED", "planner", "a - b - c", 2},
				{"t", "G0", "PASSED", "planner", "", 3},
				{"t", "G0", "PASSED", "planner", "", 4},
			},
		},
		{
			name: "fenced events in the section are records; fences elsewhere hide them",
			doc: md("### Gate Events Log", "~~~", "[t] G2_validation - BLOCKED - validator - waiting", "[bad", "~~~",
				"## Elsewhere", "```", "[t] G9 - X - y", "```"),
			eventsLine: 1,
			want:       []Event{{"t", "G2_validation", "BLOCKED", "validator", "waiting", 3}},
			problems:   []Problem{{4, 1, `malformed gate event: ` + eventExpect + `, missing the closing "]" after the time`}},
		},
		{
			name:       "commented events are not records",
			doc:        md("### Gate Events Log", "<!-- [t] G0 - PASSED - planner - n -->", "<!--", "[bad", "-->"),
			eventsLine: 1,
		},
		{
			name:       "links and reference definitions are not events",
			doc:        md("### Gate Events Log", "[gate framework](gate_framework.md)", "[ref]: https://example.com", "- [docs](x.md)"),
			eventsLine: 1,
		},
		{
			name: "each missing field is named at its position",
			doc: md("### Gate Events Log",
				"[t]",
				"[t] G0",
				"[t] G0 - PASSED",
				"[t] G0 - PASSED -",
				"[t] G0 -  - planner",
				"[] G0 - PASSED - planner",
				"[t G0 - PASSED - planner",
				"  - [ ] G2 pending"),
			eventsLine: 1,
			problems: []Problem{
				{2, 4, `malformed gate event: ` + eventExpect + `, missing the gate id field`},
				{3, 7, `malformed gate event: ` + eventExpect + `, missing the status field`},
				{4, 16, `malformed gate event: ` + eventExpect + `, missing the agent field`},
				{5, 18, `malformed gate event: ` + eventExpect + `, missing the agent field`},
				{6, 10, `malformed gate event: ` + eventExpect + `, missing the status field`},
				{7, 1, `malformed gate event: ` + eventExpect + `, missing the time field`},
				{8, 1, `malformed gate event: ` + eventExpect + `, missing the closing "]" after the time`},
				{9, 5, `malformed gate event: ` + eventExpect + `, missing the time field`},
			},
		},
		{
			name: "an agent is one name: a left-out agent is not read from the note",
			doc: md("### Gate Events Log",
				"[t] G1_implementation - STARTED - TDD cycle T001 begins",
				"[t] G1_implementation - STARTED - code-reviewer.v2 - ok"),
			eventsLine: 1,
			want:       []Event{{Time: "t", Gate: "G1_implementation", Status: "STARTED", Agent: "code-reviewer.v2", Note: "ok", Line: 3}},
			problems: []Problem{
				{2, 35, `malformed gate event: agent "TDD cycle T001 begins" is not one name like "executor" (is the agent field missing?)`},
			},
		},
		{
			name:       "an event written as a heading is a problem, in the log or out of it; a heading that names a gate is not",
			doc:        md("### Gate Events Log", "[t] G2 - PASSED - validator - n", "###### [t] G2 - FAILED - validator - score 61%", "## G1 - FAILED - executor - n", "## Gate G0: Planning", "# Current Gate: G2"),
			eventsLine: 1,
			want:       []Event{{"t", "G2", "PASSED", "validator", "n", 2}},
			problems: []Problem{
				{3, 8, "malformed gate event written as a heading (\"[t] G2 - FAILED - validator - score 61%\"): Markdown shows it as one, and a heading is read as a section, never as an event; write it as a line of the Gate Events Log, without the #'s"},
				{4, 4, "malformed gate event written as a heading (\"G1 - FAILED - executor - n\"): Markdown shows it as one, and a heading is read as a section, never as an event; write it as a line of the Gate Events Log, without the #'s"},
			},
		},
		{
			name: "gate id and status shapes",
			doc: md("### Gate Events Log",
				"- [t] g0 - PASSED - planner - n",
				"[t] Gate0 - PASSED - planner - n",
				"[t] G3.1 - IN_PROGRESS - executor - n",
				"[t] G1_implementation - Passed - executor - n",
				"[t] G1 - PASSED! - executor - n"),
			eventsLine: 1,
			want:       []Event{{"t", "G3.1", "IN_PROGRESS", "executor", "n", 4}},
			problems: []Problem{
				{2, 7, `malformed gate event: gate id "g0" is not like "G0" or "G0_planning"`},
				{3, 5, `malformed gate event: gate id "Gate0" is not like "G0" or "G0_planning"`},
				{5, 25, `malformed gate event: status "Passed" is not an upper-case word like "PASSED"`},
				{6, 10, `malformed gate event: status "PASSED!" is not an upper-case word like "PASSED"`},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, problems := ParseGatesLedger(tt.doc)
			want := tt.want
			if want == nil {
				want = []Event{}
			}
			assertEqual(t, "events", got.Events, want)
			if got.EventsLine != tt.eventsLine {
				t.Errorf("events line %d, want %d", got.EventsLine, tt.eventsLine)
			}
			assertProblems(t, problems, tt.problems)
		})
	}
}

func TestParseGatesLedgerTable(t *testing.T) {
	tests := []struct {
		name string
		doc  []byte
		want []GateRow
	}{
		{
			name: "every table with gate and status columns is read",
			doc: md("| Gate | Owner |", "|---|---|", "| G0 | Planner |", "",
				"| **Gate** | **Status** | Agent |", "| --- | :---: | --- |", "| G3.1: Multi-Node | ✅ PASSED | executor |", "| Planning | 🟢 |", "",
				"| Gate | Status |", "|---|---|", "| G9 | 🟢 |"),
			want: []GateRow{
				{Gate: "G3.1", Name: "Multi-Node", Owner: "executor", Status: GatePassed, RawStatus: "✅ PASSED", Line: 7},
				{Gate: "", Name: "Planning", Status: GatePassed, RawStatus: "🟢", Line: 8},
				{Gate: "G9", Status: GatePassed, RawStatus: "🟢", Line: 12},
			},
		},
		{
			name: "tables in code or comments do not count, a line without a pipe is a row",
			doc: md("```", "| Gate | Status |", "|---|---|", "| G8 | 🟢 |", "```",
				"<!--", "| Gate | Status |", "|---|---|", "| G7 | 🟢 |", "-->",
				"Gate | Status", "--- | ---", "G0 | 🟢 Passed", "G1 | 🟡", "a row of one cell", "| G2 | 🔴 |"),
			want: []GateRow{
				{Gate: "G0", Status: GatePassed, RawStatus: "🟢 Passed", Line: 13},
				{Gate: "G1", Status: GateInProgress, RawStatus: "🟡", Line: 14},
				{Name: "a row of one cell", Line: 15},
				{Gate: "G2", Status: GateFailed, RawStatus: "🔴", Line: 16},
			},
		},
		{
			name: "a table ends at a blank line or another block",
			doc: md("| Gate | Status |", "|---|---|", "| G0 | 🟢 |", "", "| G1 | 🔴 |",
				"| Gate | Status |", "|---|---|", "| G2 | 🟢 |", "- a list", "| G4 | 🔴 |",
				"| Gate | Status |", "|---|---|", "| G5 | 🟢 |", "> a quote", "| G6 | 🔴 |",
				"| Gate | Status |", "|---|---|", "| G7 | 🟢 |", "## G8 | 🔴", "| G9 | 🔴 |"),
			want: []GateRow{
				{Gate: "G0", Status: GatePassed, RawStatus: "🟢", Line: 3},
				{Gate: "G2", Status: GatePassed, RawStatus: "🟢", Line: 8},
				{Gate: "G5", Status: GatePassed, RawStatus: "🟢", Line: 13},
				{Gate: "G7", Status: GatePassed, RawStatus: "🟢", Line: 18},
			},
		},
		{
			name: "a table in a block quote or a list item is read; it ends with its quote",
			doc: md("> | Gate | Status |", "> |---|---|", "> | G2: Validation | 🔴 Failed |", "| G3 | 🟢 |", "",
				"- | Gate | Status |", "  |---|---|", "  | G1 | 🔴 |", "",
				"> > | Gate | Status |", "> > | --- | --- |", "> > | G0 | 🔴 |", "> | G4 | 🟢 |", "",
				"| Gate | Status |", "|---|---|", "| G5 | 🟢 |", "> | G6 | 🔴 |"),
			want: []GateRow{
				{Gate: "G2", Name: "Validation", Status: GateFailed, RawStatus: "🔴 Failed", Line: 3},
				{Gate: "G1", Status: GateFailed, RawStatus: "🔴", Line: 8},
				{Gate: "G0", Status: GateFailed, RawStatus: "🔴", Line: 12},
				{Gate: "G5", Status: GatePassed, RawStatus: "🟢", Line: 17},
			},
		},
		{
			name: "a header row without a delimiter row is not a table",
			doc:  md("| Gate | Status |", "| G0 | 🟢 |"),
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, problems := ParseGatesLedger(tt.doc)
			want := tt.want
			if want == nil {
				want = []GateRow{}
			}
			assertEqual(t, "table", got.Table, want)
			assertProblems(t, problems, nil)
		})
	}
}

func TestNormaliseGateStatus(t *testing.T) {
	tests := []struct{ cell, want string }{
		{"🟢 Passed", GatePassed},
		{"🟡 In Progress", GateInProgress},
		{"🔴 Failed (remediation needed)", GateFailed},
		{"⚪ Not Started", GateNotStarted},
		{"✅ PASSED", GatePassed},
		{"**✅ PASSED**", GatePassed},
		{"Passed ✅", GatePassed},
		{"❌ fail", GateFailed},
		{"🟡 PARTIAL", GateInProgress},
		{"⏳ NOT STARTED", GateNotStarted},
		{"in_progress", GateInProgress},
		{"not_started", GateNotStarted},
		{"Started", ""},
		{"pending", ""},
		{"Bypassed", ""},
		{"🟢 Failed", ""},
		{"", ""},
		{"~~🟢 Passed~~ 🔴 Failed", GateFailed},
		{"~🔴 Failed~ 🟢 Passed", GatePassed},
		{"<del>Passed</del> Failed", GateFailed},
		{"<S>Failed</S> <strike>x</strike>Passed", GatePassed},
		{"~~~Passed~~~ Failed", ""},
		{"~~Passed Failed", ""},
		{"<del>Passed Failed", ""},
		{"Passed (~90%)", GatePassed},
		{"Fa**iled**", GateFailed},
		{"F<sup>ailed</sup>", GateFailed},
		{"Fai`led`", GateFailed},
		{"Fail<SPAN class=\"x\">ed</SPAN> <br>retry", GateFailed},
		{"Pa*ss*ed<br>Failed", ""},
	}
	for _, tt := range tests {
		if got := normaliseGateStatus(tt.cell); got != tt.want {
			t.Errorf("normaliseGateStatus(%q) = %q, want %q", tt.cell, got, tt.want)
		}
	}
}

// Each "Current Gate" section is read: the gate, its status, and the
// blockers listed under it, up to the next field or section.
func TestParseGatesLedgerCurrentGate(t *testing.T) {
	data := md(
		"## Current Gate: **G2_validation**",
		"**Entry Time:** 2025-09-29T14:50:00Z",
		"**Status**: 🟢 Passed",
		"**Blockers:** CVE-2024-33663 open",
		"- Security scan reports a high-severity CVE",
		"",
		"  * waiting on the vendor",
		"**Notes:**",
		"- not a blocker",
		"```",
		"**Status:** Failed",
		"```",
		"## Current Gate: G3 (next)",
		"**Blockers:**",
		"---",
		"- after the rule, not a blocker",
		"## Escalation Protocol",
		"**Status:** Failed",
	)
	g, problems := ParseGatesLedger(data)
	assertProblems(t, problems, nil)
	assertEqual(t, "current gates", g.Current, []CurrentGate{
		{Gate: "G2_validation", Line: 1, Status: GatePassed, RawStatus: "🟢 Passed", StatusLine: 3, Blockers: []Blocker{
			{"CVE-2024-33663 open", 4}, {"Security scan reports a high-severity CVE", 5}, {"waiting on the vendor", 7},
		}},
		{Gate: "G3", Line: 13, Blockers: []Blocker{}},
	})
}

// A status or blockers under a heading inside the section are the
// section's all the same.
func TestParseGatesLedgerCurrentGateSubheadings(t *testing.T) {
	g, problems := ParseGatesLedger(md(
		"## Current Gate: G2_validation",
		"### Status: 🔴 Failed",
		"**Status:** Passed",
		"### **Blockers:**",
		"- Security scan reports a high-severity CVE",
		"### Notes",
		"- not a blocker",
		"## Current Gate: G3",
		"### Status",
		"**Status:** 🟡 In Progress",
		"#### Blockers: CVE-2024-33663 open",
	))
	assertProblems(t, problems, []Problem{{3, 1, statusTwiceMessage("Passed", "🔴 Failed", 2)}})
	assertEqual(t, "current gates", g.Current, []CurrentGate{
		{Gate: "G2_validation", Line: 1, Status: GateFailed, RawStatus: "🔴 Failed", StatusLine: 2, Blockers: []Blocker{
			{"Security scan reports a high-severity CVE", 5},
		}},
		{Gate: "G3", Line: 8, Status: GateInProgress, RawStatus: "🟡 In Progress", StatusLine: 10, Blockers: []Blocker{
			{"CVE-2024-33663 open", 11},
		}},
	})
}

// The artifacts a Current Gate section lists under "Evidence Required" are
// read wherever a reader sees the list: under a bold label, a heading, in a
// block quote or with the first path on the label's line; an item that
// names no path in backticks, and a list after another label, are not.
func TestParseGatesLedgerCurrentGateEvidence(t *testing.T) {
	g, problems := ParseGatesLedger(md(
		"## Current Gate: G2_validation",
		"**Evidence Required:**",
		"- `artifacts/validator/load_test.md` - load test results",
		"* `validator_report.json`",
		"- the security scan",
		"**Blockers:**",
		"- `not/evidence.txt` - a blocker",
		"## Current Gate: G3",
		"### Evidence Required",
		"> - `artifacts/system/rollback_plan.md` - rollback plan",
		"**Required Evidence:** `artifacts/system/pre_deploy_checklist.md` - checklist",
		"---",
		"- `after/the/rule.md` - not in the list",
	))
	assertProblems(t, problems, nil)
	assertEqual(t, "current gates", g.Current, []CurrentGate{
		{Gate: "G2_validation", Line: 1, Blockers: []Blocker{{"`not/evidence.txt` - a blocker", 7}}, Evidence: []RequiredEvidence{
			{"artifacts/validator/load_test.md", 3}, {"validator_report.json", 4},
		}},
		{Gate: "G3", Line: 8, Blockers: []Blocker{}, Evidence: []RequiredEvidence{
			{"artifacts/system/rollback_plan.md", 10}, {"artifacts/system/pre_deploy_checklist.md", 11},
		}},
	})
}

// A status or a blocker in a table of the section is the section's all the
// same; a table of gates there is not.
func TestParseGatesLedgerCurrentGateTable(t *testing.T) {
	g, problems := ParseGatesLedger(md(
		"## Current Gate: G2_validation",
		"**Owner:** validator | executor",
		"| Field | Value |", "|---|---|", "| Owner | validator |", "| **Status:** | 🔴 Failed |", "| Blockers | CVE-2024-33663 open |", "| Status | 🟢 Passed |",
		"## Current Gate: G3",
		"| Gate | Status |", "|---|---|", "| G0 | 🟢 Passed |", "",
		"> | Owner | Status |", "> | --- | --- |", "> | system | 🟡 In Progress |", "| x | 🔴 Failed |",
		"## Current Gate: G4",
		"Owner | Status", "--- | ---", "system | ⚪ Not Started",
	))
	assertProblems(t, problems, []Problem{{8, 1, statusTwiceMessage("🟢 Passed", "🔴 Failed", 6)}})
	assertEqual(t, "current gates", g.Current, []CurrentGate{
		{Gate: "G2_validation", Line: 1, Status: GateFailed, RawStatus: "🔴 Failed", StatusLine: 6, Blockers: []Blocker{
			{"CVE-2024-33663 open", 7},
		}},
		{Gate: "G3", Line: 9, Status: GateInProgress, RawStatus: "🟡 In Progress", StatusLine: 16, Blockers: []Blocker{}},
		{Gate: "G4", Line: 18, Status: GateNotStarted, RawStatus: "⚪ Not Started", StatusLine: 21, Blockers: []Blocker{}},
	})
}

// A status or a blocker in a block quote is the section's all the same.
func TestParseGatesLedgerCurrentGateQuoted(t *testing.T) {
	g, problems := ParseGatesLedger(md(
		"## Current Gate: G2_validation",
		"> **Status:** 🔴 Failed",
		"**Blockers:**",
		"> - Security scan reports a high-severity CVE",
		"> **Notes:**",
		"> - not a blocker",
	))
	assertProblems(t, problems, nil)
	assertEqual(t, "current gates", g.Current, []CurrentGate{
		{Gate: "G2_validation", Line: 1, Status: GateFailed, RawStatus: "🔴 Failed", StatusLine: 2, Blockers: []Blocker{
			{"Security scan reports a high-severity CVE", 4},
		}},
	})
}

// A gate table whose status column is headed "State" is read; one whose
// status column has another heading is reported, never silently unread.
func TestParseGatesLedgerTableStatusHeading(t *testing.T) {
	got, problems := ParseGatesLedger(md(
		"| Gate | Owner | State |", "|---|---|---|", "| G2: Validation | Validator | 🔴 Failed |", "",
		"| Gate | Owner | Purpose | Progress |", "|---|---|---|---|", "| G0 | Planner | plan | 🟢 |", "| G1 | Executor | TDD | 🔴 Failed |", "",
		"| Gate | Purpose |", "|---|---|", "| G0 | Task decomposition, TDD strategy |",
	))
	assertEqual(t, "table", got.Table, []GateRow{
		{Gate: "G2", Name: "Validation", Owner: "Validator", Status: GateFailed, RawStatus: "🔴 Failed", Line: 3},
	})
	assertProblems(t, problems, []Problem{{7, 1, `malformed gate table: the table headed at line 5 has a gate column but no "Status" column, yet its column 4 holds the gate status "🟢", which is not read; head that column "Status"`}})
}

// A table of gates whose gate column is headed otherwise, or whose status is
// a word agents write beside the legend's (Rejected, In Review), is reported,
// never silently unread; a purpose that only mentions a review is no status.
func TestParseGatesLedgerTableOtherHeadings(t *testing.T) {
	got, problems := ParseGatesLedger(md(
		"| Phase | Status |", "|---|---|", "| G0: Planning | Done |", "| G2: Validation | 🔴 Failed |", "",
		"| Stage | Owner | Result |", "|---|---|---|", "| **G2** | Validator | Rejected |", "",
		"| Gate | Result |", "|---|---|", "| G2 | In Review |", "",
		"| Gate | Owner | Purpose |", "|---|---|---|", "| G2 | Validator | Code review of T001 |", "",
		"| Task | Depends | Notes |", "|---|---|---|", "| T001 | nothing | first task |",
	))
	assertEqual(t, "table", got.Table, []GateRow{})
	assertProblems(t, problems, []Problem{
		{3, 1, `malformed gate table: the table headed at line 1 has no "Gate" column, yet its column 1 names the gate "G0: Planning" and its column 2 the status "Done", which is not read; head those columns "Gate" and "Status"`},
		{8, 1, `malformed gate table: the table headed at line 6 has no "Gate" column, yet its column 1 names the gate "**G2**" and its column 3 the status "Rejected", which is not read; head those columns "Gate" and "Status"`},
		{12, 1, `malformed gate table: the table headed at line 10 has a gate column but no "Status" column, yet its column 2 holds the gate status "In Review", which is not read; head that column "Status"`},
	})
}

// A gate table row that names its gate by name or number alone, or leaves
// its gate cell empty, is reported unless it says the gate passed.
func TestParseGatesLedgerTableRowWithoutGateID(t *testing.T) {
	_, problems := ParseGatesLedger(md(
		"| Gate | Status |", "|---|---|", "| Validation | 🔴 Failed |", "| Gate 2 | Blocked |", "| Planning | 🟢 Passed |", "| G1 | 🟢 Passed |", "| Notes |  |",
		"| | 🔴 Failed |", "|  | 🟢 Passed |", "| |  |", "",
		"| Gate | Owner | Status |", "|---|---|---|", "| | **Overall** | ❌ |",
	))
	assertProblems(t, problems, []Problem{
		{3, 1, `malformed gate table: the row's gate "Validation" names no gate id, so its status "🔴 Failed" is not read; write the gate as the Gate Framework table does ("**G2: Validation**")`},
		{4, 1, `malformed gate table: the row's gate "Gate 2" names no gate id, so its status "Blocked" is not read; write the gate as the Gate Framework table does ("**G2: Validation**")`},
		{8, 1, `malformed gate table: the row's gate cell is empty, so its status "🔴 Failed" is not read; name the row's gate in its Gate column as the Gate Framework table does ("**G2: Validation**")`},
		{14, 1, `malformed gate table: the row's gate cell is empty, so its status "❌" is not read; name the row's gate in its Gate column as the Gate Framework table does ("**G2: Validation**")`},
	})
}

// A status cell a renderer shows as several lines, each naming a status, is
// a history in a cell: the last line is what a reader takes for the status,
// and the cell as a whole reads as none.
func TestParseGatesLedgerTableStatusLines(t *testing.T) {
	_, problems := ParseGatesLedger(md(
		"| Gate | Status |", "|---|---|",
		"| **G2: Validation** | 🟢 Passed<br>🔴 Failed |",
		"| G1 | Passed <BR /> Blocked |",
		"| G0 | 🟢 Passed<p class=x>Rejected |",
		"| G4 | 🟢 Passed<br>(2025-09-29) |",
		"| G5 | <br>🟢 Passed<br> |",
		"| G6 | 🟢 Passed <brick> 🔴 Failed |",
	))
	assertProblems(t, problems, []Problem{
		{3, 1, `malformed gate table: the row's status cell "🟢 Passed<br>🔴 Failed" shows 2 lines that each name a status; write the gate's one current status in the cell, and its history as events in the Gate Events Log`},
		{4, 1, `malformed gate table: the row's status cell "Passed <BR /> Blocked" shows 2 lines that each name a status; write the gate's one current status in the cell, and its history as events in the Gate Events Log`},
		{5, 1, `malformed gate table: the row's status cell "🟢 Passed<p class=x>Rejected" shows 2 lines that each name a status; write the gate's one current status in the cell, and its history as events in the Gate Events Log`},
	})
}

// TestEventInNote: a note that holds what reads as another event shows a
// reader two events; the second would be read as no event at all.
func TestEventInNote(t *testing.T) {
	const msg = `malformed gate event: the note holds another event ("[2025-01-02T00:00:00Z] G2_validation - F…"); write each event on a line of its own`
	g, problems := ParseGatesLedger(md(
		"### Gate Events Log",
		"[2025-01-01T00:00:00Z] G2_validation - PASSED - validator - ok<br>[2025-01-02T00:00:00Z] G2_validation - FAILED - validator - no",
		"[2025-01-01T00:00:00Z] G1 - PASSED - executor - see [the log] and [1] G1 - x - y, [2] G1 - Passed - z",
		"[2025-01-01T00:00:00Z] G1 - PASSED - executor - ] G1 - FAILED - no opening bracket",
	))
	assertProblems(t, problems, []Problem{{2, 67, msg}})
	if len(g.Events) != 2 || g.Events[0].Line != 3 || g.Events[1].Line != 4 {
		t.Errorf("events: got %s, want the events of lines 3 and 4", toJSON(g.Events))
	}
}

// TestCurrentGateStatusVariants: a Current Gate section's status written
// without emphasis, or as a list item, is its status to a reader.
func statusTwiceMessage(here, read string, at int) string {
	return fmt.Sprintf("the Current Gate section gives its status twice, and they disagree: %q here, %q at line %d, the one the rules read; a reader cannot tell which holds; expected one \"**Status:** <In Progress | Passed | Failed>\" line", here, read, at)
}

// TestCurrentGateStatusTwice: a Current Gate section that gives its status
// twice with two meanings shows a reader both, and the rules read the
// first: "Passed" above "🔴 Failed" would pass a gate the section also
// says failed. A problem at the second, once per section; the same status
// written twice, or a label without a value, says nothing new.
func TestCurrentGateStatusTwice(t *testing.T) {
	tests := []struct {
		name     string
		doc      []byte
		problems []Problem
	}{
		{"passed, then failed", md("## Current Gate: G2", "**Status:** Passed", "", "**Status:** 🔴 Failed", "Status: In Progress"),
			[]Problem{{4, 1, statusTwiceMessage("🔴 Failed", "Passed", 2)}}},
		{"the same, written otherwise", md("## Current Gate: G2", "**Status:** Passed", "- Status: 🟢 PASSED"), nil},
		{"a label without a value first", md("## Current Gate: G2", "**Status:**", "**Status:** Failed"), nil},
		{"each section its own", md("## Current Gate: G1", "**Status:** Passed", "## Current Gate: G2", "**Status:** In Progress"), nil},
		{"in a table after a label", md("## Current Gate: G2", "**Status:** Passed", "", "| Field | Value |", "|---|---|", "| Status | 🔴 Failed |"),
			[]Problem{{6, 1, statusTwiceMessage("🔴 Failed", "Passed", 2)}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, problems := ParseGatesLedger(tt.doc)
			assertProblems(t, problems, tt.problems)
		})
	}
}

func TestCurrentGateStatusVariants(t *testing.T) {
	for _, written := range []string{"Status: Failed", "status:Failed", "- **Status:** Failed", "* Status: Failed", "1. **Status**: Failed", "> **Status:** Failed", "> > - Status: Failed",
		"__Status:__ Failed", "*Status:* Failed", "_Status_: Failed", "<b>Status:</b> Failed", "<STRONG>Status</STRONG>: Failed", "_Status: Failed_", "**Status: Failed**"} {
		t.Run(written, func(t *testing.T) {
			g, problems := ParseGatesLedger(md("## Current Gate: G2", "**Owner:** validator", written, "**Blockers:**", "- Status: waiting on the vendor", "**Status:** Passed"))
			assertProblems(t, problems, []Problem{{6, 1, statusTwiceMessage("Passed", "Failed", 3)}})
			assertEqual(t, "current gates", g.Current, []CurrentGate{{Gate: "G2", Line: 1, Status: GateFailed, RawStatus: "Failed", StatusLine: 3,
				Blockers: []Blocker{{"Status: waiting on the vendor", 5}}}})
		})
	}
}

// A status label in an indented code block shows as code, not as the
// section's status; the blocker list it stands under goes on.
func TestCurrentGateStatusInIndentedCode(t *testing.T) {
	g, problems := ParseGatesLedger(md("## Current Gate: G2", "**Owner:** validator", "", "    **Status:** Passed", "", "**Status:** 🔴 Failed",
		"**Blockers:**", "", "    - waiting on the vendor"))
	assertProblems(t, problems, nil)
	assertEqual(t, "current gates", g.Current, []CurrentGate{{Gate: "G2", Line: 1, Status: GateFailed, RawStatus: "🔴 Failed", StatusLine: 6,
		Blockers: []Blocker{{"waiting on the vendor", 9}}}})
}

// A gate table written in HTML shows as a table: a row of it that names a
// gate and a status other than passed is reported, since only pipe tables
// are read.
func TestParseGatesLedgerHTMLTable(t *testing.T) {
	got, problems := ParseGatesLedger(md(
		"<table>",
		"<tr><th>Gate</th><th>Status</th></tr>",
		"<tr><td><b>G0: Planning</b></td><td>🟢 Passed</td></tr>",
		`<TR class="x"><td>G2:`,
		"Validation</td><td>🔴 Failed</td></TR>",
		"<tr><td>Notes</td><td>Blocked</td></tr>",
		"</table>",
		"<!-- <tr><td>G1</td><td>Failed</td></tr> -->",
		"```", "<tr><td>G1</td><td>Failed</td></tr>", "```",
		"<table><tr><td>G3</td><td>Blocked</td></tr><tr><td>G1</td><td>🟡 In Progress</td></tr></table>",
	))
	assertEqual(t, "table", got.Table, []GateRow{})
	assertProblems(t, problems, []Problem{
		{4, 1, `malformed gate table: the html table row names the gate "G2: Validation" and in its column 2 the status "🔴 Failed", which is not read: only Markdown pipe tables are; write the gate table as the Gate Framework table does ("| **G2: Validation** | Validator | ... | 🔴 Failed |")`},
		{12, 1, `malformed gate table: the html table row names the gate "G3" and in its column 2 the status "Blocked", which is not read: only Markdown pipe tables are; write the gate table as the Gate Framework table does ("| **G2: Validation** | Validator | ... | 🔴 Failed |")`},
		{12, 1, `malformed gate table: the html table row names the gate "G1" and in its column 2 the status "🟡 In Progress", which is not read: only Markdown pipe tables are; write the gate table as the Gate Framework table does ("| **G2: Validation** | Validator | ... | 🔴 Failed |")`},
	})
}

func TestParseGatesLedgerCollapsed(t *testing.T) {
	const log = "### Gate Events Log"
	const ev = "[t] G2 - PASSED - validator - n"
	tests := []struct {
		name string
		doc  []byte
		want []int
	}{
		{"no details", md(log, ev), nil},
		{"a collapsed block hides its events", md(log, "[t] G2 - FAILED - validator - n", "<details>", "<summary>More</summary>", "", ev, "", "</details>", ev), []int{6}},
		{"an open block shows them", md(log, "<details open>", "<summary>More</summary>", "", ev, "</details>"), nil},
		{"the open attribute in any case, with a value", md(log, `<DETAILS class="x" OPEN="">`, ev, "</DETAILS>"), nil},
		{"a word open in another attribute is no open attribute", md(log, `<details title="reopened">`, ev, "</details>"), []int{3}},
		{"a closed block inside an open one hides", md(log, "<details open>", "<details>", ev, "</details>", ev, "</details>"), []int{4}},
		{"an open block inside a closed one hides", md(log, "<details>", "<details open>", ev, "</details>", "</details>", ev), []int{4}},
		{"fenced events in a collapsed block are hidden", md(log, "<details><summary>log</summary>", "", "```", ev, "```", "</details>"), []int{5}},
		{"a tag in a code span or a fence opens nothing", md(log, "The `<details>` tag", ev, "```", "<details>", "```", ev), nil},
		{"a tag in a comment opens nothing", md(log, "<!-- <details> -->", ev), nil},
		{"a block left open hides to the end", md(log, "<details>", ev, ev), []int{3, 4}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, _ := ParseGatesLedger(tt.doc)
			assertEqual(t, "collapsed", got.Collapsed, tt.want)
		})
	}
}
