//go:build darwin || dragonfly || freebsd || linux || netbsd || openbsd

package runwrite

import (
	"fmt"
	"os"
	"syscall"
)

// linkCount is the number of names the open file has (st_nlink).
func linkCount(f *os.File) (uint64, error) {
	info, err := f.Stat()
	if err != nil {
		return 0, err
	}
	st, ok := info.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, fmt.Errorf("the file system does not say how many names %s has", f.Name())
	}
	return uint64(st.Nlink), nil
}
