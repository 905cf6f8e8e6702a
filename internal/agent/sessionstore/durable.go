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
}

// later syncs f, then closes it, and syncs dir too when not "" (the file
// is new there). f is the caller's no more.
func (d *durability) later(f *os.File, dir string) {
	d.pending.Go(func() {
		err := d.syncFile(f)
		if closeErr := f.Close(); err == nil {
			err = closeErr
		}
		if dir != "" {
			syncDir(dir)
		}
		if err != nil {
			d.fail(f.Name(), err)
		}
	})
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
