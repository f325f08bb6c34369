package jsonpos

import (
	"bytes"
	"encoding/json"
	"io"
	"math/big"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

// fuzzSeeds are small inputs at the edges of the grammar; the fixtures in
// testdata and the corpus in testdata/fuzz/FuzzParse are added as well.
var fuzzSeeds = []string{
	"", " ", "{}", "[]", "0", "-0.0e-0", "1E+2", "1e30000", "-2E-29999", "1E70000", "-1E700000000", "1E7000000000", "1E-700000000", "-1E-7000000000", "0E-7000000000", "-0.0e99999999999999999999", "01", "-", "1.", ".5", "+1", "1e", "true", "tru", "nul", "nulll",
	`"a"`, `"\u00e9\ud83d\ude00"`, `"\ud800"`, `"\udc00\ud800\u0041"`, `"\'"`, `"\x"`, `"\u12g4"`, "\"a\nb\"", "\"a\x01\"",
	"\"\xff\xfe\"", "\"\xed\xa0\x80\"", "\xff", bom, bom + "{}", bom + bom + "{}",
	`{"a":1,"a":2}`, `{"a":{"b":1,"b":2},"a":{}}`, "{\"a\":1,\"a\u200b\":2,\"a\u200b\":3,\"\u2060a\":4}", "{\"a\":1,\"\u0430\":2,\"\uff41\":3,\"\U0001d41a\":4,\"a-\":5,\"a\u2013\":6}", `{"a":1,"a\u200b":2}`, "{\"a\":1,\"a\u034f\":2,\"a\ufe0f\":3,\"\u0561\":4,\"\u2170\":5,\"\u13aa\":6}", `{"a/b":{"~":[0,{"":null}]}}`, `{"a":1,}`, `[1,]`, `[1 2]`,
	`{"a" 1}`, `{a:1}`, `[1}`, `{"a":1]`, `{"a":1}}`, "1 2", "{}\n{}", "[\r\n1,\r\n", "{\r\n\"k\":\r\n[\"é\", ]}",
	strings.Repeat("[", 1001) + strings.Repeat("]", 1001), strings.Repeat(`{"":`, 20) + "0" + strings.Repeat("}", 20),
}

func FuzzParse(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add([]byte(s))
	}
	paths, _ := filepath.Glob(filepath.Join("testdata", "*.json"))
	for _, path := range paths {
		if data, err := os.ReadFile(path); err == nil {
			f.Add(data)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		checkAgainstReference(t, data)

		// A Document built by hand may hold anything in Data; positions
		// must then be best effort, never a panic or a hang.
		loose := &Document{Data: data}
		for _, pointer := range []string{"", "/0", "/0/0/a", "/a/1", "/", "x"} {
			line, col, _ := loose.Position(pointer)
			keyLine, keyCol, _ := loose.KeyPosition(pointer)
			if line < 1 || col < 1 || keyLine < 1 || keyCol < 1 {
				t.Fatalf("Position(%q) in %q = %d:%d, key %d:%d; want 1-based positions", pointer, data, line, col, keyLine, keyCol)
			}
		}
	})
}

const (
	inRangeOnly = iota
	nearTheBound
	outOfRange
)

// numberRange says whether valid JSON holds a number the parser refuses
// (a magnitude past about 10^±30000, which encoding/json accepts), worked
// out from each number's binary exponent rather than from its digits as
// the parser does: out of range past 2^±99,700, near the bound from
// 2^±99,600 (10^30000 is about 2^99,658).
func numberRange(body []byte) int {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	worst := inRangeOnly
	for {
		tok, err := dec.Token()
		if err != nil {
			return worst
		}
		n, ok := tok.(json.Number)
		if !ok {
			continue
		}
		// Zero is in range whatever its exponent (0e99999999999999999999),
		// so it is told from its digits, before big.Float sees the exponent.
		mantissa, _, _ := strings.Cut(strings.ToLower(n.String()), "e")
		if !strings.ContainsAny(mantissa, "123456789") {
			continue
		}
		f, ok := new(big.Float).SetString(n.String())
		// An exponent past big.Float's own range is far out of ours: it
		// makes an infinity, whose MantExp is 0 (1E700000000), a zero
		// (1E-700000000), or one SetString cannot read at all
		// (1E7000000000, 1E-7000000000).
		if !ok || f.IsInf() || f.Sign() == 0 {
			return outOfRange
		}
		switch exp := f.MantExp(nil); {
		case exp > 99700 || exp < -99700:
			return outOfRange
		case exp > 99600 || exp < -99600:
			worst = nearTheBound
		}
	}
}

// checkAgainstReference parses data and holds the result against
// encoding/json and against the package's own promises.
func checkAgainstReference(t testing.TB, data []byte) {
	t.Helper()
	doc, problems := Parse(data)
	checkProblems(t, data, doc, problems)

	// encoding/json rejects a BOM; Parse skips it and says so.
	body := data
	if bytes.HasPrefix(data, utf8BOM) {
		body = data[len(utf8BOM):]
	}
	if !json.Valid(body) {
		if doc != nil {
			t.Fatalf("Parse(%q) succeeded, but encoding/json rejects the input", data)
		}
		return
	}
	if nestingDepth(body) > MaxDepth {
		if doc != nil || problems[len(problems)-1].Kind != TooDeep {
			t.Fatalf("Parse(%q) gave %s; want a too-deep problem", data, formatProblems(problems))
		}
		return
	}
	switch numberRange(body) {
	case outOfRange:
		if doc != nil || !strings.Contains(problems[len(problems)-1].Message, "out of the range the checker can evaluate") {
			t.Fatalf("Parse(%q) gave %s; want a number out of range", data, formatProblems(problems))
		}
		return
	case nearTheBound:
		if doc == nil {
			return // either answer is right this close to 10^±30000
		}
	}
	if doc == nil {
		t.Fatalf("Parse(%q) failed with %s, but encoding/json accepts the input", data, formatProblems(problems))
	}
	ref, ok := referenceDecode(body)
	if !ok {
		t.Fatalf("encoding/json accepts %q as valid but cannot decode it", body)
	}
	if !reflect.DeepEqual(doc.Value, ref) {
		t.Fatalf("Parse(%q).Value = %#v, encoding/json gives %#v", data, doc.Value, ref)
	}

	// The non-fatal problems are exactly the ones the input has.
	count := map[ProblemKind]int{}
	for _, p := range problems {
		count[p.Kind]++
	}
	wantBOM := 0
	if len(body) < len(data) {
		wantBOM = 1
	}
	if count[BOM] != wantBOM {
		t.Errorf("Parse(%q): %d bom problems, want %d", data, count[BOM], wantBOM)
	}
	if dups := countDuplicateKeys(body); count[DuplicateKey] != dups {
		t.Errorf("Parse(%q): %d duplicate-key problems, want %d", data, count[DuplicateKey], dups)
	}
	if valid := utf8.Valid(body); valid != (count[InvalidUTF8] == 0) {
		t.Errorf("Parse(%q): %d invalid-utf8 problems, but utf8.Valid = %v", data, count[InvalidUTF8], valid)
	}

	checkPositions(t, doc)
}

// checkProblems checks what holds for every result of Parse.
func checkProblems(t testing.TB, data []byte, doc *Document, problems []Problem) {
	t.Helper()
	fatal := 0
	for i, p := range problems {
		if p.Kind.Fatal() {
			fatal++
			if i != len(problems)-1 {
				t.Errorf("Parse(%q): fatal problem %d of %d is not the last: %s", data, i+1, len(problems), formatProblems(problems))
			}
		}
		if p.Offset < 0 || p.Offset > len(data) {
			t.Errorf("Parse(%q): offset %d outside the input", data, p.Offset)
		}
		if i > 0 && p.Offset < problems[i-1].Offset {
			t.Errorf("Parse(%q): problems out of order: %s", data, formatProblems(problems))
		}
		if line, col := LineCol(data, p.Offset); line != p.Line || col != p.Column {
			t.Errorf("Parse(%q): problem at offset %d says %d:%d, LineCol says %d:%d", data, p.Offset, p.Line, p.Column, line, col)
		}
		first, _ := utf8.DecodeRuneInString(p.Message)
		if p.Message == "" || unicode.IsUpper(first) || strings.ContainsAny(p.Message, "\n\r") {
			t.Errorf("Parse(%q): message %q should be one lower-case line", data, p.Message)
		}
		if strings.HasPrefix(p.Kind.String(), "problem-kind") {
			t.Errorf("Parse(%q): unknown problem kind %d", data, int(p.Kind))
		}
		if _, err := SplitPointer(p.Pointer); err != nil {
			t.Errorf("Parse(%q): problem pointer: %v", data, err)
		}
	}
	if fatal > 1 {
		t.Errorf("Parse(%q): %d fatal problems, want at most one: %s", data, fatal, formatProblems(problems))
	}
	if (doc == nil) != (fatal == 1) {
		t.Errorf("Parse(%q): document %v with %d fatal problems", data, doc, fatal)
	}
}

// checkPositions checks that every value in doc has an exact position at
// its first byte, and every member an exact key position at its name.
func checkPositions(t testing.TB, doc *Document) {
	t.Helper()
	data := doc.Data
	// Decoding at each position is quadratic; big inputs get the cheap check.
	deep := len(data) <= 8<<10
	var walk func(pointer string, v any, name *string)
	walk = func(pointer string, v any, name *string) {
		line, col, exact := doc.Position(pointer)
		off, ok := offsetOf(data, line, col)
		if !exact || !ok {
			t.Fatalf("Position(%q) = %d:%d, %v; want an exact position in %q", pointer, line, col, exact, data)
		}
		if !startsWithValue(data[off:], v) {
			t.Fatalf("Position(%q) = %d:%d points at %q, want the start of %#v", pointer, line, col, clip(data[off:]), v)
		}
		if deep {
			if got, ok := referenceDecodeFirst(data[off:]); !ok || !reflect.DeepEqual(got, v) {
				t.Fatalf("Position(%q) = %d:%d: the value there is %#v, want %#v", pointer, line, col, got, v)
			}
		}
		keyLine, keyCol, keyExact := doc.KeyPosition(pointer)
		if name == nil {
			if keyLine != line || keyCol != col || !keyExact {
				t.Fatalf("KeyPosition(%q) = %d:%d, %v; want Position's %d:%d, true", pointer, keyLine, keyCol, keyExact, line, col)
			}
		} else {
			keyOff, ok := offsetOf(data, keyLine, keyCol)
			if !keyExact || !ok || data[keyOff] != '"' || keyOff >= off {
				t.Fatalf("KeyPosition(%q) = %d:%d, %v; want an exact position of a name before the value at %d:%d", pointer, keyLine, keyCol, keyExact, line, col)
			}
			if got, ok := referenceDecodeFirst(data[keyOff:]); !ok || got != *name {
				t.Fatalf("KeyPosition(%q) = %d:%d: the name there is %#v, want %q", pointer, keyLine, keyCol, got, *name)
			}
		}
		switch v := v.(type) {
		case map[string]any:
			for k, child := range v {
				walk(pointer+"/"+EscapeToken(k), child, &k)
			}
		case []any:
			for i, child := range v {
				walk(pointer+"/"+strconv.Itoa(i), child, nil)
			}
		}
	}
	walk("", doc.Value, nil)
}

func startsWithValue(at []byte, v any) bool {
	switch v := v.(type) {
	case map[string]any:
		return bytes.HasPrefix(at, []byte("{"))
	case []any:
		return bytes.HasPrefix(at, []byte("["))
	case string:
		return bytes.HasPrefix(at, []byte(`"`))
	case json.Number:
		return bytes.HasPrefix(at, []byte(v))
	case bool:
		return bytes.HasPrefix(at, []byte(strconv.FormatBool(v)))
	case nil:
		return bytes.HasPrefix(at, []byte("null"))
	}
	return false
}

// referenceDecode decodes a whole JSON text with encoding/json.
func referenceDecode(data []byte) (any, bool) {
	if !json.Valid(data) {
		return nil, false
	}
	return referenceDecodeFirst(data)
}

// referenceDecodeFirst decodes the first JSON value in data, ignoring what
// follows it.
func referenceDecodeFirst(data []byte) (any, bool) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, false
	}
	return v, true
}

// Characters drawn like ASCII ones, each above the one it is drawn like:
// Cyrillic, Greek, dashes. Kept apart from the parser's table so that a
// change to one shows in the fuzz test.
const (
	drawnFrom = "асԁеһіјӏорԛѕԝхуАВСЕНІӀЈКМОРԚЅТԜХҮΑΒΕΖΗΙΚΜΝΟΡΤΥΧονϲϳ\u2010\u2011\u2012\u2013\u2212\ufe63" +
		// Armenian, Cherokee, dotless Latin, letterlike symbols, Roman numerals.
		"\u0561\u0566\u0570\u0578\u057d\u0581\u0585\u054d\u0555\u13aa\u13f4\u13df\u13a0\u13ac\u13c0\u13bb\u13ab\u13e6\u13de\u13b7\u13e2\u13a1\u13da\u13a2\u13d9\u13b3\u13d4\u13c3\u0131\u0237\u0251\u0261\u2102\u210a\u210b\u210c\u210d\u210e\u2110\u2111\u2112\u2113\u2115\u2119\u211a\u211b\u211c\u211d\u2124\u212a\u212c\u212d\u212f\u2130\u2131\u2133\u2134\u2139\u2145\u2146\u2147\u2148\u2149\u2160\u2164\u2169\u216c\u216d\u216e\u216f\u2170\u2174\u2179\u217c\u217d\u217e\u217f"
	drawnTo = "acdehijlopqswxyABCEHIIJKMOPQSTWXYABEZHIKMNOPTYXovcj------" +
		"wqhnugoUOABCDEGHJKLMPRSTVWWZijagCgHHHhIILlNPQRRRZKBCeEFMoiDdeijIVXLCDMivxlcdm"
)

// notDrawn reports Unicode's default-ignorable code points that are not
// format characters (DerivedCoreProperties.txt, Default_Ignorable_Code_Point):
// the combining grapheme joiner, the Hangul fillers, the Khmer inherent
// vowels, the Mongolian variation selectors, the variation selectors and the
// unassigned ones.
func notDrawn(r rune) bool {
	for _, rg := range [][2]rune{{0x034F, 0x034F}, {0x115F, 0x1160}, {0x17B4, 0x17B5}, {0x180B, 0x180F}, {0x2065, 0x2065}, {0x3164, 0x3164},
		{0xFE00, 0xFE0F}, {0xFFA0, 0xFFA0}, {0xFFF0, 0xFFF8}, {0xE0000, 0xE0FFF}} {
		if r >= rg[0] && r <= rg[1] {
			return true
		}
	}
	return false
}

// countDuplicateKeys counts members whose name their object already had,
// as encoding/json's tokenizer sees them, or had as a reader sees it: the
// same once Unicode format characters (a zero-width space, say) are left
// out and characters drawn like ASCII ones (a Cyrillic "а", a fullwidth
// "Ｇ", a mathematical bold "𝐆") are read as those.
func countDuplicateKeys(data []byte) int {
	type frame struct {
		object, wantName bool
		seen, shown      map[string]bool
	}
	from := []rune(drawnFrom)
	visible := func(s string) string {
		var b strings.Builder
		for _, r := range s {
			if unicode.In(r, unicode.Cf) || notDrawn(r) {
				continue
			}
			if k := slices.Index(from, r); k >= 0 {
				r = rune(drawnTo[k])
			} else if r >= 'ｆ'-'f'+'!' && r <= 'ｆ'-'f'+'~' {
				r -= 'ｆ' - 'f'
			} else if r >= '𝐀' && r < '𝐀'+13*52 {
				r = rune("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"[(r-'𝐀')%52])
			} else if r >= '𝟎' && r <= '𝟿' {
				r = '0' + (r-'𝟎')%10
			}
			b.WriteRune(r)
		}
		return b.String()
	}
	var stack []*frame
	valueDone := func() {
		if n := len(stack); n > 0 && stack[n-1].object {
			stack[n-1].wantName = true
		}
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	dups := 0
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			return dups
		}
		if err != nil {
			return -1
		}
		switch tok := tok.(type) {
		case json.Delim:
			switch tok {
			case '{':
				stack = append(stack, &frame{object: true, wantName: true, seen: map[string]bool{}, shown: map[string]bool{}})
			case '[':
				stack = append(stack, &frame{})
			default:
				stack = stack[:len(stack)-1]
				valueDone()
			}
		case string:
			if n := len(stack); n > 0 && stack[n-1].wantName {
				if stack[n-1].seen[tok] || stack[n-1].shown[visible(tok)] {
					dups++
				}
				stack[n-1].seen[tok] = true
				stack[n-1].shown[visible(tok)] = true
				stack[n-1].wantName = false
				continue
			}
			valueDone()
		default:
			valueDone()
		}
	}
}

// nestingDepth is the deepest nesting of brackets outside strings.
func nestingDepth(data []byte) int {
	depth, deepest := 0, 0
	inString := false
	for i := 0; i < len(data); i++ {
		c := data[i]
		switch {
		case inString && c == '\\':
			i++
		case c == '"':
			inString = !inString
		case inString:
		case c == '[' || c == '{':
			depth++
			deepest = max(deepest, depth)
		case c == ']' || c == '}':
			depth--
		}
	}
	return deepest
}

// offsetOf is LineCol backwards, written the plain way: it walks to the
// line, then over col-1 characters; a BOM takes no column.
func offsetOf(data []byte, line, col int) (int, bool) {
	off := 0
	if bytes.HasPrefix(data, utf8BOM) {
		off = len(utf8BOM)
	}
	for l := 1; l < line; l++ {
		nl := bytes.IndexByte(data[off:], '\n')
		if nl < 0 {
			return 0, false
		}
		off += nl + 1
	}
	for c := 1; c < col; c++ {
		if off >= len(data) || data[off] == '\n' {
			return 0, false
		}
		_, size := utf8.DecodeRune(data[off:])
		off += size
	}
	return off, off < len(data)
}

func clip(b []byte) []byte {
	if len(b) > 20 {
		return b[:20]
	}
	return b
}

func itoa(i int) string { return strconv.Itoa(i) }

func quoteForTest(s string) string { return strconv.Quote(s) }
