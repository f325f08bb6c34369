package ledger

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Roadmap is state/ROADMAP.md.
type Roadmap struct {
	Status      string // value of the "**Status:**" line, trimmed ("" if absent)
	StatusLine  int    // 0 if absent
	Initialized string // value of "**Run Initialized:**"
	// Brief is the text of the "## Task Brief" section (the task as the
	// user or the planner wrote it), lines joined with "\n", trimmed,
	// without a closing "---" rule; "" when there is none.
	Brief     string
	BriefLine int       // line of the Task Brief heading, 0 if absent
	Sections  []Section // never nil
	Tasks     []Task    // never nil
	// Criteria are the checkbox lines of the "Success Criteria" sections,
	// in file order; never nil.
	Criteria []Criterion
}

// Criterion is one checkbox line of the success criteria: "- [ ] Coverage
// ≥ 90%".
type Criterion struct {
	Text string // what follows the checkbox, trimmed
	Done bool   // [x] or [X]
	Line int
}

// Task is one checkbox line of the task queue:
// "- [x] T003: text ✅ (Completed: 2025-09-29T14:45:00Z)".
type Task struct {
	ID          string // "T001"
	Text        string // description without the completion marker
	Done        bool   // [x] or [X]
	CompletedAt string // from "(Completed: <time>)", "" if absent
	Line        int
}

const taskGrammar = `expected "- [ ] T001: <description>"`

// ParseRoadmap reads the tasks of the "Task Queue" section (or of the "Task
// Decomposition" section when the document has no Task Queue heading).
// Checkbox lines elsewhere, such as success criteria, are not tasks.
func ParseRoadmap(data []byte) (*Roadmap, []Problem) {
	doc := scan(data)
	r := &Roadmap{Sections: doc.sections, Tasks: []Task{}, Criteria: []Criterion{}}
	statusFields := doc.boldFields("Status")
	if len(statusFields) > 0 {
		r.Status, r.StatusLine = statusFields[0].value, statusFields[0].num // as boldField reads it
	}
	statusContradiction(doc, statusFields)
	r.Initialized, _ = doc.boldField("Run Initialized")
	r.Brief, r.BriefLine = doc.sectionText(titleIs("task brief"))

	in, found := doc.sectionLines(titleIs("task queue"))
	if !found {
		in, _ = doc.sectionLines(titleIs("task decomposition"))
	}
	for i, l := range doc.lines {
		// A task written as a heading in the queue, or as the heading that
		// ends it, shows as a task (an open one, "[ ] T002: ..."), but is
		// read as a section.
		if l.level > 0 && !l.code && (in[i] || i > 0 && in[i-1]) && headingReadsAsTask(l.title) {
			doc.problem(l.num, column(l.text, max(strings.Index(l.text, l.title), 0)),
				malformedTask+" written as a heading (%s): Markdown shows it as one, and a heading is read as a section, never as a task; write it as a list item of the Task Queue, without the #'s", snippet(l.title))
			continue
		}
		if !in[i] || l.code || l.level > 0 {
			continue
		}
		before := doc.problemCount()
		if t, ok := parseTask(doc, l); ok {
			r.Tasks = append(r.Tasks, t)
		} else if doc.problemCount() == before {
			if off, why := looksLikeTask(l.text); why != "" {
				doc.problem(l.num, column(l.text, off), malformedTask+": %s, %s", taskGrammar, why)
			} else if shown := shownMarkup(l.text); shown != l.text && headingReadsAsTask(shown) {
				doc.problem(l.num, 1, malformedTask+": %s, found a line that shows as %s, but its markup is written with a character reference, a backslash escape or a space other than a blank, so Markdown shows it as text, not as a task, and it is not read", taskGrammar, snippet(strings.TrimSpace(shown)))
			} else if cell := taskInCell(l.text); cell != "" {
				doc.problem(l.num, 1, malformedTask+": %s, found a table cell that shows the task %s, which is not read: a task is a list item of the queue, not a table cell", taskGrammar, snippet(cell))
			}
		}
	}
	criteria, _ := doc.sectionLines(titleIs("success criteria"))
	for i, l := range doc.lines {
		if !criteria[i] || l.code || l.level > 0 {
			continue
		}
		if c, ok := parseCriterion(l); ok {
			r.Criteria = append(r.Criteria, c)
		}
	}
	return r, doc.sortedProblems()
}

// parseCriterion reads a checkbox list item ("- [ ] Coverage ≥ 90%", "*
// [x] ...", in a block quote too), as GitHub shows one: the box followed
// by a space or the end of the line.
func parseCriterion(l line) (Criterion, bool) {
	// A checkbox in a block quote ("> - [ ] Coverage") shows as one.
	_, s := quoteMarkers(l.text)
	i, ok := listItem(s)
	if !ok {
		return Criterion{}, false
	}
	for _, box := range [...]string{"[ ]", "[x]", "[X]"} {
		rest, ok := strings.CutPrefix(s[i:], box)
		if ok && (rest == "" || rest[0] == ' ' || rest[0] == '\t') {
			return Criterion{Text: strings.TrimSpace(rest), Done: box != "[ ]", Line: l.num}, true
		}
	}
	return Criterion{}, false
}

// looksLikeTask says why a line of the task queue that is not a checkbox
// item was meant as a task ("" when it was not): a list item starting
// with a task id and a colon has lost its checkbox; a checkbox followed
// by a task id outside a list item has lost its bullet. Either would
// otherwise drop the task from the queue without a word.
func looksLikeTask(s string) (off int, why string) {
	// A task in a block quote shows as one, checkbox and all.
	if depth, rest := quoteMarkers(s); depth > 0 {
		if _, task := parseTask(&document{}, line{text: rest}); task {
			return 0, "a task is a list item of the queue, not of a block quote (\">\"), where no rule reads it"
		}
		if _, why := looksLikeTask(rest); why != "" {
			return 0, why + ", and a list item of the queue, not of a block quote (\">\")"
		}
	}
	if i, ok := listItem(s); ok {
		if startsWithTaskID(s[i:]) {
			return i, "missing the checkbox \"[ ]\" or \"[x]\" before the task id"
		}
		// A status mark in place of the checkbox ("- ✅ T002: ...") claims
		// as much as "[x]" does, but no checkbox line reads it.
		rest := strings.TrimLeftFunc(s[i:], isStatusMark)
		if mark := strings.TrimSpace(s[i : len(s)-len(rest)]); mark != "" && startsWithTaskID(rest) {
			return i, fmt.Sprintf("missing the checkbox \"[ ]\" or \"[x]\" before the task id (found %q in its place)", mark)
		}
	}
	t := strings.TrimLeft(s, " \t-*+")
	for _, box := range []string{"[ ]", "[x]", "[X]"} {
		if rest, ok := strings.CutPrefix(t, box); ok && startsWithTaskID(strings.TrimLeft(rest, " \t")) {
			return len(s) - len(t), "a task is a list item: \"- \" and a space before the checkbox"
		}
	}
	return 0, ""
}

// headingReadsAsTask reports whether a heading's title would be a task,
// well formed or not, as a line of the queue: one with a checkbox.
func headingReadsAsTask(title string) bool {
	if _, ok := parseTask(&document{}, line{text: title}); ok {
		return true
	}
	_, why := looksLikeTask(title)
	return why != ""
}

// isStatusMark reports whether r may stand for a checkbox ahead of a task
// id: an emoji or symbol such as ✅, ✓ or ⏳, or white space; never a
// letter, a digit or the brackets of a checkbox or link.
func isStatusMark(r rune) bool {
	return !unicode.IsLetter(r) && !unicode.IsDigit(r) && !strings.ContainsRune("[](){}*_~`", r)
}

// startsWithTaskID reports whether s starts with a task id such as "T001"
// followed by a colon.
func startsWithTaskID(s string) bool {
	if len(s) < 2 || s[0] != 'T' || !isDigit(s[1]) {
		return false
	}
	n := 1
	for n < len(s) && (isDigit(s[n]) || isASCIILetter(s[n]) || strings.IndexByte("_.-", s[n]) >= 0) {
		n++
	}
	return strings.HasPrefix(strings.TrimLeft(s[n:], " \t"), ":")
}

// parseTask reads a checkbox line; ok is false for lines that are not
// checkbox lines and for malformed ones (which become problems).
func parseTask(doc *document, l line) (Task, bool) {
	s := l.text
	i, ok := listItem(s)
	if !ok || i >= len(s) || s[i] != '[' {
		return Task{}, false
	}
	// A checkbox should hold one code point; up to three are read as a
	// mistyped box ("[ x]", "[-]"), more as text. "[x](url)" is a link.
	j := strings.IndexByte(s[i+1:], ']')
	if j < 0 || utf8.RuneCountInString(s[i+1:i+1+j]) > 3 {
		return Task{}, false
	}
	box, after := s[i+1:i+1+j], i+2+j
	if after < len(s) && s[after] == '(' {
		return Task{}, false
	}
	t := Task{Line: l.num}
	switch box {
	case " ":
	case "x", "X":
		t.Done = true
	default:
		doc.problem(l.num, column(s, i), malformedTask+": checkbox %q is neither \"[ ]\" nor \"[x]\"", "["+box+"]")
		return Task{}, false
	}

	rest := strings.TrimLeft(s[after:], " \t")
	idOff := len(s) - len(rest)
	n := 0
	for n < len(rest) && (isDigit(rest[n]) || isASCIILetter(rest[n]) || strings.IndexByte("_.-", rest[n]) >= 0) {
		n++
	}
	t.ID = rest[:n]
	if len(t.ID) < 2 || t.ID[0] != 'T' || !isDigit(t.ID[1]) {
		doc.problem(l.num, column(s, idOff), malformedTask+": %s, missing the task id (found %s)", taskGrammar, snippet(strings.TrimSpace(rest)))
		return Task{}, false
	}
	rest = strings.TrimLeft(rest[n:], " \t")
	if !strings.HasPrefix(rest, ":") {
		doc.problem(l.num, column(s, idOff+n), malformedTask+": %s, missing the colon after %q", taskGrammar, t.ID)
		return Task{}, false
	}
	written := strings.TrimSpace(rest[1:])
	// A description holding another checkbox and task id ("...<br>- [ ]
	// T002: ...") shows a reader a second task, one no rule would read.
	if at := taskInText(written); at >= 0 {
		start := len(s) - len(strings.TrimLeft(rest[1:], " \t")) // of written, but for white space other than blanks
		doc.problem(l.num, column(s, min(start+at, len(s))), malformedTask+": the description holds another task (%s); write each task on a line of its own", snippet(written[at:]))
		return Task{}, false
	}
	t.Text, t.CompletedAt = splitCompletion(written)
	if t.Text == "" {
		doc.problem(l.num, column(s, idOff+n), malformedTask+": %s, missing the description after %q", taskGrammar, t.ID+":")
		return Task{}, false
	}
	// An open box with the completion time of a done task says both: a
	// reader who goes by "(Completed: ...)" takes the task for done while
	// the rules hold it open, so it is asked no verdict. (A lone ✅ after
	// an open task's text stays text.)
	if marker := strings.TrimSpace(strings.TrimPrefix(written, t.Text)); !t.Done && lastIndexFoldASCII(marker, "(completed:") >= 0 {
		doc.problem(l.num, column(s, i), malformedTask+": the open checkbox \"[ ]\" of %q contradicts its completion marker %s; a done task is written \"- [x] %s: <description> ✅ (Completed: <time>)\", an open one without the marker",
			t.ID, snippet(marker), t.ID)
		return Task{}, false
	}
	return t, true
}

// taskInText returns the offset in s of a checkbox ("[ ]", "[x]", "[X]")
// followed by a task id and a colon, -1 if none.
func taskInText(s string) int {
	for i := strings.IndexByte(s, '['); i >= 0; {
		for _, box := range [...]string{"[ ]", "[x]", "[X]"} {
			if rest, ok := strings.CutPrefix(s[i:], box); ok && startsWithTaskID(strings.TrimLeft(rest, " \t")) {
				return i
			}
		}
		next := strings.IndexByte(s[i+1:], '[')
		if next < 0 {
			return -1
		}
		i += 1 + next
	}
	return -1
}

// splitCompletion removes a trailing "✅ (Completed: <time>)" (the ✅ and the
// time are each optional) from a task description.
func splitCompletion(s string) (text, completedAt string) {
	const marker = "(completed:"
	if strings.HasSuffix(s, ")") {
		if i := lastIndexFoldASCII(s, marker); i >= 0 {
			completedAt = strings.TrimSpace(s[i+len(marker) : len(s)-1])
			s = strings.TrimSpace(s[:i])
		}
	}
	s = strings.TrimSuffix(s, "\uFE0F") // emoji presentation selector after ✅
	s = strings.TrimSuffix(s, "✅")
	return strings.TrimSpace(s), completedAt
}

// lastIndexFoldASCII is strings.LastIndex ignoring ASCII case; sub must be
// lower-case ASCII. Unlike lower-casing s first, it keeps byte offsets exact.
func lastIndexFoldASCII(s, sub string) int {
	for i := len(s) - len(sub); i >= 0; i-- {
		if hasPrefixFoldASCII(s[i:], sub) {
			return i
		}
	}
	return -1
}

// sectionText is the text of the first section whose heading matches, up
// to the next heading of the same or a higher level, trimmed of blank
// lines and thematic breaks at either end, and the heading's line.
func (d *document) sectionText(match func(title string) bool) (text string, heading int) {
	start := -1
	for i, l := range d.lines {
		if l.level > 0 && match(l.title) {
			start, heading = i, l.num
			break
		}
	}
	if start < 0 {
		return "", 0
	}
	var lines []string
	for _, l := range d.lines[start+1:] {
		if l.level > 0 && l.level <= d.lines[start].level {
			break
		}
		lines = append(lines, l.text)
	}
	isRule := func(s string) bool {
		s = strings.TrimSpace(s)
		return s == "" || s == "---" || s == "***" || s == "___"
	}
	for len(lines) > 0 && isRule(lines[0]) {
		lines = lines[1:]
	}
	for len(lines) > 0 && isRule(lines[len(lines)-1]) {
		lines = lines[:len(lines)-1]
	}
	return strings.Join(lines, "\n"), heading
}

// shownMarkup is s as it shows once Markdown has turned its character
// references into characters ("&#91;" is "["), dropped the backslash of
// its escapes ("\\[" is "[") and shown any white space as a space: text
// that looks like markup (a checkbox, a list marker) without being it.
func shownMarkup(s string) string {
	s = strings.NewReplacer("\f", " ", "\v", " ").Replace(shownText(s))
	if strings.IndexByte(s, '\\') < 0 {
		return s
	}
	var sb strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) && strings.IndexByte(asciiPunct, s[i+1]) >= 0 {
			i++
		}
		sb.WriteByte(s[i])
	}
	return sb.String()
}

// asciiPunct are the characters a backslash escapes in Markdown.
const asciiPunct = "!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~"

// taskInCell returns the first cell of the table row s that holds a task
// with its checkbox ("| [ ] T002: ... |"), "" if none: a reader sees the
// task in the queue's table.
func taskInCell(s string) string {
	if !strings.HasPrefix(strings.TrimSpace(s), "|") {
		return ""
	}
	for _, c := range tableCells(s) {
		if _, ok := parseTask(&document{}, line{text: "- " + c}); ok {
			return c
		}
	}
	return ""
}

// statusContradiction reports a second Status of the roadmap that says
// another thing than the one read ("**Status:** Execution Phase" at the
// top, "**Status:** Complete" further down): a reader sees both and
// cannot tell which holds, while the rules go by the first alone, so a
// run whose roadmap also claims to be complete would be checked as one
// still in progress, or the reverse.
func statusContradiction(doc *document, fields []labelled) {
	if len(fields) < 2 {
		return
	}
	read := fields[0]
	norm := func(s string) string { return strings.ToLower(stripEmphasis(s)) }
	for _, f := range fields[1:] {
		if norm(f.value) != norm(read.value) {
			doc.problem(f.num, 1, "the roadmap gives its Status twice, and they disagree: %s here, %s at line %d, the one the rules read; a reader cannot tell which holds; expected one \"**Status:** <Planning Phase | Execution Phase | Validation Phase | Complete>\" line", snippet(f.value), snippet(read.value), read.num)
			return
		}
	}
}
