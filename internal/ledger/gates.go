package ledger

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"unicode"
)

// GatesLedger is state/GATES_LEDGER.md.
type GatesLedger struct {
	Initialized string
	Sections    []Section // never nil
	EventsLine  int       // line of the "Gate Events Log" heading; 0 if absent
	Events      []Event   // never nil
	Table       []GateRow // rows of the gate framework table; never nil
	// Current holds each "## Current Gate: <id>" section, in file order;
	// never nil.
	Current []CurrentGate
	// Collapsed holds the lines of the events that stand inside a
	// <details> element GitHub shows closed, in file order; nil when none.
	// A reader of the rendered ledger sees no such event until they unfold
	// it.
	Collapsed []int
}

// CurrentGate is a "## Current Gate: <Gate ID>" section: the gate it names,
// its "**Status:**", its "**Blockers:**" list and the artifacts its
// "**Evidence Required:**" list names.
type CurrentGate struct {
	Gate       string // as written after "Current Gate:", emphasis removed; "" if none
	Line       int    // line of the heading
	Status     string // normalised as GateRow.Status; "" when unknown or absent
	RawStatus  string // value of "**Status:**" as written
	StatusLine int    // 0 when the section has no status
	Blockers   []Blocker
	Evidence   []RequiredEvidence
}

// RequiredEvidence is one list item under "**Evidence Required:**" that
// starts with a path in backticks ("- `<artifact path>` - <description>").
type RequiredEvidence struct {
	Path string // inside the backticks, as written
	Line int
}

// isEvidenceLabel reports whether a label (lower case) heads the list of
// the evidence a gate requires.
func isEvidenceLabel(name string) bool {
	return name == "evidence required" || name == "required evidence"
}

// requiredEvidence reads a list item's content that starts with a path in
// backticks.
func requiredEvidence(item string, num int) (RequiredEvidence, bool) {
	if !strings.HasPrefix(item, "`") {
		return RequiredEvidence{}, false
	}
	end := strings.IndexByte(item[1:], '`')
	if end < 0 || strings.TrimSpace(item[1:1+end]) == "" {
		return RequiredEvidence{}, false
	}
	return RequiredEvidence{Path: item[1 : 1+end], Line: num}, true
}

// Blocker is one list item under "**Blockers:**".
type Blocker struct {
	Text string
	Line int
}

// Event is one line of the gate events log:
// "[<time>] <GATE_ID> - <STATUS> - <agent> - <note>".
type Event struct {
	Time, Gate, Status, Agent, Note string
	Line                            int
}

// GateRow is a row of a table whose header has a Gate and a Status column.
type GateRow struct {
	Gate      string // e.g. "G0" extracted from "**G0: Planning**"; "" if the cell names no gate id
	Name      string // "Planning"
	Owner     string
	Status    string // normalised: "passed" | "in_progress" | "failed" | "not_started" | "" (unknown; raw kept below)
	RawStatus string // cell text as written, e.g. "🟢 Passed"
	Line      int
}

// Normalised gate statuses of GateRow.Status.
const (
	GatePassed     = "passed"
	GateInProgress = "in_progress"
	GateFailed     = "failed"
	GateNotStarted = "not_started"
)

const eventGrammar = `expected "[<time>] <GATE_ID> - <STATUS> - <agent> - <note>"`

// ParseGatesLedger reads the events of the "Gate Events Log" section (or of
// the "Gate History" section when there is no Events Log heading), including
// events inside code fences there, and the gate framework table.
func ParseGatesLedger(data []byte) (*GatesLedger, []Problem) {
	doc := scan(data)
	g := &GatesLedger{Sections: doc.sections, Events: []Event{}, Table: []GateRow{}}
	g.Initialized, _ = doc.boldField("Run Initialized")

	isEventsLog := titleIs("gate events log")
	for _, s := range doc.sections {
		if isEventsLog(s.Title) {
			g.EventsLine = s.Line
			break
		}
	}
	in, found := doc.sectionLines(isEventsLog)
	if !found {
		in, found = doc.sectionLines(titleIs("gate history"))
	}
	section := "" // the heading above the line, for events outside the log
	for i, l := range doc.lines {
		if l.setext > 0 {
			section = l.setextTitle + " (underlined as a heading)"
		}
		if l.level > 0 {
			section = strings.Repeat("#", l.level) + " " + l.title
			if readsAsEvent(line{text: l.title}) {
				doc.problem(l.num, column(l.text, max(strings.Index(l.text, l.title), 0)),
					malformedEvent+" written as a heading (%s): Markdown shows it as one, and a heading is read as a section, never as an event; write it as a line of the Gate Events Log, without the #'s", snippet(l.title))
				continue
			}
		}
		if l.setextText && readsAsEvent(l) {
			doc.problem(l.num, column(l.text, len(l.text)-len(strings.TrimLeft(l.text, " \t"))),
				malformedEvent+" written as a heading (%s is underlined by the line after its paragraph, setext): Markdown shows it as one, and a heading is read as a section, never as an event; leave a blank line between the events and a \"---\" rule", snippet(strings.TrimSpace(l.text)))
			continue
		}
		if !in[i] && !l.code && l.level == 0 && readsAsEvent(l) {
			doc.problem(l.num, column(l.text, len(l.text)-len(strings.TrimLeft(l.text, " \t"))),
				eventOutside+" the Gate Events Log section (%s): events are read only there, so this one is not; append it to that section", where(section, found))
			continue
		}
		if !in[i] || l.fence || l.level > 0 {
			continue
		}
		before := doc.problemCount()
		if e, ok := parseEvent(doc, l); ok {
			g.Events = append(g.Events, e)
			if l.collapsed {
				g.Collapsed = append(g.Collapsed, l.num)
			}
		} else if doc.problemCount() == before && looksLikeEvent(l.text) {
			doc.problem(l.num, column(l.text, len(l.text)-len(strings.TrimLeft(l.text, " \t"))),
				malformedEvent+": %s, missing the \"[<time>]\" the line must start with", eventGrammar)
		}
	}
	g.Table = gateTable(doc)
	htmlGateRows(doc)
	g.Current = currentGates(doc)
	return g, doc.sortedProblems()
}

// readsAsEvent reports whether a line outside the events log would be an
// event, well formed or not, inside it. Appending to the end of the file
// puts an event under whatever section comes last; read nowhere, it would
// vanish from the gate's story without a word.
func readsAsEvent(l line) bool {
	if _, ok := parseEvent(&document{}, l); ok {
		return true
	}
	return looksLikeEvent(l.text)
}

// where names the place of a line outside the events log for its problem.
func where(section string, logFound bool) string {
	switch {
	case !logFound:
		return "the ledger has no \"Gate Events Log\" heading"
	case section == "":
		return "it stands before the first heading"
	default:
		return fmt.Sprintf("it stands under %q", section)
	}
}

// looksLikeEvent reports whether a line of the events log that does not
// start with "[" was meant as an event: it holds a gate id and an
// upper-case status between " - " separators ("G1_implementation -
// PASSED - "), which no prose of the log does. Dropped silently, the event
// would vanish from the gate's story.
func looksLikeEvent(s string) bool {
	fields := splitDash(s, 0, 5)
	for k := 0; k+1 < len(fields); k++ {
		words := strings.Fields(fields[k].text)
		if len(words) > 0 && isGateID(words[len(words)-1]) && isStatusWord(fields[k+1].text) && len(fields[k+1].text) >= 4 {
			return true
		}
	}
	return false
}

// parseEvent reads a line starting with "[" (or a list item holding one); ok
// is false for other lines and for malformed events (which become problems).
func parseEvent(doc *document, l line) (Event, bool) {
	s := l.text
	start := len(s) - len(strings.TrimLeft(s, " \t"))
	if i, ok := listItem(s); ok {
		start = i
	}
	if start >= len(s) || s[start] != '[' {
		return Event{}, false
	}
	closing := strings.IndexByte(s[start:], ']')
	if closing >= 0 {
		closing += start
		// "[text](url)" and "[label]: url" are links, not events.
		if next := s[closing+1:]; strings.HasPrefix(next, "(") || strings.HasPrefix(next, ":") {
			return Event{}, false
		}
	}
	bad := func(off int, format string, args ...any) (Event, bool) {
		doc.problem(l.num, column(s, off), malformedEvent+": "+format, args...)
		return Event{}, false
	}
	if closing < 0 {
		return bad(start, "%s, missing the closing \"]\" after the time", eventGrammar)
	}
	e := Event{Line: l.num, Time: strings.TrimSpace(s[start+1 : closing])}
	if e.Time == "" {
		return bad(start, "%s, missing the time field", eventGrammar)
	}
	fields := splitDash(strings.TrimRight(s[closing+1:], " \t"), closing+1, 4)
	if last := &fields[len(fields)-1]; len(fields) < 4 && strings.HasSuffix(last.text, " -") {
		// "... - planner -": the next field is empty but its separator was
		// written.
		last.text = strings.TrimRight(strings.TrimSuffix(last.text, " -"), " \t")
		fields = append(fields, field{off: len(s)})
	}
	names := [...]string{"gate id", "status", "agent"}
	for k, name := range names {
		if k >= len(fields) || fields[k].text == "" {
			off := len(s)
			if k < len(fields) {
				off = fields[k].off
			}
			return bad(off, "%s, missing the %s field", eventGrammar, name)
		}
	}
	e.Gate, e.Status, e.Agent = fields[0].text, fields[1].text, fields[2].text
	if len(fields) == 4 {
		e.Note = fields[3].text
	}
	if !isGateID(e.Gate) {
		return bad(fields[0].off, "gate id %s is not like \"G0\" or \"G0_planning\"", snippet(e.Gate))
	}
	if !isStatusWord(e.Status) {
		return bad(fields[1].off, "status %s is not an upper-case word like \"PASSED\"", snippet(e.Status))
	}
	// An agent is one name; a field with spaces is a note that slid left
	// because the agent was left out, and reading it as an agent would
	// credit the event to nobody.
	if !isAgentName(e.Agent) {
		return bad(fields[2].off, "agent %s is not one name like \"executor\" (is the agent field missing?)", snippet(e.Agent))
	}
	// A note that holds another event ("... 91%<br>[t] G2 - FAILED - ...")
	// shows a reader two events, while the second, read as the first one's
	// note, would be no event at all. After a lone CR, the scanner reports
	// the line break already.
	if len(fields) == 4 && loneCR(s) < 0 {
		if at := eventInNote(e.Note); at >= 0 {
			return bad(fields[3].off+at, "the note holds another event (%s); write each event on a line of its own", snippet(e.Note[at:]))
		}
	}
	return e, true
}

// eventInNote returns the offset in note of the "[" of what reads as
// another event, "[<time>] <GATE_ID> - <STATUS>", or -1 if none.
func eventInNote(note string) int {
	open := -1
	for i := 0; i < len(note); i++ {
		switch note[i] {
		case '[':
			open = i
			continue
		case ']':
		default:
			continue
		}
		if open < 0 {
			continue
		}
		rest := strings.TrimLeft(note[i+1:], " \t")
		n := 0
		for n < len(rest) && (isDigit(rest[n]) || isASCIILetter(rest[n]) || strings.IndexByte("_.-", rest[n]) >= 0) {
			n++
		}
		status, ok := strings.CutPrefix(rest[n:], " - ")
		if !ok || !isGateID(rest[:n]) {
			continue
		}
		if end := strings.IndexAny(status, " \t"); end >= 0 {
			status = status[:end]
		}
		if isStatusWord(status) {
			return open
		}
	}
	return -1
}

func isAgentName(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if r == ' ' || r == '\t' {
			return false
		}
	}
	return true
}

func isStatusWord(s string) bool {
	if s == "" || s[0] < 'A' || s[0] > 'Z' {
		return false
	}
	for i := 1; i < len(s); i++ {
		if c := s[i]; !('A' <= c && c <= 'Z') && !isDigit(c) && c != '_' {
			return false
		}
	}
	return true
}

// gateTable returns the rows of every table whose header names a Gate and a
// Status column: a second such table (a later "Gate Status" update, say) is
// read as much as a person reads it.
func gateTable(doc *document) []GateRow {
	rows := []GateRow{}
	lines := doc.lines
	for i := 0; i+1 < len(lines); i++ {
		// A table in a block quote ("> | G2: Validation | 🔴 Failed |") or
		// in a list item is a table to a reader all the same: its rows are
		// read inside the quote markers, and its header after the item's
		// marker.
		depth, head := quoteMarkers(lines[i].text)
		if off, ok := listItem(head); ok {
			head = head[off:]
		}
		delim, isRow := tableRow(lines[i+1], depth)
		if !isTableLine(lines[i]) || !strings.Contains(head, "|") || !isRow || !strings.Contains(delim, "|") || !isDelimiterRow(delim) {
			continue
		}
		gateCol, statusCol, ownerCol := -1, -1, -1
		for c, h := range tableCells(head) {
			switch strings.ToLower(stripEmphasis(h)) {
			case "gate", "gate id":
				gateCol = c
			case "status", "state", "gate status", "gate state", "current status", "current state":
				statusCol = c
			case "owner", "agent":
				ownerCol = c
			}
		}
		end := i + 2
		body := map[int]string{} // a row's text inside its quote markers, by line number
		for end < len(lines) {
			text, ok := tableRow(lines[end], depth)
			if !ok {
				break
			}
			body[lines[end].num] = text
			end++
		}
		if gateCol >= 0 && statusCol < 0 {
			// A gate table whose status column is headed otherwise would
			// let a failed gate in it go unread.
			for _, l := range lines[i+2 : end] {
				if c, st := statusCell(tableCells(body[l.num]), gateCol); st != "" {
					doc.problem(l.num, 1, "malformed gate table: the table headed at line %d has a gate column but no \"Status\" column, yet its column %d holds the gate status %s, which is not read; head that column \"Status\"", lines[i].num, c+1, snippet(st))
					break
				}
			}
		}
		if gateCol < 0 {
			// So would a table of gates whose gate column is headed
			// otherwise ("Phase", "Stage"): its "G2: Validation" row saying
			// 🔴 Failed is read by a person, and by no rule.
			for _, l := range lines[i+2 : end] {
				cells := tableCells(body[l.num])
				g := gateColumn(cells)
				if g < 0 {
					continue
				}
				c, st := statusCell(cells, g)
				if statusCol >= 0 && statusCol != g && statusCol < len(cells) && cells[statusCol] != "" {
					c, st = statusCol, cells[statusCol]
				}
				if st != "" {
					doc.problem(l.num, 1, "malformed gate table: the table headed at line %d has no \"Gate\" column, yet its column %d names the gate %s and its column %d the status %s, which is not read; head those columns \"Gate\" and \"Status\"", lines[i].num, g+1, snippet(cells[g]), c+1, snippet(st))
					break
				}
			}
		}
		if gateCol < 0 || statusCol < 0 {
			i = end - 1
			continue
		}
		for _, l := range lines[i+2 : end] {
			cells := tableCells(body[l.num])
			cell := func(c int) string {
				if c < 0 || c >= len(cells) {
					return ""
				}
				return cells[c]
			}
			row := GateRow{Owner: stripEmphasis(cell(ownerCol)), RawStatus: cell(statusCol), Line: l.num}
			row.Gate, row.Name = splitGateCell(cell(gateCol))
			row.Status = normaliseGateStatus(row.RawStatus)
			if parts := cellLines(row.RawStatus); len(parts) > 1 {
				// A cell rendered as several lines, each with a status
				// ("🟢 Passed<br>🔴 Failed"), shows a person a history whose
				// last line is the gate's status, while the cell as a whole
				// holds two and reads as neither; taking either line for
				// the gate's status would guess which one the writer meant.
				named := 0
				for _, p := range parts {
					if normaliseGateStatus(p) != "" || namesStatusWord(p) {
						named++
					}
				}
				if named > 1 {
					doc.problem(l.num, 1, "malformed gate table: the row's status cell %s shows %d lines that each name a status; write the gate's one current status in the cell, and its history as events in the Gate Events Log", snippet(row.RawStatus), named)
				}
			}
			if row.Gate == "" && row.Name != "" && strings.TrimSpace(row.RawStatus) != "" && row.Status != GatePassed {
				// A row naming its gate by name alone ("Validation", "Gate
				// 2") counts for no gate, and a failed one would go unread;
				// a passed one claims nothing the other records lack.
				doc.problem(l.num, 1, "malformed gate table: the row's gate %s names no gate id, so its status %s is not read; write the gate as the Gate Framework table does (\"**G2: Validation**\")", snippet(row.Name), snippet(row.RawStatus))
			}
			if row.Gate == "" && row.Name == "" && strings.TrimSpace(row.RawStatus) != "" && row.Status != GatePassed {
				// So would a row whose gate cell is empty ("| | **Overall**
				// | | 🔴 Failed |"): a reader sees its status, for the gate
				// its other cells name or for the run as a whole.
				doc.problem(l.num, 1, "malformed gate table: the row's gate cell is empty, so its status %s is not read; name the row's gate in its Gate column as the Gate Framework table does (\"**G2: Validation**\")", snippet(row.RawStatus))
			}
			rows = append(rows, row)
		}
		i = end - 1
	}
	return rows
}

// cellLines splits a table cell where a renderer starts a new line in it:
// at an HTML line break or block tag (<br>, <br/>, <p>, </div>, any case,
// attributes and all). Parts with nothing but spaces are dropped. (The
// document's lines already hold a Unicode line separator as a space.)
func cellLines(cell string) []string {
	var parts []string
	start := 0
	add := func(end int) {
		if p := strings.TrimSpace(cell[start:end]); p != "" {
			parts = append(parts, p)
		}
	}
	for i := 0; i < len(cell); {
		if cell[i] == '<' {
			if n := lineBreakTag(cell[i:]); n > 0 {
				add(i)
				i += n
				start = i
				continue
			}
		}
		i++
	}
	add(len(cell))
	return parts
}

// lineBreakTag returns the length of the tag s opens with when it is one
// that starts a new line in a cell (br, p, div, hr, li and headings, opening
// or closing), 0 otherwise.
func lineBreakTag(s string) int {
	end := strings.IndexByte(s, '>')
	if end < 0 {
		return 0
	}
	name := strings.TrimLeft(lowerASCII(s[1:end]), " \t/")
	if k := strings.IndexAny(name, " \t\n/"); k >= 0 {
		name = name[:k]
	}
	switch name {
	case "br", "p", "div", "hr", "li", "h1", "h2", "h3", "h4", "h5", "h6":
		return end + 1
	}
	return 0
}

// statusCell returns the first cell of a table row, other than the gate's
// (column skip), that names a gate status or a word agents write for one
// (statusWords), and its index; "" when none does.
func statusCell(cells []string, skip int) (int, string) {
	for c, cell := range cells {
		if c != skip && (normaliseGateStatus(cell) != "" || namesStatusWord(cell)) {
			return c, cell
		}
	}
	return -1, ""
}

// statusWords are words that agents write for a gate's status beside the
// Status Legend's: a row saying a gate is Rejected or Blocked tells as much
// as one saying Failed.
var statusWords = map[string]bool{
	"rejected": true, "blocked": true, "done": true, "complete": true, "completed": true,
	"approved": true, "pending": true, "review": true, "escalated": true, "revoked": true,
	"reopened": true, "partial": true, "skipped": true, "waived": true, "failing": true,
}

// namesStatusWord reports whether a cell opens with such a word ("Blocked
// on G1", "In Review"): a cell that only holds one further on ("Code review
// of T001") is a purpose, not a status.
func namesStatusWord(cell string) bool {
	words := strings.FieldsFunc(strings.ToLower(cell), func(r rune) bool { return !unicode.IsLetter(r) })
	if len(words) > 1 && words[0] == "in" {
		words = words[1:]
	}
	return len(words) > 0 && statusWords[words[0]]
}

// gateColumn returns the index of the first cell of a table row that names a
// gate as the gate column does ("G2", "**G2: Validation**"), -1 when none does.
func gateColumn(cells []string) int {
	for c, cell := range cells {
		if g, _ := splitGateCell(cell); g != "" {
			return c
		}
	}
	return -1
}

func isTableLine(l line) bool {
	return !l.code && l.level == 0 && strings.Contains(l.text, "|")
}

// tableRow reports whether l is a row of a table above it that stands in
// depth block quotes (0 outside quotes), and returns its text inside the
// quote markers: a table goes on to its first blank line, the end of its
// quote, or the start of another block (a heading, a fence, a quote, a
// list item, a thematic break, a comment block), and a line without a pipe
// before that is a row all the same, of one cell (GitHub Flavored
// Markdown, Tables), so the rows after it are the table's too.
func tableRow(l line, depth int) (string, bool) {
	if l.code || l.level > 0 {
		return "", false
	}
	d, text := quoteMarkers(l.text)
	if d != depth {
		return "", false
	}
	if strings.Contains(text, "|") {
		return text, true
	}
	if level, _ := atxHeading(text); level > 0 {
		return "", false
	}
	return text, endsParagraph(text) == ""
}

// splitGateCell splits "**G0: Planning**" into "G0" and "Planning".
func splitGateCell(s string) (gate, name string) {
	s = stripEmphasis(s)
	n := strings.IndexFunc(s, func(r rune) bool { return r == ':' || unicode.IsSpace(r) })
	if n < 0 {
		n = len(s)
	}
	if !isGateID(s[:n]) {
		return "", s
	}
	return s[:n], stripEmphasis(strings.TrimPrefix(strings.TrimSpace(s[n:]), ":"))
}

// normaliseGateStatus maps a status cell by its keywords and emoji; a cell
// that names no status, or two different ones, is unknown ("").
func normaliseGateStatus(cell string) string {
	statuses := [...]string{GatePassed, GateInProgress, GateFailed, GateNotStarted}
	const (
		passed = 1 << iota
		inProgress
		failed
		notStarted
	)
	var found int
	cell = joinMarkup(dropStruck(cell))
	for _, r := range cell {
		switch r {
		case '🟢', '✅':
			found |= passed
		case '🟡':
			found |= inProgress
		case '🔴', '❌':
			found |= failed
		case '⚪':
			found |= notStarted
		}
	}
	words := strings.FieldsFunc(strings.ToLower(cell), func(r rune) bool { return !unicode.IsLetter(r) })
	for k, w := range words {
		next := ""
		if k+1 < len(words) {
			next = words[k+1]
		}
		switch {
		case w == "passed" || w == "pass":
			found |= passed
		case w == "failed" || w == "fail":
			found |= failed
		case w == "in" && next == "progress":
			found |= inProgress
		case w == "not" && next == "started":
			found |= notStarted
		}
	}
	for k, s := range statuses {
		if found == 1<<k {
			return s
		}
	}
	return ""
}

// inlineTag matches the start and end tags of the inline HTML elements
// that set off part of a word without breaking it.
var inlineTag = regexp.MustCompile(`(?i)</?(?:b|i|u|em|strong|span|sup|sub|ins|mark|small|big|code|kbd|a)(?:\s[^>]*)?>`)

// joinMarkup removes from a cell the emphasis and code markers and the
// inline tags that Markdown shows as no character: "Fa**iled**" and
// "F<b>ailed</b>" show the word "Failed", and read as it.
func joinMarkup(s string) string {
	if !strings.ContainsAny(s, "*`<") {
		return s
	}
	s = inlineTag.ReplaceAllString(s, "")
	return strings.NewReplacer("*", "", "`", "").Replace(s)
}

// dropStruck removes the struck-through spans of s ("~~🟢 Passed~~ 🔴
// Failed", "<del>Passed</del> Failed"): a reader takes what is struck out
// for what no longer holds, and reading both would make the status
// unknown.
func dropStruck(s string) string {
	if !strings.ContainsAny(s, "~<") {
		return s
	}
	lower := lowerASCII(s)
	unclosed := map[string]bool{} // tags with no closing tag from here on
	var lone [3]bool              // tilde runs of 1 or 2 with no closing run from here on
	var sb strings.Builder
	for i := 0; i < len(s); {
		switch s[i] {
		case '~':
			n := len(s[i:]) - len(strings.TrimLeft(s[i:], "~"))
			if n <= 2 && !lone[n] {
				if end := closingTildes(s[i+n:], n); end >= 0 {
					i += n + end + n
					continue
				}
				lone[n] = true
			}
			sb.WriteString(s[i : i+n])
			i += n
			continue
		case '<':
			if end := struckTag(lower[i:], unclosed); end > 0 {
				i += end
				continue
			}
		}
		sb.WriteByte(s[i])
		i++
	}
	return sb.String()
}

// closingTildes is the offset in s of the first run of exactly n tildes,
// -1 if none.
func closingTildes(s string, n int) int {
	for i := 0; i < len(s); {
		if s[i] != '~' {
			i++
			continue
		}
		m := len(s[i:]) - len(strings.TrimLeft(s[i:], "~"))
		if m == n {
			return i
		}
		i += m
	}
	return -1
}

// struckTag is the length of a <del>, <s> or <strike> element at the start
// of lower (ASCII lower-case), up to its closing tag; 0 if it starts with
// none. A tag found with no closing tag after it goes into unclosed, so
// that no later one searches again.
func struckTag(lower string, unclosed map[string]bool) int {
	for _, tag := range [...]string{"del", "s", "strike"} {
		if unclosed[tag] || !strings.HasPrefix(lower, "<"+tag+">") {
			continue
		}
		if end := strings.Index(lower, "</"+tag+">"); end >= 0 {
			return end + len("</"+tag+">")
		}
		unclosed[tag] = true
	}
	return 0
}

// lowerASCII lower-cases the ASCII letters of s, keeping its length.
func lowerASCII(s string) string {
	return strings.Map(func(r rune) rune {
		if 'A' <= r && r <= 'Z' {
			return r + ('a' - 'A')
		}
		return r
	}, s)
}

// currentGates reads every "Current Gate" section: the ledger's own word on
// where the gates stand, which a person reads next to the events.
func currentGates(doc *document) []CurrentGate {
	out := []CurrentGate{}
	isCurrent := titleIs("current gate")
	var cur *CurrentGate
	level := 0
	inBlockers := false
	inEvidence := false // under "**Evidence Required:**"
	statusCol := -1     // the Status column of a table the section holds, -1 if none, -2 in a table of gates
	inTable := false
	contradicted := false // the section's status was given twice, and reported
	// setStatus gives the section the status value at line num, unless it
	// has one: then a value that says another thing is reported, once per
	// section, as the roadmap's second Status is.
	setStatus := func(value string, num int) {
		if cur.StatusLine == 0 {
			cur.RawStatus, cur.StatusLine = value, num
			cur.Status = normaliseGateStatus(value)
			return
		}
		if contradicted || value == "" || cur.RawStatus == "" || normaliseGateStatus(value) == cur.Status &&
			(cur.Status != "" || strings.EqualFold(stripEmphasis(value), stripEmphasis(cur.RawStatus))) {
			return
		}
		contradicted = true
		doc.problem(num, 1, "the Current Gate section gives its status twice, and they disagree: %s here, %s at line %d, the one the rules read; a reader cannot tell which holds; expected one \"**Status:** <In Progress | Passed | Failed>\" line", snippet(value), snippet(cur.RawStatus), cur.StatusLine)
	}
	for i, l := range doc.lines {
		if l.level > 0 {
			if cur != nil && l.level <= level {
				out = append(out, *cur)
				cur = nil
			}
			if cur == nil && isCurrent(l.title) {
				cur = &CurrentGate{Line: l.num, Gate: currentGateID(l.title), Blockers: []Blocker{}}
				level, inBlockers, inEvidence, contradicted = l.level, false, false, false
				continue
			}
			if cur != nil {
				// A heading inside the section ("### Status: 🔴 Failed",
				// "### Blockers") labels as much as a bold label does.
				title := stripEmphasis(l.title)
				name, value, ok := boldLabel(l.title)
				if !ok {
					name, value, _ = strings.Cut(title, ":")
					name, value = strings.ToLower(strings.TrimSpace(stripEmphasis(name))), strings.TrimSpace(value)
				}
				inBlockers, inEvidence = name == "blockers", isEvidenceLabel(name)
				if name == "status" && value != "" {
					setStatus(value, l.num)
				}
				if inBlockers && value != "" {
					cur.Blockers = append(cur.Blockers, Blocker{Text: value, Line: l.num})
				}
			}
			continue
		}
		if cur == nil || l.code {
			continue
		}
		if l.indentedCode {
			// Markdown shows an indented code block as code: a label
			// there ("    **Status:** Passed") is none to a reader, while
			// an item of the list it stands under is still one.
			if off, ok := listItem(l.text); ok {
				item := strings.TrimSpace(l.text[off:])
				if inBlockers {
					cur.Blockers = append(cur.Blockers, Blocker{Text: item, Line: l.num})
				} else if e, ok := requiredEvidence(item, l.num); ok && inEvidence {
					cur.Evidence = append(cur.Evidence, e)
				}
			}
			continue
		}
		// A label or a blocker in a block quote ("> **Status:** 🔴
		// Failed") says the same to a reader as one outside it.
		_, text := quoteMarkers(l.text)
		t := strings.TrimSpace(text)
		if strings.Contains(t, "|") && (strings.HasPrefix(t, "|") || inTable || headsTable(doc.lines[i+1:])) {
			// A table in the section: a "| Status | 🔴 Failed |" row, or
			// a Status column, says the section's status as the label
			// does, and a "| Blockers | ... |" row lists a blocker.
			statusCol = currentGateTable(cur, l, t, doc.lines[i+1:], statusCol, setStatus)
			inTable = true
			continue
		}
		statusCol, inTable = -1, false
		if value, ok := plainStatus(shownText(t)); ok && !inBlockers {
			// "Status: Failed", or "- **Status:** Failed": the section's
			// status to a reader all the same.
			setStatus(value, l.num)
			continue
		}
		if name, value, ok := boldLabel(shownText(t)); ok {
			inBlockers, inEvidence = name == "blockers", isEvidenceLabel(name)
			if e, ok := requiredEvidence(value, l.num); ok && inEvidence {
				cur.Evidence = append(cur.Evidence, e)
			}
			if name == "status" {
				setStatus(value, l.num)
			}
			if inBlockers && value != "" {
				cur.Blockers = append(cur.Blockers, Blocker{Text: value, Line: l.num})
			}
			continue
		}
		if !inBlockers && !inEvidence || t == "" {
			continue
		}
		if off, ok := listItem(text); ok {
			item := strings.TrimSpace(text[off:])
			if inBlockers {
				cur.Blockers = append(cur.Blockers, Blocker{Text: item, Line: l.num})
			} else if e, ok := requiredEvidence(item, l.num); ok {
				cur.Evidence = append(cur.Evidence, e)
			}
			continue
		}
		if t == "---" {
			inBlockers, inEvidence = false, false
		}
	}
	if cur != nil {
		out = append(out, *cur)
	}
	return out
}

// currentGateTable reads a table row t (line l, the lines after it next)
// of a Current Gate section into cur: a header row whose next line is the
// delimiter row gives the column of the status (returned, -1 if none, -2
// for a table of gates, which has a Gate column), the first row below it
// its status; a row labelled "Status" or "Blockers" in
// its first cell gives the status or a blocker in its second.
func currentGateTable(cur *CurrentGate, l line, t string, next []line, statusCol int, setStatus func(value string, num int)) int {
	if isDelimiterRow(t) {
		return statusCol
	}
	cells := tableCells(t)
	if headsTable(next) {
		// A table of gates (a Gate column) is the gate table's to read.
		statusCol = -1
		for c, h := range cells {
			switch strings.ToLower(stripEmphasis(h)) {
			case "status", "gate status", "current status":
				statusCol = c
			case "gate", "gate id":
				return -2
			}
		}
		return statusCol
	}
	if statusCol == -2 {
		return statusCol // a row of a table of gates
	}
	set := func(value string) {
		if value != "" {
			setStatus(value, l.num)
		}
	}
	if statusCol >= 0 && statusCol < len(cells) {
		set(cells[statusCol])
		return -1
	}
	if len(cells) < 2 {
		return statusCol
	}
	switch strings.ToLower(strings.TrimSpace(strings.TrimSuffix(stripEmphasis(strings.TrimSuffix(stripEmphasis(cells[0]), ":")), ":"))) {
	case "status":
		set(cells[1])
	case "blockers", "blocker":
		if cells[1] != "" {
			cur.Blockers = append(cur.Blockers, Blocker{Text: cells[1], Line: l.num})
		}
	}
	return statusCol
}

// headsTable reports whether the first of next is a table's delimiter
// row, so that the line before it is the table's header.
func headsTable(next []line) bool {
	if len(next) == 0 || next[0].code {
		return false
	}
	_, after := quoteMarkers(next[0].text)
	return isDelimiterRow(strings.TrimSpace(after))
}

// currentGateID is the gate a "Current Gate: G2_validation" title names.
func currentGateID(title string) string {
	t := stripEmphasis(title)
	i := strings.IndexByte(t, ':')
	if i < 0 {
		return ""
	}
	rest := stripEmphasis(t[i+1:])
	if f := strings.Fields(rest); len(f) > 0 && isGateID(stripEmphasis(f[0])) {
		return stripEmphasis(f[0])
	}
	return rest
}

// plainStatus reads a status label written otherwise than "**Status:**
// value" at the start of its line: without emphasis ("Status: value"), or
// as a list item ("- **Status:** value").
func plainStatus(t string) (value string, ok bool) {
	if off, item := listItem(t); item {
		if name, value, ok := boldLabel(t[off:]); ok && name == "status" {
			return value, true
		}
		t = t[off:]
	}
	t = stripEmphasis(t) // "_Status: Failed_", "**Status: Failed**"
	if hasPrefixFoldASCII(t, "status:") {
		return strings.TrimSpace(t[len("status:"):]), true
	}
	return "", false
}

// boldLabel splits "**Name:** value" or "**Name**: value" into the lower-case
// name and the trimmed value. A label set off otherwise ("__Name:__",
// "*Name:*", "<b>Name:</b>", "<strong>Name</strong>:") shows a reader the
// same label and is read the same.
func boldLabel(t string) (name, value string, ok bool) {
	lower := lowerASCII(t)
	for _, m := range [...][2]string{{"**", "**"}, {"__", "__"}, {"<strong>", "</strong>"}, {"<b>", "</b>"}, {"*", "*"}, {"_", "_"}} {
		if !strings.HasPrefix(lower, m[0]) {
			continue
		}
		end := strings.Index(lower[len(m[0]):], m[1])
		if end < 0 {
			return "", "", false
		}
		label, rest := t[len(m[0]):len(m[0])+end], t[len(m[0])+end+len(m[1]):]
		switch {
		case strings.HasSuffix(label, ":"):
			label = strings.TrimSuffix(label, ":")
		case strings.HasPrefix(rest, ":"):
			rest = rest[1:]
		default:
			return "", "", false
		}
		return strings.ToLower(strings.TrimSpace(label)), strings.TrimSpace(rest), true
	}
	return "", "", false
}

var (
	htmlRowTag  = regexp.MustCompile(`(?i)<tr(\s[^>]*)?>`)
	htmlCellTag = regexp.MustCompile(`(?i)<t[dh](\s[^>]*)?>`)
	htmlRowEnd  = regexp.MustCompile(`(?i)</(tr|table|thead|tbody|tfoot)\s*>`)
	htmlAnyTag  = regexp.MustCompile(`<[^>]*>`)
)

// htmlGateRows reports each row of a table written in HTML ("<tr><td>G2:
// Validation</td><td>🔴 Failed</td></tr>") that names a gate and a status
// other than passed. GitHub shows such a table as a table, but only pipe
// tables are read, so a failed gate in it would go unread; a passed one
// claims nothing the other records lack.
func htmlGateRows(doc *document) {
	var sb strings.Builder
	var starts []int // byte offset in sb of each line kept, by index into nums
	var nums []int
	for _, l := range doc.lines {
		if l.code {
			continue
		}
		starts, nums = append(starts, sb.Len()), append(nums, l.num)
		sb.WriteString(l.text)
		sb.WriteByte('\n')
	}
	text := sb.String()
	if !strings.Contains(lowerASCII(text), "<tr") {
		return
	}
	lineAt := func(off int) int {
		k, found := slices.BinarySearch(starts, off)
		if !found {
			k--
		}
		return nums[k]
	}
	rows := htmlRowTag.FindAllStringIndex(text, -1)
	for k, r := range rows {
		end := len(text)
		if k+1 < len(rows) {
			end = rows[k+1][0]
		}
		row := text[r[1]:end]
		if e := htmlRowEnd.FindStringIndex(row); e != nil {
			row = row[:e[0]]
		}
		var cells []string
		for _, c := range htmlCellTag.Split(row, -1)[1:] {
			c = htmlAnyTag.ReplaceAllString(c, " ")
			cells = append(cells, strings.Join(strings.Fields(shownText(c)), " "))
		}
		g := gateColumn(cells)
		if g < 0 {
			continue
		}
		c, st := statusCell(cells, g)
		if st == "" || normaliseGateStatus(st) == GatePassed {
			continue
		}
		doc.problem(lineAt(r[0]), 1, "malformed gate table: the html table row names the gate %s and in its column %d the status %s, which is not read: only Markdown pipe tables are; write the gate table as the Gate Framework table does (\"| **G2: Validation** | Validator | ... | 🔴 Failed |\")", snippet(cells[g]), c+1, snippet(st))
	}
}
