package evidence

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/iotest"
	"time"
)

// hangGuard fails the test instead of letting a deadlock run into the global
// test timeout; it is generous because it only catches hangs, never slowness.
const hangGuard = 30 * time.Second

func within(t *testing.T, what string, fn func()) {
	t.Helper()
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		fn()
	}()
	select {
	case <-finished:
	case <-time.After(hangGuard):
		t.Fatalf("%s did not return within %v", what, hangGuard)
	}
}

func openBytes(data []byte) func() (io.ReadCloser, error) {
	return func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(data)), nil }
}

// closeTracker records whether the pool closed the reader it was handed.
type closeTracker struct {
	io.Reader
	closed atomic.Int32
}

func (c *closeTracker) Close() error {
	c.closed.Add(1)
	return nil
}

func TestNewHasherWorkerCount(t *testing.T) {
	tests := []struct {
		asked, want int
	}{
		{asked: 0, want: runtime.GOMAXPROCS(0)},
		{asked: -3, want: runtime.GOMAXPROCS(0)},
		{asked: 1, want: 1},
		{asked: 5, want: 5},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprint(tt.asked), func(t *testing.T) {
			h := NewHasher(tt.asked)
			defer h.Close()
			if h.workers != tt.want {
				t.Errorf("NewHasher(%d) started %d workers, want %d", tt.asked, h.workers, tt.want)
			}
		})
	}
}

func TestHasherManyFilesFromManyGoroutines(t *testing.T) {
	dir := t.TempDir()
	sizes := []int{0, 1, 63, 4096, bufferSize - 1, bufferSize, bufferSize + 1, 3*bufferSize + 11}
	const files = 40
	want := make([]Sum, files)
	paths := make([]string, files)
	for i := range files {
		data := patterned(sizes[i%len(sizes)] + i)
		paths[i] = filepath.Join(dir, fmt.Sprintf("artifact-%02d.bin", i))
		if err := os.WriteFile(paths[i], data, 0o600); err != nil {
			t.Fatal(err)
		}
		want[i] = sumOf(data)
	}

	h := NewHasher(3)
	defer h.Close()
	const submitters, rounds = 8, 5
	var wg sync.WaitGroup
	for s := range submitters {
		wg.Go(func() {
			pending := make([]*Pending, 0, files*rounds)
			for r := range rounds {
				for i := range files {
					path := paths[(i+s+r)%files]
					pending = append(pending, h.Submit(func() (io.ReadCloser, error) { return os.Open(path) }))
				}
			}
			for k, p := range pending {
				i := (k%files + s + k/files) % files
				got, err := p.Wait()
				if err != nil {
					t.Errorf("submitter %d: hashing %s: %v", s, filepath.Base(paths[i]), err)
					continue
				}
				if got != want[i] {
					t.Errorf("submitter %d: %s hashed to %+v, want %+v", s, filepath.Base(paths[i]), got, want[i])
				}
			}
		})
	}
	within(t, "hashing from 8 goroutines", wg.Wait)
}

func TestHasherNeverRunsMoreJobsThanWorkers(t *testing.T) {
	const workers = 2
	h := NewHasher(workers)
	defer h.Close()
	var running, peak atomic.Int32
	open := func() (io.ReadCloser, error) {
		now := running.Add(1)
		for {
			seen := peak.Load()
			if now <= seen || peak.CompareAndSwap(seen, now) {
				break
			}
		}
		runtime.Gosched()
		time.Sleep(100 * time.Microsecond)
		running.Add(-1)
		return io.NopCloser(strings.NewReader("abc")), nil
	}
	var pending []*Pending
	for range 200 {
		pending = append(pending, h.Submit(open))
	}
	within(t, "waiting for 200 jobs", func() {
		for _, p := range pending {
			if _, err := p.Wait(); err != nil {
				t.Errorf("unexpected error %v", err)
			}
		}
	})
	if got := peak.Load(); got > workers {
		t.Errorf("%d jobs ran at once, want at most %d (the worker count)", got, workers)
	}
}

func TestSubmitDoesNotWaitForBusyWorkers(t *testing.T) {
	h := NewHasher(1)
	release := make(chan struct{})
	started := make(chan struct{})
	blocker := h.Submit(func() (io.ReadCloser, error) {
		close(started)
		<-release
		return io.NopCloser(strings.NewReader("abc")), nil
	})
	<-started
	// With the only worker blocked, a bounded queue or a Submit that ran open
	// itself would stall here.
	var queued []*Pending
	within(t, "10000 submits while the only worker is busy", func() {
		for i := range 10000 {
			queued = append(queued, h.Submit(openBytes([]byte{byte(i)})))
		}
	})
	close(release)
	within(t, "Close", h.Close)
	if got, err := blocker.Wait(); err != nil || got.Hex != abcDigest {
		t.Errorf("blocked job = %+v, %v; want the digest of \"abc\"", got, err)
	}
	for i, p := range queued {
		if got, err := p.Wait(); err != nil || got != sumOf([]byte{byte(i)}) {
			t.Fatalf("queued job %d = %+v, %v; want %+v", i, got, err, sumOf([]byte{byte(i)}))
		}
	}
}

func TestHasherPropagatesOpenErrors(t *testing.T) {
	errDenied := errors.New("path escapes the run directory")
	missing := filepath.Join(t.TempDir(), "missing.txt")
	tests := []struct {
		name string
		open func() (io.ReadCloser, error)
		want error
	}{
		{name: "caller refuses the path", open: func() (io.ReadCloser, error) { return nil, errDenied }, want: errDenied},
		{name: "file does not exist", open: func() (io.ReadCloser, error) { return os.Open(missing) }, want: fs.ErrNotExist},
	}
	h := NewHasher(2)
	defer h.Close()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := h.Submit(tt.open).Wait()
			if !errors.Is(err, tt.want) {
				t.Errorf("Wait error = %v, want %v", err, tt.want)
			}
			if got != (Sum{}) {
				t.Errorf("Wait returned %+v with the error, want a zero Sum", got)
			}
		})
	}
}

func TestHasherPropagatesReadErrorsAndClosesReaders(t *testing.T) {
	errDisk := errors.New("input/output error")
	tests := []struct {
		name    string
		reader  io.Reader
		wantSum Sum
		wantErr error
	}{
		{name: "success", reader: strings.NewReader("abc"), wantSum: Sum{Hex: abcDigest, Size: 3}},
		{name: "error on first read", reader: iotest.ErrReader(errDisk), wantErr: errDisk},
		{name: "error after a buffer of data", reader: io.MultiReader(bytes.NewReader(patterned(bufferSize)), iotest.ErrReader(errDisk)), wantErr: errDisk},
	}
	h := NewHasher(2)
	defer h.Close()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tracker := &closeTracker{Reader: tt.reader}
			got, err := h.Submit(func() (io.ReadCloser, error) { return tracker, nil }).Wait()
			if !errors.Is(err, tt.wantErr) || (tt.wantErr == nil && err != nil) {
				t.Errorf("Wait error = %v, want %v", err, tt.wantErr)
			}
			if got != tt.wantSum {
				t.Errorf("Wait sum = %+v, want %+v", got, tt.wantSum)
			}
			if n := tracker.closed.Load(); n != 1 {
				t.Errorf("reader closed %d times, want exactly once", n)
			}
		})
	}
}

func TestHasherClosesReaderReturnedWithAnError(t *testing.T) {
	h := NewHasher(1)
	defer h.Close()
	tracker := &closeTracker{Reader: strings.NewReader("abc")}
	errHalfOpen := errors.New("opened, then refused")
	_, err := h.Submit(func() (io.ReadCloser, error) { return tracker, errHalfOpen }).Wait()
	if !errors.Is(err, errHalfOpen) {
		t.Errorf("Wait error = %v, want %v", err, errHalfOpen)
	}
	if n := tracker.closed.Load(); n != 1 {
		t.Errorf("reader returned with an error was closed %d times, want once", n)
	}
}

func TestHasherTurnsBrokenJobsIntoErrors(t *testing.T) {
	tests := []struct {
		name string
		open func() (io.ReadCloser, error)
		want string
	}{
		{name: "nil open", open: nil, want: "open function is nil"},
		{name: "open returns nothing", open: func() (io.ReadCloser, error) { return nil, nil }, want: "neither a reader nor an error"},
		{name: "open panics", open: func() (io.ReadCloser, error) { panic("boom") }, want: "panicked: boom"},
		{
			name: "read panics",
			open: func() (io.ReadCloser, error) { return io.NopCloser(panicReader{}), nil },
			want: "panicked: read exploded",
		},
	}
	h := NewHasher(1)
	defer h.Close()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := h.Submit(tt.open).Wait()
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Wait error = %v, want one containing %q", err, tt.want)
			}
		})
	}
	// The single worker must have survived every broken job.
	if got, err := h.Submit(openBytes([]byte("abc"))).Wait(); err != nil || got.Hex != abcDigest {
		t.Errorf("after broken jobs: Wait = %+v, %v; want the digest of \"abc\"", got, err)
	}
}

type panicReader struct{}

func (panicReader) Read([]byte) (int, error) { panic("read exploded") }

func TestCloseFinishesQueuedJobs(t *testing.T) {
	h := NewHasher(2)
	release := make(chan struct{})
	var pending []*Pending
	for i := range 50 {
		data := patterned(i * 1000)
		pending = append(pending, h.Submit(func() (io.ReadCloser, error) {
			<-release
			return io.NopCloser(bytes.NewReader(data)), nil
		}))
	}
	closed := make(chan struct{})
	go func() {
		h.Close()
		close(closed)
	}()
	close(release)
	within(t, "Close with 50 queued jobs", func() { <-closed })
	for i, p := range pending {
		select {
		case <-p.done:
		default:
			t.Fatalf("job %d is still pending after Close returned", i)
		}
		if got, err := p.Wait(); err != nil || got != sumOf(patterned(i*1000)) {
			t.Errorf("job %d = %+v, %v; want %+v", i, got, err, sumOf(patterned(i*1000)))
		}
	}
}

func TestSubmitAfterCloseReportsAnError(t *testing.T) {
	h := NewHasher(1)
	within(t, "Close", h.Close)
	within(t, "a second Close", h.Close)
	var opened atomic.Bool
	var got Sum
	var err error
	within(t, "Wait on a job submitted after Close", func() {
		got, err = h.Submit(func() (io.ReadCloser, error) {
			opened.Store(true)
			return io.NopCloser(strings.NewReader("abc")), nil
		}).Wait()
	})
	if !errors.Is(err, ErrClosed) {
		t.Errorf("Wait error = %v, want %v", err, ErrClosed)
	}
	if got != (Sum{}) {
		t.Errorf("Wait sum = %+v, want a zero Sum", got)
	}
	if opened.Load() {
		t.Error("open was called for a job submitted after Close")
	}
}

func TestConcurrentClose(t *testing.T) {
	h := NewHasher(2)
	p := h.Submit(openBytes([]byte("abc")))
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(h.Close)
	}
	within(t, "4 concurrent Close calls", wg.Wait)
	if got, err := p.Wait(); err != nil || got.Hex != abcDigest {
		t.Errorf("Wait = %+v, %v; want the digest of \"abc\"", got, err)
	}
}

func TestWaitIsIdempotentAcrossGoroutines(t *testing.T) {
	errDenied := errors.New("denied")
	tests := []struct {
		name    string
		open    func() (io.ReadCloser, error)
		wantSum Sum
		wantErr error
	}{
		{name: "success", open: openBytes([]byte("abc")), wantSum: Sum{Hex: abcDigest, Size: 3}},
		{name: "failure", open: func() (io.ReadCloser, error) { return nil, errDenied }, wantErr: errDenied},
	}
	h := NewHasher(1)
	defer h.Close()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := h.Submit(tt.open)
			var wg sync.WaitGroup
			for range 8 {
				wg.Go(func() {
					for range 3 {
						got, err := p.Wait()
						if got != tt.wantSum || err != tt.wantErr {
							t.Errorf("Wait = %+v, %v; want %+v, %v", got, err, tt.wantSum, tt.wantErr)
						}
					}
				})
			}
			within(t, "24 Waits", wg.Wait)
		})
	}
}

func TestWaitOnPendingNotFromSubmit(t *testing.T) {
	tests := []struct {
		name    string
		pending *Pending
	}{
		{name: "nil", pending: nil},
		{name: "zero value", pending: &Pending{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var err error
			within(t, "Wait", func() { _, err = tt.pending.Wait() })
			if err == nil || !strings.Contains(err.Error(), "never submitted") {
				t.Errorf("Wait error = %v, want one saying the hash was never submitted", err)
			}
		})
	}
}

func TestNilHasher(t *testing.T) {
	var h *Hasher
	_, err := h.Submit(openBytes(nil)).Wait()
	if err == nil || !strings.Contains(err.Error(), "hasher is nil") {
		t.Errorf("Submit on a nil Hasher: Wait error = %v, want one saying the hasher is nil", err)
	}
	h.Close() // must not panic
}
