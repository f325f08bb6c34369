//go:build windows

package runwrite

import (
	"os"

	"golang.org/x/sys/windows"
)

// linkCount is the number of names the open file has.
func linkCount(f *os.File) (uint64, error) {
	var info windows.ByHandleFileInformation
	if err := windows.GetFileInformationByHandle(windows.Handle(f.Fd()), &info); err != nil {
		return 0, err
	}
	return uint64(info.NumberOfLinks), nil
}
