// Package safefile holds the two file chores several packages share: a
// write that replaces a file atomically, and words for a file type that
// is not a regular file. It exists so that the session store, the cached
// Google login, save_memory and the workspace's writes replace files the
// same careful way.
package safefile

import (
	"io/fs"
	"os"
	"path/filepath"
)

// Replace writes data to path through a temporary file in the same
// directory: written, given perm, synced, then renamed over path, so a
// reader (or a crash) sees the old file or the new one, never part of
// either. The temporary file is removed when anything fails.
func Replace(path string, data []byte, perm fs.FileMode) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name()) // after a successful rename there is nothing to remove
	_, err = tmp.Write(data)
	if err == nil {
		err = tmp.Chmod(perm)
	}
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// DescribeMode names a file type for messages: "a directory", "a named
// pipe (FIFO)", ….
func DescribeMode(mode fs.FileMode) string {
	switch {
	case mode.IsDir():
		return "a directory"
	case mode&fs.ModeSymlink != 0:
		return "a symbolic link"
	case mode&fs.ModeNamedPipe != 0:
		return "a named pipe (FIFO)"
	case mode&fs.ModeSocket != 0:
		return "a socket"
	case mode&fs.ModeDevice != 0:
		return "a device"
	}
	return "a special file"
}
