package ledger

import (
	"fmt"
	"strings"
	"testing"
)

const entryExpect = "expected \"- `<path>` - [hash:<hex>] - <time> - <description>\""

func TestParseEvidenceLogFixtures(t *testing.T) {
	entry := func(path, hash, time, desc string, line, hashCol int) Entry {
		return Entry{Path: path, Hash: hash, Time: time, Description: desc, Line: line, PathColumn: 4, HashColumn: hashCol}
	}
	tests := []struct {
		file     string
		want     *EvidenceLog
		problems []Problem
	}{
		{
			file: "evidence_log_spec.md",
			want: &EvidenceLog{
				Initialized: "<timestamp>",
				Sections: []Section{
					{"H3A Evidence Log", 1, 1}, {"Purpose", 2, 6}, {"Artifact Index", 2, 11}, {"Planner Artifacts", 3, 13},
					{"Executor Artifacts", 3, 17}, {"Validator Artifacts", 3, 23}, {"Hash Verification", 2, 30}, {"Compliance Mapping", 2, 38},
				},
				Entries: []Entry{
					entry("planner_report.json", "a3f5c8d21f4e9b76", "2025-09-29T14:05:30Z", "Task decomposition report", 14, 33),
					entry("artifacts/planner/architecture.png", "b8e1f9a47c3d2e56", "2025-09-29T14:03:15Z", "System diagram", 15, 48),
					entry("executor_report.json", "c7d3e1f89a2b5c14", "2025-09-29T14:45:00Z", "TDD cycle T001 complete", 18, 34),
					entry("artifacts/executor/test_output_red.txt", "d9a2b5c38f1e7d46", "2025-09-29T14:15:00Z", "RED phase (1 test failing)", 19, 52),
					entry("artifacts/executor/test_output_green.txt", "e4f6c1d92a8b3f57", "2025-09-29T14:30:00Z", "GREEN phase (all tests passing)", 20, 54),
					entry("artifacts/executor/coverage_delta.json", "f1e8d2a54c9b7f36", "2025-09-29T14:45:00Z", "Coverage +5.2%", 21, 52),
					entry("validator_report.json", "a9c3f7e18d5b2f64", "2025-09-29T15:00:00Z", "Validation PASSED", 24, 35),
					entry("artifacts/validator/security_scan.json", "b2d8f4c69a3e1f75", "2025-09-29T14:55:00Z", "OWASP scan clean", 25, 52),
					entry("artifacts/validator/mutation_report.txt", "c5e1a9f37b4d8c26", "2025-09-29T14:58:00Z", "91.3% mutation score", 26, 53),
				},
			},
		},
		{
			file: "evidence_log_run.md",
			want: &EvidenceLog{
				Initialized: "2025-09-29T13:42:15Z",
				Sections: []Section{
					{"H3A Evidence Log", 1, 1}, {"Artifact Index", 2, 8}, {"Planner Artifacts", 3, 10},
					{"Executor Artifacts", 3, 14}, {"Compliance Mapping", 2, 21},
				},
				Entries: []Entry{
					entry("planner_report.json", "a3f5c8d21f4e9b76", "2025-09-29T14:05:30Z", "Task decomposition report", 11, 33),
					entry("artifacts/planner/architecture.png", "sha256:"+strings.Repeat("b8e1f9a47c3d2e56", 4),
						"2025-09-29T14:03:15+07:00", "System diagram - v2", 12, 43),
					entry("artifacts/executor/test output.txt", "d9a2b5c3", "2025-09-29T14:15:00.250Z", "RED phase", 15, 48),
					entry("artifacts/executor/coverage_delta.json", "sha256:f1e8d2a54c9b7f36...", "2025-09-29T14:45:00Z", "Coverage +5.2%", 16, 52),
				},
			},
			problems: []Problem{
				{17, 74, "malformed evidence entry: " + entryExpect + ", missing the time field"},
				{18, 41, `malformed evidence entry: hash "xyz" is not 8 to 64 hex digits`},
				{19, 32, "malformed evidence entry: " + entryExpect + ", missing the hash field"},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			data := readFixture(t, tt.file)
			for name, variant := range map[string][]byte{
				"lf": data, "crlf": crlf(data), "bom+crlf": append(append([]byte{}, bom...), crlf(data)...),
			} {
				got, problems := ParseEvidenceLog(variant)
				assertEqual(t, name+" evidence log", got, tt.want)
				assertProblems(t, problems, tt.problems)
			}
		})
	}
}

func TestParseEvidenceLogEntries(t *testing.T) {
	hex64 := strings.Repeat("0123456789abcdef", 4)
	tests := []struct {
		name     string
		line     string
		want     *Entry // nil: not an entry
		problems []Problem
	}{
		{
			name: "upper-case hex",
			line: "- `a.txt` - [hash:ABCDEF12] - t - d",
			want: &Entry{Path: "a.txt", Hash: "ABCDEF12", Time: "t", Description: "d", PathColumn: 4, HashColumn: 19},
		},
		{
			name: "64 hex digits",
			line: "- `a` - [hash:" + hex64 + "] - t - d",
			want: &Entry{Path: "a", Hash: hex64, Time: "t", Description: "d", PathColumn: 4, HashColumn: 15},
		},
		{
			name: "abbreviated with an ellipsis character",
			line: "- `a` - [hash:abcdef12…] - t - d",
			want: &Entry{Path: "a", Hash: "abcdef12…", Time: "t", Description: "d", PathColumn: 4, HashColumn: 15},
		},
		{
			name: "sha256 prefix in any case",
			line: "- `a` - [SHA256:abcdef12] - t - d",
			want: &Entry{Path: "a", Hash: "SHA256:abcdef12", Time: "t", Description: "d", PathColumn: 4, HashColumn: 10},
		},
		{
			name: "spaces inside the brackets",
			line: "- `a` - [hash:  abcdef12 ] - t - d",
			want: &Entry{Path: "a", Hash: "abcdef12", Time: "t", Description: "d", PathColumn: 4, HashColumn: 17},
		},
		{
			name:     "empty hash",
			line:     "- `a` - [hash: ] - t - d",
			problems: []Problem{{1, 9, `malformed evidence entry: hash field "[hash: ]" holds no hash`}},
		},
		{
			name: "the separator after the path may be left out",
			line: "- `a` [hash:abcdef12] - t - d",
			want: &Entry{Path: "a", Hash: "abcdef12", Time: "t", Description: "d", PathColumn: 4, HashColumn: 13},
		},
		{
			name: "columns count code points, not bytes",
			line: "- `artefakter/ø/日本.txt` - [hash:abcdef12] - t - d",
			want: &Entry{Path: "artefakter/ø/日本.txt", Hash: "abcdef12", Time: "t", Description: "d", PathColumn: 4, HashColumn: 33},
		},
		{
			name:     "a description holding another entry's hash field",
			line:     "- `a` - [hash:abcdef12] - t - d<br>- `a` - [hash:00000000] - t2 - e",
			problems: []Problem{{1, 44, `malformed evidence entry: the description holds another hash field ("[hash:00000000] - t2 - e"); write each entry on a line of its own, and quote a hash in a description in backticks`}},
		},
		{
			name: "a description quoting a hash in backticks",
			line: "- `a` - [hash:abcdef12] - t - replaces `[hash:00000000]`",
			want: &Entry{Path: "a", Hash: "abcdef12", Time: "t", Description: "replaces `[hash:00000000]`", PathColumn: 4, HashColumn: 15},
		},
		{
			name: "a comment inside the line keeps the columns after it",
			line: "- `a` <!-- c --> - [hash:abcdef12] - t - d <!-- x -->",
			want: &Entry{Path: "a", Hash: "abcdef12", Time: "t", Description: "d", PathColumn: 4, HashColumn: 26},
		},
		{
			name: "nested list item",
			line: "  + `p q` - [hash:abcdef12] - t - d",
			want: &Entry{Path: "p q", Hash: "abcdef12", Time: "t", Description: "d", PathColumn: 6, HashColumn: 19},
		},
		{
			name:     "hash too short",
			line:     "- `a` - [hash:abcdef1] - t - d",
			problems: []Problem{{1, 15, `malformed evidence entry: hash "abcdef1" is not 8 to 64 hex digits`}},
		},
		{
			name:     "hash too long",
			line:     "- `a` - [hash:" + hex64 + "0] - t - d",
			problems: []Problem{{1, 15, `malformed evidence entry: hash "` + hex64[:40] + `…" is not 8 to 64 hex digits`}},
		},
		{
			name:     "placeholder hash",
			line:     "- `a` - [hash:<hex>] - t - d",
			problems: []Problem{{1, 15, `malformed evidence entry: hash "<hex>" is not 8 to 64 hex digits`}},
		},
		{
			name:     "unknown hash label",
			line:     "- `a` - [md5:abcdef12] - t - d",
			problems: []Problem{{1, 9, `malformed evidence entry: hash field "[md5:abcdef12]" is not "[hash:<hex>]" or "[sha256:<hex>]"`}},
		},
		{
			name:     "unclosed hash field",
			line:     "- `a` - [hash:abcdef12 - t - d",
			problems: []Problem{{1, 23, "malformed evidence entry: " + entryExpect + `, missing the closing "]" of the hash field`}},
		},
		{
			name:     "text glued to the hash field",
			line:     "- `a` - [hash:abcdef12]x - t - d",
			problems: []Problem{{1, 24, "malformed evidence entry: " + entryExpect + `, found "x" after the hash field instead of " - "`}},
		},
		{
			name:     "unbracketed hash",
			line:     "- `a` - hash:abcdef12 - t - d",
			problems: []Problem{{1, 9, "malformed evidence entry: " + entryExpect + `, missing the hash field (found "hash:abcdef12")`}},
		},
		{
			name:     "empty path",
			line:     "- `` - [hash:abcdef12] - t - d",
			problems: []Problem{{1, 3, "malformed evidence entry: " + entryExpect + ", missing the path"}},
		},
		{
			name:     "unclosed path",
			line:     "- `a - [hash:abcdef12] - t - d",
			problems: []Problem{{1, 31, "malformed evidence entry: " + entryExpect + ", missing the closing backtick of the path"}},
		},
		{
			name:     "time and description missing",
			line:     "- `a` - [hash:abcdef12]",
			problems: []Problem{{1, 24, "malformed evidence entry: " + entryExpect + ", missing the time field"}},
		},
		{
			name:     "description missing after a time",
			line:     "- `a` - [hash:abcdef12] - 2025-09-29T14:05:30Z",
			problems: []Problem{{1, 47, "malformed evidence entry: " + entryExpect + ", missing the description field"}},
		},
		{
			name:     "description missing after a placeholder time and a dangling separator",
			line:     "- `a` - [hash:abcdef12] - <timestamp> -",
			problems: []Problem{{1, 40, "malformed evidence entry: " + entryExpect + ", missing the description field"}},
		},
		{name: "bold label before the path", line: "- **OWASP LLM Top-10:** `artifacts/validator/security_scan.json`"},
		{
			name:     "not a list item",
			line:     "`a` - [hash:abcdef12] - t - d",
			problems: []Problem{{1, 1, "malformed evidence entry: " + entryExpect + `, a line holding a hash field that is not a list item (an entry starts with "- ")`}},
		},
		{
			name: "ordered list item",
			line: "10) `a` - [hash:abcdef12] - t - d",
			want: &Entry{Path: "a", Hash: "abcdef12", Time: "t", Description: "d", PathColumn: 6, HashColumn: 17},
		},
		{
			name:     "number without a list marker",
			line:     "10 `a` - [hash:abcdef12] - t - d",
			problems: []Problem{{1, 1, "malformed evidence entry: " + entryExpect + `, a line holding a hash field that is not a list item (an entry starts with "- ")`}},
		},
		{
			name:     "bullet without a space",
			line:     "-`a` - [hash:abcdef12] - t - d",
			problems: []Problem{{1, 1, "malformed evidence entry: " + entryExpect + `, a line holding a hash field that is not a list item (an entry starts with "- ")`}},
		},
		{
			name:     "path without backticks",
			line:     "- artifacts/executor/test_output_green.txt - [hash:e4f6c1d92a8b3f57] - 2025-09-29T14:30:00Z - GREEN phase",
			problems: []Problem{{1, 3, "malformed evidence entry: " + entryExpect + `, the path must be in backticks (found "artifacts/executor/test_output_green.txt")`}},
		},
		{
			name:     "bare hash without backticks",
			line:     "* artifacts/x.txt - e4f6c1d92a8b3f57 - 2025-09-29T14:30:00Z - GREEN phase",
			problems: []Problem{{1, 21, "malformed evidence entry: " + entryExpect + `, the hash must be written "[hash:e4f6c1d92a8b3f57]" and the path in backticks`}},
		},
		{
			name:     "a table row with a path and a hash",
			line:     "| `artifacts/x.txt` | e4f6c1d92a8b3f57 | 2025-09-29T14:30:00Z | GREEN phase |",
			problems: []Problem{{1, 1, "malformed evidence entry: " + entryExpect + `, an entry is a list item, not a table row (this row names a path in backticks and a hash, which would go unverified)`}},
		},
		{
			name:     "a table row with a hash field",
			line:     "  | `artifacts/x.txt` | [hash:e4f6c1d92a8b3f57] | t |",
			problems: []Problem{{1, 3, "malformed evidence entry: " + entryExpect + `, an entry is a list item, not a table row (this row names a path in backticks and a hash, which would go unverified)`}},
		},
		{name: "a table row with a path alone", line: "| `artifacts/x.txt` | the GREEN output |"},
		{name: "a table row with a short hex word", line: "| `artifacts/x.txt` | beef |"},
		{name: "a table's header rule", line: "|---|---|---|"},
		{name: "prose quoting the format", line: "- Each entry reads `- <path> - [hash:a3f5c8d21f4e9b76] - <time>`, one per artifact"},
		{name: "prose with a short hex word", line: "- Coverage - beef - up 5%"},
		{name: "thematic break", line: "---"},
		{name: "commented out", line: "<!-- - `a` - [hash:abcdef12] - t - d -->"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, problems := ParseEvidenceLog(md(tt.line))
			want := []Entry{}
			if tt.want != nil {
				e := *tt.want
				e.Line = 1
				want = append(want, e)
			}
			assertEqual(t, "entries", got.Entries, want)
			assertProblems(t, problems, tt.problems)
		})
	}
}

func TestParseEvidenceLogIgnoresCode(t *testing.T) {
	doc := md("```", "- `a` - [hash:abcdef12] - t - d", "```", "- item", "    ~~~~ sh", "  - `b`", "~~~", "~~~~", "- `c` - [hash:abcdef12] - t - d")
	got, problems := ParseEvidenceLog(doc)
	assertEqual(t, "entries", got.Entries, []Entry{{Path: "c", Hash: "abcdef12", Time: "t", Description: "d", Line: 9, PathColumn: 4, HashColumn: 15}})
	assertProblems(t, problems, nil)
}

// An entry indented 4 columns past its list (or past the document's left
// edge) is indented code, or text of the paragraph above, to Markdown: a
// reader sees no entry there, so it is a problem and never verified.
func TestParseEvidenceLogIndentedEntryIsNoEntry(t *testing.T) {

	doc := md(
		"- `a` - [hash:abcdef12] - t - d",
		"",
		"    - `b` - [hash:abcdef12] - t - nested item, content column 2",
		"",
		"text",
		"",
		"    - `c` - [hash:abcdef12] - t - code",
		"text",
		"\t- `d` - [hash:abcdef12] - t - paragraph text",
		"- x",
		"  - y",
		"",
		"        - `e` - [hash:abcdef12] - t - code inside y",
	)
	got, problems := ParseEvidenceLog(doc)
	assertEqual(t, "entry paths", paths(got.Entries), []string{"a", "b"})
	why := func(n int) string {
		return fmt.Sprintf("malformed evidence entry: %s, found it indented %d columns past the list it may belong to, where Markdown shows it as indented code or as text of the paragraph above, not as a list item; remove the indentation", entryExpect, n)
	}
	assertProblems(t, problems, []Problem{{7, 1, why(4)}, {9, 1, why(4)}, {13, 1, why(4)}})
}

func paths(es []Entry) []string {
	var ps []string
	for _, e := range es {
		ps = append(ps, e.Path)
	}
	return ps
}
