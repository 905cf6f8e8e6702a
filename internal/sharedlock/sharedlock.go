package sharedlock

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/gemini-ls/gemini-ls/internal/ctxtime"
)

const (
	// Stale is how old a lock directory's modification time must be for
	// the lock to be taken over: proper-lockfile's default, which 0.61
	// keeps.
	Stale = 10 * time.Second
	// Update is how often a held lock's modification time is set to now.
	Update = Stale / 2
	// MaxWait is how long Acquire waits for a lock another program holds.
	MaxWait = 3 * Stale
)

// timing is the protocol's durations; tests shorten them.
type timing struct {
	stale, update, maxWait time.Duration
	firstRetry, maxRetry   time.Duration
}

func defaults() timing {
	return timing{stale: Stale, update: Update, maxWait: MaxWait, firstRetry: 25 * time.Millisecond, maxRetry: time.Second}
}

// Lock is a held lock on a file.
type Lock struct {
	file, dir string
	stale     time.Duration

	mu    sync.Mutex
	info  fs.FileInfo // the lock directory as last made or refreshed
	lost  error       // why the lock is no longer ours; nil while it is
	stop  chan struct{}
	ended chan struct{}
}

// BusyError is a lock not had within the wait: the lock directory Dir of
// File was held, and kept fresh, by another process all along.
type BusyError struct {
	File, Dir string
	Waited    time.Duration
	Err       error // the context's error, when it ended the wait
}

func (e *BusyError) Error() string {
	why := fmt.Sprintf("was still held after %s", e.Waited.Round(100*time.Millisecond))
	if e.Err != nil {
		why = fmt.Sprintf("was still held when the wait ended (%v)", e.Err)
	}
	return fmt.Sprintf("%s is being written by another program (Gemini CLI or another gemini-ls): its lock %s %s; "+
		"nothing was changed. Try again; if no such program is running, delete the directory %s", e.File, e.Dir, why, e.Dir)
}

func (e *BusyError) Unwrap() error { return e.Err }

// Acquire takes the lock on file, waiting for another holder to release
// it, or for its lock to go stale, for at most MaxWait or until ctx ends.
// The lock is refreshed until Release.
func Acquire(ctx context.Context, file string) (*Lock, error) {
	return acquire(ctx, file, defaults())
}

func acquire(ctx context.Context, file string, t timing) (*Lock, error) {
	dir, err := lockDir(file)
	if err != nil {
		return nil, fmt.Errorf("locking %s: %w", file, err)
	}
	start := time.Now()
	wait := t.firstRetry
	for {
		info, err := tryLock(dir, t.stale)
		if err == nil {
			l := &Lock{file: file, dir: dir, stale: t.stale, info: info, stop: make(chan struct{}), ended: make(chan struct{})}
			go l.refresh(t.update)
			return l, nil
		}
		if !errors.Is(err, fs.ErrExist) {
			return nil, fmt.Errorf("locking %s: %w", file, err)
		}
		waited := time.Since(start)
		if waited >= t.maxWait {
			return nil, &BusyError{File: file, Dir: dir, Waited: waited}
		}
		// Jittered, so that processes that found the lock held together
		// do not all come back together.
		d := min(wait/2+rand.N(wait), t.maxWait-waited)
		if err := ctxtime.Sleep(ctx, d); err != nil {
			return nil, &BusyError{File: file, Dir: dir, Waited: time.Since(start), Err: err}
		}
		wait = min(2*wait, t.maxRetry)
	}
}

// lockDir is the lock directory of file: its real path's, as
// proper-lockfile's realpath option makes it.
func lockDir(file string) (string, error) {
	abs, err := filepath.Abs(file)
	if err != nil {
		return "", err
	}
	real, err := filepath.EvalSymlinks(abs)
	if errors.Is(err, fs.ErrNotExist) {
		var dir string
		if dir, err = filepath.EvalSymlinks(filepath.Dir(abs)); err == nil {
			real = filepath.Join(dir, filepath.Base(abs))
		}
	}
	if err != nil {
		return "", err
	}
	return real + ".lock", nil
}

// tryLock makes one attempt at the lock directory dir, taking over a
// stale one; fs.ErrExist means another holds it.
func tryLock(dir string, stale time.Duration) (fs.FileInfo, error) {
	err := os.Mkdir(dir, 0o777)
	if errors.Is(err, fs.ErrExist) {
		info, serr := os.Stat(dir)
		switch {
		case errors.Is(serr, fs.ErrNotExist):
			// Released in between: one more attempt, as proper-lockfile
			// makes, with no takeover.
			err = os.Mkdir(dir, 0o777)
		case serr != nil:
			return nil, serr
		case info.ModTime().Before(time.Now().Add(-stale)):
			if rerr := os.Remove(dir); rerr != nil && !errors.Is(rerr, fs.ErrNotExist) {
				return nil, fmt.Errorf("removing the stale lock %s: %w", dir, rerr)
			}
			err = os.Mkdir(dir, 0o777)
		}
	}
	if err != nil {
		return nil, err
	}
	info, err := os.Stat(dir)
	if err != nil {
		return nil, fmt.Errorf("taking the lock %s: %w", dir, err)
	}
	return info, nil
}

// refresh sets the lock directory's modification time to now every
// interval until Release, or until the lock is found not to be ours.
func (l *Lock) refresh(interval time.Duration) {
	defer close(l.ended)
	tick := time.NewTicker(interval)
	defer tick.Stop()
	for {
		select {
		case <-l.stop:
			return
		case <-tick.C:
		}
		l.mu.Lock()
		err := l.checkLocked()
		if err == nil {
			now := time.Now()
			if err = os.Chtimes(l.dir, now, now); err == nil {
				var info fs.FileInfo
				if info, err = os.Stat(l.dir); err == nil {
					l.info = info
				}
			}
			// A refresh that failed for a while leaves the lock to go
			// stale; proper-lockfile calls that compromised too.
			if err != nil && time.Since(l.info.ModTime()) < l.stale {
				err = nil
			}
		}
		if err != nil && l.lost == nil {
			l.lost = err
		}
		lost := l.lost != nil
		l.mu.Unlock()
		if lost {
			return
		}
	}
}

// Held is nil while the lock is still this holder's; else an error that
// names the file and says what happened to its lock. A writer calls it
// just before its rename.
func (l *Lock) Held() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if err := l.checkLocked(); err != nil && l.lost == nil {
		l.lost = err
	}
	if l.lost != nil {
		return fmt.Errorf("the lock on %s was lost (%v); nothing was changed, try again", l.file, l.lost)
	}
	return nil
}

// checkLocked is why the lock directory is no longer the one this holder
// made and last refreshed, nil when it is; l.mu is held.
func (l *Lock) checkLocked() error {
	if l.lost != nil {
		return l.lost
	}
	now, err := os.Stat(l.dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("%s was removed by another program", l.dir)
	case err != nil:
		return err
	case !os.SameFile(now, l.info) || !now.ModTime().Equal(l.info.ModTime()):
		return fmt.Errorf("%s was taken over by another program", l.dir)
	}
	return nil
}

// Release stops refreshing the lock and removes its directory if it is
// still this holder's. A directory that cannot be removed goes stale and
// is taken over by the next taker, so there is nothing for a caller to do
// about it.
func (l *Lock) Release() {
	close(l.stop)
	<-l.ended
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.checkLocked() == nil {
		_ = os.Remove(l.dir)
	}
	l.lost = errors.New("it was released")
}

// Dir is the lock directory.
func (l *Lock) Dir() string { return l.dir }
