package evidence

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"
)

func sumOf(data []byte) Sum {
	raw := sha256.Sum256(data)
	return Sum{Hex: hex.EncodeToString(raw[:]), Size: int64(len(data)), Blank: len(bytes.TrimLeft(data, " \t\n\r\v\f")) == 0}
}

// patterned returns n bytes that differ at every buffer boundary, so a lost or
// repeated chunk changes the digest.
func patterned(n int) []byte {
	data := make([]byte, n)
	for i := range data {
		data[i] = byte(i*7 + i/251)
	}
	return data
}

func TestHashReader(t *testing.T) {
	big := patterned(3*bufferSize + 17)
	tests := []struct {
		name   string
		reader io.Reader
		want   Sum
	}{
		{
			name:   "empty",
			reader: strings.NewReader(""),
			want:   Sum{Hex: "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855", Size: 0, Blank: true},
		},
		// A file of white space alone shows a reader nothing: it is blank,
		// and one byte other than white space anywhere makes it not.
		{name: "white space alone", reader: strings.NewReader(" \t\r\n\v\f\n"), want: sumOf([]byte(" \t\r\n\v\f\n"))},
		{name: "white space one byte per read", reader: iotest.OneByteReader(strings.NewReader("\n\n  \n")), want: sumOf([]byte("\n\n  \n"))},
		{name: "white space past a buffer, then a letter", reader: strings.NewReader(strings.Repeat("\n", bufferSize+3) + "x"), want: sumOf([]byte(strings.Repeat("\n", bufferSize+3) + "x"))},
		{name: "a letter, then white space past a buffer", reader: strings.NewReader("x" + strings.Repeat(" ", bufferSize+3)), want: sumOf([]byte("x" + strings.Repeat(" ", bufferSize+3)))},
		{name: "a no-break space is not ASCII white space", reader: strings.NewReader("\u00a0\n"), want: sumOf([]byte("\u00a0\n"))},
		{name: "abc test vector", reader: strings.NewReader("abc"), want: Sum{Hex: abcDigest, Size: 3}},
		{name: "exactly one buffer", reader: bytes.NewReader(patterned(bufferSize)), want: sumOf(patterned(bufferSize))},
		{name: "several buffers and a tail", reader: bytes.NewReader(big), want: sumOf(big)},
		{name: "one byte per read", reader: iotest.OneByteReader(bytes.NewReader(big[:4099])), want: sumOf(big[:4099])},
		{name: "half a buffer per read", reader: iotest.HalfReader(bytes.NewReader(big)), want: sumOf(big)},
		{name: "data arrives with EOF", reader: iotest.DataErrReader(bytes.NewReader(big)), want: sumOf(big)},
		{name: "some empty reads between data", reader: &stutterReader{r: bytes.NewReader(big), empties: maxEmptyReads - 1}, want: sumOf(big)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := HashReader(tt.reader)
			if err != nil {
				t.Fatalf("HashReader: unexpected error %v", err)
			}
			if got != tt.want {
				t.Errorf("HashReader = %+v, want %+v", got, tt.want)
			}
		})
	}
}

func TestHashReaderErrors(t *testing.T) {
	errDisk := errors.New("input/output error")
	tests := []struct {
		name   string
		reader io.Reader
		want   error
	}{
		{name: "nil reader", reader: nil},
		{name: "error on first read", reader: iotest.ErrReader(errDisk), want: errDisk},
		{name: "error after some data", reader: io.MultiReader(bytes.NewReader(patterned(bufferSize+5)), iotest.ErrReader(errDisk)), want: errDisk},
		{name: "data and error together", reader: &dataThenErrReader{data: []byte("abc"), err: errDisk}, want: errDisk},
		{name: "reader that never makes progress", reader: &stutterReader{r: strings.NewReader("abc"), empties: -1}, want: io.ErrNoProgress},
		{name: "negative count", reader: badCountReader(-1), want: errInvalidRead},
		{name: "count beyond the buffer", reader: badCountReader(bufferSize + 1), want: errInvalidRead},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := HashReader(tt.reader)
			if err == nil {
				t.Fatalf("HashReader = %+v, want an error", got)
			}
			if tt.want != nil && !errors.Is(err, tt.want) {
				t.Errorf("HashReader error = %v, want %v", err, tt.want)
			}
			if got != (Sum{}) {
				t.Errorf("HashReader returned %+v alongside error %v, want a zero Sum", got, err)
			}
		})
	}
}

// stutterReader returns (0, nil) `empties` times before every real read; a
// negative count means forever.
type stutterReader struct {
	r       io.Reader
	empties int
	pending int
}

func (s *stutterReader) Read(p []byte) (int, error) {
	if s.empties < 0 {
		return 0, nil
	}
	if s.pending < s.empties {
		s.pending++
		return 0, nil
	}
	s.pending = 0
	return s.r.Read(p)
}

type dataThenErrReader struct {
	data []byte
	err  error
}

func (d *dataThenErrReader) Read(p []byte) (int, error) {
	return copy(p, d.data), d.err
}

type badCountReader int

func (b badCountReader) Read([]byte) (int, error) { return int(b), nil }
