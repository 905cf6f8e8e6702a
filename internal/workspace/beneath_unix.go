//go:build unix

package workspace

import (
	"os"

	"golang.org/x/sys/unix"
)

// openBeneathRoot is openBeneath through b's os.Root, which walks rel a
// component at a time from b's descriptor, following a symlink only
// while it stays beneath b. The descriptor returned is the caller's.
func openBeneathRoot(b *baseDir, rel string, flags int) (int, error) {
	f, err := b.root.OpenFile(rel, flags|unix.O_NOFOLLOW, 0)
	if err != nil {
		return -1, err
	}
	defer f.Close()
	return unix.FcntlInt(f.Fd(), unix.F_DUPFD_CLOEXEC, 0)
}

// openDirBeneath opens the directory rel beneath b for listing,
// without blocking on a FIFO put in its place; path names it.
func openDirBeneath(path string, b *baseDir, rel string) (*os.File, error) {
	fd, err := openBeneath(b, rel, unix.O_RDONLY|openDirFlags)
	if err != nil {
		return nil, err
	}
	return os.NewFile(uintptr(fd), path), nil
}
