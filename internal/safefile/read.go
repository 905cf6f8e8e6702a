package safefile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"slices"
	"strings"
)

// Read reads path, following symlinks, if it is a regular file of at most
// limit bytes: a FIFO or a device put in its place would block or never
// end. The file is opened without blocking and checked to be the one
// stat'ed, so one swapped in between is refused too. Errors do not repeat
// the path; callers say what they were reading. Every configuration file
// gemini-ls reads (settings, .env, trusted folders, commands, policies,
// skills, extensions) is read through it.
func Read(path string, limit int64) ([]byte, error) {
	info, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !info.Mode().IsRegular() {
		return nil, fmt.Errorf("it is %s, not a regular file", DescribeMode(info.Mode()))
	}
	if info.Size() > limit {
		return nil, tooLarge(limit)
	}
	f, err := os.OpenFile(path, os.O_RDONLY|openNonBlocking, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	opened, err := f.Stat()
	if err != nil || !os.SameFile(info, opened) {
		return nil, errors.New("it was replaced while being opened")
	}
	data, err := readAll(f, opened.Size(), limit)
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > limit {
		return nil, tooLarge(limit)
	}
	return data, nil
}

// readAll reads r to its end or past limit, into a buffer of the size
// its stat gave (and a byte, to see the end) rather than one grown by
// doubling from 512 bytes: a file read whole at every start (the
// sessions' summaries, a settings file) then costs its size once.
func readAll(r io.Reader, size, limit int64) ([]byte, error) {
	data := make([]byte, 0, min(max(size, 0), limit)+1)
	for int64(len(data)) <= limit {
		if len(data) == cap(data) {
			data = append(data, 0)[:len(data)] // grown since its stat
		}
		n, err := r.Read(data[len(data):min(int64(cap(data)), limit+1)])
		data = data[:len(data)+n]
		if errors.Is(err, io.EOF) {
			return data, nil
		}
		if err != nil {
			return data, err
		}
	}
	return data, nil
}

// ReadDir lists the directory dir, following symlinks, sorted by name: all
// of it, or at most n entries (any n of them) when n > 0. Opening it never
// blocks: a FIFO or a device named dir is refused as not a directory, not
// waited on as os.ReadDir would; that error, naming what it is instead,
// does not repeat the path.
func ReadDir(dir string, n int) ([]fs.DirEntry, error) {
	f, err := os.OpenFile(dir, os.O_RDONLY|openDirectory, 0)
	if err != nil {
		if info, serr := os.Stat(dir); serr == nil && !info.IsDir() {
			return nil, fmt.Errorf("it is %s, not a directory", DescribeMode(info.Mode()))
		}
		return nil, err
	}
	defer f.Close()
	entries, err := f.ReadDir(n)
	if errors.Is(err, io.EOF) {
		err = nil // an empty directory read with n > 0
	}
	slices.SortFunc(entries, func(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
	return entries, err
}

func tooLarge(limit int64) error {
	switch {
	case limit >= 1<<20 && limit%(1<<20) == 0:
		return fmt.Errorf("it is larger than %d MiB", limit>>20)
	case limit >= 1<<10 && limit%(1<<10) == 0:
		return fmt.Errorf("it is larger than %d KiB", limit>>10)
	}
	return fmt.Errorf("it is larger than %d bytes", limit)
}
