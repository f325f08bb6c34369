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
