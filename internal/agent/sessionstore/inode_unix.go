//go:build unix

package sessionstore

import (
	"io/fs"
	"syscall"
)

// inode is fi's file number: a file replaced by another (renamed over
// it) of the same size and time is told apart by it.
func inode(fi fs.FileInfo) uint64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Ino) // not a uint64 on every Unix
	}
	return 0
}
