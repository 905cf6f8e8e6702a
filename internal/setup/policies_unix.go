//go:build unix

package setup

import (
	"io/fs"
	"syscall"
)

func ownedByRoot(info fs.FileInfo) bool {
	st, ok := info.Sys().(*syscall.Stat_t)
	return !ok || st.Uid == 0
}

func writableByOthers(info fs.FileInfo) bool { return info.Mode().Perm()&0o022 != 0 }
