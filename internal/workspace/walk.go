package workspace

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"runtime"
	"sync"
)

// Walk visits every file and directory below dir (open-but-unsaved
// documents included), with Ignored set as in ReadDir, skipping the
// always-skipped directories (.git, node_modules, .gemini/worktrees) and what Omitted
// counts, on every core: a goroutine per core takes a directory, lists it
// a batch at a time (dirBatch entries) and calls fn for each batch's
// entries in name order, then takes the next directory. So fn is called
// from several goroutines at once, for different directories in no set
// order; a search whose result must not depend on that order orders what
// fn found itself (ComparePaths orders it as a walk of directories in
// name order would meet it). Nothing else is left out, however big a
// directory: the walk runs until it ends, fn stops it or ctx is done
// (ctx.Err()), checked between entries. Directories inside ignored ones
// are entered too; a caller that does not want them returns fs.SkipDir.
// fn may return fs.SkipDir (for a directory: do not enter it; for a
// file: skip the rest of its directory), fs.SkipAll, or an error, which
// ends the walk. Symlinked directories are reported but not entered.
// Subdirectories that cannot be read are skipped and counted.
//
// Directories waiting to be walked are taken deepest first, and of
// siblings the first in name order, so that the walk holds few of them at
// once and meets the tree roughly in path order.
func (w *Workspace) Walk(ctx context.Context, dir string, opts WalkOptions, fn func(e DirEntry) error) (Omitted, error) {
	if err := w.checkResolved(dir); err != nil {
		return Omitted{}, err
	}
	if err := ctx.Err(); err != nil {
		return Omitted{}, err
	}
	dir = filepath.Clean(dir)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	pw := &parallelWalk{w: w, ctx: ctx, cancel: cancel, docs: w.docs.List(), fn: fn, stat: opts.Stat}
	pw.idle = sync.NewCond(&pw.mu)
	top, err := w.openDir(dir, pw.docs, pw.stat)
	if err != nil {
		return Omitted{}, err
	}
	first, err := top.next(dirBatch)
	if err != nil {
		top.close()
		return Omitted{}, fmt.Errorf("listing %s: %w", dir, err)
	}
	pw.pending = []pendingDir{{path: dir, opened: top, first: first, rules: w.rulesFor(ctx, w.countedIgnoreFiles().liftGit(opts.LiftGitIgnore), dir)}}
	var wg sync.WaitGroup
	for range runtime.GOMAXPROCS(0) {
		wg.Go(pw.work)
	}
	wg.Wait()
	for _, d := range pw.pending { // the top, when the walk ended before it began
		if d.opened != nil {
			d.opened.close()
		}
	}
	switch {
	case pw.err != nil && !errors.Is(pw.err, fs.SkipAll):
		return pw.om, pw.err
	case pw.err == nil && ctx.Err() != nil:
		return pw.om, ctx.Err()
	}
	return pw.om, nil
}

// parallelWalk is one Walk.
type parallelWalk struct {
	w      *Workspace
	ctx    context.Context
	cancel context.CancelFunc
	docs   []Document
	fn     func(DirEntry) error
	stat   func(path string) bool

	// mu guards what follows: the directories not taken yet, how many are
	// being walked, what was left out and how the walk ended.
	mu      sync.Mutex
	idle    *sync.Cond // signalled when pending grows or the walk ends
	pending []pendingDir
	busy    int
	om      Omitted
	err     error // the first of fn's errors (fs.SkipAll included)
}

// pendingDir is a directory to walk: its parent's rules and whether it
// is ignored, since its own rules need its listing.
type pendingDir struct {
	path, name string
	parent     ignoreRules
	ignored    bool
	// base is the kept handle it was listed beneath, which its listing
	// starts from without checking the base's name.
	base *baseDir
	// The top directory, opened by Walk, its first batch read,
	// and its rules.
	opened *dirReader
	first  []listed
	rules  ignoreRules
}

// work walks directories until none are left or the walk ends.
func (pw *parallelWalk) work() {
	for {
		d, ok := pw.take()
		if !ok {
			return
		}
		om, subdirs, err := pw.walkDir(d)
		pw.done(om, subdirs, err)
	}
}

// take waits for a directory to walk; false when the walk is over.
func (pw *parallelWalk) take() (pendingDir, bool) {
	pw.mu.Lock()
	defer pw.mu.Unlock()
	for len(pw.pending) == 0 && pw.busy > 0 && pw.err == nil && pw.ctx.Err() == nil {
		pw.idle.Wait()
	}
	if len(pw.pending) == 0 || pw.err != nil || pw.ctx.Err() != nil {
		pw.idle.Broadcast()
		return pendingDir{}, false
	}
	d := pw.pending[len(pw.pending)-1]
	pw.pending[len(pw.pending)-1] = pendingDir{}
	pw.pending = pw.pending[:len(pw.pending)-1]
	pw.busy++
	return d, true
}

// done records a walked directory: what it left out, its subdirectories
// to walk and how fn ended it.
func (pw *parallelWalk) done(om Omitted, subdirs []pendingDir, err error) {
	pw.mu.Lock()
	defer pw.mu.Unlock()
	pw.busy--
	pw.om.add(om)
	// The first in name order on top: taken first, so the walk goes
	// through the tree roughly in path order, which a search bounded by
	// path order (grep_search's cap) counts on.
	for i := len(subdirs) - 1; i >= 0; i-- {
		pw.pending = append(pw.pending, subdirs[i])
	}
	if err != nil && pw.err == nil && pw.ctx.Err() == nil {
		pw.err = err
		pw.cancel()
	}
	pw.idle.Broadcast()
}

// walkDir lists one directory, batch by batch, calling fn for its
// entries and returning the subdirectories fn lets the walk enter.
func (pw *parallelWalk) walkDir(d pendingDir) (om Omitted, subdirs []pendingDir, err error) {
	r, batch, rules := d.opened, d.first, d.rules
	if r == nil {
		if r, err = pw.w.openDirIn(d.path, d.base, pw.docs, pw.stat); err == nil {
			if batch, err = r.next(dirBatch); err != nil {
				r.close()
			}
		}
		if err != nil {
			if pw.ctx.Err() == nil {
				om.Unreadable++
			}
			return om, nil, nil
		}
	}
	defer func() {
		r.close()
		om.add(r.om)
	}()
	if d.opened == nil {
		// A listing read whole tells which ignore files exist.
		var listing []listed
		if r.finished {
			listing = batch
		}
		rules = pw.w.descend(pw.ctx, d.parent, d.name, d.path, d.ignored, listing)
	}
	dirName := cmp.Or(d.name, filepath.Base(d.path))
	for {
		for _, e := range batch {
			if err := pw.ctx.Err(); err != nil {
				return om, subdirs, nil
			}
			if alwaysSkipped(dirName, e.Name) {
				continue
			}
			e.Ignored = rules.match(e.Name, e.IsDir)
			err := pw.fn(e.DirEntry)
			switch {
			case errors.Is(err, fs.SkipDir) && e.IsDir:
				continue
			case errors.Is(err, fs.SkipDir):
				return om, subdirs, nil // the rest of the directory
			case err != nil:
				return om, subdirs, err
			}
			if e.IsDir && !e.symlink {
				subdirs = append(subdirs, pendingDir{path: e.Path, name: e.Name, parent: rules, ignored: e.Ignored, base: e.base})
			}
		}
		if r.finished {
			return om, subdirs, nil
		}
		if batch, err = r.next(dirBatch); err != nil {
			if pw.ctx.Err() == nil {
				r.om.Unreadable++ // listed up to here
			}
			return om, subdirs, nil
		}
	}
}

// ComparePaths orders two slash-separated relative paths as a walk of
// directories in name order meets them: component by component, so a
// directory's entries come before its next sibling's ("a/z" before
// "a-b"). It is strings.Compare with "/" lower than every other byte.
func ComparePaths(a, b string) int {
	n := min(len(a), len(b))
	i := 0
	for i < n && a[i] == b[i] {
		i++
	}
	switch {
	case i == n:
		return cmp.Compare(len(a), len(b))
	case a[i] == '/':
		return -1
	case b[i] == '/':
		return 1
	case a[i] < b[i]:
		return -1
	}
	return 1
}
