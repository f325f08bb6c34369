//go:build darwin || dragonfly || freebsd || linux || netbsd || openbsd

package runwrite

import (
	"errors"
	"os"
	"syscall"
)

// tryLock takes flock(2)'s exclusive lock without blocking: the lock every
// cooperating writer takes (flock(1) and Python's fcntl.flock take the same).
func tryLock(f *os.File) error {
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		switch {
		case err == nil:
			return nil
		case errors.Is(err, syscall.EINTR):
			continue
		case errors.Is(err, syscall.EWOULDBLOCK):
			return errLocked
		}
		return err
	}
}

func unlockFile(f *os.File) { syscall.Flock(int(f.Fd()), syscall.LOCK_UN) }
