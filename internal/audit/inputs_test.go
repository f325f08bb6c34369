package audit

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"unsafe"
)

func hexSum(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}

// Inputs must encode exactly as the map it replaces did, so no report
// byte changes.
func TestInputsEncodeAsTheirMap(t *testing.T) {
	tests := []struct {
		name string
		m    map[string]string
	}{
		{"nil", nil},
		{"empty", map[string]string{}},
		{"one", map[string]string{"state.json": hexSum("a")}},
		{"byte order, not rune or case order", map[string]string{
			"b.json": hexSum("b"), "B.json": hexSum("B"), "a/z.md": hexSum("z"), "a.md": hexSum("a"), "ü.txt": hexSum("u"), "z.txt": hexSum("z2"),
		}},
		{"names that need escaping", map[string]string{
			`q"uote.md`: hexSum("q"), `back\slash`: hexSum("s"), "<&>.html": hexSum("h"), "tab\t.txt": hexSum("t"), "\u2028line": hexSum("l"),
		}},
	}
	for _, tc := range tests {
		in, err := InputsFromHex(tc.m)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		want, err := json.Marshal(tc.m)
		if err != nil {
			t.Fatal(err)
		}
		got, err := json.Marshal(in)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s: encoded as\n%s\nwant the map's\n%s", tc.name, got, want)
		}
		// Inside an audit too, where a nil map was null.
		a, err := json.Marshal(&Audit{Inputs: in})
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Contains(a, append([]byte(`"inputs":`), want...)) {
			t.Errorf("%s: an audit encodes its inputs as\n%s\nwant %s", tc.name, a, want)
		}
		for path, sum := range tc.m {
			if got, ok := in.SHA256Hex(path); !ok || got != sum {
				t.Errorf("%s: SHA256Hex(%q) = %q, %v; want %q", tc.name, path, got, ok, sum)
			}
		}
		if got, ok := in.SHA256Hex("absent"); ok {
			t.Errorf("%s: SHA256Hex of a file never read gave %q", tc.name, got)
		}
	}
}

func TestInputsFromHexRejectsWhatCannotBeWrittenBack(t *testing.T) {
	good := hexSum("x")
	for _, sum := range []string{
		"",
		good[:62],
		good + "00",
		strings.ToUpper(good),
		"z" + good[1:],
	} {
		if _, err := InputsFromHex(map[string]string{"state.json": sum}); err == nil || !strings.Contains(err.Error(), `"state.json"`) {
			t.Errorf("digest %q: got error %v, want one naming the file", sum, err)
		}
	}
}

// Runs name the same relative files: one copy of each name serves them all.
func TestInputsShareNames(t *testing.T) {
	a, _ := InputsFromHex(map[string]string{strings.Clone("artifacts/out.txt"): hexSum("1")})
	b, _ := InputsFromHex(map[string]string{strings.Clone("artifacts/out.txt"): hexSum("2")})
	if unsafe.StringData(a[0].Path) != unsafe.StringData(b[0].Path) {
		t.Error("two runs' inputs hold separate copies of the same path")
	}
}

func TestInputsReadBack(t *testing.T) {
	for _, doc := range []string{`null`, `{}`, `{"b":"` + hexSum("b") + `","a":"` + hexSum("a") + `"}`} {
		var in Inputs
		if err := json.Unmarshal([]byte(doc), &in); err != nil {
			t.Fatalf("%s: %v", doc, err)
		}
		var want, got any
		json.Unmarshal([]byte(doc), &want)
		b, _ := json.Marshal(in)
		json.Unmarshal(b, &got)
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s read back as %s", doc, b)
		}
	}
	var in Inputs
	if err := json.Unmarshal([]byte(`{"a":"ABC"}`), &in); err == nil {
		t.Error(`{"a":"ABC"} read as inputs without an error`)
	}
}
