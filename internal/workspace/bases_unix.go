//go:build unix

package workspace

import (
	"errors"
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// keepBases: a directory kept open here neither blocks its removal nor
// its rename.
const keepBases = true

// dirID is a directory's device and inode.
type dirID struct{ dev, ino uint64 }

// dirHandle is a directory's descriptor, used through file's
// SyscallConn so that a Close (Workspace.Close) waits for the calls
// using it; else closed by the collector once no baseDir holds it.
type dirHandle struct {
	file *os.File
}

// openDirHandle opens base's descriptor (O_PATH, not following a
// symlink), confirmed by fstat to be the directory root holds.
func openDirHandle(base string, root *os.Root) (*dirHandle, dirID, error) {
	var fd int
	err := retryEINTR(func() (err error) {
		fd, err = unix.Open(base, dirHandleFlags|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		return err
	})
	if err != nil {
		return nil, dirID{}, err
	}
	h := &dirHandle{file: os.NewFile(uintptr(fd), base)}
	var st syscall.Stat_t
	if err := retryEINTR(func() error { return syscall.Fstat(fd, &st) }); err != nil {
		h.file.Close()
		return nil, dirID{}, err
	}
	fi, err := root.Stat(".")
	if err != nil {
		h.file.Close()
		return nil, dirID{}, err
	}
	if sys, ok := fi.Sys().(*syscall.Stat_t); !ok || uint64(sys.Dev) != uint64(st.Dev) || sys.Ino != st.Ino {
		h.file.Close()
		return nil, dirID{}, errors.New("it was replaced while being opened")
	}
	return h, dirID{dev: uint64(st.Dev), ino: st.Ino}, nil
}

// current reports whether b's name still names the directory opened.
func (b *baseDir) current() bool {
	var st syscall.Stat_t
	if err := retryEINTR(func() error { return syscall.Lstat(b.path, &st) }); err != nil {
		return false
	}
	return uint64(st.Dev) == b.id.dev && st.Ino == b.id.ino
}

// withFd calls f with b's descriptor, which stays open until f returns;
// an error when b was closed.
func (b *baseDir) withFd(f func(fd int)) error {
	rc, err := b.dir.file.SyscallConn()
	if err != nil {
		return err
	}
	return rc.Control(func(fd uintptr) { f(int(fd)) })
}

func (h *dirHandle) close() { h.file.Close() }
