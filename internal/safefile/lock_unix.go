//go:build unix

package safefile

import (
	"context"
	"errors"
	"fmt"
	"syscall"
	"time"

	"github.com/gemini-ls/gemini-ls/internal/ctxtime"
)

// LockDir takes an exclusive lock on the directory dir, for one
// read-modify-write of a file in it, waiting until the lock is free or ctx
// ends; unlock releases it. It is flock(2) on a descriptor of its own, so
// two goroutines of one process exclude each other as two processes do,
// and a process that dies releases it. Locking the directory leaves no
// lock file behind. Only writers that call LockDir take it: Gemini CLI
// does not, which is what WriteIf's check is for.
func LockDir(ctx context.Context, dir string) (unlock func(), err error) {
	fd, err := syscall.Open(dir, syscall.O_RDONLY|syscall.O_CLOEXEC|syscall.O_DIRECTORY, 0)
	if err != nil {
		return nil, fmt.Errorf("locking %s: %w", dir, err)
	}
	wait := time.Millisecond
	for {
		err := syscall.Flock(fd, syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil {
			return func() { syscall.Close(fd) }, nil // closing releases the lock
		}
		if !errors.Is(err, syscall.EWOULDBLOCK) && !errors.Is(err, syscall.EINTR) {
			syscall.Close(fd)
			return nil, fmt.Errorf("locking %s: %w", dir, err)
		}
		// Polled, not blocking, so that ctx can end the wait.
		if err := ctxtime.Sleep(ctx, wait); err != nil {
			syscall.Close(fd)
			return nil, err
		}
		wait = min(2*wait, 50*time.Millisecond)
	}
}
