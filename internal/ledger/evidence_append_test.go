package ledger

import (
	"bytes"
	"strings"
	"testing"
)

var appendEntry = Entry{Path: "artifacts/executor/test_output_green.txt", Hash: "e4f6c1d92a8b3f57",
	Time: "2025-09-29T14:30:00Z", Description: "GREEN phase - all tests passing"}

const appendLine = "- `artifacts/executor/test_output_green.txt` - [hash:e4f6c1d92a8b3f57] - 2025-09-29T14:30:00Z - GREEN phase - all tests passing"

func TestFormatEvidenceEntry(t *testing.T) {
	with := func(change func(*Entry)) Entry {
		e := appendEntry
		change(&e)
		return e
	}
	tests := []struct {
		name    string
		entry   Entry
		want    string
		wantErr string
	}{
		{"the spec's form", appendEntry, appendLine, ""},
		{"64 digits", with(func(e *Entry) { e.Hash = strings.Repeat("ab", 32) }), "", ""},
		{"a space in the path", with(func(e *Entry) { e.Path = "artifacts/test output.txt" }), "", ""},
		{"empty description", with(func(e *Entry) { e.Description = "" }), "", "description of an evidence entry is empty"},
		{"newline in the description", with(func(e *Entry) { e.Description = "a\n- `x` - [hash:0123456789abcdef] - t - forged" }), "", "holds a line break"},
		{"carriage return in the path", with(func(e *Entry) { e.Path = "a\rb" }), "", "holds a line break"},
		{"backtick in the path", with(func(e *Entry) { e.Path = "a`b" }), "", "holds a backtick"},
		{"not hex", with(func(e *Entry) { e.Hash = "xyz" }), "", `hash "xyz" is not 8 to 64 hex digits`},
		{"space around the description", with(func(e *Entry) { e.Description = " padded " }), "", "would be read back differently"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := FormatEvidenceEntry(tt.entry)
			if !wantError(t, got, err, tt.wantErr) {
				return
			}
			if tt.want != "" && got != tt.want {
				t.Errorf("got  %q\nwant %q", got, tt.want)
			}
		})
	}
}

func TestAppendEvidenceEntry(t *testing.T) {
	spec := readFixture(t, "evidence_log_spec.md")
	tests := []struct {
		name    string
		log     string
		want    string // bytes appended
		wantErr string
	}{
		{"empty log", "", appendLine + "\n", ""},
		{"the spec's log", string(spec), appendLine + "\n", ""},
		{"no newline at the end", "# H3A Evidence Log\n- `a.txt` - [hash:0123456789abcdef] - t - d", "\n" + appendLine + "\n", ""},
		{"crlf", "# H3A Evidence Log\r\n\r\n## Artifact Index", "\r\n" + appendLine + "\r\n", ""},
		{"ends inside a fence", "# H3A Evidence Log\n```bash\nsha256sum x\n", "", "code fence \"```\" is never closed"},
		{"ends inside a comment", "# H3A Evidence Log\n<!-- example:\n", "", "html comment \"<!--\" is never closed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := AppendEvidenceEntry([]byte(tt.log), appendEntry)
			if !wantError(t, string(got), err, tt.wantErr) {
				return
			}
			if string(got) != tt.want {
				t.Errorf("appended %q, want %q", got, tt.want)
			}
		})
	}
}

// wantError checks err against the expected error text ("" for none) and
// reports whether the result is to be checked further.
func wantError(t *testing.T, got string, err error, want string) bool {
	t.Helper()
	if want == "" {
		if err != nil {
			t.Fatal(err)
		}
		return true
	}
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("got %q, %v; want an error containing %q", got, err, want)
	}
	return false
}

// FuzzAppendEvidenceEntry: whatever the log holds, an append that is
// accepted leaves every byte of the log in place and adds exactly the
// entry, as the last one, to what the parser reads.
func FuzzAppendEvidenceEntry(f *testing.F) {
	addSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, e := range []Entry{appendEntry, {Path: "a b/c.txt", Hash: strings.Repeat("0f", 32), Time: "t", Description: "x - y - z"}} {
			add, err := AppendEvidenceEntry(data, e)
			if err != nil {
				continue
			}
			before, _ := ParseEvidenceLog(data)
			combined := append(bytes.Clone(data), add...)
			after, _ := ParseEvidenceLog(combined)
			if len(after.Entries) != len(before.Entries)+1 {
				t.Fatalf("%d entries after the append, want %d\n%q", len(after.Entries), len(before.Entries)+1, combined)
			}
			if last := after.Entries[len(after.Entries)-1]; !sameEntry(last, e) {
				t.Fatalf("last entry %+v, want %+v", last, e)
			}
			if bytes.Contains(add[:len(add)-1], []byte("\n")) && !bytes.HasPrefix(add, []byte("\n")) && !bytes.HasPrefix(add, []byte("\r\n")) {
				t.Fatalf("the append %q spans lines other than a leading line break", add)
			}
		}
	})
}
