package runwrite

import (
	"errors"
	"fmt"
	"os"
	"time"
)

// errLocked is what one attempt at a lock held elsewhere returns.
var errLocked = errors.New("locked")

// lockPoll is how often a held lock is tried again.
const lockPoll = 20 * time.Millisecond

// lockFile takes an exclusive lock on f, trying again until wait has
// passed (a writer that holds the lock forever must not hang the next
// one), and returns the function that releases it.
func lockFile(f *os.File, wait time.Duration) (unlock func(), err error) {
	deadline := time.Now().Add(wait)
	for {
		err := tryLock(f)
		if err == nil {
			return func() { unlockFile(f) }, nil
		}
		if !errors.Is(err, errLocked) {
			return nil, err
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("another process has held the lock for %s; try again when it is done", wait)
		}
		time.Sleep(lockPoll)
	}
}
