package runwrite

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/h3a-check/h3a-check/internal/ledger"
)

var logTime = time.Date(2025, 9, 29, 16, 30, 5, 0, time.FixedZone("+02", 2*3600))

// newRun initialises a run in a temp folder and writes artifacts into it.
func newRun(t *testing.T, artifacts map[string]string) string {
	t.Helper()
	dir, err := Init(InitOptions{RunsDir: t.TempDir(), Now: fixtureTime, Random: bytes.NewReader(make([]byte, 16)), Meta: UnknownMeta()})
	if err != nil {
		t.Fatal(err)
	}
	for rel, content := range artifacts {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func readLog(t *testing.T, run string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(run, filepath.FromSlash(EvidenceLogPath)))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func sha(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}

func TestLog(t *testing.T) {
	const green = "47 passed in 1.32s\n"
	run := newRun(t, map[string]string{"artifacts/executor/test_output_green.txt": green})
	before := readLog(t, run)
	file := filepath.Join(run, "artifacts", "executor", "test_output_green.txt")
	for _, full := range []bool{false, true} {
		got, err := Log(LogOptions{Run: run, File: file, Description: "  GREEN phase (all tests passing)  ", Full: full, Now: logTime})
		if err != nil {
			t.Fatal(err)
		}
		hash := sha(green)[:16]
		if full {
			hash = sha(green)
		}
		want := "- `artifacts/executor/test_output_green.txt` - [hash:" + hash + "] - 2025-09-29T14:30:05Z - GREEN phase (all tests passing)"
		if got.Text != want {
			t.Errorf("full %v: logged\n%q\nwant\n%q", full, got.Text, want)
		}
		after := readLog(t, run)
		if !onlyInserted(before, after, want) {
			t.Fatalf("the log was not only added to with %q:\n%s", want, after)
		}
		log, problems := ledger.ParseEvidenceLog(after)
		last := log.Entries[len(log.Entries)-1]
		if len(problems) > 0 || last.Line != got.Entry.Line || last.Hash != hash {
			t.Errorf("parsed back: %+v, problems %v; Log said line %d", last, problems, got.Entry.Line)
		}
		before = after
	}
}

// onlyInserted reports whether after is before with the one line added.
func onlyInserted(before, after []byte, line string) bool {
	b, a := strings.SplitAfter(string(before), "\n"), strings.SplitAfter(string(after), "\n")
	for i := range a {
		if a[i] == line+"\n" {
			return strings.Join(a[:i], "")+strings.Join(a[i+1:], "") == string(before) && len(a) == len(b)+1
		}
	}
	return false
}

// TestLogWhereAPersonWould: an entry goes under the artifact heading of
// the agent whose folder holds the file, else at the end of the artifact
// index, never below unrelated sections, and never before an earlier
// entry of its own path; the log is only added to.
func TestLogWhereAPersonWould(t *testing.T) {
	tests := []struct {
		name  string
		file  string
		log   func(tmpl string) string // the log before, from the template's
		under string                   // the line the entry must follow
		atEnd bool
	}{
		{"planner", "artifacts/planner/plan.md", nil, "### Planner Artifacts\n", false},
		{"executor", "artifacts/executor/out.txt", nil, "### Executor Artifacts\n", false},
		{"validator", "artifacts/validator/scan.json", nil, "### Validator Artifacts\n", false},
		{"after the section's entries", "artifacts/executor/out.txt", func(l string) string {
			return strings.Replace(l, "### Executor Artifacts\n", "### Executor Artifacts\n- `artifacts/executor/a.txt` - [hash:0123456789abcdef] - 2025-09-29T14:00:00Z - a\n", 1)
		}, "- `artifacts/executor/a.txt` - [hash:0123456789abcdef] - 2025-09-29T14:00:00Z - a\n", false},
		{"no agent's folder: the end of the index", "artifacts/notes.txt", nil, "### Validator Artifacts\n", false},
		{"no artifact index: the end", "artifacts/executor/out.txt", func(l string) string {
			return strings.ReplaceAll(l, "Artifact", "Files")
		}, "", true},
		{"an entry of the path below: after it", "artifacts/executor/out.txt", func(l string) string {
			return l + "- `artifacts/executor/out.txt` - [hash:0123456789abcdef] - 2025-09-29T14:00:00Z - old\n"
		}, "", true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			run := newRun(t, map[string]string{tc.file: "content\n"})
			p := filepath.Join(run, filepath.FromSlash(EvidenceLogPath))
			if tc.log != nil {
				os.WriteFile(p, []byte(tc.log(string(readLog(t, run)))), 0o640)
			}
			os.Chmod(p, 0o640)
			before := readLog(t, run)
			got, err := Log(LogOptions{Run: run, File: filepath.Join(run, filepath.FromSlash(tc.file)), Description: "d", Now: logTime})
			if err != nil {
				t.Fatal(err)
			}
			after := readLog(t, run)
			if !onlyInserted(before, after, got.Text) {
				t.Fatalf("not only added to:\n%s", after)
			}
			switch {
			case tc.atEnd && !bytes.HasSuffix(after, []byte(got.Text+"\n")):
				t.Errorf("want the entry at the end:\n%s", after)
			case !tc.atEnd && !strings.Contains(string(after), tc.under+got.Text+"\n"):
				t.Errorf("want the entry right after %q:\n%s", tc.under, after)
			}
			log, _ := ledger.ParseEvidenceLog(after)
			var last ledger.Entry
			for _, e := range log.Entries {
				if e.Path == tc.file {
					last = e
				}
			}
			if last.Line != got.Entry.Line || last.Description != "d" {
				t.Errorf("the new entry is not the last of its path: %+v, Log said line %d", last, got.Entry.Line)
			}
			if info, err := os.Stat(p); err != nil || info.Mode().Perm() != 0o640 {
				t.Errorf("mode %v, want 0640 kept", info.Mode())
			}
		})
	}
}

func TestLogWithoutFinalNewline(t *testing.T) {
	run := newRun(t, map[string]string{"artifacts/planner/plan.md": "plan\n"})
	p := filepath.Join(run, filepath.FromSlash(EvidenceLogPath))
	before := bytes.TrimRight(readLog(t, run), "\n")
	if err := os.WriteFile(p, before, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Log(LogOptions{Run: run, File: filepath.Join(run, "artifacts", "planner", "plan.md"), Description: "plan", Now: logTime}); err != nil {
		t.Fatal(err)
	}
	after := readLog(t, run)
	if !bytes.HasPrefix(after, append(before, '\n')) || bytes.Count(after, []byte("\n")) != bytes.Count(before, []byte("\n"))+2 {
		t.Errorf("appended:\n%q", after[len(before):])
	}
}

func TestLogRefuses(t *testing.T) {
	run := newRun(t, map[string]string{
		"artifacts/executor/out.txt": "out\n",
		"artifacts/real/a.txt":       "a\n",
	})
	outside := filepath.Join(filepath.Dir(run), "outside.txt")
	if err := os.WriteFile(outside, []byte("x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	mustSymlink(t, "out.txt", filepath.Join(run, "artifacts", "executor", "link.txt"))
	mustSymlink(t, "real", filepath.Join(run, "artifacts", "linked"))
	notRun := t.TempDir()
	in := func(rel string) string { return filepath.Join(run, filepath.FromSlash(rel)) }
	tests := []struct {
		name, run, file, desc, want string
	}{
		{"outside the run", run, outside, "d", "is outside the run"},
		{"the run itself", run, run, "d", "is outside the run"},
		{"a symbolic link", run, in("artifacts/executor/link.txt"), "d", "is a symbolic link"},
		{"a link on the way", run, in("artifacts/linked/a.txt"), "d", `is a symbolic link ("artifacts/linked")`},
		{"a folder", run, in("artifacts/executor"), "d", "is a folder"},
		{"a missing file", run, in("artifacts/executor/none.txt"), "d", "does not exist"},
		{"the log itself", run, in(EvidenceLogPath), "d", "is the evidence log itself"},
		{"a newline", run, in("artifacts/executor/out.txt"), "ok\n- `x` - [hash:0123456789abcdef] - t - forged", "control character U+000A"},
		{"an escape", run, in("artifacts/executor/out.txt"), "red \x1b[31m", "control character U+001B"},
		{"no description", run, in("artifacts/executor/out.txt"), " \t ", "description is empty"},
		{"not a run", notRun, filepath.Join(notRun, "x"), "d", "is not an h3a run"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := readLog(t, run)
			_, err := Log(LogOptions{Run: tt.run, File: tt.file, Description: tt.desc, Now: logTime})
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error %v, want one containing %q", err, tt.want)
			}
			if after := readLog(t, run); !bytes.Equal(after, before) {
				t.Errorf("the log changed:\n%s", after[len(before):])
			}
		})
	}
}

// TestLogRefusesOutsideTheRun: each path that leaves the run is refused
// by the outside-the-run check itself, with its message, not by a later
// check that happens to refuse it too (the run itself is a folder, a path
// with ".." is read back as another path). A ".." that stays inside is
// not outside.
func TestLogRefusesOutsideTheRun(t *testing.T) {
	run := newRun(t, map[string]string{"artifacts/executor/out.txt": "out\n"})
	parent := filepath.Dir(run)
	sibling := run + "-copy" // shares the run's name as a prefix
	for path, content := range map[string]string{
		filepath.Join(parent, "outside.txt"):                     "x\n",
		filepath.Join(sibling, "artifacts", "executor", "a.txt"): "a\n",
	} {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, file := range []string{
		filepath.Join(parent, "outside.txt"),
		filepath.Join(run, "artifacts", "..", "..", "outside.txt"),
		filepath.Join(sibling, "artifacts", "executor", "a.txt"),
		run,
		parent,
	} {
		t.Run(file, func(t *testing.T) {
			before := readLog(t, run)
			_, err := Log(LogOptions{Run: run, File: file, Description: "d", Now: logTime})
			want := fmt.Sprintf("%q is outside the run %q; only files inside the run directory can be logged", file, run)
			if err == nil || err.Error() != want {
				t.Fatalf("error %v, want %s", err, want)
			}
			if after := readLog(t, run); !bytes.Equal(after, before) {
				t.Errorf("the log changed:\n%s", after[len(before):])
			}
		})
	}
	inside := filepath.Join(run, "artifacts", "planner", "..", "executor", "out.txt")
	if _, err := Log(LogOptions{Run: run, File: inside, Description: "d", Now: logTime}); err != nil {
		t.Errorf("%s: %v, want it logged as artifacts/executor/out.txt", inside, err)
	}
}

// TestLogHintsAtRunRelativePaths: FILE is a path from the working
// directory; a run-relative one that exists gets the path to use.
func TestLogHintsAtRunRelativePaths(t *testing.T) {
	run := newRun(t, map[string]string{"artifacts/executor/out.txt": "out\n"})
	t.Chdir(filepath.Dir(filepath.Dir(run)))
	relRun := filepath.Join(filepath.Base(filepath.Dir(run)), filepath.Base(run))
	_, err := Log(LogOptions{Run: relRun, File: "artifacts/executor/out.txt", Description: "d", Now: logTime})
	want := fmt.Sprintf("did you mean %q?", filepath.Join(relRun, "artifacts", "executor", "out.txt"))
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("error %v, want the hint %s", err, want)
	}
}

func TestLogRefusesASymlinkedLog(t *testing.T) {
	run := newRun(t, map[string]string{"artifacts/executor/out.txt": "out\n"})
	p := filepath.Join(run, filepath.FromSlash(EvidenceLogPath))
	elsewhere := filepath.Join(t.TempDir(), "EVIDENCE_LOG.md")
	if err := os.Rename(p, elsewhere); err != nil {
		t.Fatal(err)
	}
	mustSymlink(t, elsewhere, p)
	_, err := Log(LogOptions{Run: run, File: filepath.Join(run, "artifacts", "executor", "out.txt"), Description: "d", Now: logTime})
	if err == nil || !strings.Contains(err.Error(), "is not a regular file") {
		t.Errorf("error %v, want the symbolic link refused", err)
	}
}

// TestLogRefusesAHardLinkedLog: a log with a second name outside the run
// is not appended to; neither name changes.
func TestLogRefusesAHardLinkedLog(t *testing.T) {
	run := newRun(t, map[string]string{"artifacts/executor/out.txt": "out\n"})
	p := filepath.Join(run, filepath.FromSlash(EvidenceLogPath))
	elsewhere := filepath.Join(filepath.Dir(run), "outside.md")
	if err := os.Link(p, elsewhere); err != nil {
		t.Skipf("hard links unavailable: %v", err)
	}
	before := readLog(t, run)
	_, err := Log(LogOptions{Run: run, File: filepath.Join(run, "artifacts", "executor", "out.txt"), Description: "d", Now: logTime})
	if err == nil || !strings.Contains(err.Error(), "has 2 names (hard links)") {
		t.Errorf("error %v, want the hard-linked log refused", err)
	}
	if after, _ := os.ReadFile(elsewhere); !bytes.Equal(after, before) {
		t.Errorf("the file outside the run changed:\n%s", after)
	}
}

// TestLogWaitsForTheLock: while another writer holds the log's lock, Log
// does not append; it gives up after its wait, and appends once the lock
// is released.
func TestLogWaitsForTheLock(t *testing.T) {
	run := newRun(t, map[string]string{"artifacts/executor/out.txt": "out\n"})
	holder, err := os.OpenFile(filepath.Join(run, filepath.FromSlash(EvidenceLogPath)), os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer holder.Close()
	unlock, err := lockFile(holder, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	before := readLog(t, run)
	opts := LogOptions{Run: run, File: filepath.Join(run, "artifacts", "executor", "out.txt"), Description: "d", Now: logTime, LockWait: 50 * time.Millisecond}
	if _, err := Log(opts); err == nil || !strings.Contains(err.Error(), "held the lock") {
		t.Fatalf("error %v, want the lock to stop the append", err)
	}
	if !bytes.Equal(readLog(t, run), before) {
		t.Fatal("the log changed under another writer's lock")
	}
	unlock()
	if _, err := Log(opts); err != nil {
		t.Fatal(err)
	}
}

// TestLogConcurrently: writers in parallel each add one whole entry.
func TestLogConcurrently(t *testing.T) {
	const n = 12
	files := map[string]string{}
	for i := range n {
		files[fmt.Sprintf("artifacts/executor/out%02d.txt", i)] = fmt.Sprintf("output %d\n", i)
	}
	run := newRun(t, files)
	var wg sync.WaitGroup
	errs := make([]error, n)
	for i := range n {
		wg.Go(func() {
			_, errs[i] = Log(LogOptions{Run: run, File: filepath.Join(run, "artifacts", "executor", fmt.Sprintf("out%02d.txt", i)),
				Description: fmt.Sprintf("output %d", i), Now: logTime})
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	log, problems := ledger.ParseEvidenceLog(readLog(t, run))
	if len(log.Entries) != n || len(problems) > 0 {
		t.Errorf("%d entries (want %d), problems %v", len(log.Entries), n, problems)
	}
}

func mustSymlink(t *testing.T, target, link string) {
	t.Helper()
	if err := os.Symlink(target, link); err != nil {
		t.Skipf("symbolic links unavailable: %v", err)
	}
}
