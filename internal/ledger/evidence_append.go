package ledger

import (
	"bytes"
	"fmt"
	"strings"
)

// FormatEvidenceEntry renders e (Path, Hash, Time, Description) as one
// evidence-log line the way the specification writes it, without a line
// ending: "- `<path>` - [hash:<hex>] - <time> - <description>". It fails
// when ParseEvidenceLog would not read the line back as exactly e, so a
// writer can never log what the checker reads differently.
func FormatEvidenceEntry(e Entry) (string, error) {
	for _, f := range []struct{ name, value string }{
		{"path", e.Path}, {"hash", e.Hash}, {"time", e.Time}, {"description", e.Description},
	} {
		if f.value == "" {
			return "", fmt.Errorf("the %s of an evidence entry is empty", f.name)
		}
		if strings.ContainsAny(f.value, "\r\n") {
			return "", fmt.Errorf("the %s of an evidence entry %s holds a line break; an entry is one line", f.name, snippet(f.value))
		}
	}
	if strings.Contains(e.Path, "`") {
		return "", fmt.Errorf("path %s holds a backtick, which ends the path of an entry", snippet(e.Path))
	}
	line := "- `" + e.Path + "` - [hash:" + e.Hash + "] - " + e.Time + " - " + e.Description
	log, problems := ParseEvidenceLog([]byte(line))
	if len(problems) > 0 {
		return "", fmt.Errorf("the entry %s would not parse: %s", snippet(line), problems[0].Message)
	}
	if len(log.Entries) != 1 || !sameEntry(log.Entries[0], e) {
		return "", fmt.Errorf("the entry %s would be read back differently: expected path, hash, time and description without surrounding spaces", snippet(line))
	}
	return line, nil
}

func sameEntry(got, want Entry) bool {
	return got.Path == want.Path && got.Hash == want.Hash && got.Time == want.Time && got.Description == want.Description
}

// AppendEvidenceEntry returns the bytes to append to the evidence log data
// so that e becomes its last entry, with no byte of data rewritten: a line
// break first when data does not end with one, then the entry, ended like
// the log's own lines (CRLF when the log uses CRLF). It fails when the
// checker would not read the appended line as a new entry, for instance
// because the log ends inside a code fence or an HTML comment.
func AppendEvidenceEntry(data []byte, e Entry) ([]byte, error) {
	line, err := FormatEvidenceEntry(e)
	if err != nil {
		return nil, err
	}
	eol := "\n"
	if i := bytes.IndexByte(data, '\n'); i > 0 && data[i-1] == '\r' {
		eol = "\r\n"
	}
	var add []byte
	if len(data) > 0 && data[len(data)-1] != '\n' {
		add = append(add, eol...)
	}
	add = append(add, line...)
	add = append(add, eol...)

	before, _ := ParseEvidenceLog(data)
	combined := append(bytes.Clone(data), add...)
	after, problems := ParseEvidenceLog(combined)
	lastLine := bytes.Count(combined, []byte("\n"))
	if len(after.Entries) == len(before.Entries)+1 {
		if last := after.Entries[len(after.Entries)-1]; last.Line == lastLine && sameEntry(last, e) {
			return add, nil
		}
	}
	why := "the log's last lines hide it"
	for _, p := range problems {
		if p.Line == lastLine || strings.Contains(p.Message, "never closed") {
			why = fmt.Sprintf("line %d: %s", p.Line, p.Message)
			break
		}
	}
	return nil, fmt.Errorf("an entry appended at line %d would not be read as an entry (%s); fix the end of the log first", lastLine, why)
}

// agentSections are the artifact headings of the specification's
// EVIDENCE_LOG.md template, by the agent folder that holds an artifact.
var agentSections = map[string]string{
	"planner":   "Planner Artifacts",
	"executor":  "Executor Artifacts",
	"validator": "Validator Artifacts",
}

// artifactIndex is the template's heading above the agents' sections.
const artifactIndex = "Artifact Index"

// InsertEvidenceEntry returns data with e added where a person would write
// it: at the end of the artifact section of the agent whose folder holds
// e.Path (the template's "### Executor Artifacts", …), else at the end of
// the "## Artifact Index", else at the end of the log; never before an
// existing entry of the same path, so the new entry is the one that
// counts. No line of data is rewritten: the entry is a line inserted
// between two of them. line is the new entry's line. atEnd reports that
// the result is data followed by more bytes (an append).
func InsertEvidenceEntry(data []byte, e Entry) (out []byte, line int, atEnd bool, err error) {
	entryLine, err := FormatEvidenceEntry(e)
	if err != nil {
		return nil, 0, false, err
	}
	before, _ := ParseEvidenceLog(data)
	after := insertionLine(data, before, e.Path)
	starts := lineStarts(data)
	if after <= 0 || after >= len(starts) || starts[after] >= len(data) {
		add, err := AppendEvidenceEntry(data, e)
		if err != nil {
			return nil, 0, false, err
		}
		out = append(bytes.Clone(data), add...)
		return out, bytes.Count(out, []byte("\n")), true, nil
	}
	eol := "\n"
	if i := bytes.IndexByte(data, '\n'); i > 0 && data[i-1] == '\r' {
		eol = "\r\n"
	}
	at := starts[after] // the first byte of line after+1
	out = make([]byte, 0, len(data)+len(entryLine)+2)
	out = append(out, data[:at]...)
	out = append(out, entryLine...)
	out = append(out, eol...)
	out = append(out, data[at:]...)
	// The parser must read exactly the old entries and the new one, at its
	// line; else (a fence, a comment) the entry goes at the end, as before.
	got, _ := ParseEvidenceLog(out)
	if len(got.Entries) == len(before.Entries)+1 {
		for i, g := range got.Entries {
			if g.Line == after+1 && sameEntry(g, e) && sameEntries(got.Entries[:i], before.Entries[:i]) && sameEntries(got.Entries[i+1:], before.Entries[i:]) {
				return out, after + 1, false, nil
			}
		}
	}
	add, err := AppendEvidenceEntry(data, e)
	if err != nil {
		return nil, 0, false, err
	}
	out = append(bytes.Clone(data), add...)
	return out, bytes.Count(out, []byte("\n")), true, nil
}

func sameEntries(a, b []Entry) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !sameEntry(a[i], b[i]) {
			return false
		}
	}
	return true
}

// lineStarts gives the byte offset of each line: starts[i] is where line
// i+1 begins; a last element past the end marks where a new line would.
func lineStarts(data []byte) []int {
	starts := []int{0}
	for i, b := range data {
		if b == '\n' {
			starts = append(starts, i+1)
		}
	}
	if starts[len(starts)-1] != len(data) {
		starts = append(starts, len(data)) // no final line break: the end is not a line start
	}
	return starts
}

// insertionLine is the line the entry for path goes after, or 0 for the
// end of the log.
func insertionLine(data []byte, log *EvidenceLog, path string) int {
	lines := strings.Split(string(data), "\n")
	if len(data) > 0 && data[len(data)-1] != '\n' {
		return 0 // an unfinished last line: append, as always
	}
	want := ""
	for _, part := range strings.Split(path, "/") {
		if s, ok := agentSections[strings.ToLower(part)]; ok {
			want = s
			break
		}
	}
	at := 0
	if want != "" {
		at = sectionEnd(lines, log.Sections, want)
	}
	if at == 0 {
		at = sectionEnd(lines, log.Sections, artifactIndex)
	}
	if at == 0 {
		return 0
	}
	for _, en := range log.Entries {
		if en.Path == path && en.Line > at {
			at = en.Line // after the last entry of the path
		}
	}
	return at
}

// sectionEnd is the last line of the section titled title that holds
// text (its heading, when it holds none): where a person adds a line to
// it. 0 when there is no such section. A "---" rule is not content.
func sectionEnd(lines []string, sections []Section, title string) int {
	for i, s := range sections {
		if !strings.EqualFold(s.Title, title) {
			continue
		}
		end := len(lines) // the section's last line
		for _, next := range sections[i+1:] {
			if next.Level <= s.Level {
				end = next.Line - 1
				break
			}
			if title != artifactIndex {
				end = next.Line - 1 // an agent's section ends at any heading
				break
			}
		}
		last := s.Line
		for n := s.Line + 1; n <= end && n <= len(lines); n++ {
			t := strings.TrimSpace(strings.TrimSuffix(lines[n-1], "\r"))
			if t != "" && t != "---" && t != "***" && t != "___" {
				last = n
			}
		}
		return last
	}
	return 0
}
