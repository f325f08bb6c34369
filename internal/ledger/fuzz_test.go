package ledger

import (
	"os"
	"path/filepath"
	"testing"
)

// addSeeds seeds a fuzz target with every fixture, in LF and CRLF form, and
// a few inputs that sit on the edges of the grammars.
func addSeeds(f *testing.F) {
	files, err := filepath.Glob(filepath.Join("testdata", "*.md"))
	if err != nil {
		f.Fatal(err)
	}
	if len(files) == 0 {
		f.Fatal("no fixtures under testdata to seed from")
	}
	for _, name := range files {
		data, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
		f.Add(crlf(data))
	}
	for _, s := range []string{
		"",
		"\xef\xbb\xbf",
		"### Task Queue\n- [x] T1: a ✅ (Completed: t)\n- [-]\n- [\n",
		"### Gate Events Log\n```\n[t] G0 - PASSED - p -\n[\n- [t\n",
		"- `a` - [hash:abcdef12] - t - d\n- `\n- `a` - [\n<!--\n",
		"| Gate | Status |\n|-|-|\n| G0 | 🟢 |\n|\n",
		"<!--> ``` <!-- -->\n~~~\n# \xff\r\n",
	} {
		f.Add([]byte(s))
	}
}

func FuzzParseRoadmap(f *testing.F) {
	addSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) { checkRoadmap(t, data) })
}

func FuzzParseGatesLedger(f *testing.F) {
	addSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) { checkGatesLedger(t, data) })
}

func FuzzParseEvidenceLog(f *testing.F) {
	addSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) { checkEvidenceLog(t, data) })
}
