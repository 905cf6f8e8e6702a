package safefile

import (
	"errors"
	"fmt"
	"io"
	"os"
)

// Read reads path, following symlinks, if it is a regular file of at most
// limit bytes: a FIFO or a device put in its place would block or never
// end. The file is opened without blocking and checked to be the one
// stat'ed, so one swapped in between is refused too. Errors do not repeat
// the path; callers say what they were reading.
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
	if opened, err := f.Stat(); err != nil || !os.SameFile(info, opened) {
		return nil, errors.New("it was replaced while being opened")
	}
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > limit {
		return nil, tooLarge(limit)
	}
	return data, nil
}

func tooLarge(limit int64) error {
	if limit >= 1<<20 && limit%(1<<20) == 0 {
		return fmt.Errorf("it is larger than %d MiB", limit>>20)
	}
	return fmt.Errorf("it is larger than %d bytes", limit)
}
