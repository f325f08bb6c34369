package evidence

import (
	"strings"
	"testing"
)

const (
	// sha256("abc"), the FIPS 180-2 test vector.
	abcDigest = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
	hex16     = "ba7816bf8f01cfea"
)

func TestParseToken(t *testing.T) {
	tests := []struct {
		name       string
		raw        string
		hex        string
		verifiable bool
		malformed  bool
		reason     string
		ellipsis   string
	}{
		{name: "16 hex digits as the spec logs them", raw: hex16, hex: hex16, verifiable: true},
		{name: "64 hex digits", raw: abcDigest, hex: abcDigest, verifiable: true},
		{name: "upper-case hex is normalised", raw: strings.ToUpper(hex16), hex: hex16, verifiable: true},
		{name: "surrounding spaces", raw: "  \t" + hex16 + " ", hex: hex16, verifiable: true},
		{name: "sha256 prefix", raw: "sha256:" + abcDigest, hex: abcDigest, verifiable: true},
		{name: "upper-case SHA256 prefix", raw: "SHA256:" + hex16, hex: hex16, verifiable: true},
		{name: "space after the prefix", raw: "sha256: " + hex16, hex: hex16, verifiable: true},
		{
			name: "8 hex digits are too few", raw: "a3f5c8d2", hex: "a3f5c8d2",
			reason: `hash "a3f5c8d2" has 8 hex digits; at least 16 are needed to verify it`,
		},
		{
			name: "one hex digit", raw: "a", hex: "a",
			reason: `hash "a" has 1 hex digit; at least 16 are needed to verify it`,
		},
		{
			name: "15 hex digits are one too few", raw: hex16[:15], hex: hex16[:15],
			reason: `hash "ba7816bf8f01cfe" has 15 hex digits; at least 16 are needed to verify it`,
		},
		{
			name: "short hash keeps its prefix in the message", raw: "sha256:A3F5C8D2", hex: "a3f5c8d2",
			reason: `hash "sha256:A3F5C8D2" has 8 hex digits; at least 16 are needed to verify it`,
		},
		{
			name: "65 hex digits cannot be a SHA-256 digest", raw: abcDigest + "0", hex: abcDigest + "0",
			reason: `hash "` + abcDigest + `0" has 65 hex digits; a SHA-256 digest has only 64`,
		},
		{
			name: "16 hex digits and three dots are verifiable", raw: "a3f5c8d21f4e9b76...", hex: "a3f5c8d21f4e9b76",
			verifiable: true, ellipsis: "...",
		},
		{
			name: "16 hex digits and an ellipsis character are verifiable", raw: "a3f5c8d21f4e9b76…", hex: "a3f5c8d21f4e9b76",
			verifiable: true, ellipsis: "…",
		},
		{
			name: "64 hex digits and three dots", raw: "sha256:" + abcDigest + "...", hex: abcDigest,
			verifiable: true, ellipsis: "...",
		},
		{
			name: "15 hex digits and three dots are too few", raw: hex16[:15] + "...", hex: hex16[:15],
			reason: `hash "ba7816bf8f01cfe..." has 15 hex digits before its "..."; at least 16 are needed to verify it`,
		},
		{
			name: "short and elided names both", raw: "sha256:a3f5 ...", hex: "a3f5",
			reason: `hash "sha256:a3f5 ..." has 4 hex digits before its "..."; at least 16 are needed to verify it`,
		},
		{
			name: "65 hex digits and three dots are still too many", raw: abcDigest + "0...", hex: abcDigest + "0",
			reason: `hash "` + abcDigest + `0..." has 65 hex digits; a SHA-256 digest has only 64`,
		},
		{
			name: "a trailing period is not an elision", raw: hex16 + ".", malformed: true,
			reason: `hash "ba7816bf8f01cfea." is not hexadecimal`,
		},
		{name: "not hexadecimal", raw: "xyz", malformed: true, reason: `hash "xyz" is not hexadecimal`},
		{
			name: "one non-hex letter among 16", raw: "g" + hex16[1:], malformed: true,
			reason: `hash "ga7816bf8f01cfea" is not hexadecimal`,
		},
		{
			name: "inner space", raw: "ba7816bf 8f01cfea", malformed: true,
			reason: `hash "ba7816bf 8f01cfea" is not hexadecimal`,
		},
		{
			name: "other algorithm prefix", raw: "md5:" + hex16, malformed: true,
			reason: `hash "md5:ba7816bf8f01cfea" is not hexadecimal`,
		},
		{
			name: "full-width digits are not hex", raw: "１２３４５６７８９０１２３４５６", malformed: true,
			reason: `hash "１２３４５６７８９０１２３４５６" is not hexadecimal`,
		},
		{
			name: "control characters are quoted", raw: "ab\x00cd", malformed: true,
			reason: `hash "ab\x00cd" is not hexadecimal`,
		},
		{name: "empty", raw: "", malformed: true, reason: "hash is empty"},
		{name: "only spaces", raw: " \t ", malformed: true, reason: "hash is empty"},
		{name: "prefix without digits", raw: "sha256:", malformed: true, reason: `hash "sha256:" has no hex digits`},
		{name: "only an elision", raw: "...", malformed: true, reason: `hash "..." has no hex digits`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := ParseToken(tt.raw)
			want := Token{Raw: tt.raw, Hex: tt.hex, Verifiable: tt.verifiable, Malformed: tt.malformed, Reason: tt.reason, Ellipsis: tt.ellipsis}
			if got != want {
				t.Errorf("ParseToken(%q)\n got %+v\nwant %+v", tt.raw, got, want)
			}
		})
	}
}

func TestParseTokenShortensLongGarbageInReason(t *testing.T) {
	raw := strings.Repeat("z", 500)
	got := ParseToken(raw).Reason
	want := `hash "` + strings.Repeat("z", 64) + `" (first 64 of 500 characters) is not hexadecimal`
	if got != want {
		t.Errorf("reason for 500 'z':\n got %q\nwant %q", got, want)
	}
}

func TestTokenMatches(t *testing.T) {
	tests := []struct {
		name  string
		token Token
		sum   string
		want  bool
	}{
		{name: "16-digit prefix", token: ParseToken(hex16), sum: abcDigest, want: true},
		{name: "full digest", token: ParseToken(abcDigest), sum: abcDigest, want: true},
		{name: "upper-case token", token: ParseToken(strings.ToUpper(hex16)), sum: abcDigest, want: true},
		{name: "sha256 prefix", token: ParseToken("sha256:" + abcDigest), sum: abcDigest, want: true},
		{name: "upper-case sum", token: ParseToken(hex16), sum: strings.ToUpper(abcDigest), want: true},
		{name: "last digit differs", token: ParseToken(hex16[:15] + "b"), sum: abcDigest, want: false},
		{name: "first digit differs", token: ParseToken("c" + hex16[1:]), sum: abcDigest, want: false},
		{name: "digits from the middle of the digest", token: ParseToken(abcDigest[8:24]), sum: abcDigest, want: false},
		{name: "last digit of 64 differs", token: ParseToken(abcDigest[:63] + "e"), sum: abcDigest, want: false},
		{name: "8 digits never match", token: ParseToken(abcDigest[:8]), sum: abcDigest, want: false},
		{name: "16 digits and an ellipsis match", token: ParseToken(hex16 + "..."), sum: abcDigest, want: true},
		{name: "16 digits and an ellipsis still compare", token: ParseToken(hex16[:15] + "b..."), sum: abcDigest, want: false},
		{name: "short and elided never matches", token: ParseToken(hex16[:12] + "..."), sum: abcDigest, want: false},
		{name: "65 digits never match", token: ParseToken(abcDigest + "0"), sum: abcDigest + "0", want: false},
		{name: "non-hex never matches", token: ParseToken("xyz"), sum: abcDigest, want: false},
		{name: "empty never matches", token: ParseToken(""), sum: abcDigest, want: false},
		{name: "sum shorter than token", token: ParseToken(abcDigest), sum: abcDigest[:32], want: false},
		{name: "empty sum", token: ParseToken(hex16), sum: "", want: false},
		{name: "zero token", token: Token{}, sum: abcDigest, want: false},
		{name: "hand-built verifiable token without digits", token: Token{Verifiable: true}, sum: abcDigest, want: false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.token.Matches(tt.sum); got != tt.want {
				t.Errorf("%+v.Matches(%q) = %v, want %v", tt.token, tt.sum, got, tt.want)
			}
		})
	}
}

// TestTokenContradicts: digits that are not the start of the digest are
// wrong however few they are; only a malformed token, or one longer than
// a digest, contradicts nothing.
func TestTokenContradicts(t *testing.T) {
	tests := []struct {
		name  string
		token Token
		sum   string
		want  bool
	}{
		{name: "16-digit prefix", token: ParseToken(hex16), sum: abcDigest, want: false},
		{name: "16 digits, last differs", token: ParseToken(hex16[:15] + "b"), sum: abcDigest, want: true},
		{name: "8-digit prefix", token: ParseToken(abcDigest[:8]), sum: abcDigest, want: false},
		{name: "8 digits, upper case", token: ParseToken(strings.ToUpper(abcDigest[:8])), sum: abcDigest, want: false},
		{name: "8 digits, last differs", token: ParseToken(abcDigest[:7] + "0"), sum: abcDigest, want: true},
		{name: "12 digits and an ellipsis, first differs", token: ParseToken("c" + hex16[1:12] + "..."), sum: abcDigest, want: true},
		{name: "65 digits", token: ParseToken(abcDigest + "0"), sum: abcDigest, want: false},
		{name: "non-hex", token: ParseToken("xyz"), sum: abcDigest, want: false},
		{name: "empty", token: ParseToken(""), sum: abcDigest, want: false},
		{name: "sum shorter than token", token: ParseToken(abcDigest), sum: abcDigest[:32], want: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.token.Contradicts(tt.sum); got != tt.want {
				t.Errorf("%+v.Contradicts(%q) = %v, want %v", tt.token, tt.sum, got, tt.want)
			}
		})
	}
}

func TestShorterThan(t *testing.T) {
	tests := []struct {
		raw  string
		min  int
		want bool
	}{
		{"a3f5c8d21f4e9b76", 0, false},
		{"a3f5c8d21f4e9b76", 16, false},
		{"a3f5c8d21f4e9b76", 17, true},
		{"sha256:a3f5c8d21f4e9b76a3f5", 20, false},
		{"a3f5c8d2", 20, true},               // unverifiable, and short of the team's number too
		{"a3f5c8d21f4e9b76...", 32, true},    // the digits count, not the ellipsis
		{"zzzz", 20, false},                  // malformed: another fault
		{strings.Repeat("a", 65), 64, false}, // longer than a digest: another fault
		{strings.Repeat("a", 64), 64, false},
	}
	for _, tc := range tests {
		if got := ParseToken(tc.raw).ShorterThan(tc.min); got != tc.want {
			t.Errorf("ParseToken(%q).ShorterThan(%d) = %v, want %v", tc.raw, tc.min, got, tc.want)
		}
	}
}
