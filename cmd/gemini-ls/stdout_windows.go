package main

import (
	"errors"

	"golang.org/x/sys/windows"
)

// readerGone reports whether err is a write to a pipe nobody reads any
// more: Windows says the pipe is being closed, or broken.
func readerGone(err error) bool {
	return errors.Is(err, windows.ERROR_NO_DATA) || errors.Is(err, windows.ERROR_BROKEN_PIPE)
}
