//go:build unix

package sessionstore

import (
	"net"
	"os"

	"golang.org/x/sys/unix"
)

// writeGathered writes buffers to f with writev: one system call, so on
// an O_APPEND file the whole of them lands at the end at once. A line
// of more pieces than one writev takes, or a short write (a full disk),
// goes on in more calls.
func writeGathered(f *os.File, buffers net.Buffers) error {
	rc, err := f.SyscallConn()
	if err != nil {
		return err
	}
	for len(buffers) > 0 {
		batch := buffers[:min(len(buffers), maxGathered)]
		var n int
		var werr error
		if err := rc.Write(func(fd uintptr) bool {
			n, werr = unix.Writev(int(fd), batch)
			return werr != unix.EAGAIN
		}); err != nil {
			return err
		}
		if werr != nil {
			return &os.PathError{Op: "writev", Path: f.Name(), Err: werr}
		}
		if n == 0 {
			return &os.PathError{Op: "writev", Path: f.Name(), Err: unix.EIO}
		}
		buffers = consumed(buffers, n)
	}
	return nil
}
