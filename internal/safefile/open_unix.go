//go:build unix

package safefile

import "syscall"

// openNonBlocking keeps an open of a FIFO from waiting for a writer.
const openNonBlocking = syscall.O_NONBLOCK
