package workspace

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
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
	fi, err := os.Stat(path)
	if err == nil {
		return fi.IsDir(), nil
	}
	if !errors.Is(err, fs.ErrNotExist) {
		return false, fmt.Errorf("stat %s: %w", path, err)
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
	return File{Path: path, Content: content, BOM: hadBOM}, nil
}

// ReadEntry is ReadFile for a file a Walk or ReadDir reported: the walk
// built its path from resolved directories and found its last component
// not to be a symlink, so the path is not resolved again (searching a tree
// would otherwise lstat every directory above every file). The file is
// still opened as ReadFile opens it: a regular file only, without
// following a symlink swapped in since, the size checked before reading.
// A symlink entry is resolved and checked as ReadFile does.
func (w *Workspace) ReadEntry(ctx context.Context, e DirEntry, limit int64) (File, error) {
	if e.Symlink || e.IsDir {
		return w.ReadFile(ctx, e.Path, limit)
	}
	if err := w.checkResolved(e.Path); err != nil {
		return File{}, err
	}
	if _, ok := w.docs.Get(e.Path); ok {
		return w.ReadFile(ctx, e.Path, limit)
	}
	data, err := readResolved(ctx, e.Path, e.Path, limit)
	if err != nil {
		return File{}, err
	}
	content, hadBOM := bytes.CutPrefix(data, []byte(bom))
	return File{Path: e.Path, Content: content, BOM: hadBOM}, nil
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
	path := e.Path
	stat := os.Lstat
	if e.Symlink {
		real, err := w.resolveInside(e.Path)
		if err != nil {
			return EntryInfo{}, err
		}
		path, stat = real, os.Stat
	}
	fi, err := stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		if e.IsDir && w.holdsDocuments(e.Path) {
			return EntryInfo{ModTime: time.Now().UnixNano()}, nil
		}
		return EntryInfo{}, &notExistError{e.Path}
	}
	if err != nil {
		return EntryInfo{}, fmt.Errorf("stat %s: %w", e.Path, err)
	}
	return EntryInfo{Size: fi.Size(), ModTime: fi.ModTime().UnixNano()}, nil
}

// holdsDocuments reports whether open documents lie below dir.
func (w *Workspace) holdsDocuments(dir string) bool {
	return slices.ContainsFunc(w.docs.List(), func(d Document) bool { return d.Path != dir && within(dir, d.Path) })
}

// Listing caps; a listing or walk that reaches one says so in Omitted.
const (
	// MaxDirEntries is how many entries are read from one directory.
	MaxDirEntries = 10_000
	// MaxWalkEntries is how many entries one Walk reads in all.
	MaxWalkEntries = 100_000
)

// Omitted counts what a listing or walk left out, ignore rules aside.
// Only directories and regular files inside the roots are listed: a
// symlink is followed, and left out when it leads outside every root,
// nowhere (dangling or looping) or to anything else.
type Omitted struct {
	Outside    int // symlinks leading outside every root
	Special    int // devices, named pipes and sockets, or symlinks to them
	Broken     int // dangling or looping symlinks, entries that could not be examined
	Unreadable int // directories that could not be listed

	CutDirs int  // directories with more than DirCap entries: only DirCap were read
	DirCap  int  // the per-directory cap in force
	WalkCut bool // the walk read WalkCap entries and stopped there
	WalkCap int
}

// Skipped is how many entries were left out.
func (o Omitted) Skipped() int { return o.Outside + o.Special + o.Broken + o.Unreadable }

// Cut reports whether a cap stopped the listing before its end.
func (o Omitted) Cut() bool { return o.CutDirs > 0 || o.WalkCut }

func (o *Omitted) add(p Omitted) {
	o.Outside += p.Outside
	o.Special += p.Special
	o.Broken += p.Broken
	o.Unreadable += p.Unreadable
	o.CutDirs += p.CutDirs
}

// ReadDir lists dir sorted by name: disk plus open documents directly
// inside it that are not on disk (and directories holding only unsaved
// documents), at most maxEntries disk entries (MaxDirEntries when not
// positive), with Ignored set. Symlinks report their target's kind. What
// it leaves out it counts.
func (w *Workspace) ReadDir(ctx context.Context, dir string, maxEntries int) ([]DirEntry, Omitted, error) {
	if err := w.checkResolved(dir); err != nil {
		return nil, Omitted{}, err
	}
	if err := ctx.Err(); err != nil {
		return nil, Omitted{}, err
	}
	if maxEntries <= 0 {
		maxEntries = MaxDirEntries
	}
	dir = filepath.Clean(dir)
	l, err := w.readDir(dir, w.docs.List(), maxEntries, nil)
	if err != nil {
		return nil, Omitted{}, err
	}
	rules := w.rulesFor(ctx, w.RootOf(dir), dir)
	out := make([]DirEntry, len(l.entries))
	for i, e := range l.entries {
		out[i] = e.DirEntry
		out[i].Ignored = rules.match(e.Name, e.IsDir)
	}
	l.om.DirCap = maxEntries
	return out, l.om, nil
}

// listed is a DirEntry plus whether it is a symlink, which Walk does not
// follow into directories.
type listed struct {
	DirEntry
	symlink bool
}

// dirListing is one directory's entries and what was left out.
type dirListing struct {
	entries []listed // sorted by name
	om      Omitted  // CutDirs is 1 when entries were left unread
	read    int      // entries read from disk
}

// readDir lists at most maxEntries disk entries of dir (which ones, when
// there are more, is up to the file system) and the open documents
// inside it, stat-ing the regular files whose path stat (when not nil)
// names.
func (w *Workspace) readDir(dir string, docs []Document, maxEntries int, stat func(path string) bool) (dirListing, error) {
	var om Omitted
	if slices.ContainsFunc(docs, func(d Document) bool { return d.Path == dir }) {
		return dirListing{}, fmt.Errorf("listing %s: it is a file", dir)
	}
	diskEntries, cut, err := readDirNames(dir, maxEntries, stat)
	missing := errors.Is(err, fs.ErrNotExist)
	if err != nil && !missing {
		return dirListing{}, fmt.Errorf("listing %s: %w", dir, err)
	}
	if cut {
		om.CutDirs = 1
	}

	entries := make([]listed, 0, len(diskEntries))
	seen := make(map[string]bool, len(diskEntries))
	for _, de := range diskEntries {
		e := listed{DirEntry: DirEntry{Name: de.name, Path: de.path, listed: de.info}}
		typ := de.typ
		if typ&fs.ModeSymlink != 0 {
			e.symlink, e.Symlink = true, true
			fi := w.followListed(e.Path, &om)
			if fi == nil {
				continue
			}
			typ = fi.Mode().Type()
		}
		switch {
		case typ.IsDir():
			e.IsDir = true
		case !typ.IsRegular():
			om.Special++
			continue
		}
		seen[e.Name] = true
		entries = append(entries, e)
	}

	for _, d := range docs {
		if d.Path == dir || !within(dir, d.Path) {
			continue
		}
		rel := d.Path[len(dir):]
		rel = strings.TrimPrefix(rel, string(filepath.Separator))
		name, _, nested := strings.Cut(rel, string(filepath.Separator))
		if seen[name] {
			continue
		}
		seen[name] = true
		entries = append(entries, listed{DirEntry: DirEntry{Name: name, Path: filepath.Join(dir, name), IsDir: nested}})
	}
	if missing && len(entries) == 0 {
		return dirListing{}, &notExistError{dir}
	}
	slices.SortFunc(entries, func(a, b listed) int { return strings.Compare(a.Name, b.Name) })
	return dirListing{entries: entries, om: om, read: len(diskEntries)}, nil
}

// followListed stats the target of the symlink at path, or counts why it
// is left out and returns nil.
func (w *Workspace) followListed(path string, om *Omitted) fs.FileInfo {
	target, err := filepath.EvalSymlinks(path)
	if err != nil {
		om.Broken++
		return nil
	}
	if w.RootOf(target) == "" {
		om.Outside++
		return nil
	}
	fi, err := os.Stat(target)
	if err != nil {
		om.Broken++
		return nil
	}
	return fi
}

// diskEntry is one name read from a directory, typed from the listing.
type diskEntry struct {
	name, path string
	typ        fs.FileMode
	info       *EntryInfo // taken for the regular files asked for
}

// readDirNames reads at most maxEntries entries of dir, typed from the
// listing (d_type; Go lstats an entry the file system does not type), and
// stats the regular files whose path stat (when not nil) names, relative
// to the open directory (a stat by path walks every directory above it
// again). The directory is opened so that a FIFO put in its place fails
// instead of blocking; cut reports that there were more entries.
func readDirNames(dir string, maxEntries int, stat func(path string) bool) (entries []diskEntry, cut bool, err error) {
	f, err := os.OpenFile(dir, os.O_RDONLY|openDirFlags, 0)
	if err != nil {
		return nil, false, err
	}
	defer f.Close()
	des, err := f.ReadDir(maxEntries + 1)
	if err != nil && !errors.Is(err, io.EOF) {
		return nil, false, err
	}
	if len(des) > maxEntries {
		des, cut = des[:maxEntries], true
	}
	entries = make([]diskEntry, len(des))
	var wanted []int
	// dir is clean and a name holds no separator: joining needs no
	// cleaning (filepath.Join's, per entry, shows in a walk's profile).
	prefix := strings.TrimSuffix(dir, string(filepath.Separator)) + string(filepath.Separator)
	for i, de := range des {
		entries[i] = diskEntry{name: de.Name(), path: prefix + de.Name(), typ: de.Type()}
		if stat != nil && entries[i].typ.IsRegular() && stat(entries[i].path) {
			wanted = append(wanted, i)
		}
	}
	if len(wanted) > 0 {
		statEntries(f, entries, wanted)
	}
	return entries, cut, nil
}

// statEntriesByPath lstats the entries at the indexes wanted by path,
// keeping the stats of those still regular files.
func statEntriesByPath(entries []diskEntry, wanted []int) {
	for _, i := range wanted {
		if fi, err := os.Lstat(entries[i].path); err == nil && fi.Mode().IsRegular() {
			entries[i].info = &EntryInfo{Size: fi.Size(), ModTime: fi.ModTime().UnixNano()}
		}
	}
}

// WalkOptions control Walk; zero fields take the defaults.
type WalkOptions struct {
	MaxEntries    int // entries read in all; MaxWalkEntries by default
	MaxDirEntries int // entries read from one directory; MaxDirEntries by default
	// Stat, when not nil, names (by path) the regular files whose Info
	// the caller will ask: the walk stats them as it lists their
	// directory, which costs a fraction of stat-ing them by path later.
	// It is called from several goroutines.
	Stat func(path string) bool
}

// Walk visits every file and directory below dir (open-but-unsaved
// documents included), depth first in name order, with Ignored set as in
// ReadDir, skipping the always-skipped directories (.git, node_modules)
// and what Omitted counts. Directories inside ignored ones are entered
// too; a caller that does not want them returns fs.SkipDir. fn may return
// fs.SkipDir (for a directory: do not enter it; for a file: skip the rest
// of its directory) or fs.SkipAll. Symlinked directories are reported but
// not entered. Subdirectories that cannot be read are skipped and counted.
// The walk reads at most opts.MaxEntries entries.
func (w *Workspace) Walk(ctx context.Context, dir string, opts WalkOptions, fn func(e DirEntry) error) (Omitted, error) {
	if err := w.checkResolved(dir); err != nil {
		return Omitted{}, err
	}
	dir = filepath.Clean(dir)
	wk := walker{w: w, ctx: ctx, docs: w.docs.List(), fn: fn, stat: opts.Stat,
		budget: cmp.Or(opts.MaxEntries, MaxWalkEntries), dirCap: cmp.Or(opts.MaxDirEntries, MaxDirEntries),
		readers: make(chan struct{}, 4*runtime.GOMAXPROCS(0))}
	defer wk.readAhead.Wait()
	wk.om.DirCap, wk.om.WalkCap = wk.dirCap, wk.budget
	entries, err := wk.list(dir, nil)
	if err != nil {
		return Omitted{}, err
	}
	err = wk.walk(entries, w.rulesFor(ctx, w.RootOf(dir), dir))
	if errors.Is(err, fs.SkipAll) {
		err = nil
	}
	return wk.om, err
}

type walker struct {
	w      *Workspace
	ctx    context.Context
	docs   []Document
	fn     func(DirEntry) error
	stat   func(path string) bool // see WalkOptions.Stat
	budget int                    // entries still to be read
	dirCap int
	om     Omitted

	// Subdirectories that will be entered are read ahead, a few readers
	// per core (a reader waits in the kernel about as long as it
	// computes), while fn runs on what comes before them: listing (and the
	// stats asked for) is most of a walk's time.
	readers   chan struct{} // a slot per reader
	readAhead sync.WaitGroup
}

// pendingList is a directory being read ahead.
type pendingList struct {
	done chan struct{}
	l    dirListing
	err  error
}

// readAheadOf starts reading dir in the background when a reader is free
// and the budget leaves room for a whole directory; nil when not started.
func (wk *walker) readAheadOf(dir string) *pendingList {
	if wk.budget < 2*wk.dirCap {
		return nil
	}
	select {
	case wk.readers <- struct{}{}:
	default:
		return nil
	}
	p := &pendingList{done: make(chan struct{})}
	wk.readAhead.Go(func() {
		defer func() { <-wk.readers }()
		defer close(p.done)
		if wk.ctx.Err() == nil {
			p.l, p.err = wk.w.readDir(dir, wk.docs, wk.dirCap, wk.stat)
		}
	})
	return p
}

// list reads dir within the walk's budget, or takes what was read ahead
// when the budget still allows a whole directory (else it reads again, so
// what the budget cuts does not depend on timing); (nil, nil) once the
// budget is spent.
func (wk *walker) list(dir string, ahead *pendingList) ([]listed, error) {
	if wk.budget <= 0 {
		wk.om.WalkCut = true
		return nil, nil
	}
	n := min(wk.dirCap, wk.budget)
	var l dirListing
	var err error
	if ahead != nil {
		<-ahead.done
	}
	if ahead != nil && n == wk.dirCap && wk.ctx.Err() == nil {
		l, err = ahead.l, ahead.err
	} else {
		l, err = wk.w.readDir(dir, wk.docs, n, wk.stat)
	}
	if err != nil {
		return nil, err
	}
	if l.om.CutDirs > 0 && n < wk.dirCap {
		l.om.CutDirs = 0 // the walk's budget cut it, not the directory's size
		wk.om.WalkCut = true
	}
	wk.budget -= l.read
	wk.om.add(l.om)
	return l.entries, nil
}

// enters reports whether the walk would enter e (fn permitting).
func enters(e listed, ignored bool) bool {
	return e.IsDir && !e.symlink && !ignored && !alwaysSkipped(e.Name)
}

func (wk *walker) walk(entries []listed, rules ignoreRules) error {
	ahead := make([]*pendingList, len(entries))
	next := 0 // entries before next have been considered for reading ahead
	for i, e := range entries {
		if err := wk.ctx.Err(); err != nil {
			return err
		}
		if alwaysSkipped(e.Name) {
			continue
		}
		e.Ignored = rules.match(e.Name, e.IsDir)
		err := wk.fn(e.DirEntry)
		if errors.Is(err, fs.SkipDir) {
			if e.IsDir {
				continue
			}
			return nil
		}
		if err != nil {
			return err
		}
		if !e.IsDir || e.symlink {
			continue
		}
		// Read ahead the next directories (not ignored ones, which
		// callers mostly skip) while this one's subtree is walked.
		for next = max(next, i+1); next < len(entries); next++ {
			if c := entries[next]; enters(c, rules.match(c.Name, c.IsDir)) {
				if ahead[next] = wk.readAheadOf(c.Path); ahead[next] == nil {
					break
				}
			}
		}
		children, err := wk.list(e.Path, ahead[i])
		if err != nil {
			wk.om.Unreadable++
			continue
		}
		childRules := wk.w.descend(wk.ctx, rules, e.Name, e.Path, e.Ignored, children)
		if err := wk.walk(children, childRules); err != nil {
			return err
		}
	}
	return nil
}
