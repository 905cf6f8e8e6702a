package heldfile

import (
	"errors"
	"os"

	"golang.org/x/sys/windows"
)

// Create creates the file name, which must not exist, and takes its
// lock: this process holds it until the file is closed or the process
// ends, however it ends. The file may be renamed and removed while open.
func Create(name string) (*os.File, error) {
	f, err := openShared(name, windows.GENERIC_READ|windows.GENERIC_WRITE, windows.CREATE_NEW)
	if err != nil {
		return nil, err
	}
	if err := lockFar(f); err != nil {
		f.Close()
		os.Remove(name)
		return nil, err
	}
	return f, nil
}

// Open opens the file name to read it and try its lock.
func Open(name string) (*os.File, error) {
	return openShared(name, windows.GENERIC_READ, windows.OPEN_EXISTING)
}

// HeldElsewhere reports whether another handle holds f's lock, taking it
// when none does (until f is closed). An error: the lock could not be
// asked.
func HeldElsewhere(f *os.File) (bool, error) {
	err := lockFar(f)
	if errors.Is(err, windows.ERROR_LOCK_VIOLATION) {
		return true, nil
	}
	return false, err
}

// openShared opens name letting others read, write, rename and delete it.
func openShared(name string, access, disposition uint32) (*os.File, error) {
	p, err := windows.UTF16PtrFromString(name)
	if err != nil {
		return nil, err
	}
	h, err := windows.CreateFile(p, access, windows.FILE_SHARE_READ|windows.FILE_SHARE_WRITE|windows.FILE_SHARE_DELETE, nil, disposition, windows.FILE_ATTRIBUTE_NORMAL, 0)
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: name, Err: err}
	}
	return os.NewFile(uintptr(h), name), nil
}

// lockFar locks one byte at 2^62, far past any record's text: Windows'
// locks keep others from reading what they cover.
func lockFar(f *os.File) error {
	at := windows.Overlapped{OffsetHigh: 1 << 30}
	return windows.LockFileEx(windows.Handle(f.Fd()), windows.LOCKFILE_EXCLUSIVE_LOCK|windows.LOCKFILE_FAIL_IMMEDIATELY, 0, 1, 0, &at)
}
