package workspace

import (
	"errors"
	"io/fs"
	"os"
	"slices"
	"sync"
)

// baseDirs keeps each base directory (a root or an allowed directory,
// see beneath.go) open for the workspace's life, so that every read,
// stat and listing beneath it starts from its handle without opening it
// by name again (an os.OpenRoot per stat, an open and a close around each
// openat2: a third of a search's system calls). A base replaced since it
// was opened (renamed away, another directory put in its place) is found
// by one lstat of its name at each use and opened again: what is reached
// is what its name names now, as when it was opened at each use.
type baseDirs struct {
	mu   sync.Mutex
	kept map[string]*baseDir
}

// baseDir is one base kept open. A replaced one is dropped, not closed:
// an operation may still be using it; the collector closes it. Close
// closes them all at once (their descriptors wait for the calls using
// them).
type baseDir struct {
	// fresh: opened for one use and closed by release, where bases are
	// not kept (keepBases).
	fresh bool
	path  string
	root  *os.Root
	// dir is the directory's own descriptor (an O_PATH one on Linux, for
	// openat2), owned by dirFile; nil where os.Root does all.
	dir *dirHandle
	id  dirID // the directory as opened, which its name must still be
}

// keptBeneath is beneathOf with the base's kept handle.
func (w *Workspace) keptBeneath(path, real string) (*baseDir, string, error) {
	base, rel, err := w.beneathOf(path, real)
	if err != nil {
		return nil, "", err
	}
	b, err := w.bases.get(base, w.isBase)
	if err != nil {
		// As when each operation opened the base itself: an allowed
		// directory not made yet (a plans directory, made on its first
		// write) holds no file, which is not an error of the base's.
		return nil, "", beneathError(path, err)
	}
	return b, rel, nil
}

// listedBeneath is keptBeneath for an entry a listing reported: the
// base it was listed beneath, without checking its name again (a search
// reads thousands of entries); what the name names now is what the next
// listing reaches.
func (w *Workspace) listedBeneath(e DirEntry) (*baseDir, string, error) {
	if e.base == nil || !within(e.base.path, e.Path) {
		return w.keptBeneath(e.Path, e.Path)
	}
	return e.base, relBeneath(e.base.path, e.Path), nil
}

// lstatListed lstats an entry a listing reported beneath the handle it
// was listed from (listedBeneath).
func (w *Workspace) lstatListed(e DirEntry) (fs.FileInfo, error) {
	b, rel, err := w.listedBeneath(e)
	if err != nil {
		return nil, err
	}
	defer b.release()
	fi, err := b.root.Lstat(rel)
	if err != nil {
		return nil, beneathError(e.Path, err)
	}
	return fi, nil
}

// isBase reports whether dir is a root, an allowed directory or an
// allowed file's directory now.
func (w *Workspace) isBase(dir string) bool {
	return slices.Contains(w.Roots(), dir) || slices.Contains(w.allowed(), dir) || slices.Contains(w.allowedFileDirs(), dir)
}

// get is base's kept handle, opened (again) when not kept or replaced
// since; the bases no longer current (isBase) are dropped meanwhile.
func (d *baseDirs) get(base string, isBase func(string) bool) (*baseDir, error) {
	if !keepBases {
		b, err := openBase(base)
		if err == nil {
			b.fresh = true
		}
		return b, err
	}
	d.mu.Lock()
	b := d.kept[base]
	d.mu.Unlock()
	if b != nil && b.current() {
		return b, nil
	}
	b, err := openBase(base)
	if err != nil {
		return nil, err
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.kept == nil {
		d.kept = make(map[string]*baseDir)
	}
	for dir := range d.kept {
		if !isBase(dir) {
			delete(d.kept, dir)
		}
	}
	d.kept[base] = b
	return b, nil
}

// release ends one use of b: it closes a base opened for that use alone
// (fresh), and leaves a kept one open.
func (b *baseDir) release() {
	if b.fresh {
		b.root.Close()
	}
}

// Close lets go of the directories the workspace keeps open, its roots
// and allowed directories (baseDirs), rather than leaving their
// descriptors to the collector: a front end whose workspace ends with a
// session (ACP) closes it then. The workspace stays usable; a later
// operation opens them again.
func (w *Workspace) Close() error {
	w.bases.mu.Lock()
	kept := w.bases.kept
	w.bases.kept = nil
	w.bases.mu.Unlock()
	var errs []error
	for _, b := range kept {
		if b.dir != nil {
			b.dir.close()
		}
		errs = append(errs, b.root.Close())
	}
	return errors.Join(errs...)
}

// openBase opens base by name, its handles confirmed to be one directory.
func openBase(base string) (*baseDir, error) {
	root, err := os.OpenRoot(base)
	if err != nil {
		return nil, err
	}
	b := &baseDir{path: base, root: root}
	if b.dir, b.id, err = openDirHandle(base, root); err != nil {
		root.Close()
		return nil, err
	}
	return b, nil
}
