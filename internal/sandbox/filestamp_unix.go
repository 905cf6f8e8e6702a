//go:build linux || darwin

package sandbox

import (
	"time"

	"golang.org/x/sys/unix"
)

// fileStamp is what changes when a file is written: its identity, size
// and times, the change time among them, which no command can set (an
// index written in place, its size and modification time put back,
// still changes it).
type fileStamp struct {
	dev, ino     uint64
	size         int64
	mtime, ctime int64
}

// stampOf is p's stamp; ok is false when p cannot be looked at.
func stampOf(p string) (stamp fileStamp, ok bool) {
	var st unix.Stat_t
	if err := unix.Stat(p, &st); err != nil {
		return fileStamp{}, false
	}
	return fileStamp{dev: uint64(st.Dev), ino: st.Ino, size: st.Size,
		mtime: time.Unix(st.Mtim.Unix()).UnixNano(), ctime: time.Unix(st.Ctim.Unix()).UnixNano()}, true
}

// settled says a file of this stamp, read at readAt, cannot have been
// written again since without its stamp changing: its change time is
// older than the clock's grain (the kernel's coarse clock, a few
// milliseconds) before the read. A read of one not settled is not
// trusted the next time, as git treats a racily clean entry.
func (s fileStamp) settled(readAt time.Time) bool {
	return s.ctime < readAt.Add(-stampGrain).UnixNano()
}

// stampGrain is more than the coarse clock's tick (4 ms at HZ=250).
const stampGrain = 50 * time.Millisecond
