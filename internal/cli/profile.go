package cli

import (
	"errors"
	"fmt"
	"runtime"
	"runtime/pprof"

	"github.com/h3a-check/h3a-check/internal/atomicfile"
)

// startProfiles starts a CPU profile into cpuPath (if set) and returns the
// function that stops it and writes a heap profile into memPath (if set).
// Both files are for `go tool pprof`; they never change the check or its exit
// code, except that a profile that cannot be written is a tool error. They
// are written as reports are (atomicfile): a symbolic link planted at the
// path is replaced, never followed.
func startProfiles(cpuPath, memPath string) (stop func() error, err error) {
	var cpu *atomicfile.File
	if cpuPath != "" {
		cpu, err = atomicfile.Create(cpuPath)
		if err != nil {
			return nil, fmt.Errorf("--cpuprofile: %w", err)
		}
		if err := pprof.StartCPUProfile(cpu); err != nil {
			cpu.Abort()
			return nil, fmt.Errorf("--cpuprofile: %w", err)
		}
	}
	return func() error {
		var errs []error
		if cpu != nil {
			pprof.StopCPUProfile()
			if err := cpu.Commit(); err != nil {
				errs = append(errs, fmt.Errorf("--cpuprofile: %w", err))
			}
		}
		if memPath != "" {
			errs = append(errs, writeHeapProfile(memPath))
		}
		return errors.Join(errs...)
	}, nil
}

func writeHeapProfile(path string) error {
	f, err := atomicfile.Create(path)
	if err != nil {
		return fmt.Errorf("--memprofile: %w", err)
	}
	// A collection first, so the in-use figures are what the check keeps
	// (the audits), not garbage that happened not to be collected yet;
	// allocation totals are in the profile either way.
	runtime.GC()
	if err = pprof.Lookup("allocs").WriteTo(f, 0); err != nil {
		f.Abort()
	} else {
		err = f.Commit()
	}
	if err != nil {
		return fmt.Errorf("--memprofile: %w", err)
	}
	return nil
}
