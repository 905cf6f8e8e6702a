package workspace

import (
	"context"
	"path/filepath"
	"strings"
	"sync"
)

// WriteLocks holds, per resolved path, the lock a write takes from its
// check of the file to its rename (WriteFile, RemoveFile, HoldPath), so
// that two writes of one file prepared from the same text (two subagents,
// two sessions in one folder) cannot both pass the check and the second
// silently undo the first. A workspace has its own unless given one to
// share (ShareWriteLocks): ACP makes a workspace per session, and two
// sessions may share a folder.
type WriteLocks struct {
	mu   sync.Mutex
	held map[string]*pathLock
}

// NewWriteLocks is a table of write locks held by no one.
func NewWriteLocks() *WriteLocks { return &WriteLocks{held: make(map[string]*pathLock)} }

// pathLock is one path's lock: a token in a channel, so that a waiter
// gives up when its ctx is done (ACP holds it across requests to the
// client, which may never answer), and a count of holders and waiters,
// so that the entry goes when no one needs it.
type pathLock struct {
	token chan struct{}
	users int
}

// ShareWriteLocks makes w's writes take their locks in l, which other
// workspaces over the same files share; call it before w writes.
func (w *Workspace) ShareWriteLocks(l *WriteLocks) { w.writes = l }

// HoldPath takes the write lock of path (resolved, absolute), which
// WriteFile and RemoveFile of w's changes take too, and returns its
// release; it fails only when ctx is done first. A front end that checks
// a file and writes it another way (ACP's fs/write_text_file) holds it
// across both.
func (w *Workspace) HoldPath(ctx context.Context, path string) (release func(), err error) {
	return w.writes.lock(ctx, path)
}

func (l *WriteLocks) lock(ctx context.Context, path string) (func(), error) {
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

func (l *WriteLocks) done(key string, pl *pathLock) {
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
