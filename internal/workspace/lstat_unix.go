//go:build unix

package workspace

import (
	"os"

	"golang.org/x/sys/unix"
)

// statEntries lstats the entries at the indexes wanted of the open
// directory dir relative to it (fstatat), keeping the stats of those still
// regular files. It never stats by path, which a directory swapped for a
// symbolic link could lead out of the roots: an entry it could not stat
// is left without one, for Info to stat beneath its root.
func statEntries(dir *os.File, entries []diskEntry, wanted []int) {
	rc, err := dir.SyscallConn()
	if err != nil {
		return
	}
	rc.Control(func(fd uintptr) {
		for _, i := range wanted {
			var st unix.Stat_t
			if unix.Fstatat(int(fd), entries[i].name, &st, unix.AT_SYMLINK_NOFOLLOW) == nil && st.Mode&unix.S_IFMT == unix.S_IFREG {
				entries[i].info = &EntryInfo{Size: st.Size, ModTime: st.Mtim.Nano()}
			}
		}
	})
}
