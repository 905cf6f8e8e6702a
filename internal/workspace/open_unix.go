//go:build unix

package workspace

import "syscall"

// openReadFlags make opening a file never block (a FIFO swapped in after
// the stat) and never follow a symlink swapped in at the last component.
const openReadFlags = syscall.O_NONBLOCK | syscall.O_NOFOLLOW

// openDirFlags make opening a directory fail on anything else instead of
// blocking on a FIFO.
const openDirFlags = syscall.O_DIRECTORY | syscall.O_NONBLOCK
