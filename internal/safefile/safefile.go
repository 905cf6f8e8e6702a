// Package safefile holds the file chores several packages share: writes
// that replace a file atomically, a bounded read and a directory listing
// that never block, and words for a file type that is not a regular
// file. It exists so that every file gemini-ls writes is written the same
// careful way, and every configuration file it reads (the user's, a
// repository's, an extension's) is read the same careful way: a FIFO,
// device or socket in a file's place is refused, for the loader to name,
// never waited on. Files shared with Gemini CLI are rewritten under its
// lock, which internal/sharedlock takes.
// A user's file (what the model writes, GEMINI.md, transcripts, diffs,
// logs) is created as every Unix tool creates one, 0o666 less the umask,
// and keeps its mode when replaced; a private one (sessions, cached
// tokens) is 0o600.
package safefile

import (
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
)

// Replace writes data to path through a temporary file in the same
// directory: written, synced, then renamed over path, so a reader (or a
// crash) sees the old file or the new one, never part of either. The file
// gets exactly perm: Replace is for the files whose mode gemini-ls decides
// (sessions and cached tokens are 0o600 whatever the umask or a previous
// mode). The temporary file is removed when anything fails.
func Replace(path string, data []byte, perm fs.FileMode) error {
	return replace(path, data, 0o600, perm, nil, true)
}

// ReplaceCache is Replace for a cache, a file whose loss costs only
// time: it is not synced, so after a crash it may be as it was, or
// empty or cut short, which its reader must take as no cache.
func ReplaceCache(path string, data []byte) error {
	return replace(path, data, 0o600, 0o600, nil, false)
}

// ReplaceIf is Replace that calls unchanged as WriteIf does: a writer
// under a lock passes the check that it still holds it.
func ReplaceIf(path string, data []byte, perm fs.FileMode, unchanged func() error) error {
	return replace(path, data, 0o600, perm, unchanged, true)
}

// ReplacerIf is ReplaceIf with perm, in WriteIf's shape: the write a
// read-modify-write under a lock (sharedlock.Rewrite) gives a private
// file.
func ReplacerIf(perm fs.FileMode) func(path string, data []byte, unchanged func() error) error {
	return func(path string, data []byte, unchanged func() error) error {
		return ReplaceIf(path, data, perm, unchanged)
	}
}

// Write is Replace for the user's files (what the model writes, the
// user's GEMINI.md, logs): an existing file keeps its mode, and a new one
// gets 0o666 less the umask, as every Unix tool creates one.
func Write(path string, data []byte) error {
	return WriteIf(path, data, nil)
}

// WriteIf is Write that calls unchanged, when not nil, once the new file
// is ready and just before the rename: when it returns an error, path is
// left as it is and the error returned. A read-modify-write passes a check
// that its lock is still held (internal/sharedlock) and that the file
// still holds what was read, so that a writer that takes no lock (Gemini
// CLI, on most files) does not lose what it wrote in between.
func WriteIf(path string, data []byte, unchanged func() error) error {
	if info, err := os.Stat(path); err == nil {
		// Created with the old mode, the umask may take bits from it,
		// never add any; the chmod before any data restores them, so the
		// data is never readable by more than the old file was.
		perm := info.Mode().Perm()
		return replace(path, data, perm, perm, unchanged, true)
	}
	return replace(path, data, 0o666, 0, unchanged, true)
}

// WriteIn is WriteIf for the file name in the directory dir: its mode
// read, the temporary file created, and the rename made through dir's
// handle, never by a path from /, so a directory swapped for a symbolic
// link meanwhile cannot lead the write elsewhere. A symbolic link at
// name is replaced, not followed.
func WriteIn(dir *os.Root, name string, data []byte, unchanged func() error) error {
	if info, err := dir.Lstat(name); err == nil && info.Mode().IsRegular() {
		perm := info.Mode().Perm() // as in WriteIf
		return replaceIn(dir, name, data, perm, perm, unchanged, true)
	}
	return replaceIn(dir, name, data, 0o666, 0, unchanged, true)
}

// replace writes data to a new file beside path, created with create (less
// the umask), then given chmod unless 0, and renames it over path once
// unchanged (when not nil) agrees; the new file synced first when sync.
func replace(path string, data []byte, create, chmod fs.FileMode, unchanged func() error, sync bool) error {
	dir, err := os.OpenRoot(filepath.Dir(path))
	if err != nil {
		return err
	}
	defer dir.Close()
	return replaceIn(dir, filepath.Base(path), data, create, chmod, unchanged, sync)
}

// replaceIn is replace of the file name in the directory dir, every step
// through dir's handle; the new file synced before the rename when sync.
func replaceIn(dir *os.Root, name string, data []byte, create, chmod fs.FileMode, unchanged func() error, sync bool) error {
	tmp, tmpName, err := createTemp(dir, name, create)
	if err != nil {
		return err
	}
	defer dir.Remove(tmpName) // after a successful rename there is nothing to remove
	if chmod != 0 {
		err = tmp.Chmod(chmod)
	}
	if err == nil {
		_, err = tmp.Write(data)
	}
	if err == nil && sync {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil && unchanged != nil {
		err = unchanged()
	}
	if err != nil {
		return err
	}
	// On Windows the rename replaces the file as on Unix (os.Root's
	// rename asks for replace-if-exists), unless another program holds
	// it open: then it fails and the file is as it was.
	if err := dir.Rename(tmpName, name); err != nil {
		return replaceError(filepath.Join(dir.Name(), name), err)
	}
	return nil
}

// Append opens path for appending, creating it as a user's file is
// created, 0o666 less the umask: transcripts and logs.
func Append(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o666)
}

// createTemp creates a new file beside name in dir with mode perm, which
// the kernel reduces by the umask: os.CreateTemp's fixed 0o600 would make
// every file a private one, and reading the umask (syscall.Umask sets it
// too) would race with other goroutines creating files.
func createTemp(dir *os.Root, name string, perm fs.FileMode) (*os.File, string, error) {
	for range 100 {
		tmpName := fmt.Sprintf(".%s.%08x.tmp", name, rand.Uint32())
		f, err := dir.OpenFile(tmpName, os.O_RDWR|os.O_CREATE|os.O_EXCL, perm)
		if !errors.Is(err, fs.ErrExist) {
			return f, tmpName, err
		}
	}
	return nil, "", fmt.Errorf("creating a temporary file in %s: too many names taken", dir.Name())
}

// DescribeMode names a file type for messages: "a directory", "a named
// pipe (FIFO)", ….
func DescribeMode(mode fs.FileMode) string {
	switch {
	case mode.IsRegular():
		return "a regular file"
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
