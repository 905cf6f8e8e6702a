package sandbox

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// scratchDirs are the directories any image lets its user write in,
// which a container of its own per command gave each command afresh.
func scratchDirs() []string { return []string{"/tmp", "/var/tmp", "/dev/shm"} }

// tmpSweeper gives a container's commands the private /tmp (or other
// scratch directory) a container each gave them, as far as the
// supervisor can without a capability to mount one: it notes what dir
// holds at its start (the image's files, the mount points the runtime
// made for volumes there) and, when no command runs, removes whatever
// else is there, before the next command starts. Mounts under dir (a
// workspace root there) are never entered.
type tmpSweeper struct {
	dir  string
	kept map[string]bool
}

// newTmpSweeper notes what dir holds; nil when the image has no dir.
func newTmpSweeper(dir string) (*tmpSweeper, error) {
	if _, err := os.Lstat(dir); errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	t := &tmpSweeper{dir: dir, kept: map[string]bool{}}
	err := t.walk(func(p string, _ fs.DirEntry) error {
		t.kept[p] = true
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("noting what %s holds: %w", dir, err)
	}
	return t, nil
}

// sweep removes what was not in dir at the start. It is best effort, as
// the kill of a command's processes: what a command made that its user
// cannot remove (a file of another user, under /tmp's sticky bit) stays.
func (t *tmpSweeper) sweep() {
	_ = t.walk(func(p string, d fs.DirEntry) error {
		if t.kept[p] {
			return nil
		}
		removeAllWritable(p)
		if d.IsDir() {
			return fs.SkipDir
		}
		return nil
	})
}

// walk calls fn for each path under dir, dir itself and the mounts
// under it (and what they hold) left out, a directory before what it
// holds; a directory holding a mount is walked into, never handed to fn.
func (t *tmpSweeper) walk(fn func(string, fs.DirEntry) error) error {
	mounts, err := mountsUnder(t.dir)
	if err != nil {
		return err
	}
	return filepath.WalkDir(t.dir, func(p string, d fs.DirEntry, err error) error {
		switch {
		case p == t.dir:
			return err
		case err != nil:
			// Gone since it was listed, or unreadable: nothing to do.
			return nil
		case slices.Contains(mounts, p):
			if d.IsDir() {
				return fs.SkipDir
			}
			return nil
		case slices.ContainsFunc(mounts, func(m string) bool { return strings.HasPrefix(m, p+"/") }):
			return nil
		}
		return fn(p, d)
	})
}

// removeAllWritable removes p and what it holds, making its directories
// writable first: a command's directory of mode 0500 would otherwise
// keep what it holds.
func removeAllWritable(p string) {
	if err := os.RemoveAll(p); err == nil || !errors.Is(err, fs.ErrPermission) {
		return
	}
	_ = filepath.WalkDir(p, func(q string, d fs.DirEntry, err error) error {
		if err == nil && d.IsDir() {
			_ = os.Chmod(q, 0o700)
		}
		return nil
	})
	_ = os.RemoveAll(p)
}
