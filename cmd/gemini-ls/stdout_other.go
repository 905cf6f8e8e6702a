//go:build !windows

package main

import (
	"errors"
	"syscall"
)

// readerGone reports whether err is a write to a pipe nobody reads any
// more.
func readerGone(err error) bool { return errors.Is(err, syscall.EPIPE) }
