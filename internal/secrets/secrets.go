// Package secrets finds credentials written into the documents of a run: a
// token or key with a recognisable shape anywhere in a string, and the value
// of a member named like a credential (password, token, api_key, ...).
//
// It works on the JSON data model the checker decodes documents into
// (map[string]any, []any, string, json.Number or float64, bool, nil) and
// on free text such as a ledger record. Every string is first searched for
// cheap lower-case markers, and a pattern's regular expression runs only
// on a string that holds one of its markers: Go's regular expressions cost
// about 200 ns a byte with these patterns, a marker search almost nothing.
package secrets

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"
)

// MaxHits bounds the hits reported for one document or one text: a
// document full of keys says so a hundred times, not a million.
const MaxHits = 100

// KindMember is the Kind of a hit found by its member's name rather than
// by the value's shape.
const KindMember = "a credential member"

// Hit is one credential found.
type Hit struct {
	// Pointer is the RFC 6901 JSON pointer of the string holding the
	// credential ("" for free text).
	Pointer string
	// Kind names what the value looks like ("a GitHub token", ...), or is
	// KindMember.
	Kind string
	// Member is the member's name as the document writes it, for a
	// KindMember hit.
	Member string
	// Masked shows enough of the credential to find it, never the
	// credential itself (see Mask).
	Masked string
}

// pattern is a credential with a recognisable shape; every match holds one
// of markers, lower-cased.
type pattern struct {
	kind    string
	re      func() *regexp.Regexp
	markers []string
}

// compiled is a pattern compiled on first use: a pattern is only tried on
// a string that holds one of its markers, which few runs have, so a check
// does not compile the ten at start.
func compiled(expr string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })
}

// patterns are tried in this order, so the hits of one string come in it.
var patterns = []pattern{
	{"an AWS access key id", compiled(`\b(AKIA|ASIA|AGPA|AIDA|AROA|ANPA|ANVA|A3T[A-Z0-9])[A-Z0-9]{16}\b`),
		[]string{"akia", "asia", "agpa", "aida", "aroa", "anpa", "anva", "a3t"}},
	{"a private key block", compiled(`-----BEGIN ([A-Z0-9]+ )*PRIVATE KEY( BLOCK)?-----`),
		[]string{"private key"}},
	{"a GitHub token", compiled(`\b((ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{22,})`),
		[]string{"ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"}},
	{"a GitLab token", compiled(`\bglpat-[A-Za-z0-9_-]{20,}`), []string{"glpat-"}},
	{"a Slack token", compiled(`\bxox[abposr]-[A-Za-z0-9-]{10,}`), []string{"xox"}},
	{"a Stripe live key", compiled(`\b(sk|rk)_live_[A-Za-z0-9]{16,}`), []string{"_live_"}},
	{"a Google API key", compiled(`\bAIza[0-9A-Za-z_-]{35}`), []string{"aiza"}},
	{"an OpenAI API key", compiled(`\bsk-(proj-)?[A-Za-z0-9_-]{32,}`), []string{"sk-"}},
	{"an npm token", compiled(`\bnpm_[A-Za-z0-9]{36}`), []string{"npm_"}},
	// "secret" is a common word, so its marker is the assignment itself
	// (secretAssignment); the other words are rare enough alone.
	{"a password assignment", compiled(`(?i)\b(password|passwd|pwd|secret|api[_-]?key|access[_-]?token|auth[_-]?token|client[_-]?secret)\s*[=:]\s*['"]?[^\s'",;$<*{(\[][^\s'",;]{3,}`),
		[]string{"password", "passwd", "pwd", "api_key", "api-key", "apikey", "access_token", "access-token",
			"accesstoken", "auth_token", "auth-token", "authtoken", "client_secret", "client-secret", "clientsecret"}},
}

// assignment is the index of the password assignment among patterns.
const assignment = 9

// secretKeys are member names, lower-cased, whose value is a credential
// whatever it looks like.
var secretKeys = map[string]bool{
	"password": true, "passwd": true, "secret": true, "client_secret": true, "api_key": true, "apikey": true,
	"access_token": true, "auth_token": true, "private_key": true, "secret_key": true, "token": true,
}

// placeholders are values, trimmed and lower-cased, that name no credential.
var placeholders = map[string]bool{
	"": true, "null": true, "none": true, "unknown": true, "redacted": true, "changeme": true,
	"required": true, "optional": true, "true": true, "false": true, "n/a": true,
}

// marker is a lower-case substring that some match of pattern must hold.
type marker struct {
	text    string
	pattern int
}

// markersByFirst lists the markers by their first byte; markerTrigrams
// holds a hash of the first three bytes of every marker (all have three or
// more), so that most bytes of a string are passed over at one look-up.
var markersByFirst, markerTrigrams = func() (t [256][]marker, trigrams [1 << 16 / 64]uint64) {
	for i, p := range patterns {
		if p.re == nil || len(p.markers) == 0 {
			panic(fmt.Sprintf("secrets: pattern %q has no marker", p.kind))
		}
		for _, m := range p.markers {
			t[m[0]] = append(t[m[0]], marker{m, i})
		}
	}
	t['s'] = append(t['s'], marker{"secret", assignment})
	if patterns[assignment].kind != "a password assignment" {
		panic("secrets: the assignment index is stale")
	}
	for _, ms := range t {
		for _, m := range ms {
			h := trigramHash(m.text[0], m.text[1], m.text[2])
			trigrams[h/64] |= 1 << (h % 64)
		}
	}
	return t, trigrams
}()

// trigramHash maps three lower-case bytes to 16 bits (Fibonacci hashing).
func trigramHash(a, b, c byte) uint32 {
	return (uint32(a)<<16 | uint32(b)<<8 | uint32(c)) * 2654435769 >> 16
}

// suspects returns a bit for every pattern whose markers s holds.
func suspects(s string) uint32 {
	// Outside ASCII only two characters match an ASCII letter in a
	// case-insensitive pattern: ſ (long s) matches s and the Kelvin sign
	// k. Every other byte above ASCII is in no marker.
	if strings.Contains(s, "ſ") || strings.Contains(s, "\u212a") {
		s = foldToASCII.Replace(s)
	}
	return suspectsLower(s)
}

var foldToASCII = strings.NewReplacer("ſ", "s", "\u212a", "k")

// suspectsLower is suspects once ſ and the Kelvin sign are replaced;
// ASCII letters are lower-cased on the fly.
func suspectsLower(s string) uint32 {
	var found uint32
	// key holds the last three bytes read, lower-cased: the trigram that
	// starts at i.
	var key uint32
	for j := 0; j < len(s); j++ {
		key = (key<<8 | uint32(lowerTable[s[j]])) & 0xffffff
		i := j - 2
		if h := trigramHash(byte(key>>16), byte(key>>8), byte(key)); i < 0 || markerTrigrams[h/64]&(1<<(h%64)) == 0 {
			continue
		}
		for _, m := range markersByFirst[key>>16] {
			if found&(1<<m.pattern) != 0 || !hasPrefixLower(s[i:], m.text) {
				continue
			}
			if m.text == "secret" && !assignedAfter(s[i+len(m.text):]) {
				continue
			}
			found |= 1 << m.pattern
		}
	}
	return found
}

// lowerTable lower-cases ASCII letters and keeps every other byte.
var lowerTable = func() (t [256]byte) {
	for i := range t {
		t[i] = byte(i)
		if 'A' <= i && i <= 'Z' {
			t[i] += 'a' - 'A'
		}
	}
	return t
}()

func lowerASCII(c byte) byte { return lowerTable[c] }

// hasPrefixLower reports whether s starts with the lower-case prefix,
// ASCII case ignored.
func hasPrefixLower(s, prefix string) bool {
	if len(s) < len(prefix) {
		return false
	}
	for i := 0; i < len(prefix); i++ {
		if lowerASCII(s[i]) != prefix[i] {
			return false
		}
	}
	return true
}

// assignedAfter reports whether s starts with `\s*[=:]` (\s as RE2 has it).
func assignedAfter(s string) bool {
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case ' ', '\t', '\n', '\f', '\r':
		case '=', ':':
			return true
		default:
			return false
		}
	}
	return false
}

// Mask shows enough of a secret to find it, never the secret itself: the
// first four characters of a secret longer than eight, and its length in
// characters (code points).
func Mask(s string) string {
	n := utf8.RuneCountInString(s)
	if n > 8 {
		end := 0
		for range 4 {
			_, size := utf8.DecodeRuneInString(s[end:])
			end += size
		}
		return s[:end] + "… (" + strconv.Itoa(n) + " characters, masked)"
	}
	return "… (" + strconv.Itoa(n) + " characters, masked)"
}

// Text returns the credentials in free text, such as a ledger record: one
// hit per kind of credential found, with an empty Pointer.
func Text(s string) []Hit {
	return appendShapes(nil, nil, s, MaxHits)
}

// appendShapes appends a hit for every pattern that matches s (its first
// match, masked), up to limit hits in all; w, when not nil, gives the
// pointer, worked out only for a hit.
func appendShapes(hits []Hit, w *walker, s string, limit int) []Hit {
	found := suspects(s)
	for i := 0; found != 0 && i < len(patterns) && len(hits) < limit; i++ {
		if found&(1<<i) == 0 {
			continue
		}
		if loc := patterns[i].re().FindStringIndex(s); loc != nil {
			hits = append(hits, Hit{Pointer: w.pointer(), Kind: patterns[i].kind, Masked: Mask(s[loc[0]:loc[1]])})
		}
	}
	return hits
}

// memberHolds reports whether value, held by a member named name, is a
// credential: the name is one of secretKeys and the value is no
// placeholder and no reference ("$ENV_VAR", "<set in vault>", "***", "${X}").
func memberHolds(name, value string) bool {
	// Every key is 5 to 13 bytes long; most names are passed over here.
	if len(name) < 5 || len(name) > 3*13 || !secretKeys[strings.ToLower(name)] {
		return false
	}
	v := strings.TrimSpace(value)
	if placeholders[strings.ToLower(v)] {
		return false
	}
	return !strings.ContainsRune("$<*{([", firstRune(v))
}

func firstRune(s string) rune {
	r, _ := utf8.DecodeRuneInString(s)
	return r
}

// Scan returns the credentials in a value of the JSON data model, by
// pointer, at most MaxHits of them. Which hits a document with more than
// MaxHits keeps does not depend on map order.
func Scan(v any) []Hit {
	w := walker{limit: MaxHits}
	w.walk(v)
	if len(w.hits) >= w.limit {
		// Over the bound, the hits kept must not depend on map
		// iteration order: walk again in member order.
		w = walker{limit: MaxHits, sorted: true}
		w.walk(v)
	}
	slices.SortStableFunc(w.hits, func(a, b Hit) int { return strings.Compare(a.Pointer, b.Pointer) })
	return w.hits
}

type walker struct {
	limit  int
	sorted bool
	path   []string // escaped reference tokens to the current value
	hits   []Hit
}

func (w *walker) full() bool { return len(w.hits) >= w.limit }

func (w *walker) pointer() string {
	if w == nil || len(w.path) == 0 {
		return ""
	}
	return "/" + strings.Join(w.path, "/")
}

func (w *walker) walk(v any) {
	switch v := v.(type) {
	case string:
		w.hits = appendShapes(w.hits, w, v, w.limit)
	case []any:
		for i, x := range v {
			if w.full() {
				return
			}
			w.path = append(w.path, strconv.Itoa(i))
			w.walk(x)
			w.path = w.path[:len(w.path)-1]
		}
	case map[string]any:
		if w.sorted {
			for _, k := range slices.Sorted(maps.Keys(v)) {
				w.member(k, v[k])
			}
			return
		}
		for k, x := range v {
			w.member(k, x)
		}
	}
}

func (w *walker) member(name string, v any) {
	if w.full() {
		return
	}
	w.path = append(w.path, escapeToken(name))
	if s, ok := v.(string); ok && memberHolds(name, s) {
		w.hits = append(w.hits, Hit{Pointer: w.pointer(), Kind: KindMember, Member: name, Masked: Mask(s)})
	}
	w.walk(v)
	w.path = w.path[:len(w.path)-1]
}

// escapeToken escapes a member name as an RFC 6901 reference token.
func escapeToken(s string) string {
	if strings.IndexByte(s, '~') < 0 && strings.IndexByte(s, '/') < 0 {
		return s
	}
	return strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1")
}
