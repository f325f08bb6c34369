package gitrev

import (
	"bytes"
	"encoding/hex"
	"fmt"
	"sort"
	"testing"
)

// encodeTree writes entries as git writes a tree object.
func encodeTree(entries map[string]Entry) []byte {
	names := make([]string, 0, len(entries))
	for n := range entries {
		names = append(names, n)
	}
	sort.Strings(names)
	var b bytes.Buffer
	for _, n := range names {
		raw, _ := hex.DecodeString(entries[n].OID)
		fmt.Fprintf(&b, "%o %s\x00", entries[n].Mode, n)
		b.Write(raw)
	}
	return b.Bytes()
}

func TestParseTree(t *testing.T) {
	oid := "be5d5866c6de7032d6b373748e8378a0debad788"
	valid := map[string]Entry{"state.json": {0o100644, oid}, "state": {0o40000, oid}, "ünï cödé": {0o120000, oid}}
	tests := []struct {
		name string
		data []byte
		want map[string]Entry
		ok   bool
	}{
		{"empty", nil, map[string]Entry{}, true},
		{"entries", encodeTree(valid), valid, true},
		{"cut object name", encodeTree(valid)[:30], nil, false},
		{"no name", []byte("100644 \x00" + string(make([]byte, 20))), nil, false},
		{"mode not octal", []byte("10064x a\x00" + string(make([]byte, 20))), nil, false},
		{"no space", []byte("100644a\x00" + string(make([]byte, 20))), nil, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := parseTree(tc.data, 20)
			if (err == nil) != tc.ok {
				t.Fatalf("err %v, want ok=%v", err, tc.ok)
			}
			if tc.ok && fmt.Sprint(got) != fmt.Sprint(tc.want) {
				t.Errorf("got %v, want %v", got, tc.want)
			}
		})
	}
}

// FuzzParseTree: any bytes give entries or an error, never a panic, and
// what parses encodes back to entries that parse the same.
func FuzzParseTree(f *testing.F) {
	oid := "be5d5866c6de7032d6b373748e8378a0debad788"
	f.Add(encodeTree(map[string]Entry{"a": {0o100644, oid}, "b c": {0o40000, oid}}))
	f.Add([]byte("100644 a\x00short"))
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, data []byte) {
		got, err := parseTree(data, 20)
		if err != nil {
			return
		}
		again, err := parseTree(encodeTree(got), 20)
		if err != nil || fmt.Sprint(again) != fmt.Sprint(got) {
			t.Fatalf("re-encoded tree parses as %v (%v), first %v", again, err, got)
		}
	})
}
