package evidence

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// The spec logs the first 16 hex digits of the digest; fewer are too easy to
// collide with to count as proof, and more than 64 cannot be a SHA-256 prefix.
const (
	minVerifiableDigits = 16
	maxDigestDigits     = 64
)

// SpecDigits is the number of hex digits the spec logs, the least a token
// may have; DigestDigits is all of a SHA-256 digest. A team may require
// any number between them (the configuration's evidence: min-hash-digits).
const (
	SpecDigits   = minVerifiableDigits
	DigestDigits = maxDigestDigits
)

// Comparable reports whether the token's digits can be held against a
// digest at all: it is hex, with some digits and no more than a digest
// has. A malformed token, or one longer than a digest, is another fault.
func (t Token) Comparable() bool {
	return !t.Malformed && t.Hex != "" && len(t.Hex) <= maxDigestDigits
}

// ShorterThan reports whether the token is hex with fewer than least digits
// (and Comparable).
func (t Token) ShorterThan(least int) bool {
	return t.Comparable() && len(t.Hex) < least
}

// Token is a logged hash as written in an evidence entry.
type Token struct {
	Raw        string
	Hex        string // normalised lower-case hex digits, "" if none
	Verifiable bool   // 16..64 hex digits
	Reason     string // why the token cannot be verified; "" when Verifiable
	Malformed  bool   // not hex at all / empty (vs merely too short or too long)
	// Ellipsis is a trailing "..." or "…" as written after the digits of a
	// verifiable token: the digits are all there and are verified, but the
	// log drifted from the spec's form.
	Ellipsis string
}

// ParseToken accepts "a3f5c8d21f4e9b76", "sha256:<hex>", "SHA256:<hex>",
// upper-case hex, surrounding spaces; 16..64 hex digits are verifiable, with
// or without a trailing "..." or "…" (kept in Ellipsis); fewer than 16 are
// not, ellipsis or not (Reason says why).
//
// More than 64 hex digits is neither verifiable nor malformed: it is hex, most
// likely a digest of another algorithm, and cannot be checked against SHA-256.
func ParseToken(raw string) Token {
	t := Token{Raw: raw}
	written := strings.TrimSpace(raw)
	if written == "" {
		t.Malformed, t.Reason = true, "hash is empty"
		return t
	}
	digits := written
	if len(digits) >= len("sha256:") && strings.EqualFold(digits[:len("sha256:")], "sha256:") {
		digits = strings.TrimSpace(digits[len("sha256:"):])
	}
	digits, ellipsis := cutEllipsis(digits)
	quoted := quoteForMessage(written)
	switch {
	case digits == "":
		t.Malformed, t.Reason = true, fmt.Sprintf("hash %s has no hex digits", quoted)
		return t
	case !isHex(digits):
		t.Malformed, t.Reason = true, fmt.Sprintf("hash %s is not hexadecimal", quoted)
		return t
	}
	t.Hex = strings.ToLower(digits)
	switch n := len(t.Hex); {
	case n < minVerifiableDigits && ellipsis != "":
		t.Reason = fmt.Sprintf("hash %s has %s before its %q; at least %d are needed to verify it", quoted, countDigits(n), ellipsis, minVerifiableDigits)
	case n < minVerifiableDigits:
		t.Reason = fmt.Sprintf("hash %s has %s; at least %d are needed to verify it", quoted, countDigits(n), minVerifiableDigits)
	case n > maxDigestDigits:
		t.Reason = fmt.Sprintf("hash %s has %s; a SHA-256 digest has only %d", quoted, countDigits(n), maxDigestDigits)
	default:
		t.Verifiable, t.Ellipsis = true, ellipsis
	}
	return t
}

// Matches reports whether the full hex digest sum starts with the token's hex
// digits (only for Verifiable tokens). Case is ignored in sumHex.
func (t Token) Matches(sumHex string) bool {
	// The length check also refuses a hand-built Token{Verifiable: true} with
	// no digits, which would otherwise match every file.
	if !t.Verifiable || len(t.Hex) < minVerifiableDigits {
		return false
	}
	return digestStartsWith(sumHex, t.Hex)
}

// Contradicts reports whether the token's hex digits, however few, are
// not the start of the full hex digest sum: a reader who cuts the file's
// digest to as many digits sees another hash. A token too short to verify
// can still be wrong. A token that is not Comparable contradicts nothing:
// it is another fault.
func (t Token) Contradicts(sumHex string) bool {
	if !t.Comparable() {
		return false
	}
	return !digestStartsWith(sumHex, t.Hex)
}

// digestStartsWith reports whether the full hex digest sumHex, in either
// case, starts with the lower-case hex digits hex.
func digestStartsWith(sumHex, hex string) bool {
	if len(hex) > len(sumHex) {
		return false
	}
	for i := 0; i < len(hex); i++ {
		if lowerASCII(sumHex[i]) != hex[i] {
			return false
		}
	}
	return true
}

// cutEllipsis removes a trailing "..." or "…" (and any run of dots around it),
// returning what is left and the elision as written. One or two dots are not
// an elision; they stay and make the token non-hexadecimal.
func cutEllipsis(s string) (rest, ellipsis string) {
	rest = strings.TrimRight(s, ".…")
	ellipsis = s[len(rest):]
	if !strings.Contains(ellipsis, "…") && len(ellipsis) < len("...") {
		return s, ""
	}
	return strings.TrimSpace(rest), ellipsis
}

func isHex(s string) bool {
	for i := 0; i < len(s); i++ {
		c := lowerASCII(s[i])
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

func lowerASCII(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + ('a' - 'A')
	}
	return c
}

func countDigits(n int) string {
	if n == 1 {
		return "1 hex digit"
	}
	return strconv.Itoa(n) + " hex digits"
}

// quoteForMessage quotes a token for a message, shortening pasted garbage so a
// finding stays one readable line; any real digest (128 hex for SHA-512, with
// a prefix) is shown whole.
func quoteForMessage(s string) string {
	const whole, shown = 160, 64
	n := utf8.RuneCountInString(s)
	if n <= whole {
		return strconv.Quote(s)
	}
	head, runes := s, 0
	for i := range s {
		if runes == shown {
			head = s[:i]
			break
		}
		runes++
	}
	return fmt.Sprintf("%s (first %d of %d characters)", strconv.Quote(head), shown, n)
}
