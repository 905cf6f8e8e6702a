//go:build unix

package sessionstore

import "syscall"

// openFlags make opening never block (a FIFO put in a session file's
// place) and never follow a symlink at the last component.
const openFlags = syscall.O_NONBLOCK | syscall.O_NOFOLLOW
