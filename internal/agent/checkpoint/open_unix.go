//go:build unix

package checkpoint

import "syscall"

// openFlags open a file to snapshot without following a link put in its
// place or blocking on a FIFO.
const openFlags = syscall.O_NOFOLLOW | syscall.O_NONBLOCK
