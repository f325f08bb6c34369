//go:build !unix

package policy

import "errors"

func mkfifo(string) error { return errors.New("no FIFOs on this system") }
