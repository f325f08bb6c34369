package jsonpos

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

const bom = "\xef\xbb\xbf"

func TestParseProblems(t *testing.T) {
	type P = Problem
	tests := []struct {
		name  string
		input string
		want  []Problem
	}{
		// Documents without problems.
		{name: "empty object", input: "{}"},
		{name: "empty array", input: " [ ] \r\n"},
		{name: "scalar", input: "-0.5e+3"},
		{name: "numbers at the ends of the range", input: "[1e-30000, 0.001e-29997, 0e99999999999, 1.5, 9223372036854775807]"},

		// Whole numbers beyond 64 bits: kept, and a problem each.
		{name: "whole numbers beyond int64 at the ends of the range", input: "[1e30000, -9.9e29999, 1e-30000, 123456789e29992, 1e400]", want: []P{
			{NumberRange, 1, 1, 2, "/0", beyond("1e30000")},
			{NumberRange, 10, 1, 11, "/1", beyond("-9.9e29999")},
			{NumberRange, 32, 1, 33, "/3", beyond("123456789e29992")},
			{NumberRange, 49, 1, 50, "/4", beyond("1e400")}}},

		// Numbers the policy engine cannot evaluate.
		{name: "number too large", input: `{"n": 1e30001}`,
			want: []P{{Syntax, 6, 1, 7, "/n", `number "1e30001" is out of the range the checker can evaluate (a magnitude between 1e-30000 and 1e30000, or 0)`}}},
		{name: "number too small", input: `[0.01e-29999]`,
			want: []P{{Syntax, 1, 1, 2, "/0", `number "0.01e-29999" is out of the range the checker can evaluate (a magnitude between 1e-30000 and 1e30000, or 0)`}}},
		{name: "number with a huge exponent", input: `-1E+99999999999`,
			want: []P{{Syntax, 0, 1, 1, "", `number "-1E+99999999999" is out of the range the checker can evaluate (a magnitude between 1e-30000 and 1e30000, or 0)`}}},
		{name: "crlf object", input: "{\r\n  \"a\": [1, \"é\"]\r\n}\r\n"},

		// Syntax: empty input.
		{name: "empty file", input: "",
			want: []P{{Syntax, 0, 1, 1, "", "empty input; expected a json value"}}},
		{name: "only whitespace", input: " \r\n\t",
			want: []P{{Syntax, 4, 2, 2, "", "the input holds only whitespace; expected a json value"}}},
		{name: "only a bom", input: bom, want: []P{
			{BOM, 0, 1, 1, "", "the file starts with a utf-8 byte order mark; it was skipped, but many json readers reject it (save the file as utf-8 without a bom)"},
			{Syntax, 3, 1, 1, "", "empty input; expected a json value"},
		}},

		// Syntax: unexpected tokens.
		{name: "missing comma between members", input: "{\n  \"a\": 1\n  \"b\": 2\n}",
			want: []P{{Syntax, 13, 3, 3, "", `unexpected '"' after object member; expected "," or "}" (missing "," between members?)`}}},
		{name: "missing comma between elements", input: "[1 2]",
			want: []P{{Syntax, 3, 1, 4, "", `unexpected "2" after array element; expected "," or "]" (missing "," between elements?)`}}},
		{name: "missing colon", input: `{"x":{"y":[1,{"z" 2}]}}`,
			want: []P{{Syntax, 18, 1, 19, "/x/y/1/z", `unexpected "2" after member name "z"; expected ":"`}}},
		{name: "trailing comma in object", input: `{"a":1,}`,
			want: []P{{Syntax, 7, 1, 8, "", `unexpected "}" after ","; expected a quoted member name (trailing commas are not allowed)`}}},
		{name: "trailing comma in array", input: `{"list":[1,2,]}`,
			want: []P{{Syntax, 13, 1, 14, "/list", `unexpected "]" after ","; expected a value (trailing commas are not allowed)`}}},
		{name: "unquoted member name", input: `{a:1}`,
			want: []P{{Syntax, 1, 1, 2, "", `unexpected "a" after "{"; expected a quoted member name or "}" (member names must be in double quotes)`}}},
		{name: "single quotes", input: `{'a':1}`,
			want: []P{{Syntax, 1, 1, 2, "", `unexpected "'" after "{"; expected a quoted member name or "}" (json strings use double quotes)`}}},
		{name: "object member where array element expected", input: `["a": 1]`,
			want: []P{{Syntax, 4, 1, 5, "", `unexpected ":" after array element; expected "," or "]"`}}},
		{name: "stray closing brace in array", input: "{\"h\": [\n  {\"a\": 1}\n  }, {\"b\": 2}\n]}",
			want: []P{{Syntax, 21, 3, 3, "/h", `unexpected "}" after array element; expected "," or "]" (the array opened at line 1, column 7 is still open)`}}},
		{name: "bracket closes object", input: "{\"a\": 1]",
			want: []P{{Syntax, 7, 1, 8, "", `unexpected "]" after object member; expected "," or "}" (the object opened at line 1, column 1 is still open)`}}},
		{name: "missing member value", input: "{\r\n  \"a\": 1,\r\n  \"b\": ]\r\n}",
			want: []P{{Syntax, 21, 3, 8, "/b", `unexpected "]" as the value of member "b"; expected a json value`}}},
		{name: "comment", input: "{\"a\": 1 // why\n}",
			want: []P{{Syntax, 8, 1, 9, "", `unexpected "/" after object member; expected "," or "}" (comments are not allowed in json)`}}},
		{name: "capitalised literal", input: `True`,
			want: []P{{Syntax, 0, 1, 1, "", `unexpected "True"; expected a json value (json literals are lower-case: true)`}}},
		{name: "python none", input: `[None]`,
			want: []P{{Syntax, 1, 1, 2, "/0", `unexpected "None" after "["; expected a value or "]" (json writes a missing value as null)`}}},
		{name: "nan", input: `{"score": NaN}`,
			want: []P{{Syntax, 10, 1, 11, "/score", `unexpected "NaN" as the value of member "score"; expected a json value (json has no NaN or Infinity)`}}},
		{name: "bare word", input: `[1, done]`,
			want: []P{{Syntax, 4, 1, 5, "/1", `unexpected "done" after ","; expected a value (strings must be in double quotes)`}}},
		{name: "misspelt literal after multi-byte text", input: `["é😀", tru]`,
			want: []P{{Syntax, 11, 1, 8, "/1", `invalid literal "tru"; expected true`}}},
		{name: "no-break space", input: "[\u00a01]",
			want: []P{{Syntax, 1, 1, 2, "/0", `unexpected "\u00a0" (U+00A0) after "["; expected a value or "]"`}}},
		{name: "bom in the middle", input: "[\ufeff1]",
			want: []P{{Syntax, 1, 1, 2, "/0", `unexpected "\ufeff" (U+FEFF) after "["; expected a value or "]" (a byte order mark is allowed only at the very start of the file)`}}},
		{name: "utf-16 file", input: "\xff\xfe{\x00}\x00",
			want: []P{{Syntax, 0, 1, 1, "", `unexpected invalid utf-8 byte 0xff; expected a json value (the file looks like utf-16; save it as utf-8)`}}},
		{name: "form feed as whitespace", input: "[\f1]",
			want: []P{{Syntax, 1, 1, 2, "/0", `unexpected control character U+000C after "["; expected a value or "]"`}}},

		// Syntax: numbers.
		{name: "leading zero", input: `{"n": 007}`,
			want: []P{{Syntax, 7, 1, 8, "/n", `invalid number "007": leading zeros are not allowed`}}},
		{name: "leading plus", input: `[+1]`,
			want: []P{{Syntax, 1, 1, 2, "/0", `unexpected "+" after "["; expected a value or "]" (a number must not start with "+")`}}},
		{name: "leading dot", input: `.5`,
			want: []P{{Syntax, 0, 1, 1, "", `unexpected "."; expected a json value (a number must start with a digit, as in 0.5)`}}},
		{name: "minus without digit", input: `[-x]`,
			want: []P{{Syntax, 2, 1, 3, "/0", `invalid number "-": expected a digit after "-", found "x"`}}},
		{name: "dot without digit", input: `[1.e5]`,
			want: []P{{Syntax, 3, 1, 4, "/0", `invalid number "1.e5": expected a digit after ".", found "e5"`}}},
		{name: "exponent without digit", input: `[1e+]`,
			want: []P{{Syntax, 4, 1, 5, "/0", `invalid number "1e+": expected a digit after "e+", found "]"`}}},
		{name: "number cut off", input: `[1.`,
			want: []P{{Syntax, 3, 1, 4, "/0", `unexpected end of input: the document is truncated in number "1." (expected a digit after ".")`}}},

		// Syntax: strings.
		{name: "unterminated string", input: "{\n  \"a\": [\n    \"open",
			want: []P{{Syntax, 20, 3, 10, "/a/0", `unterminated string starting at line 3, column 5; the input ends before its closing quote`}}},
		{name: "unterminated member name", input: "{\"a\": 1, \"b",
			want: []P{{Syntax, 11, 1, 12, "", `unterminated string starting at line 1, column 10; the input ends before its closing quote`}}},
		{name: "line break in string", input: "{\"status\": \"done,\n  \"next\": 1}",
			want: []P{{Syntax, 17, 1, 18, "/status", `unescaped line break in the string starting at line 1, column 12; expected the closing quote before the end of the line (write a line break inside a string as \n)`}}},
		{name: "crlf in string", input: "[\"a\r\n\"]",
			want: []P{{Syntax, 3, 1, 4, "/0", `unescaped carriage return in the string starting at line 1, column 2; expected the closing quote before the end of the line (write a carriage return inside a string as \r)`}}},
		{name: "tab in string", input: "[\"a\tb\"]",
			want: []P{{Syntax, 3, 1, 4, "/0", `unescaped tab in string; write it as \t`}}},
		{name: "control character in member name", input: "{\"a\x01\": 1}",
			want: []P{{Syntax, 3, 1, 4, "", `unescaped control character U+0001 in string; write it as \u0001`}}},
		{name: "escaped single quote", input: `{"plan": "the app\'s flow"}`,
			want: []P{{Syntax, 17, 1, 18, "/plan", `invalid escape "\'" in string; expected one of \" \\ \/ \b \f \n \r \t \uXXXX (a single quote needs no escape in json)`}}},
		{name: "unknown escape", input: `["C:\windows"]`,
			want: []P{{Syntax, 4, 1, 5, "/0", `invalid escape "\w" in string; expected one of \" \\ \/ \b \f \n \r \t \uXXXX`}}},
		{name: "short unicode escape", input: `["\u12g4"]`,
			want: []P{{Syntax, 2, 1, 3, "/0", `invalid escape "\u12g4" in string; expected 4 hex digits after \u`}}},
		{name: "escape of a control byte", input: "[\"\\\x01\"]",
			want: []P{{Syntax, 2, 1, 3, "/0", `invalid escape in string: "\" followed by control character U+0001; expected one of \" \\ \/ \b \f \n \r \t \uXXXX`}}},

		// Syntax: truncation names the innermost open container.
		{name: "truncated array", input: "{\n  \"a\": [\n    1,\n",
			want: []P{{Syntax, 18, 4, 1, "/a", `unexpected end of input: the document is truncated (expected "]" to close the array opened at line 2, column 8)`}}},
		{name: "truncated after colon", input: "{\"a\":",
			want: []P{{Syntax, 5, 1, 6, "", `unexpected end of input: the document is truncated (expected "}" to close the object opened at line 1, column 1)`}}},
		{name: "truncated crlf", input: "[\r\n1,\r\n",
			want: []P{{Syntax, 7, 3, 1, "", `unexpected end of input: the document is truncated (expected "]" to close the array opened at line 1, column 1)`}}},
		{name: "truncated literal", input: "[nul",
			want: []P{{Syntax, 4, 1, 5, "/0", `unexpected end of input: the document is truncated in "nul" (expected null)`}}},

		// Trailing data.
		{name: "extra closing brace", input: "{\"a\": 1}\n}",
			want: []P{{TrailingData, 9, 2, 1, "", `unexpected "}" after the top-level value; expected end of input (one closing bracket too many?)`}}},
		{name: "two documents", input: "{}\r\n{}",
			want: []P{{TrailingData, 4, 2, 1, "", `unexpected "{" after the top-level value; expected end of input (a json text holds exactly one value)`}}},
		{name: "word after value", input: "1 x",
			want: []P{{TrailingData, 2, 1, 3, "", `unexpected "x" after the top-level value; expected end of input`}}},

		// Duplicate keys: not fatal; the later member wins.
		{name: "duplicate key", input: "{\r\n  \"ünï\": 1,\r\n  \"ünï\": 2\r\n}", want: []P{
			{DuplicateKey, 20, 3, 3, "/ünï", `duplicate key "ünï" (first at line 2, column 3); the later value wins in most readers`}}},
		{name: "duplicate key spelt with an escape", input: `{"a/b": {"x": 1, "\u0078": 2}}`, want: []P{
			{DuplicateKey, 17, 1, 18, "/a~1b/x", `duplicate key "x" (first at line 1, column 10); the later value wins in most readers`}}},
		{name: "three times the same key", input: `{"k":1,"k":2,"k":3}`, want: []P{
			{DuplicateKey, 7, 1, 8, "/k", `duplicate key "k" (first at line 1, column 2); the later value wins in most readers`},
			{DuplicateKey, 13, 1, 14, "/k", `duplicate key "k" (first at line 1, column 2); the later value wins in most readers`}}},
		{name: "duplicates in nested objects come in file order", input: `{"a":{"b":1,"b":2},"a":{}}`, want: []P{
			{DuplicateKey, 12, 1, 13, "/a/b", `duplicate key "b" (first at line 1, column 7); the later value wins in most readers`},
			{DuplicateKey, 19, 1, 20, "/a", `duplicate key "a" (first at line 1, column 2); the later value wins in most readers`}}},

		{name: "a key that shows as an earlier one", input: "{\"G2\": \"passed\", \"G2\u200b\": \"failed\", \"G\u20602\": 1, \"G2\u200b\": 2}", want: []P{
			{DuplicateKey, 17, 1, 18, "/G2\u200b", `key "G2\u200b" shows as "G2", as the key "G2" does (first at line 1, column 2): a reader sees one key written twice, while readers of the data hold two different keys`},
			{DuplicateKey, 36, 1, 35, "/G\u20602", `key "G\u20602" shows as "G2", as the key "G2" does (first at line 1, column 2): a reader sees one key written twice, while readers of the data hold two different keys`},
			{DuplicateKey, 48, 1, 45, "/G2\u200b", `duplicate key "G2\u200b" (first at line 1, column 18); the later value wins in most readers`}}},

		{name: "a key drawn like an earlier one", input: "{\"G2_validation\": 1, \"G2_v\u0430lidation\": 2, \"\uff27\uff12_validation\": 3, \"G2_validation\u2010x\": 4, \"G2_validation-x\": 5, \"\U0001d406\U0001d7d0_validation\": 6}", want: []P{
			{DuplicateKey, 21, 1, 22, "/G2_v\u0430lidation", "key \"G2_v\u0430lidation\" shows as \"G2_validation\" (U+0430 is drawn like \"a\"), as the key \"G2_validation\" does (first at line 1, column 2): a reader sees one key written twice, while readers of the data hold two different keys"},
			{DuplicateKey, 42, 1, 42, "/\uff27\uff12_validation", "key \"\uff27\uff12_validation\" shows as \"G2_validation\" (U+FF27 is drawn like \"G\"), as the key \"G2_validation\" does (first at line 1, column 2): a reader sees one key written twice, while readers of the data hold two different keys"},
			{DuplicateKey, 90, 1, 84, "/G2_validation-x", "key \"G2_validation-x\" shows as \"G2_validation-x\", as the key \"G2_validation\u2010x\" does (first at line 1, column 62): a reader sees one key written twice, while readers of the data hold two different keys"},
			{DuplicateKey, 112, 1, 106, "/\U0001d406\U0001d7d0_validation", "key \"\U0001d406\U0001d7d0_validation\" shows as \"G2_validation\" (U+1D406 is drawn like \"G\"), as the key \"G2_validation\" does (first at line 1, column 2): a reader sees one key written twice, while readers of the data hold two different keys"}}},

		{name: "a key drawn like an earlier one beyond Cyrillic and Greek", input: "{\"status\": \"pass\", \"sta\u034ftus\": \"fail\", \"status\ufe0f\": 1, \"stat\u057ds\": 2, \"level\": 3, \"\u2113evel\": 4, \"id\": 5, \"\u2170d\": 6, \"TASK\": 7, \"\u13a2ASK\": 8}", want: []P{
			{DuplicateKey, 19, 1, 20, "/sta\u034ftus", "key \"sta\u034ftus\" shows as \"status\" (U+034F is not drawn), as the key \"status\" does (first at line 1, column 2): a reader sees one key written twice, while readers of the data hold two different keys"},
			{DuplicateKey, 39, 1, 39, "/status\ufe0f", "key \"status\ufe0f\" shows as \"status\" (U+FE0F is not drawn), as the key \"status\" does (first at line 1, column 2): a reader sees one key written twice, while readers of the data hold two different keys"},
			{DuplicateKey, 55, 1, 53, "/stat\u057ds", "key \"stat\u057ds\" shows as \"status\" (U+057D is drawn like \"u\"), as the key \"status\" does (first at line 1, column 2): a reader sees one key written twice, while readers of the data hold two different keys"},
			{DuplicateKey, 81, 1, 78, "/\u2113evel", "key \"\u2113evel\" shows as \"level\" (U+2113 is drawn like \"l\"), as the key \"level\" does (first at line 1, column 66): a reader sees one key written twice, while readers of the data hold two different keys"},
			{DuplicateKey, 104, 1, 99, "/\u2170d", "key \"\u2170d\" shows as \"id\" (U+2170 is drawn like \"i\"), as the key \"id\" does (first at line 1, column 90): a reader sees one key written twice, while readers of the data hold two different keys"},
			{DuplicateKey, 126, 1, 119, "/\u13a2ASK", "key \"\u13a2ASK\" shows as \"TASK\" (U+13A2 is drawn like \"T\"), as the key \"TASK\" does (first at line 1, column 108): a reader sees one key written twice, while readers of the data hold two different keys"}}},

		// BOM: skipped, invisible to columns, raw in offsets.
		{name: "bom", input: bom + "{\"a\": 1}", want: []P{
			{BOM, 0, 1, 1, "", "the file starts with a utf-8 byte order mark; it was skipped, but many json readers reject it (save the file as utf-8 without a bom)"}}},
		{name: "bom then syntax error", input: bom + "{\"a\" 1}", want: []P{
			{BOM, 0, 1, 1, "", "the file starts with a utf-8 byte order mark; it was skipped, but many json readers reject it (save the file as utf-8 without a bom)"},
			{Syntax, 8, 1, 6, "/a", `unexpected "1" after member name "a"; expected ":"`}}},

		// Invalid UTF-8: not fatal, once per string.
		{name: "invalid utf-8 in a value", input: "{\"a\": [\"ok\", \"x\xff\xfey\"]}", want: []P{
			{InvalidUTF8, 15, 1, 16, "/a/1", "2 invalid utf-8 bytes in string (the first is 0xff); each reads as U+FFFD"}}},
		{name: "invalid utf-8 in a member name", input: "{\"\xc3(\": 1}", want: []P{
			{InvalidUTF8, 2, 1, 3, "/\ufffd(", "invalid utf-8 byte 0xc3 in member name; it reads as U+FFFD"}}},
		{name: "invalid utf-8 outside strings is a syntax error", input: "[\xc3]",
			want: []P{{Syntax, 1, 1, 2, "/0", `unexpected invalid utf-8 byte 0xc3 after "["; expected a value or "]"`}}},
		{name: "non-fatal problems come before the fatal one", input: bom + "[\"\xff\", ", want: []P{
			{BOM, 0, 1, 1, "", "the file starts with a utf-8 byte order mark; it was skipped, but many json readers reject it (save the file as utf-8 without a bom)"},
			{InvalidUTF8, 5, 1, 3, "/0", "invalid utf-8 byte 0xff in string; it reads as U+FFFD"},
			{Syntax, 9, 1, 7, "", `unexpected end of input: the document is truncated (expected "]" to close the array opened at line 1, column 1)`}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			doc, got := Parse([]byte(tt.input))
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Parse(%q) problems:\n got %s\nwant %s", tt.input, formatProblems(got), formatProblems(tt.want))
			}
			fatal := len(tt.want) > 0 && tt.want[len(tt.want)-1].Kind.Fatal()
			if (doc == nil) != fatal {
				t.Errorf("Parse(%q) document = %v, want nil only with a fatal problem (fatal=%v)", tt.input, doc, fatal)
			}
			if doc != nil && string(doc.Data) != tt.input {
				t.Errorf("Parse(%q).Data = %q, want the input as given", tt.input, doc.Data)
			}
		})
	}
}

func TestParseTooDeep(t *testing.T) {
	deepest := strings.Repeat("[", MaxDepth) + strings.Repeat("]", MaxDepth)
	if doc, problems := Parse([]byte(deepest)); doc == nil || len(problems) != 0 {
		t.Fatalf("Parse(%d nested arrays) = %v, %s; want a document and no problems", MaxDepth, doc, formatProblems(problems))
	}

	objects := strings.Repeat(`{"a":`, MaxDepth) + "{}" + strings.Repeat("}", MaxDepth)
	doc, problems := Parse([]byte(objects))
	want := []Problem{{TooDeep, 5 * MaxDepth, 1, 5*MaxDepth + 1, strings.Repeat("/a", MaxDepth),
		"nesting deeper than 1000 levels: this object would be level 1001"}}
	if doc != nil || !reflect.DeepEqual(problems, want) {
		t.Errorf("Parse(%d nested objects) = %v, %s; want nil, %s", MaxDepth+1, doc, formatProblems(problems), formatProblems(want))
	}

	// Far beyond the limit, and never closed: still one problem, quickly.
	doc, problems = Parse(bytes.Repeat([]byte("[\n"), 100_000))
	want = []Problem{{TooDeep, 2 * MaxDepth, MaxDepth + 1, 1, strings.Repeat("/0", MaxDepth),
		"nesting deeper than 1000 levels: this array would be level 1001"}}
	if doc != nil || !reflect.DeepEqual(problems, want) {
		t.Errorf("Parse(100000 open arrays) = %v, %s; want nil, %s", doc, formatProblems(problems), formatProblems(want))
	}
}

func TestParseValues(t *testing.T) {
	type obj = map[string]any
	type arr = []any
	tests := []struct {
		name  string
		input string
		want  any
	}{
		{"number text is kept", `{"n": 1.50, "e": -0E+00, "big": 123456789012345678901234567890}`,
			obj{"n": json.Number("1.50"), "e": json.Number("-0E+00"), "big": json.Number("123456789012345678901234567890")}},
		{"empty containers are not nil", `{"a": [], "o": {}}`, obj{"a": arr{}, "o": obj{}}},
		{"literals", `[true, false, null]`, arr{true, false, nil}},
		{"simple escapes", `"\"\\\/\b\f\n\r\t"`, "\"\\/\b\f\n\r\t"},
		{"unicode escapes", `"\u00e9\u20AC"`, "é€"},
		{"surrogate pair", `"\ud83d\ude00"`, "😀"},
		{"lone high surrogate", `"\ud800x"`, "\ufffdx"},
		{"high surrogate before a non-surrogate escape", `"\ud800\u0041"`, "\ufffdA"},
		{"lone low surrogate before a pair", `"\udc00\ud83d\ude00"`, "\ufffd😀"},
		{"two high surrogates", `"\ud800\ud800"`, "\ufffd\ufffd"},
		{"invalid utf-8 becomes U+FFFD per byte", "\"a\xff\xc3(\"", "a\ufffd\ufffd("},
		{"utf-8 encoded surrogate is invalid", "\"\xed\xa0\x80\"", "\ufffd\ufffd\ufffd"},
		{"later duplicate wins", `{"a": 1, "b": 2, "a": [3]}`, obj{"a": arr{json.Number("3")}, "b": json.Number("2")}},
		{"escaped and plain member names", `{"a\/b": 1, "\u007e": 2}`, obj{"a/b": json.Number("1"), "~": json.Number("2")}},
		{"multi-byte text", `["Zoë ☃ 😀", "日本語"]`, arr{"Zoë ☃ 😀", "日本語"}},
		{"nested", `{"a": [{"b": [[]]}, {}]}`, obj{"a": arr{obj{"b": arr{arr{}}}, obj{}}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			doc, problems := Parse([]byte(tt.input))
			if doc == nil {
				t.Fatalf("Parse(%q) failed: %s", tt.input, formatProblems(problems))
			}
			if !reflect.DeepEqual(doc.Value, tt.want) {
				t.Errorf("Parse(%q).Value = %#v, want %#v", tt.input, doc.Value, tt.want)
			}
			if ref, ok := referenceDecode([]byte(tt.input)); ok && !reflect.DeepEqual(doc.Value, ref) {
				t.Errorf("Parse(%q).Value = %#v, encoding/json gives %#v", tt.input, doc.Value, ref)
			}
		})
	}
}

func TestProblemKind(t *testing.T) {
	tests := []struct {
		kind  ProblemKind
		name  string
		fatal bool
	}{
		{Syntax, "syntax", true},
		{TrailingData, "trailing-data", true},
		{TooDeep, "too-deep", true},
		{DuplicateKey, "duplicate-key", false},
		{BOM, "bom", false},
		{InvalidUTF8, "invalid-utf8", false},
		{NumberRange, "number-range", false},
		{ProblemKind(42), "problem-kind-42", false},
		{ProblemKind(-1), "problem-kind--1", false},
	}
	for _, tt := range tests {
		if got := tt.kind.String(); got != tt.name {
			t.Errorf("ProblemKind(%d).String() = %q, want %q", int(tt.kind), got, tt.name)
		}
		if got := tt.kind.Fatal(); got != tt.fatal {
			t.Errorf("%s.Fatal() = %v, want %v", tt.name, got, tt.fatal)
		}
	}
}

// TestParseTestdata checks every fixture against encoding/json.
func TestParseTestdata(t *testing.T) {
	paths, err := filepath.Glob(filepath.Join("testdata", "*.json"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no fixtures in testdata (err %v)", err)
	}
	for _, path := range paths {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		checkAgainstReference(t, data)
	}
}

func formatProblems(problems []Problem) string {
	if len(problems) == 0 {
		return "none"
	}
	var b strings.Builder
	for _, p := range problems {
		b.WriteString("\n    ")
		b.WriteString(p.Kind.String())
		b.WriteString(" ")
		b.WriteString(strings.Join([]string{itoa(p.Offset), itoa(p.Line), itoa(p.Column)}, "/"))
		b.WriteString(" ")
		b.WriteString(quoteForTest(p.Pointer))
		b.WriteString(" ")
		b.WriteString(p.Message)
	}
	return b.String()
}

// TestProblemsBounded: hostile input with many non-fatal problems lists at
// most MaxProblemsPerKind of each kind, then says how many more there were.
func TestProblemsBounded(t *testing.T) {
	var b strings.Builder
	b.WriteString("[")
	const n = 3 * MaxProblemsPerKind
	for i := range n {
		if i > 0 {
			b.WriteString(",")
		}
		b.WriteString("\"\xff\"")
	}
	b.WriteString("]")
	doc, problems := Parse([]byte(b.String()))
	if doc == nil {
		t.Fatal("invalid UTF-8 is not fatal")
	}
	if len(problems) != MaxProblemsPerKind+1 {
		t.Fatalf("%d problems, want %d", len(problems), MaxProblemsPerKind+1)
	}
	last := problems[len(problems)-1]
	if last.Kind != InvalidUTF8 || !strings.Contains(last.Message, "200 more invalid-utf8 problems") {
		t.Errorf("closing problem: %+v", last)
	}
}

// TestWholeBeyondInt64: a whole number that no int64 holds, however it is
// spelt, is a NumberRange problem at the number; fractions, and whole
// numbers within int64, are not.
func TestWholeBeyondInt64(t *testing.T) {
	for _, tc := range []struct {
		num  string
		want bool
	}{
		{"0", false}, {"-0", false}, {"1.0", false}, {"2.5", false}, {"1e-400", false}, {"0e999", false},
		{"999999999999999999", false},
		{"9223372036854775807", false}, {"-9223372036854775808", false},
		{"9223372036854775808", true}, {"-9223372036854775809", true},
		{"9999999999999999999", true}, {"99999999999999999999", true},
		{"1e19", true}, {"1E+19", true}, {"9.3e18", true}, {"9.2e18", false}, {"922337203685477580.8e1", true},
		{"1e400", true}, {"-1e400", true}, {"100000000000000000000e-2", false}, {"100000000000000000000e-1", true},
		{"12345678901234567890.5", false}, {"1.5e300", true}, {"0.00000000000000000000001e42", true},
	} {
		got := wholeBeyondInt64([]byte(tc.num))
		if got != tc.want {
			t.Errorf("wholeBeyondInt64(%s) = %v, want %v", tc.num, got, tc.want)
		}
		doc, problems := Parse([]byte(`{"rt": {"t1": ` + tc.num + `}}`))
		if doc == nil {
			t.Fatalf("Parse(%s): %v", tc.num, problems)
		}
		if n := len(problems); (n == 1) != tc.want || n > 1 {
			t.Errorf("Parse(%s): problems %+v, want a number-range problem: %v", tc.num, problems, tc.want)
		} else if tc.want && (problems[0].Kind != NumberRange || problems[0].Pointer != "/rt/t1" || problems[0].Column != 15) {
			t.Errorf("Parse(%s): problem %+v, want number-range at /rt/t1, column 15", tc.num, problems[0])
		}
	}
}

func beyond(num string) string {
	return "number " + quote(num) + " is a whole number beyond a 64-bit integer (-9223372036854775808 to 9223372036854775807): readers disagree on its value (many round it, or refuse it), and the checker reads whole numbers as 64-bit integers, so no rule reads it as a count or an id"
}
