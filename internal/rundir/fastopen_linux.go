//go:build linux && (amd64 || arm64 || riscv64 || loong64 || ppc64 || ppc64le || s390x)

package rundir

import (
	"io"
	"os"
	"path/filepath"
	"sync/atomic"
	"syscall"
	"unsafe"
)

// openat2(2) and its RESOLVE_* flags (linux/openat2.h); the system call
// number is the same on every architecture this file is built for.
const (
	sysOpenat2          = 437
	resolveNoMagiclinks = 0x02
	resolveNoSymlinks   = 0x04
	resolveBeneath      = 0x08
	// O_PATH is missing from package syscall; it has this value on every
	// architecture above (asm-generic/fcntl.h).
	oPath = 0x200000
)

type openHow struct {
	flags, mode, resolve uint64
}

// openat2Unavailable is set once the kernel (or a seccomp filter) refuses
// openat2 itself, so later opens go straight to the portable path.
var openat2Unavailable atomic.Bool

// openDirFD opens dir as an O_PATH descriptor for openat2; -1 when it cannot.
func openDirFD(dir string) int {
	if openat2Unavailable.Load() {
		return -1
	}
	fd, err := syscall.Open(dir, oPath|syscall.O_DIRECTORY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return -1
	}
	return fd
}

func closeDirFD(fd int) {
	if fd >= 0 {
		syscall.Close(fd)
	}
}

// openFast opens the regular file at clean in one system call when no
// element of the path is a symbolic link: RESOLVE_BENEATH and
// RESOLVE_NO_SYMLINKS make the kernel refuse anything else during the very
// lookup that opens the file, so no check can go stale before the open.
// The open is non-blocking, so a FIFO cannot stall it, and the file is
// checked to be regular with fstat. ok is false when this path does not
// apply (a link on the way, a missing or special file, no openat2): the
// caller then resolves the path by hand, which also names the problem.
//
// The reader works on the bare descriptor: an *os.File would cost two more
// system calls per file (fcntl, and an epoll registration that regular
// files refuse), which a check over thousands of small artifacts notices.
func (r *Root) openFast(clean string) (rc io.ReadCloser, size int64, ok bool) {
	if r.fd < 0 || openat2Unavailable.Load() {
		return nil, 0, false
	}
	fd, ok := r.openat2(clean, syscall.O_RDONLY|syscall.O_CLOEXEC|syscall.O_NONBLOCK|syscall.O_NOCTTY)
	if !ok {
		return nil, 0, false
	}
	var st syscall.Stat_t
	if err := ignoringEINTR(func() error { return syscall.Fstat(int(fd), &st) }); err != nil || st.Mode&syscall.S_IFMT != syscall.S_IFREG {
		syscall.Close(int(fd))
		return nil, 0, false
	}
	return &fdReader{fd: int(fd)}, st.Size, true
}

// openDirFast opens the directory at rel (".": the run itself) when no
// element of the path is a symbolic link, as openFast does for files.
func (r *Root) openDirFast(rel string) (*os.File, bool) {
	if r.fd < 0 || openat2Unavailable.Load() {
		return nil, false
	}
	fd, ok := r.openat2(rel, syscall.O_RDONLY|syscall.O_CLOEXEC|syscall.O_DIRECTORY)
	if !ok {
		return nil, false
	}
	// The absolute name lets the entries describe themselves (Info).
	return os.NewFile(fd, filepath.Join(r.dir, filepath.FromSlash(rel))), true
}

// openat2 opens rel below the run with the fast path's resolve flags.
func (r *Root) openat2(rel string, flags uint64) (uintptr, bool) {
	path, err := syscall.BytePtrFromString(rel)
	if err != nil {
		return 0, false
	}
	how := openHow{flags: flags, resolve: resolveBeneath | resolveNoSymlinks | resolveNoMagiclinks}
	for {
		fd, _, errno := syscall.Syscall6(sysOpenat2, uintptr(r.fd), uintptr(unsafe.Pointer(path)), uintptr(unsafe.Pointer(&how)), unsafe.Sizeof(how), 0, 0)
		switch errno {
		case 0:
			return fd, true
		case syscall.EINTR:
			continue
		case syscall.ENOSYS, syscall.EPERM, syscall.E2BIG, syscall.EINVAL:
			openat2Unavailable.Store(true)
		}
		return 0, false
	}
}

// fdReader reads a regular file through its bare descriptor.
type fdReader struct{ fd int }

func (f *fdReader) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	for {
		n, err := syscall.Read(f.fd, p)
		switch {
		case err == syscall.EINTR:
			continue
		case err != nil:
			return 0, err
		case n == 0:
			return 0, io.EOF
		}
		return n, nil
	}
}

func (f *fdReader) Close() error {
	if f.fd < 0 {
		return syscall.EBADF
	}
	err := syscall.Close(f.fd)
	f.fd = -1
	return err
}

func ignoringEINTR(fn func() error) error {
	for {
		if err := fn(); err != syscall.EINTR {
			return err
		}
	}
}
