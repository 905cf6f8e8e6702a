package workspace

import (
	"context"
	"path/filepath"
	"strings"
	"sync"
)

// writeLocks holds, per resolved path, the lock a write takes from its
// check of the file to its rename (WriteFile, RemoveFile, HoldPath), so
// that two writes of one file prepared from the same text (two subagents,
// a headless run and an ACP session) cannot both pass the check and the
// second silently undo the first. It is the process's, not a Workspace's:
// ACP makes a workspace per session, and two sessions may share a cwd.
var writeLocks = pathLocks{held: make(map[string]*pathLock)}

type pathLocks struct {
	mu   sync.Mutex
	held map[string]*pathLock
}

// pathLock is one path's lock: a token in a channel, so that a waiter
// gives up when its ctx is done (ACP holds it across requests to the
// client, which may never answer), and a count of holders and waiters,
// so that the entry goes when no one needs it.
type pathLock struct {
	token chan struct{}
	users int
}

// HoldPath takes the write lock of path (resolved, absolute), which
// WriteFile and RemoveFile take too, and returns its release; it fails
// only when ctx is done first. A front end that checks a file and writes
// it another way (ACP's fs/write_text_file) holds it across both.
func HoldPath(ctx context.Context, path string) (release func(), err error) {
	return writeLocks.lock(ctx, path)
}

func (l *pathLocks) lock(ctx context.Context, path string) (func(), error) {
	key := lockKey(path)
	l.mu.Lock()
	pl := l.held[key]
	if pl == nil {
		pl = &pathLock{token: make(chan struct{}, 1)}
		l.held[key] = pl
	}
	pl.users++
	l.mu.Unlock()
	select {
	case pl.token <- struct{}{}:
		return func() { <-pl.token; l.done(key, pl) }, nil
	case <-ctx.Done():
		l.done(key, pl)
		return nil, ctx.Err()
	}
}

func (l *pathLocks) done(key string, pl *pathLock) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if pl.users--; pl.users == 0 {
		delete(l.held, key)
	}
}

// lockKey is path as the lock table keys it: cleaned, and on Windows,
// whose names ignore case, lowercased, so that two spellings of one file
// share a lock.
func lockKey(path string) string {
	path = filepath.Clean(path)
	if hostOS == "windows" {
		return strings.ToLower(path)
	}
	return path
}
