package workspace

import (
	"context"
	"errors"
	"fmt"
	"io"
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
	fi, err := os.Stat(path)
	if err == nil {
		return fi.IsDir(), nil
	}
	if !errors.Is(err, fs.ErrNotExist) {
		return false, fmt.Errorf("stat %s: %w", path, err)
	}
	for _, doc := range w.docs.List() {
		if doc.Path != path && within(path, doc.Path) {
			return true, nil
		}
	}
	return false, &notExistError{path}
}

// ReadFile reads the open document, else disk. path must be resolved.
func (w *Workspace) ReadFile(path string) (File, error) {
	if err := w.checkResolved(path); err != nil {
		return File{}, err
	}
	if doc, ok := w.docs.Get(path); ok {
		return File{
			Path:    path,
			Content: []byte(doc.Text),
			BOM:     diskHasBOM(path),
			Open:    true,
			Version: doc.Version,
		}, nil
	}
	data, err := readDiskFile(path)
	if err != nil {
		return File{}, err
	}
	content, hadBOM := strings.CutPrefix(string(data), bom)
	return File{Path: path, Content: []byte(content), BOM: hadBOM}, nil
}

// readDiskFile reads a regular file with errors that say what went wrong.
func readDiskFile(path string) ([]byte, error) {
	fi, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, &notExistError{path}
	}
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", path, err)
	}
	if fi.IsDir() {
		return nil, fmt.Errorf("reading %s: it is a directory", path)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", path, err)
	}
	return data, nil
}

// diskHasBOM reports whether the file on disk starts with a UTF-8 BOM.
func diskHasBOM(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	var head [len(bom)]byte
	n, _ := io.ReadFull(f, head[:])
	return string(head[:n]) == bom
}

// DirEntry is one name in a directory listing.
type DirEntry struct {
	Name    string
	Path    string
	IsDir   bool
	Size    int64
	ModTime int64 // unix nanoseconds; open unsaved documents report now
}

// ReadDir lists dir sorted by name: disk plus open documents directly
// inside it that are not on disk (and directories holding only unsaved
// documents). Open documents report their buffer's size. Symlinks report
// their target's kind.
func (w *Workspace) ReadDir(ctx context.Context, dir string) ([]DirEntry, error) {
	if err := w.checkResolved(dir); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	entries, err := w.readDir(filepath.Clean(dir), w.docs.List())
	if err != nil {
		return nil, err
	}
	out := make([]DirEntry, len(entries))
	for i, e := range entries {
		out[i] = e.DirEntry
	}
	return out, nil
}

// listed is a DirEntry plus whether it is a symlink, which Walk does not
// follow into directories.
type listed struct {
	DirEntry
	symlink bool
}

func (w *Workspace) readDir(dir string, docs []Document) ([]listed, error) {
	if slices.ContainsFunc(docs, func(d Document) bool { return d.Path == dir }) {
		return nil, fmt.Errorf("listing %s: it is a file", dir)
	}
	diskEntries, err := os.ReadDir(dir)
	missing := errors.Is(err, fs.ErrNotExist)
	if err != nil && !missing {
		return nil, fmt.Errorf("listing %s: %w", dir, err)
	}

	open := make(map[string]Document)
	for _, d := range docs {
		if filepath.Dir(d.Path) == dir {
			open[d.Path] = d
		}
	}
	entries := make([]listed, 0, len(diskEntries))
	seen := make(map[string]bool, len(diskEntries))
	for _, de := range diskEntries {
		e := listed{DirEntry: DirEntry{Name: de.Name(), Path: filepath.Join(dir, de.Name())}}
		fi, err := de.Info()
		if err != nil {
			continue // removed since the listing
		}
		if fi.Mode()&fs.ModeSymlink != 0 {
			e.symlink = true
			if target, err := os.Stat(e.Path); err == nil {
				fi = target
			}
		}
		e.IsDir = fi.IsDir()
		e.Size = fi.Size()
		e.ModTime = fi.ModTime().UnixNano()
		if d, ok := open[e.Path]; ok && !e.IsDir {
			e.Size = int64(len(d.Text))
		}
		seen[e.Name] = true
		entries = append(entries, e)
	}

	now := time.Now().UnixNano()
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
		e := listed{DirEntry: DirEntry{Name: name, Path: filepath.Join(dir, name), IsDir: nested, ModTime: now}}
		if !nested {
			e.Size = int64(len(d.Text))
		}
		entries = append(entries, e)
	}
	if missing && len(entries) == 0 {
		return nil, &notExistError{dir}
	}
	slices.SortFunc(entries, func(a, b listed) int { return strings.Compare(a.Name, b.Name) })
	return entries, nil
}

// WalkOptions control Walk.
type WalkOptions struct {
	RespectGitIgnore bool // .gitignore and .geminiignore; .git is always skipped
}

// Walk visits every file and directory below dir (open-but-unsaved
// documents included), depth first in name order, skipping ignored ones
// and the always-skipped directories (.git, node_modules). fn may return
// fs.SkipDir (for a directory: do not enter it; for a file: skip the rest of
// its directory) or fs.SkipAll. Symlinked directories are reported but not
// entered. Subdirectories that cannot be read are skipped.
func (w *Workspace) Walk(ctx context.Context, dir string, opts WalkOptions, fn func(e DirEntry) error) error {
	if err := w.checkResolved(dir); err != nil {
		return err
	}
	dir = filepath.Clean(dir)
	var rules ignoreRules
	if opts.RespectGitIgnore {
		rules = w.rulesFor(w.rootOf(dir), dir)
	}
	wk := walker{w: w, ctx: ctx, opts: opts, docs: w.docs.List(), fn: fn}
	entries, err := w.readDir(dir, wk.docs)
	if err != nil {
		return err
	}
	err = wk.walk(entries, rules)
	if errors.Is(err, fs.SkipAll) {
		return nil
	}
	return err
}

type walker struct {
	w    *Workspace
	ctx  context.Context
	opts WalkOptions
	docs []Document
	fn   func(DirEntry) error
}

func (wk *walker) walk(entries []listed, rules ignoreRules) error {
	for _, e := range entries {
		if err := wk.ctx.Err(); err != nil {
			return err
		}
		if alwaysSkipped(e.Name) {
			continue
		}
		if wk.opts.RespectGitIgnore && rules.match(e.Name, e.IsDir) {
			continue
		}
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
		children, err := wk.w.readDir(e.Path, wk.docs)
		if err != nil {
			continue
		}
		var childRules ignoreRules
		if wk.opts.RespectGitIgnore {
			childRules = wk.w.descend(rules, e.Name, e.Path)
		}
		if err := wk.walk(children, childRules); err != nil {
			return err
		}
	}
	return nil
}
