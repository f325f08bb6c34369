// Package txtar reads and writes the txtar archive format the test cases are
// kept in: a comment, then files, each introduced by a line "-- NAME --" and
// running to the next such line. It holds bytes as they are; a file's data
// ends with the line break before the next marker, so a file without a
// final line break, or one holding a line that looks like a marker, cannot
// be stored verbatim (Format adds the line break; see CanHold).
package txtar

import (
	"bytes"
	"fmt"
	"strings"
)

// Archive is a parsed txtar file.
type Archive struct {
	Comment string
	Files   []File
}

// File is one section of an archive.
type File struct {
	Name string
	Data string
}

// Parse splits data into the comment and the files. It never fails: text
// before the first marker is the comment.
func Parse(data []byte) *Archive {
	ar := &Archive{}
	var cur *File
	var comment strings.Builder
	for _, line := range strings.SplitAfter(string(data), "\n") {
		if name, ok := marker(line); ok {
			ar.Files = append(ar.Files, File{Name: name})
			cur = &ar.Files[len(ar.Files)-1]
			continue
		}
		if cur == nil {
			comment.WriteString(line)
		} else {
			cur.Data += line
		}
	}
	ar.Comment = comment.String()
	return ar
}

// marker is the name of a "-- NAME --" line.
func marker(line string) (string, bool) {
	s := strings.TrimRight(line, "\r\n")
	if !strings.HasPrefix(s, "-- ") || !strings.HasSuffix(s, " --") || len(s) < 7 {
		return "", false
	}
	return strings.TrimSpace(s[3 : len(s)-3]), true
}

// CanHold reports whether data comes back byte for byte from Parse(Format):
// it is empty or ends in a line break, and no line of it is a marker.
func CanHold(data string) bool {
	if data != "" && !strings.HasSuffix(data, "\n") {
		return false
	}
	for _, line := range strings.SplitAfter(data, "\n") {
		if _, ok := marker(line); ok {
			return false
		}
	}
	return true
}

// Get is the data of the first file called name.
func (a *Archive) Get(name string) (string, bool) {
	for _, f := range a.Files {
		if f.Name == name {
			return f.Data, true
		}
	}
	return "", false
}

// Set replaces the data of the file called name, or appends the file.
func (a *Archive) Set(name, data string) {
	for i := range a.Files {
		if a.Files[i].Name == name {
			a.Files[i].Data = data
			return
		}
	}
	a.Files = append(a.Files, File{Name: name, Data: data})
}

// Format writes the archive back; a file's data without a final line break
// gets one.
func (a *Archive) Format() []byte {
	var b bytes.Buffer
	b.WriteString(a.Comment)
	for _, f := range a.Files {
		fmt.Fprintf(&b, "-- %s --\n%s", f.Name, f.Data)
		if f.Data != "" && !strings.HasSuffix(f.Data, "\n") {
			b.WriteByte('\n')
		}
	}
	return b.Bytes()
}
