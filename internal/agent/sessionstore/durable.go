package sessionstore

import (
	"errors"
	"fmt"
	"os"
	"sync"
)

// durability makes appended lines durable after Append returned. The
// line is written before Append returns: this process, another one and a
// restart of either read it from then on. The fsync that keeps it through
// a power loss (and, for a new file, its directory's) follows on its own
// goroutine, so that a prompt's answer does not wait on the disk (0.3 to
// 6.5 ms an fsync on these machines, against well under 1 ms for all the
// rest of a tool turn). A failed fsync is told by the next Append of the
// store; Wait waits for those under way.
type durability struct {
	// sync is (*os.File).Sync; a test may stand in for it.
	sync func(*os.File) error

	pending sync.WaitGroup
	mu      sync.Mutex
	failed  error // the fsync failures no Append has told yet
	// closing holds, by path, the files whose close waits on their
	// fsync: Windows refuses to remove or rename over a file while any
	// handle on it is open ("Sharing violation"), so Delete and Replace
	// wait for them (awaitClosed).
	closing map[string]*closingFiles
}

// closingFiles counts the handles on one path that are being closed;
// done is closed when the last of them is.
type closingFiles struct {
	n    int
	done chan struct{}
}

// later syncs f, then closes it, and syncs dir too when not "" (the file
// is new there). f is the caller's no more.
func (d *durability) later(f *os.File, dir string) {
	closed := d.willClose(f.Name())
	d.pending.Go(func() {
		err := d.syncFile(f)
		if closeErr := f.Close(); err == nil {
			err = closeErr
		}
		closed()
		if dir != "" {
			syncDir(dir)
		}
		if err != nil {
			d.fail(f.Name(), err)
		}
	})
}

// willClose notes that a handle on path is to be closed, once synced;
// the caller calls the func returned once it is.
func (d *durability) willClose(path string) (closed func()) {
	d.mu.Lock()
	defer d.mu.Unlock()
	c := d.closing[path]
	if c == nil {
		c = &closingFiles{done: make(chan struct{})}
		if d.closing == nil {
			d.closing = make(map[string]*closingFiles)
		}
		d.closing[path] = c
	}
	c.n++
	return func() {
		d.mu.Lock()
		defer d.mu.Unlock()
		if c.n--; c.n == 0 {
			close(c.done)
			delete(d.closing, path)
		}
	}
}

// awaitClosed returns once the handles on path this store was closing
// are closed (their fsync, a few milliseconds, done): the file can then
// be removed or renamed over on Windows too.
func (d *durability) awaitClosed(path string) {
	d.mu.Lock()
	c := d.closing[path]
	d.mu.Unlock()
	if c != nil {
		<-c.done
	}
}

// fail keeps a failure to sync file name for the next save to tell.
func (d *durability) fail(name string, err error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.failed = errors.Join(d.failed, fmt.Errorf("syncing %s to disk: %w", name, err))
}

func (d *durability) syncFile(f *os.File) error {
	if d.sync != nil {
		return d.sync(f)
	}
	return f.Sync()
}

// failure takes the failures no Append has told yet.
func (d *durability) failure() error {
	d.mu.Lock()
	defer d.mu.Unlock()
	err := d.failed
	d.failed = nil
	if err != nil {
		return fmt.Errorf("an earlier save may not survive a power loss: %w", err)
	}
	return nil
}

// dirIf is dir when a file was created in it (its entry to sync too),
// "" otherwise.
func dirIf(created bool, dir string) string {
	if created {
		return dir
	}
	return ""
}

// Wait returns once every line appended so far is on disk (or its fsync
// failed, which the next Append tells).
func (s *Store) Wait() { s.durable.pending.Wait() }
