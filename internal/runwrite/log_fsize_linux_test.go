package runwrite

import (
	"bytes"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// TestLogLeavesNoPartialEntry: an append the file system cuts short (here
// the file size limit, as a full disk or a quota would) leaves the log as
// it was, not with half an entry that the next entry would follow on the
// same line. The limit is the process's: the test is not parallel, and
// the log is made larger than the other files the test binary writes
// meanwhile (its test log), which the limit leaves alone.
func TestLogLeavesNoPartialEntry(t *testing.T) {
	run := newRun(t, map[string]string{"artifacts/planner/plan.md": "plan\n"})
	p := filepath.Join(run, filepath.FromSlash(EvidenceLogPath))
	// No final newline: the entry is appended.
	before := append(readLog(t, run), bytes.Repeat([]byte("notes "), 1<<14)...)
	if err := os.WriteFile(p, before, 0o644); err != nil {
		t.Fatal(err)
	}
	var old syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_FSIZE, &old); err != nil {
		t.Skip(err)
	}
	if err := syscall.Setrlimit(syscall.RLIMIT_FSIZE, &syscall.Rlimit{Cur: uint64(len(before) + 20), Max: old.Max}); err != nil {
		t.Skip(err)
	}
	_, err := Log(LogOptions{Run: run, File: filepath.Join(run, "artifacts", "planner", "plan.md"), Description: "plan", Now: logTime})
	if err := syscall.Setrlimit(syscall.RLIMIT_FSIZE, &old); err != nil {
		t.Fatal(err)
	}
	if err == nil {
		t.Fatal("Log succeeded past the file size limit")
	}
	if after := readLog(t, run); !bytes.Equal(after, before) {
		t.Errorf("Log failed (%v) and left %q after the log", err, after[min(len(before), len(after)):])
	}
}
