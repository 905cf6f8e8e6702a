//go:build !windows

package heldfile

import (
	"errors"
	"os"
	"syscall"
)

// Create creates the file name, which must not exist, and takes its
// lock: this process holds it until the file is closed or the process
// ends, however it ends.
func Create(name string) (*os.File, error) {
	f, err := os.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return nil, err
	}
	if err := flock(f); err != nil {
		f.Close()
		os.Remove(name)
		return nil, err
	}
	return f, nil
}

// Open opens the file name to read it and try its lock.
func Open(name string) (*os.File, error) { return os.Open(name) }

// HeldElsewhere reports whether another open file holds f's lock, taking
// it when none does (until f is closed). An error: the lock could not be
// asked (a file system without locks).
func HeldElsewhere(f *os.File) (bool, error) {
	err := flock(f)
	if errors.Is(err, syscall.EWOULDBLOCK) {
		return true, nil
	}
	return false, err
}

func flock(f *os.File) error {
	conn, err := f.SyscallConn()
	if err != nil {
		return err
	}
	var lockErr error
	if err := conn.Control(func(fd uintptr) {
		lockErr = syscall.Flock(int(fd), syscall.LOCK_EX|syscall.LOCK_NB)
	}); err != nil {
		return err
	}
	return lockErr
}
