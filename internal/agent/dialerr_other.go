//go:build !windows

package agent

import "syscall"

// errnoWords is "": the system's own words for errno are the ones
// dialFailure shows (dialerr_windows.go says them for Windows's errors).
func errnoWords(syscall.Errno) string { return "" }
