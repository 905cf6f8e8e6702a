package workspace

import (
	"errors"
	"syscall"

	"golang.org/x/sys/unix"
)

// dirHandleFlags open a base's kept descriptor: a path only, for openat2.
const dirHandleFlags = unix.O_PATH

// openBeneath opens rel beneath the base directory b with flags
// (O_CLOEXEC and O_NOFOLLOW added), following no symbolic link at all:
// rel comes from a resolved path, so a link in it now was swapped in.
// The kernel resolves it (openat2, RESOLVE_BENEATH and
// RESOLVE_NO_SYMLINKS) in one call from b's kept descriptor; a kernel
// without openat2 (before 5.6) or a seccomp filter refusing it gets
// os.Root's walk instead.
func openBeneath(b *baseDir, rel string, flags int) (int, error) {
	how := &unix.OpenHow{
		Flags:   uint64(flags | unix.O_CLOEXEC | unix.O_NOFOLLOW),
		Resolve: unix.RESOLVE_BENEATH | unix.RESOLVE_NO_SYMLINKS | unix.RESOLVE_NO_MAGICLINKS,
	}
	var fd int
	var err error
	if cerr := b.withFd(func(dir int) {
		for range 8 { // EAGAIN: a rename raced the lookup; it may be tried again
			err = retryEINTR(func() (err error) {
				fd, err = unix.Openat2(dir, rel, how)
				return err
			})
			if !errors.Is(err, unix.EAGAIN) {
				break
			}
		}
	}); cerr != nil {
		return -1, cerr
	}
	if errors.Is(err, unix.ENOSYS) || errors.Is(err, unix.EPERM) {
		return openBeneathRoot(b, rel, flags)
	}
	return fd, err
}

// lstatAt lstats rel beneath b: the descriptor openat2 gives without
// opening the file (O_PATH: no device's driver is called), fstat-ed.
func lstatAt(b *baseDir, rel string, st *syscall.Stat_t) error {
	fd, err := openBeneath(b, rel, unix.O_PATH)
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	return retryEINTR(func() error { return syscall.Fstat(fd, st) })
}
