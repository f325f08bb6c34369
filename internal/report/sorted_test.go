package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"testing"

	"github.com/h3a-check/h3a-check/internal/audit"
	"github.com/h3a-check/h3a-check/internal/finding"
)

// reencoded is how MarshalSorted used to write, and the oracle of
// appendSorted: decode into a generic value, whose maps encoding/json
// sorts, and encode that with Encoder.SetIndent; then every line after the
// first gets prefix, as json.Indent gives it.
func reencoded(t testing.TB, src []byte, prefix string) []byte {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(src))
	dec.UseNumber()
	var generic any
	if err := dec.Decode(&generic); err != nil {
		t.Fatalf("oracle: %v", err)
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(generic); err != nil {
		t.Fatalf("oracle: %v", err)
	}
	b := bytes.TrimSpace(buf.Bytes())
	if prefix == "" {
		return b
	}
	var ind bytes.Buffer
	if err := json.Indent(&ind, b, prefix, "  "); err != nil {
		t.Fatalf("oracle: %v", err)
	}
	return ind.Bytes()
}

func sameAsReencoded(t testing.TB, name string, src []byte) {
	t.Helper()
	for _, prefix := range []string{"", "    "} {
		got, err := appendSorted(nil, src, prefix)
		if err != nil {
			t.Fatalf("%s: %v\n%s", name, err, src)
		}
		if want := reencoded(t, src, prefix); !bytes.Equal(got, want) {
			t.Fatalf("%s, prefix %q: sorted writer gives\n%s\nre-encoding gives\n%s", name, prefix, got, want)
		}
	}
}

// TestSortedMatchesReencoding holds the sorted writer to re-encoding on
// values that reach it (audits, maps, structs in declaration order) and on
// strings encoding/json writes in each of its ways: bytes that are not
// UTF-8 (the \ufffd escape), the character U+FFFD, a backslash before
// "ufffd", control characters, U+2028, HTML characters, escaped keys.
func TestSortedMatchesReencoding(t *testing.T) {
	type unsorted struct {
		Zeta  string         `json:"zeta"`
		Alpha []any          `json:"alpha"`
		Mid   map[string]any `json:"mid,omitempty"`
		Empty struct{}       `json:"empty"`
		Num   float64        `json:"num"`
	}
	strs := []string{"", "plain", "bad \xff\xfe byte", "\uFFFD itself", `\ufffd written`, "\\\xff", "ctl \x00\x01\x1f\n\t\r", "\u2028\u2029", "<&>", `"quote" \ back`, "ü日本", "\x7f DEL"}
	var values []any
	for _, s := range strs {
		values = append(values, unsorted{Zeta: s, Alpha: []any{s, 1, nil, true, []any{}, map[string]any{}}, Mid: map[string]any{s: s, "b": 1.5e300, "a": []string{s}}, Num: -0.000001})
	}
	a := &audit.Audit{Run: "runs/x", RunID: "\xff<>", Layout: "h3a", Findings: []finding.Finding{
		finding.HashMismatch.New("state/EVIDENCE_LOG.md", "\"quoted\" \xc3 <tag> & \u2028"),
	}}
	a.Finish(finding.Error, nil)
	values = append(values, a, []*audit.Audit{a, a}, map[string]any{}, []any{}, "s", 3, nil,
		map[string]any{"b": map[string]any{"d": 1, "c": []any{map[string]any{"z": 1, "y": 2}}}, "a": 0})
	for i, v := range values {
		src, err := encode(v)
		if err != nil {
			t.Fatal(err)
		}
		sameAsReencoded(t, fmt.Sprint("value ", i), bytes.TrimSpace(src))
	}
	// The JSON and SARIF goldens, and the two SARIF schemas.
	docs := []string{"testdata/golden/json.golden", "testdata/golden/sarif.golden", "testdata/sarif-2.1.0-multitool.json", "testdata/sarif-schema-2.1.0.json"}
	for _, p := range docs {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		var compact bytes.Buffer
		if err := json.Compact(&compact, b); err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		sameAsReencoded(t, p, compact.Bytes())
	}
}

// TestSortedRefusesBrokenInput: input that is not one JSON value is an
// error, never a panic or a partial document.
func TestSortedRefusesBrokenInput(t *testing.T) {
	for _, src := range []string{``, `{`, `{"a"}`, `{"a":}`, `{"a":1,}`, `[1,]`, `[1 2]`, `"open`, `tru`, `{"a":1}}`, `{} {}`, `{"a":[1}`, `[`, `{1:2}`} {
		if got, err := appendSorted(nil, []byte(src), ""); err == nil {
			t.Errorf("%q: no error, wrote %q", src, got)
		}
	}
}

// FuzzSortedMatchesReencoding: for any JSON document, written as
// encoding/json writes it with its members in their order (strings and
// numbers re-encoded, duplicate keys kept), the sorted writer gives the
// bytes of re-encoding.
func FuzzSortedMatchesReencoding(f *testing.F) {
	for _, s := range []string{`{"b":1,"a":[{"d":null,"c":"x"}]}`, `{"a":1,"a":2}`, `[[],{},""]`, `{"\u00e9":1,"e":2,"\\":3}`, `"\u2028<"`, `1e400`, `{"k":{"k":{"k":-0.0}}}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, doc []byte) {
		if !json.Valid(doc) {
			return
		}
		src, ok := asEncoded(doc)
		if !ok {
			return
		}
		sameAsReencoded(t, "fuzzed", src)
	})
}

// asEncoded rewrites a JSON document compactly with each string as
// encoding/json writes it and members in their order.
func asEncoded(doc []byte) ([]byte, bool) {
	doc = bytes.TrimSpace(doc)
	if len(doc) == 0 {
		return nil, false
	}
	switch doc[0] {
	case '{', '[':
		dec := json.NewDecoder(bytes.NewReader(doc))
		open, _ := dec.Token()
		out := []byte{byte(open.(json.Delim))}
		for n := 0; dec.More(); n++ {
			if n > 0 {
				out = append(out, ',')
			}
			if doc[0] == '{' {
				k, err := dec.Token()
				if err != nil {
					return nil, false
				}
				b, err := encode(k)
				if err != nil {
					return nil, false
				}
				out = append(append(out, bytes.TrimSpace(b)...), ':')
			}
			var v json.RawMessage
			if err := dec.Decode(&v); err != nil {
				return nil, false
			}
			b, ok := asEncoded(v)
			if !ok {
				return nil, false
			}
			out = append(out, b...)
		}
		if doc[0] == '{' {
			return append(out, '}'), true
		}
		return append(out, ']'), true
	case '"':
		var s string
		if err := json.Unmarshal(doc, &s); err != nil {
			return nil, false
		}
		b, err := encode(s)
		return bytes.TrimSpace(b), err == nil
	default:
		return doc, true
	}
}
