package cli

import (
	"bytes"
	"os"
	"strings"
	"testing"
)

// TestSchemaCommand: every schema in schemas/ is listed and printed byte
// for byte from the binary; a slip of a name gets the nearest one.
func TestSchemaCommand(t *testing.T) {
	var out, errb bytes.Buffer
	if code := Main([]string{"schema"}, nil, &out, &errb); code != ExitPass {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	files, _ := os.ReadDir("../../schemas")
	n := 0
	for _, f := range files {
		name, ok := strings.CutSuffix(f.Name(), ".schema.json")
		if !ok {
			continue
		}
		n++
		if !strings.Contains(out.String(), "\n"+name+" ") {
			t.Errorf("list lacks %s:\n%s", name, out.String())
		}
		for _, arg := range []string{name, "schemas/" + f.Name()} {
			var one bytes.Buffer
			if code := Main([]string{"schema", arg}, nil, &one, &errb); code != ExitPass {
				t.Fatalf("schema %s: exit %d: %s", arg, code, errb.String())
			}
			want, _ := os.ReadFile("../../schemas/" + f.Name())
			if !bytes.Equal(one.Bytes(), want) {
				t.Errorf("schema %s differs from schemas/%s", arg, f.Name())
			}
		}
	}
	if n == 0 {
		t.Fatal("no schemas found")
	}
	errb.Reset()
	if code := Main([]string{"schema", "stat"}, nil, &out, &errb); code != ExitError || !strings.Contains(errb.String(), `did you mean "state"?`) {
		t.Errorf("schema stat: exit %d, %s", code, errb.String())
	}
}
