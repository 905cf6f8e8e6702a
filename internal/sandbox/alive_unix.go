//go:build !windows

package sandbox

import (
	"errors"
	"syscall"
)

// alive reports whether a process pid runs: one of another user's
// answers EPERM.
func alive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}
