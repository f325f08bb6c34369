package evidence

import (
	"errors"
	"fmt"
	"io"
	"runtime"
	"sync"
)

// ErrClosed is reported by Wait for a hash submitted after the Hasher closed.
var ErrClosed = errors.New("hash not started: the hasher was already closed; submit every file before calling Close")

// Hasher is a bounded pool of hashing workers shared by every run in one check.
type Hasher struct {
	// The queue is a slice behind a mutex rather than a buffered channel: a
	// channel needs a capacity and would block Submit once it filled, while a
	// queued job here costs only its Pending and open func, no buffer.
	mu      sync.Mutex
	ready   sync.Cond // signalled when a job is queued or the hasher closes
	queue   []*Pending
	closed  bool
	workers int
	done    sync.WaitGroup
}

// NewHasher starts workers (<= 0 means runtime.GOMAXPROCS(0)).
func NewHasher(workers int) *Hasher {
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	h := &Hasher{workers: workers}
	h.ready.L = &h.mu
	h.done.Add(workers)
	for range workers {
		go h.work()
	}
	return h
}

// Submit queues the hash of whatever open returns (the caller opens the file: it
// alone knows the confinement rules). It never blocks the caller for long: the
// queue is unbounded in count but each job holds no buffer until a worker runs
// it. open is called on a worker goroutine; the reader is closed by the pool.
//
// Submit on a closed or nil Hasher, or with a nil open, does not panic: the
// returned Pending reports the error from Wait.
func (h *Hasher) Submit(open func() (io.ReadCloser, error)) *Pending {
	p := &Pending{done: make(chan struct{})}
	if h == nil {
		p.finish(Sum{}, errors.New("hash not started: the hasher is nil; create it with NewHasher"))
		return p
	}
	if open == nil {
		p.finish(Sum{}, errors.New("hash not started: the open function is nil"))
		return p
	}
	p.open = open
	h.mu.Lock()
	if h.closed {
		h.mu.Unlock()
		p.open = nil
		p.finish(Sum{}, ErrClosed)
		return p
	}
	h.queue = append(h.queue, p)
	h.mu.Unlock()
	h.ready.Signal()
	return p
}

// Close stops the workers after the queued jobs finish and returns once they
// have. It is safe to call more than once. It must not be called from inside
// an open function: it would wait for that very job.
func (h *Hasher) Close() {
	if h == nil {
		return
	}
	h.mu.Lock()
	h.closed = true
	h.mu.Unlock()
	h.ready.Broadcast()
	h.done.Wait()
}

// work runs jobs with a read buffer of its own for the hasher's lifetime:
// the shared pool is emptied at every garbage collection, and a check that
// parses many small documents collects often enough to make each worker
// allocate (and zero) a fresh 256 KiB buffer every few dozen files.
func (h *Hasher) work() {
	defer h.done.Done()
	buf := make([]byte, bufferSize)
	for {
		p, ok := h.next()
		if !ok {
			return
		}
		p.run(buf)
	}
}

// next blocks until a job is queued and returns it, or reports false once the
// hasher is closed and the queue is drained.
func (h *Hasher) next() (*Pending, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for len(h.queue) == 0 && !h.closed {
		h.ready.Wait()
	}
	if len(h.queue) == 0 {
		return nil, false
	}
	p := h.queue[0]
	h.queue[0] = nil // let the finished job be collected while the slice lives on
	h.queue = h.queue[1:]
	if len(h.queue) == 0 {
		h.queue = nil // drop the consumed backing array instead of keeping it for appends
	}
	return p, true
}

// Pending is the future result of one submitted hash.
type Pending struct {
	open func() (io.ReadCloser, error) // owned by the worker that runs the job
	done chan struct{}
	sum  Sum
	err  error
}

// Wait blocks until the job is done. Safe to call several times and from
// several goroutines.
func (p *Pending) Wait() (Sum, error) {
	if p == nil || p.done == nil {
		// A zero Pending was never queued; waiting on it would block forever.
		return Sum{}, errors.New("hash was never submitted: got a Pending that did not come from Submit")
	}
	<-p.done
	return p.sum, p.err
}

// finish publishes the result; the channel close orders the writes before any
// Wait that returns.
func (p *Pending) finish(sum Sum, err error) {
	p.sum, p.err = sum, err
	close(p.done)
}

func (p *Pending) run(buf []byte) {
	open := p.open
	p.open = nil
	p.finish(openAndHash(open, buf))
}

// openAndHash turns a panic in the caller's open or Read into an error: the
// pool is shared by every run of the check, so one broken reader must not take
// down the verdicts of all the others.
func openAndHash(open func() (io.ReadCloser, error), buf []byte) (sum Sum, err error) {
	defer func() {
		if v := recover(); v != nil {
			sum, err = Sum{}, fmt.Errorf("hashing failed: the reader panicked: %v", v)
		}
	}()
	rc, err := open()
	if err != nil {
		if rc != nil {
			rc.Close()
		}
		return Sum{}, err
	}
	if rc == nil {
		return Sum{}, errors.New("hash not started: open returned neither a reader nor an error")
	}
	// A close error after a complete read does not change the bytes that were
	// hashed, so it is not reported.
	defer rc.Close()
	return hashWithBuffer(rc, buf)
}
