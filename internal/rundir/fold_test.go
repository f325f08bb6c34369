package rundir

import (
	"io/fs"
	"testing"
	"testing/fstest"
)

func TestFoldFS(t *testing.T) {
	fsys := fstest.MapFS{
		"runs/a/State/GATES_LEDGER.md":       {},
		"runs/a/state.json":                  {},
		"runs/a/STATE.JSON":                  {},
		"runs/a/Rounds/ROUND-1/x":            {},
		"runs/B/state/ROADMAP.md":            {},
		"Other/state.json":                   {},
		"runs/c/state.json ":                 {},
		"runs/c/state\u200b/GATES_LEDGER.md": {},
		"runs/c/\u0421URRENT_TASK.json.":     {},
		"runs/c/ROAD MAP.md":                 {},
	}
	tests := []struct {
		name, dir, ask string
		want           string // "" when missing
	}{
		{"as written", "runs/a", "runs/a/state.json", "runs/a/state.json"},
		{"several variants: the first in sorted order", "runs/a", "runs/a/State.Json", "runs/a/STATE.JSON"},
		{"a folder in another case", "runs/a", "runs/a/state/GATES_LEDGER.md", "runs/a/State/GATES_LEDGER.md"},
		{"every element in another case", "runs/a", "runs/a/rounds/round-1/X", "runs/a/Rounds/ROUND-1/x"},
		{"the folder itself", "runs/a", "runs/a/state", "runs/a/State"},
		{"nothing there", "runs/a", "runs/a/summary.json", ""},
		{"not the same length", "runs/a", "runs/a/stat", ""},
		{"the folder above does not fold", "runs/a", "runs/A/state.json", ""},
		{"outside dir, as written only", "runs/a", "other/state.json", ""},
		{"from the top", ".", "other/state.json", "Other/state.json"},
		{"a name below a folder that folds", "runs", "runs/b/STATE/roadmap.md", "runs/B/state/ROADMAP.md"},
		{"a space after the name", "runs/c", "runs/c/state.json", "runs/c/state.json "},
		{"a folder with a character drawn as nothing", "runs/c", "runs/c/state/GATES_LEDGER.md", "runs/c/state\u200b/GATES_LEDGER.md"},
		{"a letter drawn like another, a dot at the end", "runs/c", "runs/c/current_task.json", "runs/c/\u0421URRENT_TASK.json."},
		{"a space inside the name shows", "runs/c", "runs/c/ROADMAP.md", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := &foldFS{FS: fsys, dir: tc.dir}
			got, ok := f.resolve(tc.ask)
			if !ok {
				got = ""
			}
			if tc.want == "" && ok {
				if _, err := fs.Lstat(fsys, got); err == nil {
					t.Fatalf("resolve(%q) = %q, want missing", tc.ask, got)
				}
				return
			}
			if got != tc.want {
				t.Fatalf("resolve(%q) = %q, want %q", tc.ask, got, tc.want)
			}
			if tc.want != "" {
				if _, err := fs.Lstat(f, tc.ask); err != nil {
					t.Errorf("Lstat(%q) through the view: %v", tc.ask, err)
				}
				if _, err := fs.ReadFile(f, tc.ask); err != nil && !isDirErr(fsys, tc.want) {
					t.Errorf("ReadFile(%q) through the view: %v", tc.ask, err)
				}
			} else if _, err := fs.Lstat(f, tc.ask); err == nil {
				t.Errorf("Lstat(%q) through the view found something", tc.ask)
			}
		})
	}
}

func isDirErr(fsys fs.FS, name string) bool {
	info, err := fs.Stat(fsys, name)
	return err == nil && info.IsDir()
}

func TestFoldName(t *testing.T) {
	for _, tc := range []struct{ name, want string }{
		{"State.JSON", "state.json"},
		{"state.json ", "state.json"},
		{"state.json. . ", "state.json"},
		{" state.json", "state.json"},
		{"state.json\u00a0", "state.json"},
		{"st\u200bate", "state"},
		{"\u0421URRENT_TASK\uff0ejson", "current_task.json"},
		{".ai", ".ai"},
		{"ROAD MAP.md", "road map.md"},
		{"d\u00e9j\u00e0", "d\u00e9j\u00e0"},
	} {
		if got := FoldName(tc.name); got != tc.want {
			t.Errorf("FoldName(%q) = %q, want %q", tc.name, got, tc.want)
		}
	}
}

func TestEqualFoldASCII(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want bool
	}{
		{"state", "STATE", true},
		{"State.json", "state.JSON", true},
		{"state", "states", false},
		{"state", "stat3", false},
		{"k", "\u212a", false}, // the Kelvin sign folds to k in Unicode, on no file system as a name
		{"é", "É", false},      // only ASCII letters fold
		{"_", "\x7f", false},
		{"@", "`", false}, // 0x40 and 0x60 differ by the case bit, but are not letters
	} {
		if got := equalFoldASCII(tc.a, tc.b); got != tc.want {
			t.Errorf("equalFoldASCII(%q, %q) = %v, want %v", tc.a, tc.b, got, tc.want)
		}
	}
}
