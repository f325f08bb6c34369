package evidence

import (
	"bufio"
	"io"
	"os"
	"strconv"
	"strings"
	"testing"
	"testing/iotest"
)

// seedTokens reads testdata/tokens.txt: one Go-quoted token per line, '#'
// starts a comment line.
func seedTokens(tb testing.TB) []string {
	tb.Helper()
	f, err := os.Open("testdata/tokens.txt")
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	var tokens []string
	scanner := bufio.NewScanner(f)
	for line := 1; scanner.Scan(); line++ {
		text := strings.TrimSpace(scanner.Text())
		if text == "" || strings.HasPrefix(text, "#") {
			continue
		}
		token, err := strconv.Unquote(text)
		if err != nil {
			tb.Fatalf("testdata/tokens.txt:%d: want a Go-quoted string, got %s", line, text)
		}
		tokens = append(tokens, token)
	}
	if err := scanner.Err(); err != nil {
		tb.Fatal(err)
	}
	return tokens
}

func FuzzParseToken(f *testing.F) {
	for _, token := range seedTokens(f) {
		f.Add(token)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		tok := ParseToken(raw)
		if tok.Raw != raw {
			t.Fatalf("Raw = %q, want the input %q", tok.Raw, raw)
		}
		if tok.Verifiable == (tok.Reason != "") {
			t.Fatalf("Verifiable = %v with Reason %q: exactly one must be set", tok.Verifiable, tok.Reason)
		}
		if tok.Malformed && (tok.Verifiable || tok.Hex != "") {
			t.Fatalf("malformed token %+v must be unverifiable and carry no hex", tok)
		}
		if !tok.Malformed && tok.Hex == "" {
			t.Fatalf("token %+v is not malformed yet has no hex digits", tok)
		}
		if tok.Hex != strings.ToLower(tok.Hex) || !isHex(tok.Hex) {
			t.Fatalf("Hex = %q, want lower-case hex digits only", tok.Hex)
		}
		if tok.Ellipsis != "" && (!tok.Verifiable || strings.Trim(tok.Ellipsis, ".…") != "") {
			t.Fatalf("Ellipsis %q on %+v: only a verifiable token carries one, and only dots or \"…\"", tok.Ellipsis, tok)
		}
		if tok.Reason != "" && !strings.HasPrefix(tok.Reason, "hash ") {
			t.Fatalf("Reason %q does not start with \"hash \"", tok.Reason)
		}
		if !tok.Verifiable {
			if tok.Matches(strings.Repeat("0", 64)) || tok.Matches(tok.Hex) {
				t.Fatalf("unverifiable token %+v matched", tok)
			}
			return
		}
		if n := len(tok.Hex); n < minVerifiableDigits || n > maxDigestDigits {
			t.Fatalf("verifiable token has %d hex digits, want 16..64", n)
		}
		full := tok.Hex + strings.Repeat("0", maxDigestDigits-len(tok.Hex))
		if !tok.Matches(full) {
			t.Fatalf("%+v does not match a digest %q that starts with its digits", tok, full)
		}
		flipped := []byte(full)
		if flipped[0] == '0' {
			flipped[0] = '1'
		} else {
			flipped[0] = '0'
		}
		if tok.Matches(string(flipped)) {
			t.Fatalf("%+v matches %q, whose first digit differs", tok, flipped)
		}
	})
}

// FuzzHashReader feeds data in chunks of a fuzzed size and checks the digest
// against crypto/sha256 over the whole slice at once.
func FuzzHashReader(f *testing.F) {
	f.Add([]byte(""), uint16(1))
	f.Add([]byte("abc"), uint16(2))
	for _, token := range seedTokens(f) {
		f.Add([]byte(token), uint16(len(token)%7+1))
	}
	f.Fuzz(func(t *testing.T, data []byte, chunk uint16) {
		var r io.Reader = &chunkReader{data: data, size: int(chunk)}
		if chunk%2 == 0 {
			r = iotest.DataErrReader(r)
		}
		got, err := HashReader(r)
		if err != nil {
			t.Fatalf("HashReader: %v", err)
		}
		if want := sumOf(data); got != want {
			t.Fatalf("HashReader = %+v, want %+v", got, want)
		}
	})
}

// chunkReader returns at most size bytes per Read; size 0 means one byte.
type chunkReader struct {
	data []byte
	size int
}

func (c *chunkReader) Read(p []byte) (int, error) {
	if len(c.data) == 0 {
		return 0, io.EOF
	}
	n := copy(p[:min(len(p), max(c.size, 1))], c.data)
	c.data = c.data[n:]
	return n, nil
}
