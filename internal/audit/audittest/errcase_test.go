package audittest

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// fakeRuns makes runs/ok/base/run/ with a few files and returns runs/.
func fakeRuns(t *testing.T) string {
	t.Helper()
	runs := t.TempDir()
	for name, data := range map[string]string{
		"ok/base/CASE.md":           "the base\n",
		"ok/base/run/state.json":    "{\n  \"status\": \"ok\",\n  \"n\": 1\n}\n",
		"ok/base/run/log.md":        "- `a.txt` - [hash:0000000000000000]\n",
		"ok/base/run/a.txt":         "alpha\n",
		"ok/base/run/gone/b.txt":    "beta\n",
		"ok/base/run/notes/keep.md": "keep\n",
	} {
		p := filepath.Join(runs, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return runs
}

func read(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestApplyKeepsBytes: every directive and section form gives exactly the
// bytes, links, folders and modes it says.
func TestApplyKeepsBytes(t *testing.T) {
	runs := fakeRuns(t)
	odd := "\xef\xbb\xbf{\r\n\"s\": \"\xff\"}" // BOM, CRLF, invalid UTF-8, no final line break
	patch := "# comments and blank lines are ignored\n\nbase: ok/base\n" +
		"copy: run run/archive/run\n" +
		"move: run/a.txt run/moved.txt\n" +
		"delete: run/gone\n" +
		"symlink: run/loop.txt -> loop2.txt\n" +
		"symlink: run/out.txt -> ../outside.txt\n" +
		"mkdir: run/empty\n" +
		"size: run/big.bin 1048576\n" +
		"mode: run/notes/keep.md 0600\n" +
		"-- run/state.json.edit --\n<<<<\n  \"status\": \"ok\",\n====\n  \"status\": \"done\",\n  \"status\": \"ok\",\n>>>>\n" +
		"-- run/odd.json.base64 --\n" + base64.StdEncoding.EncodeToString([]byte(odd)) + "\n" +
		"-- run/big.bin --\n" +
		"-- run/log.md --\n- `moved.txt` - [hash:{{hash run/moved.txt}}]\n" +
		"-- outside.txt --\nout\n"
	caseDir := filepath.Join(runs, "err", "c")
	if err := os.MkdirAll(caseDir, 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(caseDir, PatchFile), []byte(patch), 0o644)
	os.WriteFile(filepath.Join(caseDir, "CASE.md"), []byte("the case\n"), 0o644)
	os.WriteFile(filepath.Join(caseDir, "expect"), []byte("gate: fail\n"), 0o644)
	dst := filepath.Join(t.TempDir(), "c")
	if err := MaterialiseCase(runs, caseDir, dst); err != nil {
		t.Fatal(err)
	}
	at := func(p string) string { return filepath.Join(dst, filepath.FromSlash(p)) }
	sum := sha256.Sum256([]byte("alpha\n"))
	for p, want := range map[string]string{
		"CASE.md":                "the case\n",
		"expect":                 "gate: fail\n",
		"run/state.json":         "{\n  \"status\": \"done\",\n  \"status\": \"ok\",\n  \"n\": 1\n}\n",
		"run/odd.json":           odd,
		"run/moved.txt":          "alpha\n",
		"run/log.md":             "- `moved.txt` - [hash:" + hex.EncodeToString(sum[:])[:16] + "]\n",
		"run/archive/run/a.txt":  "alpha\n",
		"run/archive/run/log.md": "- `a.txt` - [hash:0000000000000000]\n",
		"outside.txt":            "out\n",
	} {
		if got := read(t, at(p)); got != want {
			t.Errorf("%s = %q, want %q", p, got, want)
		}
	}
	for _, p := range []string{"run/a.txt", "run/gone", "patch.txtar", "run/archive/run/archive"} {
		if _, err := os.Lstat(at(p)); err == nil {
			t.Errorf("%s exists, want it gone", p)
		}
	}
	for link, target := range map[string]string{"run/loop.txt": "loop2.txt", "run/out.txt": filepath.FromSlash("../outside.txt")} {
		if got, err := os.Readlink(at(link)); err != nil || got != target {
			t.Errorf("%s links to %q (%v), want %q", link, got, err, target)
		}
	}
	if info, err := os.Stat(at("run/empty")); err != nil || !info.IsDir() {
		t.Errorf("run/empty: %v, want an empty folder", err)
	}
	if info, err := os.Stat(at("run/big.bin")); err != nil || info.Size() != 1<<20 {
		t.Errorf("run/big.bin: %v, want 1 MiB", err)
	}
	if runtime.GOOS != "windows" {
		if info, err := os.Stat(at("run/notes/keep.md")); err != nil || info.Mode().Perm() != 0o600 {
			t.Errorf("run/notes/keep.md: mode %v (%v), want 0600", info.Mode().Perm(), err)
		}
	}
}

// TestPatchErrors: a patch that cannot be read or applied says which file,
// which line and what to write.
func TestPatchErrors(t *testing.T) {
	tests := []struct {
		name, patch, want string
	}{
		{"no base", "delete: run/a.txt\n", "patch.txtar: no base: line (e.g. base: ok/complete)"},
		{"base not ok", "base: err/other\n-- run/a.txt --\nx\n", `patch.txtar:1: base: "err/other": want an ok case`},
		{"missing base", "base: ok/nothing\n-- run/a.txt --\nx\n", "patch.txtar: base: ok/nothing: no such case under"},
		{"two bases", "base: ok/base\nbase: ok/base\n", "patch.txtar:2: a second base:"},
		{"unknown directive", "base: ok/base\nremove: run/a.txt\n", `patch.txtar:2: unknown directive "remove:"`},
		{"not a directive", "base: ok/base\nrun/a.txt\n", `patch.txtar:2: "run/a.txt" is not a directive`},
		{"path leaves the case", "base: ok/base\ndelete: ../x\n", `patch.txtar:2: delete: want one relative path without ".."`},
		{"absolute section", "base: ok/base\n-- /etc/passwd --\nx\n", `section "/etc/passwd": want a relative path`},
		{"bad symlink", "base: ok/base\nsymlink: run/x\n", `patch.txtar:2: symlink: want "PATH -> TARGET"`},
		{"bad mode", "base: ok/base\nmode: run/a.txt 999\n", `patch.txtar:2: mode: want "PATH 0NNN" (octal)`},
		{"bad base64", "base: ok/base\n-- run/a.txt.base64 --\n!!\n", `section "run/a.txt.base64": illegal base64`},
		{"edit without block", "base: ok/base\n-- run/a.txt.edit --\nalpha\n", `section "run/a.txt.edit" holds no <<<< ==== >>>> block`},
		{"nothing changed", "base: ok/base\n", "the patch changes nothing in ok/base"},
		{"stale delete", "base: ok/base\ndelete: run/nothing\n", "delete: run/nothing: not in the base (a stale patch?)"},
		{"edit not found", "base: ok/base\n-- run/a.txt.edit --\n<<<<\nomega\n====\nx\n>>>>\n", `section run/a.txt.edit: "omega" occurs 0 times, want once`},
		{"edit of a missing file", "base: ok/base\n-- run/z.txt.edit --\n<<<<\na\n====\nb\n>>>>\n", "section run/z.txt.edit: open"},
		{"text outside a block", "base: ok/base\n-- run/a.txt.edit --\nstray\n<<<<\nalpha\n====\nb\n>>>>\n", `text outside a <<<< ==== >>>> block: "stray"`},
		{"hash of a missing file", "base: ok/base\n-- run/log.md --\n{{hash run/none.txt}}\n", "{{hash run/none.txt}}: open"},
		{"copy over a file", "base: ok/base\ncopy: run/a.txt run/log.md\n", "copy: run/a.txt run/log.md: run/log.md already exists"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			runs := fakeRuns(t)
			caseDir := filepath.Join(runs, "err", "c")
			os.MkdirAll(caseDir, 0o755)
			os.WriteFile(filepath.Join(caseDir, PatchFile), []byte(tc.patch), 0o644)
			err := MaterialiseCase(runs, caseDir, filepath.Join(t.TempDir(), "c"))
			if err == nil {
				t.Fatalf("no error, want one containing %q", tc.want)
			}
			if !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), PatchFile) {
				t.Errorf("error %q, want it to name %s and contain %q", err, PatchFile, tc.want)
			}
		})
	}
}

// TestMaterialiseWithoutPatch: a case folder that is not a patch is copied
// as it is, links included.
func TestMaterialiseWithoutPatch(t *testing.T) {
	src := t.TempDir()
	os.MkdirAll(filepath.Join(src, "run"), 0o755)
	os.WriteFile(filepath.Join(src, "run", "f"), []byte("x"), 0o644)
	if err := os.Symlink("f", filepath.Join(src, "run", "l")); err != nil {
		t.Skip(err)
	}
	dst := filepath.Join(t.TempDir(), "c")
	if err := MaterialiseCase(t.TempDir(), src, dst); err != nil {
		t.Fatal(err)
	}
	if got := read(t, filepath.Join(dst, "run", "f")); got != "x" {
		t.Errorf("f = %q", got)
	}
	if info, err := os.Lstat(filepath.Join(dst, "run", "l")); err != nil || info.Mode()&fs.ModeSymlink == 0 {
		t.Errorf("l is not a link: %v", err)
	}
	if err := MaterialiseCase(t.TempDir(), src, dst); err == nil || !strings.Contains(err.Error(), "already exists") {
		t.Errorf("materialising over an existing folder: %v, want already exists", err)
	}
}

func TestPlainText(t *testing.T) {
	for data, want := range map[string]bool{
		"a\n":          true,
		"\ta é\n":      true,
		"":             true,
		"a":            false,
		"a\r\n":        false,
		"\ufeffa\n":    false,
		"\xff\n":       false,
		"a\x00\n":      false,
		"-- x --\n":    false,
		"x\n-- x --\n": false,
		"<<<< like\n":  true,
		"\x1b[31m\n":   false,
	} {
		if got := PlainText([]byte(data)); got != want {
			t.Errorf("PlainText(%q) = %v, want %v", data, got, want)
		}
	}
}

// TestWriteCases: ok cases are copied, err cases written out, side by side.
func TestWriteCases(t *testing.T) {
	runs := fakeRuns(t)
	caseDir := filepath.Join(runs, "err", "c")
	os.MkdirAll(caseDir, 0o755)
	os.WriteFile(filepath.Join(caseDir, PatchFile), []byte("base: ok/base\ndelete: run/a.txt\n"), 0o644)
	os.WriteFile(filepath.Join(runs, "err", "c.want"), []byte("exit 1\n"), 0o644)
	dst := filepath.Join(t.TempDir(), "runs")
	if err := WriteCases(runs, dst); err != nil {
		t.Fatal(err)
	}
	for p, want := range map[string]string{
		"ok/base/run/a.txt": "alpha\n",
		"err/c/run/log.md":  "- `a.txt` - [hash:0000000000000000]\n",
		"err/c.want":        "exit 1\n",
	} {
		if got := read(t, filepath.Join(dst, filepath.FromSlash(p))); got != want {
			t.Errorf("%s = %q, want %q", p, got, want)
		}
	}
	if _, err := os.Lstat(filepath.Join(dst, "err", "c", "run", "a.txt")); err == nil {
		t.Error("err/c/run/a.txt exists: the patch was not applied")
	}
}

// TestWriteSomeCases: keepErr sees each case folder once, with its index
// among the folders, and only what it keeps is written out; files beside
// the cases are copied whatever it says.
func TestWriteSomeCases(t *testing.T) {
	runs := fakeRuns(t)
	for _, c := range []string{"c1", "c2", "c3"} {
		caseDir := filepath.Join(runs, "err", c)
		os.MkdirAll(caseDir, 0o755)
		os.WriteFile(filepath.Join(caseDir, PatchFile), []byte("base: ok/base\ndelete: run/a.txt\n"), 0o644)
	}
	os.WriteFile(filepath.Join(runs, "err", "c1.want"), []byte("exit 1\n"), 0o644)
	dst := filepath.Join(t.TempDir(), "runs")
	var seen []string
	err := WriteSomeCases(runs, dst, func(i int, name string) bool {
		seen = append(seen, fmt.Sprint(i, name))
		return i != 1
	})
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(seen, " "); got != "0c1 1c2 2c3" {
		t.Errorf("keepErr saw %q, want every case folder once, in order", got)
	}
	for p, want := range map[string]bool{"err/c1/run/log.md": true, "err/c2": false, "err/c3/run/log.md": true, "err/c1.want": true, "ok/base/run/a.txt": true} {
		if _, err := os.Lstat(filepath.Join(dst, filepath.FromSlash(p))); (err == nil) != want {
			t.Errorf("%s written: %v, want %v", p, err == nil, want)
		}
	}
}

// TestApplyEdits: each block replaces its OLD alone, an empty NEW deletes
// it, and a block never reaches into the next.
func TestApplyEdits(t *testing.T) {
	content := "a\nb\nc\nd\n"
	for _, tc := range []struct{ name, edits, want string }{
		{"one block", "<<<<\nb\n====\nB\n>>>>\n", "a\nB\nc\nd\n"},
		{"an empty NEW deletes", "<<<<\nb\n\n====\n>>>>\n", "a\nc\nd\n"},
		{"an empty NEW before another block", "<<<<\nb\n\n====\n>>>>\n<<<<\nd\n====\nD\n>>>>\n", "a\nc\nD\n"},
		{"two blocks", "<<<<\na\n====\nA\n>>>>\n<<<<\nc\n====\nC1\nC2\n>>>>\n", "A\nb\nC1\nC2\nd\n"},
	} {
		got, err := applyEdits(content, tc.edits)
		if err != nil || got != tc.want {
			t.Errorf("%s: got %q (%v), want %q", tc.name, got, err, tc.want)
		}
	}
}
