package ledger

import (
	"fmt"
	"strings"
)

// EvidenceLog is state/EVIDENCE_LOG.md.
type EvidenceLog struct {
	Initialized string
	Sections    []Section // never nil
	Entries     []Entry   // never nil
}

// Entry is one artifact line:
// "- `<path>` - [hash:<hex>] - <time> - <description>".
type Entry struct {
	Path        string // text inside the backticks, as written
	Hash        string // token inside [hash:...], as written (may be "sha256:abc...", "abc...", 8..64 hex)
	Time        string
	Description string
	Line        int
	PathColumn  int // column of the path's first character
	HashColumn  int // column of the hash token's first character
}

const entryGrammar = "expected \"- `<path>` - [hash:<hex>] - <time> - <description>\""

// ParseEvidenceLog reads every list item whose content starts with a
// backticked path, anywhere outside code and comments. A line that is
// not such an item but carries what only an entry carries (a hash field,
// or a list item with a bare hex hash between " - " separators) was meant
// as one: it is a problem at its line, never silently not an entry, since
// its artifact would then go unverified.
func ParseEvidenceLog(data []byte) (*EvidenceLog, []Problem) {
	doc := scan(data)
	ev := &EvidenceLog{Sections: doc.sections, Entries: []Entry{}}
	ev.Initialized, _ = doc.boldField("Run Initialized")
	for _, l := range doc.lines {
		if l.code || l.level > 0 {
			continue
		}
		// An entry indented as code would be verified while every reader
		// of the rendered log sees a code block (or prose), not an entry.
		if l.indented >= 4 && isEntryCandidate(l.text) {
			doc.problem(l.num, 1, malformedEntry+": %s, found it indented %d columns past the list it may belong to, where Markdown shows it as indented code or as text of the paragraph above, not as a list item; remove the indentation", entryGrammar, l.indented)
			continue
		}
		e, ok := parseEntry(doc, l)
		switch {
		case ok:
			ev.Entries = append(ev.Entries, e)
		case !isEntryCandidate(l.text):
			if off, why := looksLikeEntry(l.text); why != "" {
				doc.problem(l.num, column(l.text, off), malformedEntry+": %s, %s", entryGrammar, why)
			}
		}
	}
	return ev, doc.sortedProblems()
}

// isEntryCandidate reports whether parseEntry reads s as an entry (and
// reports it when malformed): a list item whose content starts with a
// backtick.
func isEntryCandidate(s string) bool {
	start, ok := listItem(s)
	return ok && start < len(s) && s[start] == '`'
}

// looksLikeEntry says why a line that is not an entry candidate was meant
// as one ("" when it was not): it holds a hash field ("[hash:" or
// "[sha256:" and hex digits) outside inline code, or it is a list item
// whose " - " separated fields hold a bare hash of 8 to 64 hex digits.
// Prose, and a hash field quoted in backticks, stay allowed.
func looksLikeEntry(s string) (off int, why string) {
	if off, ok := tableRowEntry(s); ok {
		return off, "an entry is a list item, not a table row (this row names a path in backticks and a hash, which would go unverified)"
	}
	start, isItem := listItem(s)
	if at := hashFieldOutsideCode(s); at >= 0 {
		if !isItem {
			return 0, "a line holding a hash field that is not a list item (an entry starts with \"- \")"
		}
		return start, fmt.Sprintf("the path must be in backticks (found %s)", snippet(splitDash(s[start:], start, 2)[0].text))
	}
	if !isItem {
		return 0, ""
	}
	for _, f := range splitDash(s[start:], start, 4)[1:] {
		if isHashToken(f.text) && len(strings.TrimSuffix(strings.TrimSuffix(f.text, "..."), "…")) >= 16 {
			return f.off, fmt.Sprintf("the hash must be written \"[hash:%s]\" and the path in backticks", f.text)
		}
	}
	return 0, ""
}

// tableRowEntry reports whether s is a Markdown table row that holds what
// an entry holds: a cell that is a path in backticks and a cell that is a
// hash of 16 to 64 hex digits (or a hash field). off is where the row
// starts.
func tableRowEntry(s string) (off int, ok bool) {
	trimmed := strings.TrimLeft(s, " \t")
	if !strings.HasPrefix(trimmed, "|") {
		return 0, false
	}
	off = len(s) - len(trimmed)
	var path, hash bool
	for _, cell := range strings.Split(strings.Trim(strings.TrimSpace(trimmed), "|"), "|") {
		c := strings.TrimSpace(cell)
		switch {
		case len(c) > 2 && c[0] == '`' && c[len(c)-1] == '`' && !strings.Contains(c[1:len(c)-1], "`"):
			path = true
		case isHashToken(c) && len(strings.TrimSuffix(strings.TrimSuffix(c, "..."), "…")) >= 16,
			hashFieldOutsideCode(c) >= 0:
			hash = true
		}
	}
	return off, path && hash
}

// hashFieldOutsideCode returns the offset of "[hash:<hex>" or
// "[sha256:<hex>" (any case, spaces allowed after the colon) in s outside
// inline code spans, or -1.
func hashFieldOutsideCode(s string) int {
	inCode := false
	for i := 0; i < len(s); i++ {
		switch {
		case s[i] == '`':
			inCode = !inCode
		case s[i] == '[' && !inCode:
			rest := s[i+1:]
			for _, prefix := range []string{"hash:", "sha256:"} {
				if hasPrefixFoldASCII(rest, prefix) {
					hex := strings.TrimLeft(rest[len(prefix):], " \t")
					n := 0
					for n < len(hex) && isHexDigit(hex[n]) {
						n++
					}
					if n >= 4 {
						return i
					}
				}
			}
		}
	}
	return -1
}

// parseEntry reads a list item starting with a backtick; ok is false for
// other lines and for malformed entries (which become problems).
func parseEntry(doc *document, l line) (Entry, bool) {
	s := l.text
	if !isEntryCandidate(s) {
		return Entry{}, false
	}
	start, _ := listItem(s)
	bad := func(off int, format string, args ...any) (Entry, bool) {
		doc.problem(l.num, column(s, off), malformedEntry+": "+format, args...)
		return Entry{}, false
	}
	missing := func(off int, what string) (Entry, bool) {
		return bad(off, "%s, missing the %s", entryGrammar, what)
	}
	closing := strings.IndexByte(s[start+1:], '`')
	if closing < 0 {
		return missing(len(s), "closing backtick of the path")
	}
	closing += start + 1
	e := Entry{Line: l.num, Path: s[start+1 : closing], PathColumn: column(s, start+1)}
	if strings.TrimSpace(e.Path) == "" {
		return missing(start, "path")
	}

	// The separator between the path and the hash is optional: the fields
	// are unambiguous without it.
	rest := strings.TrimLeft(s[closing+1:], " \t")
	restOff := len(s) - len(rest)
	if strings.HasPrefix(rest, "-") {
		rest = rest[1:]
		restOff++
	}
	fields := splitDash(strings.TrimRight(rest, " \t"), restOff, 3)
	if last := &fields[len(fields)-1]; len(fields) < 3 && strings.HasSuffix(last.text, " -") {
		last.text = strings.TrimRight(strings.TrimSuffix(last.text, " -"), " \t")
		fields = append(fields, field{off: len(s)})
	}

	hashField := fields[0]
	if !strings.HasPrefix(hashField.text, "[") {
		if hashField.text == "" {
			return missing(len(s), "hash field")
		}
		return bad(hashField.off, "%s, missing the hash field (found %s)", entryGrammar, snippet(hashField.text))
	}
	end := strings.IndexByte(hashField.text, ']')
	if end < 0 {
		return missing(hashField.off+len(hashField.text), `closing "]" of the hash field`)
	}
	token, tokenOff := hashField.text[1:end], hashField.off+1
	switch {
	case hasPrefixFoldASCII(token, "hash:"):
		token, tokenOff = token[len("hash:"):], tokenOff+len("hash:")
	case hasPrefixFoldASCII(token, "sha256:"):
	default:
		return bad(hashField.off, "hash field %s is not \"[hash:<hex>]\" or \"[sha256:<hex>]\"", snippet(hashField.text[:end+1]))
	}
	// "[hash: abc ]" is a spacing slip, not a different hash.
	trimmed := trimField(token, tokenOff)
	if trimmed.text == "" {
		return bad(hashField.off, "hash field %s holds no hash", snippet(hashField.text[:end+1]))
	}
	token, tokenOff = trimmed.text, trimmed.off
	if !isHashToken(token) {
		return bad(tokenOff, "hash %s is not 8 to 64 hex digits", snippet(token))
	}
	if trailing := strings.TrimSpace(hashField.text[end+1:]); trailing != "" {
		return bad(hashField.off+end+1, "%s, found %s after the hash field instead of \" - \"", entryGrammar, snippet(trailing))
	}
	e.Hash, e.HashColumn = token, column(s, tokenOff)

	switch {
	case len(fields) < 2 || fields[1].text == "":
		return missing(fieldOff(fields, 1, len(s)), "time field")
	case len(fields) < 3 && !looksLikeTime(fields[1].text):
		// One field left that is not a time: it is the description.
		return missing(fields[1].off, "time field")
	case len(fields) < 3 || fields[2].text == "":
		return missing(fieldOff(fields, 2, len(s)), "description field")
	}
	// A description that holds another entry's hash field ("d<br>- `a` -
	// [hash:…] - …") shows a reader a second entry, which would go
	// unverified, read as this one's description. After a lone CR, the
	// scanner reports the line break already.
	if at := hashFieldOutsideCode(fields[2].text); at >= 0 && loneCR(s) < 0 {
		return bad(fields[2].off+at, "the description holds another hash field (%s); write each entry on a line of its own, and quote a hash in a description in backticks", snippet(fields[2].text[at:]))
	}
	e.Time, e.Description = fields[1].text, fields[2].text
	return e, true
}

func fieldOff(fields []field, k, fallback int) int {
	if k < len(fields) {
		return fields[k].off
	}
	return fallback
}

// looksLikeTime is deliberately loose ("2025-…", "<timestamp>"): it only
// decides which field to call missing when one of the two is absent.
func looksLikeTime(s string) bool {
	return s != "" && (isDigit(s[0]) || s[0] == '<')
}

// isHashToken accepts an optional "sha256:" prefix, 8 to 64 hex digits, and
// an optional trailing "..." or "…" that marks an abbreviated hash.
func isHashToken(t string) bool {
	if hasPrefixFoldASCII(t, "sha256:") {
		t = t[len("sha256:"):]
	}
	t = strings.TrimSuffix(strings.TrimSuffix(t, "..."), "…")
	if len(t) < 8 || len(t) > 64 {
		return false
	}
	for i := 0; i < len(t); i++ {
		if !isHexDigit(t[i]) {
			return false
		}
	}
	return true
}
