package workspace

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// bom is the UTF-8 byte-order mark.
const bom = "\uFEFF"

// notExistError matches both ErrNotExist and fs.ErrNotExist.
type notExistError struct{ path string }

func (e *notExistError) Error() string { return e.path + ": no such file or directory" }

func (e *notExistError) Is(target error) bool {
	return target == ErrNotExist || target == fs.ErrNotExist
}

// Stat reports whether path is a file, a directory, or missing; open
// documents count as files even when not on disk, and a directory that
// only unsaved documents live in counts as a directory.
func (w *Workspace) Stat(path string) (isDir bool, err error) {
	if err := w.checkResolved(path); err != nil {
		return false, err
	}
	if _, ok := w.docs.Get(path); ok {
		return false, nil
	}
	fi, err := w.statBeneath(path, path, (*os.Root).Stat)
	if err == nil {
		return fi.IsDir(), nil
	}
	if !errors.Is(err, fs.ErrNotExist) {
		return false, fmt.Errorf("stat %w", err)
	}
	if w.holdsDocuments(path) {
		return true, nil
	}
	return false, &notExistError{path}
}

// ReadFile reads the open document at path, else the regular file on
// disk (see read.go) or, when the workspace has Buffers and the file holds
// text, the editor's buffer of it (see buffers.go), refusing any of them
// when larger than limit bytes (*TooLargeError; on disk, from stat, before
// reading a byte). path must be resolved; its symlinks are followed again
// and must stay inside the roots, and reading stops when ctx ends.
func (w *Workspace) ReadFile(ctx context.Context, path string, limit int64) (File, error) {
	if err := w.checkResolved(path); err != nil {
		return File{}, err
	}
	if err := ctx.Err(); err != nil {
		return File{}, err
	}
	real, err := w.resolveInside(path)
	if err != nil {
		return File{}, err
	}
	if doc, ok := w.docs.Get(real); ok {
		if size := int64(len(doc.Text)); size > limit {
			return File{}, &TooLargeError{Path: path, Size: size, Limit: limit}
		}
		return File{
			Path:    path,
			Real:    real,
			Content: []byte(doc.Text),
			BOM:     w.diskHasBOM(real),
			Open:    true,
			Version: doc.Version,
		}, nil
	}
	content, hadBOM, err := w.readText(ctx, path, real, limit)
	if err != nil {
		return File{}, err
	}
	return File{Path: path, Real: real, Content: content, BOM: hadBOM}, nil
}

// ReadEntry is ReadFile for a file a Walk or ReadDir reported: the walk
// built its path from resolved directories and found its last component
// not to be a symlink, so the path is not resolved again (searching a tree
// would otherwise lstat every directory above every file). The file is
// still opened as ReadFile opens it: a regular file only, without
// following a symlink swapped in since, the size checked before reading.
// A symlink entry is resolved and checked as ReadFile does.
func (w *Workspace) ReadEntry(ctx context.Context, e DirEntry, limit int64) (File, error) {
	return w.ReadEntryInto(ctx, e, limit, nil)
}

// ReadEntryInto is ReadEntry reading a file from disk into *buf's
// storage, for a caller that reads many files in turn (a search): *buf
// is set to the storage read into, grown when it was too small, and the
// Content returned is valid until *buf is used again. An open document's
// text, or a symlink's target, is read as ReadEntry reads it.
func (w *Workspace) ReadEntryInto(ctx context.Context, e DirEntry, limit int64, buf *[]byte) (File, error) {
	if e.Symlink || e.IsDir {
		return w.ReadFile(ctx, e.Path, limit)
	}
	if err := w.checkResolved(e.Path); err != nil {
		return File{}, err
	}
	if _, ok := w.docs.Get(e.Path); ok {
		return w.ReadFile(ctx, e.Path, limit)
	}
	var storage []byte
	if buf != nil {
		storage = *buf
	}
	b, rel, err := w.listedBeneath(e)
	if err != nil {
		return File{}, err
	}
	defer b.release()
	data, err := readListedInto(ctx, e.Path, b, rel, limit, storage)
	if err != nil {
		return File{}, err
	}
	if buf != nil {
		*buf = data
	}
	content, hadBOM := bytes.CutPrefix(data, []byte(bom))
	return File{Path: e.Path, Real: e.Path, Content: content, BOM: hadBOM}, nil
}

// DirEntry is one name in a directory listing: a directory or a regular
// file (or a symlink to one inside the roots), or an open document.
//
// A listing is typed from the directory itself (getdents' d_type), so it
// stats only symlinks: a caller that needs an entry's size or time asks
// Info for the entries it needs (a walk can stat them as it lists, see
// WalkOptions.Stat), and a read checks the size when it opens the file.
type DirEntry struct {
	Name  string
	Path  string
	IsDir bool
	// listed is the stat the walk took of a regular file it was asked to
	// (WalkOptions.Stat), for Info; nil when not taken.
	listed *EntryInfo
	// base is the kept handle of the root or allowed directory the entry
	// was listed beneath, which a read of it starts from without checking
	// the base's name again; nil for an entry not listed from disk.
	base *baseDir
	// Ignored: .gitignore/.geminiignore rules (of the root and every
	// directory down to this one, and the root's .git/info/exclude) ignore
	// the entry or a directory above it.
	Ignored bool
	// Symlink: the entry is a symlink (to a file or directory inside the
	// roots); an engine that cannot re-check its target reads it in-process.
	Symlink bool
}

// EntryInfo is what Info tells of a listed entry.
type EntryInfo struct {
	Size    int64 // an open document's buffer's
	ModTime int64 // unix nanoseconds; open documents report now (their buffer may differ from disk)
}

// Info is the size and time of an entry a listing or walk reported: an
// open document's buffer; the stat the walk took as it listed the entry
// (WalkOptions.Stat); else a stat now, of a symlink's target (checked to
// lie inside the roots again) or of the entry itself. An entry gone since
// is ErrNotExist.
func (w *Workspace) Info(e DirEntry) (EntryInfo, error) {
	if !e.IsDir {
		if doc, ok := w.docs.Get(e.Path); ok {
			return EntryInfo{Size: int64(len(doc.Text)), ModTime: time.Now().UnixNano()}, nil
		}
	}
	if e.listed != nil { // only a walk sets it, on a path it checked
		return *e.listed, nil
	}
	if err := w.checkResolved(e.Path); err != nil {
		return EntryInfo{}, err
	}
	var fi fs.FileInfo
	var err error
	if e.Symlink {
		real, rerr := w.resolveInside(e.Path)
		if rerr != nil {
			return EntryInfo{}, rerr
		}
		fi, err = w.statBeneath(e.Path, real, (*os.Root).Stat)
	} else {
		fi, err = w.lstatListed(e)
	}
	if errors.Is(err, fs.ErrNotExist) {
		if e.IsDir && w.holdsDocuments(e.Path) {
			return EntryInfo{ModTime: time.Now().UnixNano()}, nil
		}
		return EntryInfo{}, &notExistError{e.Path}
	}
	if err != nil {
		return EntryInfo{}, fmt.Errorf("stat %w", err)
	}
	return EntryInfo{Size: fi.Size(), ModTime: fi.ModTime().UnixNano()}, nil
}

// holdsDocuments reports whether open documents lie below dir.
func (w *Workspace) holdsDocuments(dir string) bool {
	return slices.ContainsFunc(w.docs.List(), func(d Document) bool { return !samePath(d.Path, dir) && within(dir, d.Path) })
}

// dirBatch is how many entries a walk reads from one directory at a time,
// so that it never holds more of a huge directory's names than this.
const dirBatch = 4096

// Omitted counts what a listing or walk left out, ignore rules aside.
// Only directories and regular files inside the roots are listed: a
// symlink is followed, and left out when it leads outside every root,
// nowhere (dangling or looping) or to anything else.
type Omitted struct {
	Outside    int // symlinks leading outside every root
	Special    int // devices, named pipes and sockets, or symlinks to them
	Broken     int // dangling or looping symlinks, entries that could not be examined
	Unreadable int // directories that could not be listed (or listed to their end)
}

// Skipped is how many entries were left out.
func (o Omitted) Skipped() int { return o.Outside + o.Special + o.Broken + o.Unreadable }

func (o *Omitted) add(p Omitted) {
	o.Outside += p.Outside
	o.Special += p.Special
	o.Broken += p.Broken
	o.Unreadable += p.Unreadable
}

// ReadDir lists all of dir, sorted by name: disk plus open documents
// directly inside it that are not on disk (and directories holding only
// unsaved documents), with Ignored set. Symlinks report their target's
// kind. What it leaves out it counts. It holds the whole directory: a
// search streams with Walk instead.
func (w *Workspace) ReadDir(ctx context.Context, dir string) ([]DirEntry, Omitted, error) {
	if err := w.checkResolved(dir); err != nil {
		return nil, Omitted{}, err
	}
	if err := ctx.Err(); err != nil {
		return nil, Omitted{}, err
	}
	dir = filepath.Clean(dir)
	r, err := w.openDir(dir, w.docs.List(), nil)
	if err != nil {
		return nil, Omitted{}, err
	}
	defer r.close()
	var all []listed
	for !r.finished {
		if err := ctx.Err(); err != nil {
			return nil, Omitted{}, err
		}
		batch, err := r.next(dirBatch)
		if err != nil {
			return nil, Omitted{}, fmt.Errorf("listing %s: %w", dir, err)
		}
		all = append(all, batch...)
	}
	slices.SortFunc(all, byName)
	rules := w.rulesFor(ctx, w.countedIgnoreFiles(), dir)
	out := make([]DirEntry, len(all))
	for i, e := range all {
		out[i] = e.DirEntry
		out[i].Ignored = rules.match(e.Name, e.IsDir)
	}
	return out, r.om, nil
}

// Ignored reports whether ignore files ignore the file or directory at
// path (resolved), as Ignored of its directory's listing says, without
// listing the directory. A root is not ignored.
func (w *Workspace) Ignored(ctx context.Context, path string) (bool, error) {
	return w.ignoredBy(ctx, w.countedIgnoreFiles(), path)
}

// IgnoredByAny is Ignored with every ignore file counted, whatever
// SetIgnoreFiles chose not to count: a file that must not leave the
// machine, whatever the agent's searches may find.
func (w *Workspace) IgnoredByAny(ctx context.Context, path string) (bool, error) {
	return w.ignoredBy(ctx, w.countedIgnoreFiles().everyFile(), path)
}

// IgnoredLiftingGit is Ignored with .gitignore files and .git/info/exclude
// not counted, for a call whose argument lifted them (grep_search's
// no_ignore); .geminiignore and the custom ignore files still count.
func (w *Workspace) IgnoredLiftingGit(ctx context.Context, path string) (bool, error) {
	return w.ignoredBy(ctx, w.countedIgnoreFiles().liftGit(true), path)
}

func (w *Workspace) ignoredBy(ctx context.Context, files IgnoreFiles, path string) (bool, error) {
	if err := w.checkResolved(path); err != nil {
		return false, err
	}
	isDir, err := w.Stat(path)
	if err != nil {
		return false, err
	}
	path = filepath.Clean(path)
	dir := filepath.Dir(path)
	return w.rulesFor(ctx, files, dir).match(filepath.Base(path), isDir), nil
}

// listed is a DirEntry plus whether it is a symlink, which Walk does not
// follow into directories.
type listed struct {
	DirEntry
	symlink bool
}

func byName(a, b listed) int { return strings.Compare(a.Name, b.Name) }

// dirReader reads one directory a batch at a time: disk's entries, then
// the open documents inside it that disk does not hold. Nothing is left
// unread but what Omitted counts.
type dirReader struct {
	w      *Workspace
	dir    string
	f      *os.File // nil once disk's entries are all read
	prefix string   // dir and a separator
	// docs are the names of the open documents (or of directories
	// holding them) directly inside dir that disk has not shown yet,
	// each with whether it is a directory.
	docs map[string]bool
	stat func(path string) bool // see WalkOptions.Stat
	// names reads disk's entries, while f is open.
	names *direntReader
	base  *baseDir // the base dir was opened beneath
	om    Omitted
	// finished: every entry has been returned.
	finished bool
}

// openDir opens dir for reading in batches, stat-ing the regular files
// whose path stat (when not nil) names as it lists them. A directory
// missing on disk is listed when open documents lie inside it.
func (w *Workspace) openDir(dir string, docs []Document, stat func(path string) bool) (*dirReader, error) {
	return w.openDirIn(dir, nil, docs, stat)
}

// openDirIn is openDir beneath base, the kept handle dir was listed
// beneath (nil: the one its path is beneath now).
func (w *Workspace) openDirIn(dir string, base *baseDir, docs []Document, stat func(path string) bool) (*dirReader, error) {
	if slices.ContainsFunc(docs, func(d Document) bool { return samePath(d.Path, dir) }) {
		return nil, fmt.Errorf("listing %s: it is a file", dir)
	}
	r := &dirReader{w: w, dir: dir, docs: docsInside(dir, docs), stat: stat,
		// dir is clean and a name holds no separator: joining needs no
		// cleaning (filepath.Join's, per entry, shows in a walk's profile).
		prefix: strings.TrimSuffix(dir, string(filepath.Separator)) + string(filepath.Separator)}
	// Opened beneath its root, so that no symlink swapped into its path
	// leads the listing out, and so that a FIFO put in the directory's
	// place fails instead of blocking.
	b, rel, err := w.listedBeneath(DirEntry{Path: dir, base: base})
	if err != nil {
		return nil, err
	}
	if keepBases {
		r.base = b // for its entries
	} else {
		defer b.release() // the listing holds the directory itself
	}
	f, err := openDirBeneath(dir, b, rel)
	switch {
	case err == nil:
		r.f, r.names = f, w.dirNames.reader()
	case !errors.Is(err, fs.ErrNotExist):
		return nil, fmt.Errorf("listing %w", beneathError(dir, err))
	case len(r.docs) == 0:
		return nil, &notExistError{dir}
	}
	return r, nil
}

// docsInside names the open documents directly inside dir, and the
// directories inside it holding open documents (true).
func docsInside(dir string, docs []Document) map[string]bool {
	var names map[string]bool
	for _, d := range docs {
		if samePath(d.Path, dir) || !within(dir, d.Path) {
			continue
		}
		rel := strings.TrimPrefix(d.Path[len(dir):], string(filepath.Separator))
		name, _, nested := strings.Cut(rel, string(filepath.Separator))
		if names == nil {
			names = map[string]bool{}
		}
		names[name] = names[name] || nested
	}
	return names
}

// close releases the directory; reading stops.
func (r *dirReader) close() {
	if r.f != nil {
		r.f.Close()
		r.f = nil
		r.names.release()
	}
}

// next returns the next batch of at most n disk entries (fewer when some
// are left out), sorted by name; the last batch adds the open documents
// disk does not hold and sets finished. Which entries come in which
// batch is up to the file system.
func (r *dirReader) next(n int) ([]listed, error) {
	var batch []listed
	if r.f != nil {
		disk, eof, err := r.readDisk(n)
		if err != nil {
			r.close()
			return nil, err
		}
		batch = r.keep(disk)
		if !eof {
			slices.SortFunc(batch, byName)
			return batch, nil
		}
		r.close()
	}
	for name, isDir := range r.docs {
		batch = append(batch, listed{DirEntry: DirEntry{Name: name, Path: r.prefix + name, IsDir: isDir}})
	}
	r.docs, r.finished = nil, true
	slices.SortFunc(batch, byName)
	return batch, nil
}

// diskEntry is one name read from a directory, typed from the listing.
type diskEntry struct {
	name, path string
	typ        fs.FileMode
	info       *EntryInfo // taken for the regular files asked for
}

// readDisk reads up to n entries, typed from the listing (d_type; Go
// lstats an entry the file system does not type), and stats the regular
// files whose path r.stat names, relative to the open directory (a stat
// by path walks every directory above it again); eof: none are left.
func (r *dirReader) readDisk(n int) (entries []diskEntry, eof bool, err error) {
	names, eof, err := r.names.read(r.f, n)
	if err != nil {
		return nil, false, err
	}
	entries = make([]diskEntry, len(names))
	var wanted []int
	for i, de := range names {
		entries[i] = diskEntry{name: de.name, path: r.prefix + de.name, typ: de.typ}
		if r.stat != nil && entries[i].typ.IsRegular() && r.stat(entries[i].path) {
			wanted = append(wanted, i)
		}
	}
	if len(wanted) > 0 {
		statEntries(r.f, entries, wanted)
	}
	return entries, eof, nil
}

// keep is the disk entries that are directories or regular files inside
// the roots, symlinks followed, counting the rest; open documents they
// name are no longer to be added.
func (r *dirReader) keep(disk []diskEntry) []listed {
	entries := make([]listed, 0, len(disk))
	for _, de := range disk {
		e := listed{DirEntry: DirEntry{Name: de.name, Path: de.path, listed: de.info, base: r.base}}
		typ := de.typ
		if typ&fs.ModeSymlink != 0 {
			e.symlink, e.Symlink = true, true
			fi := r.w.followListed(e.Path, &r.om)
			if fi == nil {
				continue
			}
			typ = fi.Mode().Type()
		}
		switch {
		case typ.IsDir():
			e.IsDir = true
		case !typ.IsRegular():
			r.om.Special++
			continue
		}
		delete(r.docs, e.Name)
		entries = append(entries, e)
	}
	return entries
}

// followListed stats the target of the symlink at path, or counts why it
// is left out and returns nil.
func (w *Workspace) followListed(path string, om *Omitted) fs.FileInfo {
	target, err := filepath.EvalSymlinks(path)
	if err != nil {
		om.Broken++
		return nil
	}
	if w.scopeOf(target) == "" {
		om.Outside++
		return nil
	}
	fi, err := w.statBeneath(path, target, (*os.Root).Stat)
	if err != nil {
		om.Broken++
		return nil
	}
	return fi
}

// WalkOptions control Walk.
type WalkOptions struct {
	// Stat, when not nil, names (by path) the regular files whose Info
	// the caller will ask: the walk stats them as it lists their
	// directory, which costs a fraction of stat-ing them by path later.
	// It is called from several goroutines.
	Stat func(path string) bool
	// LiftGitIgnore: Ignored counts no .gitignore file and no
	// .git/info/exclude, for a search whose call's argument lifted them;
	// .geminiignore and the custom ignore files still count.
	LiftGitIgnore bool
}
