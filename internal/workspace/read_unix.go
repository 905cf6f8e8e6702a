//go:build unix

package workspace

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"syscall"
)

// readResolvedInto is readResolved into buf's storage (see readOpened),
// with the system calls themselves: an os.File would register each file
// with the network poller (a failing epoll_ctl per file) and allocate,
// which a search reading thousands of files shows. The checks are
// openResolved's: lstat, open without blocking or following a symlink,
// fstat confirming the file checked, each reaching rel beneath base
// (beneath.go).
func readResolvedInto(ctx context.Context, path string, b *baseDir, rel string, limit int64, buf []byte) ([]byte, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	var checked syscall.Stat_t
	if err := lstatAt(b, rel, &checked); err != nil {
		return nil, readError(path, err)
	}
	if !isRegular(&checked) {
		return nil, &notRegularError{path: path, mode: fileMode(checked.Mode)}
	}
	return readChecked(ctx, path, b, rel, limit, buf, &checked)
}

// readListedInto is readResolvedInto for a path a listing typed a
// regular file, not a symlink: the listing was the check before opening,
// so it is not stat-ed again (a third of a search's system calls on a
// tree of small files). What a swap since the listing could put there is
// opened without blocking or following a symlink and refused by the fstat
// before a byte is read.
func readListedInto(ctx context.Context, path string, b *baseDir, rel string, limit int64, buf []byte) ([]byte, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return readChecked(ctx, path, b, rel, limit, buf, nil)
}

// readChecked opens rel beneath b, fstats it and reads it when it is
// a regular file (and, when checked is set, the file checked).
func readChecked(ctx context.Context, path string, b *baseDir, rel string, limit int64, buf []byte, checked *syscall.Stat_t) ([]byte, error) {
	fd, err := openBeneath(b, rel, syscall.O_RDONLY|openReadFlags)
	if err != nil {
		return nil, readError(path, err)
	}
	defer syscall.Close(fd)
	var opened syscall.Stat_t
	if err := retryEINTR(func() error { return syscall.Fstat(fd, &opened) }); err != nil {
		return nil, readError(path, err)
	}
	switch {
	case !isRegular(&opened):
		return nil, &notRegularError{path: path, mode: fileMode(opened.Mode)}
	case checked != nil && (opened.Dev != checked.Dev || opened.Ino != checked.Ino):
		return nil, fmt.Errorf("reading %s: it was replaced while being opened", path)
	}
	return readOpened(ctx, fdReader(fd), path, opened.Size, limit, buf)
}

func readError(path string, err error) error {
	if errors.Is(err, fs.ErrNotExist) {
		return &notExistError{path}
	}
	if errors.Is(err, syscall.ELOOP) || errors.Is(err, syscall.EXDEV) || isEscape(err) {
		return fmt.Errorf("reading %s: %w", path, errSwapped)
	}
	return fmt.Errorf("reading %s: %w", path, err)
}

func retryEINTR(call func() error) error {
	for {
		if err := call(); err != syscall.EINTR {
			return err
		}
	}
}

func isRegular(st *syscall.Stat_t) bool { return st.Mode&syscall.S_IFMT == syscall.S_IFREG }

// fileMode is the type of a stat's mode.
func fileMode[M uint16 | uint32](mode M) fs.FileMode {
	switch uint32(mode) & syscall.S_IFMT {
	case syscall.S_IFDIR:
		return fs.ModeDir
	case syscall.S_IFLNK:
		return fs.ModeSymlink
	case syscall.S_IFIFO:
		return fs.ModeNamedPipe
	case syscall.S_IFSOCK:
		return fs.ModeSocket
	case syscall.S_IFCHR:
		return fs.ModeDevice | fs.ModeCharDevice
	case syscall.S_IFBLK:
		return fs.ModeDevice
	}
	return fs.ModeIrregular
}

// fdReader reads an open file descriptor.
type fdReader int

func (fd fdReader) Read(p []byte) (int, error) {
	var n int
	err := retryEINTR(func() (err error) {
		n, err = syscall.Read(int(fd), p)
		return err
	})
	switch {
	case err != nil:
		return 0, err
	case n == 0 && len(p) > 0:
		return 0, io.EOF
	}
	return n, nil
}
