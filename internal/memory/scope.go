package memory

import (
	"context"
	"os"
	"path/filepath"

	"github.com/gemini-ls/gemini-ls/internal/workspace"
)

// scope is a directory tree context files are read from, and imports may
// reach: a project's git root (or workspace root), or the user's Gemini
// directory. Reads go through a workspace rooted there, so they get its
// guarantees (regular files only, never blocking, symlinks kept inside,
// size checked first) and see the editor's unsaved buffers.
type scope struct {
	root string // resolved
	ws   *workspace.Workspace
}

// newScope returns the scope of top, widened by extra directories; docs
// are the editor's buffers, shared with the main workspace.
func newScope(top string, extra []string, docs *workspace.Documents) (*scope, error) {
	ws, err := workspace.New(append([]string{top}, extra...), docs)
	if err != nil {
		return nil, err
	}
	return &scope{root: ws.Roots()[0], ws: ws}, nil
}

// present reports whether path names something other than a directory on
// disk (a file, or anything a read will refuse and log), or a buffer open
// in docs.
func present(docs *workspace.Documents, path string) bool {
	if fi, err := os.Lstat(path); err == nil {
		if fi.IsDir() {
			return false // a directory named GEMINI.md is skipped quietly, as in Gemini CLI
		}
		if fi.Mode()&os.ModeSymlink != 0 {
			if target, err := os.Stat(path); err == nil && target.IsDir() {
				return false
			}
		}
		return true
	}
	_, open := docs.Get(path)
	return open
}

// read returns the text of the file at path (absolute), which must lie in
// the scope once its symlinks are resolved.
func (s *scope) read(ctx context.Context, path string) (string, error) {
	real, err := s.ws.Resolve(path)
	if err != nil {
		return "", err
	}
	f, err := s.ws.ReadFile(ctx, real, MaxFileSize)
	if err != nil {
		return "", err
	}
	return string(f.Content), nil
}

// inside reports whether path (absolute), its symlinks resolved, lies in
// the scope.
func (s *scope) inside(path string) bool {
	_, err := s.ws.Resolve(filepath.Clean(path))
	return err == nil
}

// stamp is what a read of a path depended on: the file's identity, size
// and time, or its buffer's version when open in the editor.
type stamp struct {
	path    string
	info    os.FileInfo // nil when missing
	open    bool
	version int32
}

// stampOf takes path's stamp now.
func (s *scope) stampOf(path string) stamp {
	st := stamp{path: path}
	if fi, err := os.Stat(path); err == nil {
		st.info = fi
	}
	if doc, ok := s.ws.Documents().Get(path); ok {
		st.open, st.version = true, doc.Version
	}
	return st
}

// same reports whether nothing a read sees changed between a and b.
func (a stamp) same(b stamp) bool {
	if (a.info == nil) != (b.info == nil) || a.open != b.open || a.version != b.version {
		return false
	}
	if a.info == nil {
		return true
	}
	return os.SameFile(a.info, b.info) &&
		a.info.Size() == b.info.Size() &&
		a.info.ModTime().Equal(b.info.ModTime()) &&
		a.info.Mode() == b.info.Mode()
}

// cacheKey names a file read in a scope: the same path read in another
// scope (a .git appeared, say) may allow other imports.
type cacheKey struct {
	scope, path string
}

// cached is a file's expanded text, everything it was read from and
// what bounds said of its imports.
type cached struct {
	deps     []stamp
	verdicts []verdict
	text     string
	ok       bool
}

// fresh reports whether none of c's files changed since.
func (c cached) fresh(s *scope) bool {
	for _, d := range c.deps {
		if !d.same(s.stampOf(d.path)) {
			return false
		}
	}
	return true
}
