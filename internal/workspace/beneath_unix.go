//go:build unix

package workspace

import (
	"os"

	"golang.org/x/sys/unix"
)

// openBeneathRoot is openBeneath through os.Root, which walks rel a
// component at a time from base's descriptor, following a symlink only
// while it stays beneath base. The descriptor returned is the caller's.
func openBeneathRoot(base, rel string, flags int) (int, error) {
	root, err := os.OpenRoot(base)
	if err != nil {
		return -1, err
	}
	defer root.Close()
	f, err := root.OpenFile(rel, flags|unix.O_NOFOLLOW, 0)
	if err != nil {
		return -1, err
	}
	defer f.Close()
	return unix.FcntlInt(f.Fd(), unix.F_DUPFD_CLOEXEC, 0)
}

// openDirBeneath opens the directory rel beneath base for listing,
// without blocking on a FIFO put in its place; path names it.
func openDirBeneath(path, base, rel string) (*os.File, error) {
	fd, err := openBeneath(base, rel, unix.O_RDONLY|openDirFlags)
	if err != nil {
		return nil, err
	}
	return os.NewFile(uintptr(fd), path), nil
}
