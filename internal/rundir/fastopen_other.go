//go:build !(linux && (amd64 || arm64 || riscv64 || loong64 || ppc64 || ppc64le || s390x))

package rundir

import (
	"io"
	"os"
)

// Without openat2 every open takes the portable path: resolution by hand,
// then os.Root.

func openDirFD(string) int { return -1 }

func closeDirFD(int) {}

func (r *Root) openFast(string) (io.ReadCloser, int64, bool) { return nil, 0, false }

func (r *Root) openDirFast(string) (*os.File, bool) { return nil, false }
