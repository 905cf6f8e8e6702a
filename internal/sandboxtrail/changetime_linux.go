package sandboxtrail

import (
	"io/fs"
	"syscall"
	"time"
)

// changeTime is info's status change time (st_ctim).
func changeTime(_ string, info fs.FileInfo) time.Time {
	if st, ok := info.Sys().(*syscall.Stat_t); ok {
		return time.Unix(st.Ctim.Unix())
	}
	return info.ModTime()
}
