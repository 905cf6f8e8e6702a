//go:build unix

package safefile

import "syscall"

// openNonBlocking keeps an open of a FIFO from waiting for a writer.
const openNonBlocking = syscall.O_NONBLOCK

// openDirectory makes an open of anything but a directory fail at once,
// where a FIFO's would wait for a writer.
const openDirectory = syscall.O_DIRECTORY | syscall.O_NONBLOCK
