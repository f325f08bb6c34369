package evidence

import (
	"io"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/h3a-check/h3a-check/internal/longtest"
)

// zeros2GiBDigest is `head -c 2147483648 /dev/zero | sha256sum`.
const zeros2GiBDigest = "a7c744c13cc101ed66c29f672f92455547889cc586ce6d44fe76ae824958ea51"

// memoryBound is far above what one hash needs (a 256 KiB buffer and a few
// small structs) and far below the 2 GiB file, so a hasher that buffered the
// file, or even a small fraction of it, fails.
const memoryBound = 16 << 20

func TestHashOfLargeSparseFileUsesBoundedMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("hashes 2 GiB; skipped with -short")
	}
	longtest.Skip(t)
	const size = 2 << 30
	path := filepath.Join(t.TempDir(), "zeros.bin")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	// A sparse file: 2 GiB to read, no disk blocks to write.
	if err := os.Truncate(path, size); err != nil {
		t.Fatalf("cannot make a %d-byte sparse file: %v", size, err)
	}

	h := NewHasher(2)
	defer h.Close()
	runtime.GC()
	var before runtime.MemStats
	runtime.ReadMemStats(&before)

	stop := make(chan struct{})
	var sampler sync.WaitGroup
	var peakHeapInuse uint64
	sampler.Go(func() {
		ticker := time.NewTicker(2 * time.Millisecond)
		defer ticker.Stop()
		var m runtime.MemStats
		for {
			runtime.ReadMemStats(&m)
			peakHeapInuse = max(peakHeapInuse, m.HeapInuse)
			select {
			case <-stop:
				return
			case <-ticker.C:
			}
		}
	})
	sum, err := h.Submit(func() (io.ReadCloser, error) { return os.Open(path) }).Wait()
	close(stop)
	sampler.Wait()
	var after runtime.MemStats
	runtime.ReadMemStats(&after)

	if err != nil {
		t.Fatalf("hashing 2 GiB of zeros: %v", err)
	}
	if want := (Sum{Hex: zeros2GiBDigest, Size: size}); sum != want {
		t.Errorf("2 GiB of zeros hashed to %+v, want %+v", sum, want)
	}
	allocated := after.TotalAlloc - before.TotalAlloc
	t.Logf("allocated %d bytes; heap in use grew by at most %d bytes", allocated, int64(peakHeapInuse)-int64(before.HeapInuse))
	if allocated > memoryBound {
		t.Errorf("hashing 2 GiB allocated %d bytes, want at most %d: the hash must stream", allocated, memoryBound)
	}
	if grown := int64(peakHeapInuse) - int64(before.HeapInuse); grown > memoryBound {
		t.Errorf("heap in use grew by %d bytes while hashing 2 GiB, want at most %d", grown, memoryBound)
	}
}
