package sharedlock

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"

	"github.com/gemini-ls/gemini-ls/internal/safefile"
)

// ErrUnchanged is what a change given to Rewrite returns when the file
// needs no write: it already says what the change would.
var ErrUnchanged = errors.New("nothing to change")

// Rewrite is the read-modify-write of a shared file under its lock: what
// path holds (nil when it is not there; at most limit bytes, read through
// safefile) is given to change, and what change returns is written by
// write (safefile.WriteIf, or ReplaceIf with the file's mode), which
// checks just before its rename that the lock is still held and that the
// file still holds what was read: Gemini CLI writes some of the files it
// shares without the lock, and what it wrote meanwhile is not lost. An
// error of change leaves the file as it is and is returned unwrapped;
// ErrUnchanged leaves it as it is, and Rewrite returns nil.
func Rewrite(ctx context.Context, path string, limit int64, change func(old []byte) ([]byte, error),
	write func(path string, data []byte, held func() error) error) error {
	lock, err := Acquire(ctx, path)
	if err != nil {
		return err
	}
	defer lock.Release()
	old, err := safefile.Read(path, limit)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("reading %s: %w", path, err)
	}
	data, err := change(old)
	if errors.Is(err, ErrUnchanged) {
		return nil
	}
	if err != nil {
		return err
	}
	return write(path, data, func() error {
		if err := lock.Held(); err != nil {
			return err
		}
		now, err := safefile.Read(path, limit)
		if err != nil && !errors.Is(err, fs.ErrNotExist) || !bytes.Equal(now, old) {
			return fmt.Errorf("%s changed while it was being written; nothing was changed, try again", path)
		}
		return nil
	})
}
