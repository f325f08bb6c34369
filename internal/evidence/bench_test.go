package evidence

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

func BenchmarkHashReader(b *testing.B) {
	for _, size := range []int{4 << 10, 64 << 10, 1 << 20, 64 << 20} {
		data := patterned(size)
		b.Run(byteSize(size), func(b *testing.B) {
			b.SetBytes(int64(size))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := HashReader(bytes.NewReader(data)); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkPool hashes 200 in-memory 64 KiB files per iteration through one
// shared Hasher, as a check over many small artifacts does.
func BenchmarkPool(b *testing.B) {
	const files, size = 200, 64 << 10
	contents := make([][]byte, files)
	for i := range contents {
		contents[i] = patterned(size + i)[i:]
	}
	for _, workers := range []int{1, runtime.GOMAXPROCS(0)} {
		b.Run(fmt.Sprintf("workers=%d", workers), func(b *testing.B) {
			h := NewHasher(workers)
			defer h.Close()
			pending := make([]*Pending, files)
			b.SetBytes(files * size)
			b.ReportAllocs()
			for b.Loop() {
				for i, data := range contents {
					pending[i] = h.Submit(openBytes(data))
				}
				for _, p := range pending {
					if _, err := p.Wait(); err != nil {
						b.Fatal(err)
					}
				}
			}
		})
	}
}

// BenchmarkHashFileBufferSize is the measurement behind bufferSize: it hashes a
// page-cached file, the real case, where each Read is a syscall plus a copy.
func BenchmarkHashFileBufferSize(b *testing.B) {
	const fileSize = 256 << 20
	path := filepath.Join(b.TempDir(), "artifact.bin")
	if err := os.WriteFile(path, patterned(fileSize), 0o600); err != nil {
		b.Fatal(err)
	}
	for _, bufSize := range []int{64 << 10, 128 << 10, 256 << 10, 512 << 10, 1 << 20} {
		b.Run("buffer="+byteSize(bufSize), func(b *testing.B) {
			buf := make([]byte, bufSize)
			b.SetBytes(fileSize)
			for b.Loop() {
				f, err := os.Open(path)
				if err != nil {
					b.Fatal(err)
				}
				_, err = hashWithBuffer(f, buf)
				f.Close()
				if err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func byteSize(n int) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%dMiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%dKiB", n>>10)
	}
	return fmt.Sprintf("%dB", n)
}
