package jsonpos

import (
	"bytes"
	"unicode/utf16"
	"unicode/utf8"
)

// plainStringByte marks the bytes a string can hold as they are: printable
// ASCII other than the quote and the backslash. Anything else needs a look.
var plainStringByte = func() (t [256]bool) {
	for c := 0x20; c < utf8.RuneSelf; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

type stringFault int

const (
	faultNone         stringFault = iota
	faultUnterminated             // the input ends inside the string
	faultControl                  // a raw byte below 0x20 at faultAt
	faultEscape                   // a bad escape whose backslash is at faultAt
)

// stringScan is what reading one string found besides its content.
type stringScan struct {
	end          int // just past the closing quote
	invalidAt    int // offset of the first invalid UTF-8 byte, -1 if none
	invalidCount int
	fault        stringFault
	faultAt      int
}

// appendString decodes string content from data[from:] up to the closing
// quote and appends it to dst. It decodes exactly as encoding/json does:
// every invalid UTF-8 byte and every unpaired surrogate escape becomes
// U+FFFD. It stops at the first fault; the content is then incomplete.
func appendString(dst, data []byte, from int) ([]byte, stringScan) {
	scan := stringScan{invalidAt: -1}
	i := from
	for i < len(data) {
		c := data[i]
		if plainStringByte[c] {
			dst = append(dst, c)
			i++
			continue
		}
		switch {
		case c == '"':
			scan.end = i + 1
			return dst, scan
		case c == '\\':
			if i+1 >= len(data) {
				scan.fault = faultUnterminated
				return dst, scan
			}
			switch e := data[i+1]; e {
			case '"', '\\', '/':
				dst = append(dst, e)
			case 'b':
				dst = append(dst, '\b')
			case 'f':
				dst = append(dst, '\f')
			case 'n':
				dst = append(dst, '\n')
			case 'r':
				dst = append(dst, '\r')
			case 't':
				dst = append(dst, '\t')
			case 'u':
				r, fault := hexEscape(data, i)
				if fault != faultNone {
					scan.fault, scan.faultAt = fault, i
					return dst, scan
				}
				i += 6
				if utf16.IsSurrogate(r) {
					// Like encoding/json: take the pair if the next escape
					// completes it, else this half alone becomes U+FFFD and
					// the next escape is read on its own.
					if low, f := hexEscape(data, i); f == faultNone {
						if pair := utf16.DecodeRune(r, low); pair != utf8.RuneError {
							dst = utf8.AppendRune(dst, pair)
							i += 6
							continue
						}
					}
					r = utf8.RuneError
				}
				dst = utf8.AppendRune(dst, r)
				continue
			default:
				scan.fault, scan.faultAt = faultEscape, i
				return dst, scan
			}
			i += 2
		case c < 0x20:
			scan.fault, scan.faultAt = faultControl, i
			return dst, scan
		default:
			r, size := utf8.DecodeRune(data[i:])
			if r == utf8.RuneError && size == 1 {
				if scan.invalidAt < 0 {
					scan.invalidAt = i
				}
				scan.invalidCount++
			}
			dst = utf8.AppendRune(dst, r)
			i += size
		}
	}
	scan.fault = faultUnterminated
	return dst, scan
}

// hexEscape reads the \uXXXX escape whose backslash is at data[at].
func hexEscape(data []byte, at int) (rune, stringFault) {
	if at+1 >= len(data) {
		return 0, faultUnterminated
	}
	if data[at] != '\\' || data[at+1] != 'u' {
		return 0, faultEscape
	}
	var r rune
	for k := at + 2; k < at+6; k++ {
		if k >= len(data) {
			return 0, faultUnterminated
		}
		d := hexValue(data[k])
		if d < 0 {
			return 0, faultEscape
		}
		r = r<<4 | d
	}
	return r, faultNone
}

func hexValue(c byte) rune {
	switch {
	case '0' <= c && c <= '9':
		return rune(c - '0')
	case 'a' <= c && c <= 'f':
		return rune(c - 'a' + 10)
	case 'A' <= c && c <= 'F':
		return rune(c - 'A' + 10)
	}
	return -1
}

// skipString returns the offset just past the closing quote of the string
// whose opening quote is at data[open], or -1 if the input ends first. It
// relies on the parity of the backslashes before a quote, which is exact
// for well-formed strings and harmless for malformed ones.
func skipString(data []byte, open int) int {
	i := open + 1
	for i < len(data) {
		q := bytes.IndexByte(data[i:], '"')
		if q < 0 {
			return -1
		}
		at := i + q
		backslashes := 0
		for k := at - 1; k > open && data[k] == '\\'; k-- {
			backslashes++
		}
		if backslashes%2 == 0 {
			return at + 1
		}
		i = at + 1
	}
	return -1
}
