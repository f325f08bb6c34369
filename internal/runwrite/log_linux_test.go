package runwrite

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
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

// TestLogRefusesAFIFOSwappedIn: a FIFO put in the artifact's place after
// Log looked at it is refused, not opened in a way that waits for a
// writer forever.
func TestLogRefusesAFIFOSwappedIn(t *testing.T) {
	run := newRun(t, map[string]string{"artifacts/planner/plan.md": "plan\n"})
	p := filepath.Join(run, "artifacts", "planner", "plan.md")
	afterLstat = func() {
		if err := os.Remove(p); err != nil {
			t.Error(err)
		}
		if err := syscall.Mkfifo(p, 0o644); err != nil {
			t.Error(err)
		}
	}
	defer func() { afterLstat = nil }()
	done := make(chan error, 1)
	go func() {
		_, err := Log(LogOptions{Run: run, File: p, Description: "plan", Now: logTime})
		done <- err
	}()
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "changed while it was being logged") {
			t.Errorf("Log of a swapped-in FIFO: %v", err)
		}
	case <-time.After(2 * time.Second):
		// Unblock the open so the test ends.
		if w, err := os.OpenFile(p, os.O_WRONLY, 0); err == nil {
			w.Close()
		}
		t.Fatal("Log hangs on a FIFO swapped in for the artifact")
	}
}
